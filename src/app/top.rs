//! `nvq top`: the interactive view.
//!
//! Besides the GPU lanes, four threads wait for something:
//! - the **input** thread for keys and resizes;
//! - the **signal** thread for SIGINT, SIGTERM or SIGHUP;
//! - the **job control** thread for SIGTSTP and SIGCONT: the UI thread puts
//!   the terminal back and stops (as on Ctrl+Z, which raw mode delivers as
//!   a key), and takes the terminal again and draws it whole once
//!   continued, as htop and nvtop do;
//! - the **alarm** thread (`schedule::alarm`) for the checkpoint of a
//!   sample that is late.
//!
//! The screen's state (the schedule, the history, the terminal: [`Loop`])
//! is shared, under one lock, by the UI thread (this one), which handles
//! keys, signals and the alarm, and the lanes of
//! `schedule::deadline::PerGpu`, which read every selected GPU. A lane that
//! has run out of a sample's work handles the sample itself (history, leak
//! marks, the frame) and begins the next, which it starts on the next tick
//! on its own timer; it sets the alarm to that sample's checkpoint (halfway
//! to the deadline, then the deadline). So while the GPUs answer, a sample
//! costs one wake-up, the lane's, and the alarm, moved on each time before
//! it comes, never rings. A hung GPU keeps its lane in a call, never holding
//! the lock: the alarm rings, the UI thread splits the lane or ends the
//! sample with the GPU marked late, and the keys go on being answered. The
//! GPUs are never read on the UI thread. A frame is drawn only when
//! something shown changed, and only the changed cells are written.

use super::plan::Common;
use crate::cli::top::TopArgs;
use crate::cli::top::{bad_interval, LEAK_AFTER_S};
use crate::hosts::ssh::Master;
use crate::hosts::{Client, Conn, Failure, Host};
use crate::schedule::alarm::Alarm;
use crate::schedule::deadline::{self, lock, PerGpu};
use crate::schedule::signals::{StopSignals, Wake};
use crate::tui::columns::Leak;
use crate::tui::state::{Action, Ui, MAX_INTERVAL_MS, MIN_INTERVAL_MS};
use crate::tui::term::{self, Input, Mouse};
use crate::tui::view::{
    self, FullMap, Hit, LeakMap, Screen, MEM_FIELD, PROC_MEM_FIELD, UTIL_FIELD,
};
use nvq_core::error::NvqError;
use nvq_core::model::history::{History, Point, SeriesRef};
use nvq_core::model::top::{GpuSnap, Health, HostSnap, HostState, ProcSnap, TopSample};
use nvq_core::model::trend::{rising_trend, TrendConfig};
use nvq_core::model::NvmlCode;
use nvq_core::nvml::{LibSource, NotInstalled, Session};
use nvq_core::source::top::TopReader;
use std::collections::HashMap;
use std::ffi::OsString;
use std::io::IsTerminal;
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// Points kept per series: ten minutes at the fastest refresh (100 ms),
/// 100 minutes at the default one.
pub const HISTORY_CAP: usize = 6000;

/// How often the leak marks are worked out again.
const TREND_EVERY: Duration = Duration::from_secs(1);

/// A series not updated for this long (a process that exited) is dropped.
const FORGET_AFTER_S: f64 = 3600.0;

/// `top`'s checked options.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Plan {
    interval_ms: u64,
    once: bool,
    /// `--leak-after`, in seconds.
    leak_after_s: Option<f64>,
}

impl Plan {
    fn trend(&self) -> TrendConfig {
        let mut trend = TrendConfig::default();
        if let Some(secs) = self.leak_after_s {
            trend.min_duration_s = secs;
            trend.window_s = secs * 2.0;
        }
        trend
    }
}

fn plan(a: &TopArgs, interval: Option<Duration>) -> Result<Plan, NvqError> {
    let interval_ms = match interval {
        None => 1000,
        Some(d) => {
            let ms = u64::try_from(d.as_millis()).unwrap_or(u64::MAX);
            if !(MIN_INTERVAL_MS..=MAX_INTERVAL_MS).contains(&ms) {
                return Err(bad_interval(
                    a.interval
                        .as_ref()
                        .map_or(&format!("{}", d.as_secs_f64()), |i| &i.given),
                ));
            }
            ms
        }
    };
    // Read by clap, from 1 s to a day (`cli::top`).
    let leak_after_s = a.leak_after.as_ref().map(|s| s.duration.as_secs_f64());
    Ok(Plan {
        interval_ms,
        once: a.once,
        leak_after_s,
    })
}

/// The executable that `nvq top` hands its checked options to (see
/// [`Handoff`]), installed beside nvq or in `../lib/nvq/`.
pub const TOP_EXECUTABLE: &str = "nvq-top";

/// `nvq top` once its options are checked: the plan, the `-i` selection
/// (looked up once NVML is open) and the NVML library (`None`: the
/// system's). `nvq top` hands it to [`TOP_EXECUTABLE`], a program that holds
/// `top`'s code and little else (a third less resident memory than all of
/// nvq), as the arguments [`Handoff::to_args`] writes and
/// [`Handoff::parse`] reads, replacing itself (the same process, terminal
/// and signals); without that executable it runs [`run_checked`] itself.
#[derive(Debug, Clone, PartialEq)]
pub struct Handoff {
    plan: Plan,
    id: Option<String>,
    lib: Option<PathBuf>,
    /// `--hosts`: the nodes shown instead of this machine's GPUs.
    hosts: Option<Nodes>,
}

/// The nodes of `nvq top --hosts`, as handed to [`TOP_EXECUTABLE`]: the
/// entries as named, and how to reach them (file names, never a secret:
/// the other program reads the files, and `$NVQ_HOSTS_PASSWORD` is in its
/// environment).
#[derive(Debug, Clone, PartialEq)]
pub struct Nodes {
    entries: Vec<String>,
    options: crate::hosts::Options,
}

/// The hand-off's options for [`Nodes::options`], each with its field.
type PathOption = (
    &'static str,
    fn(&mut crate::hosts::Options) -> &mut Option<PathBuf>,
);
const PATH_OPTIONS: [PathOption; 5] = [
    ("--hosts-password-file", |o| &mut o.password_file),
    ("--hosts-bearer-token-file", |o| &mut o.bearer_token_file),
    ("--hosts-ca-file", |o| &mut o.ca_file),
    ("--hosts-cert-file", |o| &mut o.cert_file),
    ("--hosts-key-file", |o| &mut o.key_file),
];

/// What [`TOP_EXECUTABLE`] says when it is not given a hand-off.
const NOT_A_HANDOFF: &str =
    "nvq-top is the program `nvq top` runs; run `nvq top` (see nvq top --help).";

/// The hand-off's plan and `-i` selection, as one JSON object (`--plan`),
/// and with `--hosts` the nodes (their entries hold only ASCII letters,
/// digits and a few signs) and the options that are text.
#[derive(serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Wire {
    plan: Plan,
    id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    hosts: Option<WireNodes>,
}

/// [`Nodes`] but for its files, in [`Wire`].
#[derive(serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct WireNodes {
    entries: Vec<String>,
    user: Option<String>,
    server_name: Option<String>,
}

impl Handoff {
    /// The arguments of [`TOP_EXECUTABLE`] (after its name): `--plan` and
    /// the plan and selection as JSON (serde_json), then `--nvml-lib` and
    /// the library, and each `--hosts-*-file` and its file: paths, which
    /// may hold any bytes, as arguments of their own.
    pub fn to_args(&self) -> Vec<OsString> {
        let wire = Wire {
            plan: self.plan.clone(),
            id: self.id.clone(),
            hosts: self.hosts.as_ref().map(|n| WireNodes {
                entries: n.entries.clone(),
                user: n.options.user.clone(),
                server_name: n.options.server_name.clone(),
            }),
        };
        // Numbers, booleans and text: serde_json writes them all.
        let json = serde_json::to_string(&wire).unwrap_or_default();
        let mut out: Vec<OsString> = vec!["--plan".into(), json.into()];
        if let Some(lib) = &self.lib {
            out.extend(["--nvml-lib".into(), lib.into()]);
        }
        if let Some(n) = &self.hosts {
            let mut o = n.options.clone();
            for (flag, field) in PATH_OPTIONS {
                if let Some(p) = field(&mut o).take() {
                    out.extend([flag.into(), p.into()]);
                }
            }
        }
        out
    }

    /// Read what [`Handoff::to_args`] wrote, its values in their ranges;
    /// anything else is a usage error.
    pub fn parse(args: &[OsString]) -> Result<Self, NvqError> {
        let bad = || NvqError::Usage(NOT_A_HANDOFF.into());
        let (json, paths) = match args {
            [flag, json, paths @ ..] if flag == "--plan" && paths.len() % 2 == 0 => (json, paths),
            _ => return Err(bad()),
        };
        let wire: Wire = serde_json::from_str(json.to_str().ok_or_else(bad)?).map_err(|_| bad())?;
        let plan = wire.plan;
        let leak_ok = !matches!(plan.leak_after_s, Some(s) if !LEAK_AFTER_S.contains(&s));
        if !(MIN_INTERVAL_MS..=MAX_INTERVAL_MS).contains(&plan.interval_ms) || !leak_ok {
            return Err(bad());
        }
        let mut hosts = match wire.hosts {
            Some(n) if n.entries.is_empty() => return Err(bad()),
            Some(n) => Some(Nodes {
                entries: n.entries,
                options: crate::hosts::Options {
                    user: n.user,
                    server_name: n.server_name,
                    ..crate::hosts::Options::default()
                },
            }),
            None => None,
        };
        let mut lib = None;
        for pair in paths.chunks(2) {
            let [flag, path] = pair else {
                return Err(bad());
            };
            let slot = if flag == "--nvml-lib" {
                &mut lib
            } else {
                let (_, field) = PATH_OPTIONS
                    .iter()
                    .find(|(f, _)| flag == *f)
                    .ok_or_else(bad)?;
                // A node's file without nodes is not a hand-off.
                field(&mut hosts.as_mut().ok_or_else(bad)?.options)
            };
            if slot.replace(PathBuf::from(path)).is_some() {
                return Err(bad());
            }
        }
        Ok(Handoff {
            plan,
            id: wire.id,
            lib,
            hosts,
        })
    }
}

pub fn run(a: &TopArgs, common: &Common<'_>) -> Result<(), NvqError> {
    let plan = plan(a, common.interval)?;
    let terminal = std::io::stdout().is_terminal() && std::io::stdin().is_terminal();
    if !(plan.once || terminal) {
        return Err(NvqError::Usage(
            "top: needs a terminal; for one frame as text use `nvq top --once`.".into(),
        ));
    }
    let handoff = Handoff {
        plan,
        id: common.id.map(str::to_string),
        lib: common.lib.resolve()?,
        hosts: nodes(common)?,
    };
    // With stdout closed at the start, the runtime put /dev/null there:
    // the other program would not know. Then nvq runs the screen itself.
    if !crate::output::stdout_closed() {
        match nvq_core::nvml::find_installed(TOP_EXECUTABLE) {
            Ok(exe) => {
                // Only returns when the program could not be started.
                let _ = std::process::Command::new(exe)
                    .args(handoff.to_args())
                    .exec();
            }
            // Another user could have put it there: never run it (nvq may
            // be root), say so, and draw the screen here.
            Err(NotInstalled::Untrusted(why)) => {
                eprintln!(
                    "nvq: top: not running {TOP_EXECUTABLE}: {why} nvq draws the screen itself."
                );
            }
            Err(NotInstalled::Missing(_)) => {}
        }
    }
    run_checked(&handoff)
}

/// `--hosts` (or `$NVQ_HOSTS`) for `nvq top`: the nodes, checked (their
/// credential and TLS files read once here, to fail before the screen).
fn nodes(common: &Common<'_>) -> Result<Option<Nodes>, NvqError> {
    let a = common.hosts;
    let Some(list) = crate::hosts::list::hosts(a.hosts.as_deref())? else {
        if a.any() {
            return Err(NvqError::Usage(
                "the --hosts-* options say how to reach the nodes of --hosts (or $NVQ_HOSTS): name them."
                    .into(),
            ));
        }
        return Ok(None);
    };
    if common.id.is_some() {
        return Err(NvqError::Usage(
            "-i selects local GPUs; nvq top --hosts shows every GPU of the nodes.".into(),
        ));
    }
    let options = super::hosts::options(a);
    super::hosts::client(&list, &options)?;
    Ok(Some(Nodes {
        entries: list.into_iter().map(|h| h.name).collect(),
        options,
    }))
}

/// `nvq top` with its options checked: in nvq itself, or in [`TOP_EXECUTABLE`].
pub fn run_checked(h: &Handoff) -> Result<(), NvqError> {
    let plan = &h.plan;
    if !plan.once {
        crate::schedule::signals::arm();
    }
    let source = match &h.hosts {
        Some(n) => {
            let hosts = n
                .entries
                .iter()
                .map(|e| crate::hosts::list::parse_entry(e))
                .collect::<Result<Vec<_>, _>>()?;
            let client = super::hosts::client(&hosts, &n.options)?;
            let title = format!(
                "nvq top · {} host{}",
                hosts.len(),
                if hosts.len() == 1 { "" } else { "s" }
            );
            Source::Hosts(hosts, client, title)
        }
        None => {
            let lib = match &h.lib {
                Some(p) => LibSource::Path(p.clone()),
                None => LibSource::System,
            };
            let session = Arc::new(Session::open(&lib)?);
            let devices = nvq_core::nvml::select::select(&session, h.id.as_deref())?;
            let title = format!(
                "nvq top · driver {}",
                session.driver_version().unwrap_or("?")
            );
            Source::Local(session, devices, title)
        }
    };
    let title = match &source {
        Source::Hosts(.., t) | Source::Local(.., t) => t.clone(),
    };
    if plan.once {
        let mut collector = Collector::start(&source, plan.interval_ms, None)?;
        return once(plan, &mut collector, &title);
    }
    let (tx, rx) = mpsc::channel::<Msg>();
    let ring = tx.clone();
    let alarm = Alarm::start(move || {
        let _ = ring.send(Msg::Alarm);
    })
    .map_err(|e| NvqError::Start(format!("top: cannot start a timer: {e}")))?;
    let shared: Shared = Arc::new(Mutex::new(None));
    let notify: deadline::Notify = {
        let (shared, tx) = (Arc::clone(&shared), tx.clone());
        // A lane has run out of a sample's work: the sample is handled here,
        // on the lane, which then begins the next (see the module's text).
        Arc::new(move || {
            let mut held = lock(&shared);
            let Some(l) = held.as_mut() else { return };
            if let Err(e) = l.handle(None) {
                l.failed = Some(e);
                let _ = tx.send(Msg::Stop);
            }
        })
    };
    let collector = Collector::start(&source, plan.interval_ms, Some(notify))?;
    interactive(plan, collector, title, (tx, rx), &shared, alarm)
}

/// The screen's state, shared by the UI thread (keys, signals, the alarm)
/// and the lanes (a sample is in). `None` before the screen is set up and
/// once it is put away.
type Shared = Arc<Mutex<Option<Loop>>>;

fn now_s() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64())
}

/// `at` (now or later) in seconds since the epoch.
fn epoch_s(at: Instant) -> f64 {
    now_s() + at.saturating_duration_since(Instant::now()).as_secs_f64()
}

/// Where the GPUs come from: this machine's (the NVML session, the
/// selected devices), or the nodes of `--hosts`; and the screen's title.
enum Source {
    Local(Arc<Session>, Vec<u32>, String),
    Hosts(Vec<Host>, Client, String),
}

/// One lane's part of a sample: a local GPU (and its processes), or a
/// node's GPUs and processes and how it answered.
struct Part {
    gpus: Vec<GpuSnap>,
    procs: Vec<ProcSnap>,
    host: Option<HostSnap>,
}

/// What the lanes read, and what is known of them for a late sample.
enum Lanes {
    /// One lane per local GPU: its index, its UUID and name as last read
    /// (a late GPU keeps its name).
    Local(Vec<(u32, Arc<str>, Arc<str>)>),
    /// One lane per node: its name, and its GPUs as last read (shown late
    /// while the node is).
    Hosts(Vec<(Arc<str>, Vec<GpuSnap>)>),
}

/// The GPU readers and what late GPUs are shown with.
struct Collector {
    workers: PerGpu<Part>,
    lanes: Lanes,
    /// The `ssh` masters of the `ssh://` nodes, shared by their samples
    /// (killed and reaped when the collector goes).
    _masters: Vec<Option<Master>>,
    /// The refresh interval, which a node's requests take their deadline
    /// from (the keys change it).
    interval_ms: Arc<AtomicU64>,
}

/// A local GPU's lane: its reader, looked up on the first run.
fn local_job(session: &Arc<Session>, gpu: u32, count: u32) -> impl FnMut() -> Part + Send {
    let sess = Arc::clone(session);
    // Looked up on the first run, on a lane, under a deadline.
    let mut state: Option<(Vec<nvq_core::source::Target>, TopReader)> = None;
    move || {
        let (targets, reader) = state
            .get_or_insert_with(|| (nvq_core::source::targets(&sess, &[gpu]), TopReader::new()));
        let (g, procs) = match targets.first() {
            Some(t) => reader.read(&sess, t, count),
            None => (
                GpuSnap::unknown(
                    gpu,
                    Arc::default(),
                    Arc::default(),
                    Health::Lost(NvmlCode::UNKNOWN),
                ),
                Vec::new(),
            ),
        };
        Part {
            gpus: vec![g],
            procs,
            host: None,
        }
    }
}

/// A node's lane: both its queries, by the sample's deadline, on its
/// connection kept from sample to sample.
fn host_job(mut conn: Conn, interval_ms: Arc<AtomicU64>) -> impl FnMut() -> Part + Send {
    let name: Arc<str> = Arc::from(conn.host().name.as_str());
    let mut last: Vec<GpuSnap> = Vec::new();
    move || {
        let interval = Duration::from_millis(interval_ms.load(Ordering::Relaxed));
        let deadline = Instant::now() + deadline::limit_for(interval);
        let (gpus, procs, state) = match crate::hosts::top::read_top(&mut conn, deadline, &last) {
            Ok((gpus, procs)) => {
                last.clone_from(&gpus);
                (gpus, procs, HostState::Reachable)
            }
            Err(Failure::Late) => (late_gpus(&last), Vec::new(), HostState::Late),
            Err(f) => (
                Vec::new(),
                Vec::new(),
                HostState::Failed(Arc::from(f.to_string())),
            ),
        };
        Part {
            gpus,
            procs,
            host: Some(HostSnap {
                name: Arc::clone(&name),
                state,
            }),
        }
    }
}

/// A node's GPUs as last read, shown late (who they are, no values).
fn late_gpus(known: &[GpuSnap]) -> Vec<GpuSnap> {
    known
        .iter()
        .map(|g| {
            let mut l = GpuSnap::unknown(
                g.index,
                Arc::clone(&g.uuid),
                Arc::clone(&g.name),
                Health::Late,
            );
            l.host = Arc::clone(&g.host);
            l
        })
        .collect()
}

impl Collector {
    /// `notify` is called by a lane when it has run out of a sample's work.
    fn start(
        source: &Source,
        interval_ms: u64,
        notify: Option<deadline::Notify>,
    ) -> Result<Self, NvqError> {
        let interval_ms = Arc::new(AtomicU64::new(interval_ms));
        type Job = Box<dyn FnMut() -> Part + Send>;
        let mut masters = Vec::new();
        let (jobs, lanes): (Vec<Job>, Lanes) = match source {
            Source::Local(session, devices, _) => {
                let count = session.device_count().unwrap_or(0);
                let jobs = devices
                    .iter()
                    .map(|&gpu| Box::new(local_job(session, gpu, count)) as Job)
                    .collect();
                let known = devices
                    .iter()
                    .map(|&d| (d, Arc::default(), Arc::default()))
                    .collect();
                (jobs, Lanes::Local(known))
            }
            Source::Hosts(hosts, client, _) => {
                // On the screen, an ssh:// node's samples share one ssh
                // connection, as a loop's do.
                masters = hosts
                    .iter()
                    .map(|h| match &h.ssh {
                        Some(login) if notify.is_some() => Master::start(h, login),
                        _ => None,
                    })
                    .collect();
                let jobs = hosts
                    .iter()
                    .zip(&masters)
                    .map(|(h, master)| {
                        let mut conn = client.conn(h.clone());
                        if let Some(m) = master {
                            conn = conn.over_master(m.socket().to_path_buf());
                        }
                        Box::new(host_job(conn, Arc::clone(&interval_ms))) as Job
                    })
                    .collect();
                let known = hosts
                    .iter()
                    .map(|h| (Arc::from(h.name.as_str()), Vec::new()))
                    .collect();
                (jobs, Lanes::Hosts(known))
            }
        };
        let workers = PerGpu::start_notifying(jobs, notify)
            .map_err(|e| NvqError::Start(format!("cannot start the GPU readers: {e}")))?;
        Ok(Collector {
            workers,
            lanes,
            _masters: masters,
            interval_ms,
        })
    }

    /// One sample, every GPU answered or late by `deadline` (waits).
    fn sample(&mut self, deadline: Instant) -> TopSample {
        let t = now_s();
        let parts = self.workers.sample(deadline, late(&self.lanes));
        self.assemble(t, parts)
    }

    /// Start a sample that the lanes begin at `tick` (now or later) and is
    /// over by `deadline`; `next`: the tick after it. Returns its time
    /// (seconds since the epoch); [`Collector::poll`] takes it.
    fn begin(&mut self, tick: Instant, deadline: Instant, next: Instant) -> f64 {
        self.workers.begin_at(tick, deadline, Some(next));
        epoch_s(tick)
    }

    /// Move the sample not yet started to `tick` (a new interval).
    fn reschedule(&mut self, tick: Instant, deadline: Instant, next: Instant) -> Option<f64> {
        self.workers
            .reschedule(tick, deadline, Some(next))
            .then(|| epoch_s(tick))
    }

    /// The sample begun at `t`, once every GPU has answered or the deadline
    /// has passed.
    fn poll(&mut self, t: f64) -> Option<TopSample> {
        let parts = self.workers.poll(late(&self.lanes))?;
        Some(self.assemble(t, parts))
    }

    /// When the sample in progress must be looked at though no lane spoke.
    fn wake_at(&self) -> Option<Instant> {
        self.workers.wake_at()
    }

    fn assemble(&mut self, t: f64, parts: Vec<Part>) -> TopSample {
        let procs = parts.iter().map(|p| p.procs.len()).sum();
        let gpus = parts.iter().map(|p| p.gpus.len()).sum();
        let mut sample = TopSample {
            t,
            gpus: Vec::with_capacity(gpus),
            procs: Vec::with_capacity(procs),
            hosts: Vec::new(),
        };
        for (i, mut part) in parts.into_iter().enumerate() {
            match &mut self.lanes {
                Lanes::Local(known) => {
                    if let (Some(k), Some(gpu)) = (known.get_mut(i), part.gpus.first_mut()) {
                        keep_name(k, gpu);
                    }
                }
                Lanes::Hosts(known) => {
                    if let (Some((_, k)), Some(h)) = (known.get_mut(i), &part.host) {
                        if h.state == HostState::Reachable && *k != part.gpus {
                            k.clone_from(&part.gpus);
                        }
                    }
                }
            }
            sample.gpus.append(&mut part.gpus);
            sample.procs.append(&mut part.procs);
            sample.hosts.extend(part.host);
        }
        sample
    }

    /// A new refresh interval: the nodes' next requests take their
    /// deadline from it.
    fn set_interval(&self, ms: u64) {
        self.interval_ms.store(ms, Ordering::Relaxed);
    }
}

/// A local GPU that no longer says who it is (lost) keeps its name; a new
/// name is kept (its strings' counts are touched once, not every sample).
fn keep_name(k: &mut (u32, Arc<str>, Arc<str>), gpu: &mut GpuSnap) {
    if gpu.uuid.is_empty() {
        gpu.uuid = Arc::clone(&k.1);
    }
    if gpu.name.is_empty() {
        gpu.name = Arc::clone(&k.2);
    }
    if !Arc::ptr_eq(&k.1, &gpu.uuid) || !Arc::ptr_eq(&k.2, &gpu.name) {
        k.1 = Arc::clone(&gpu.uuid);
        k.2 = Arc::clone(&gpu.name);
    }
}

/// What a lane that did not answer in time is shown as: a late GPU with
/// the name it last had, or a late node with its GPUs as last read.
fn late(lanes: &Lanes) -> impl FnMut(usize) -> Part + '_ {
    move |i| match lanes {
        Lanes::Local(known) => {
            let (index, uuid, name) = known.get(i).cloned().unwrap_or_default();
            Part {
                gpus: vec![GpuSnap::unknown(index, uuid, name, Health::Late)],
                procs: Vec::new(),
                host: None,
            }
        }
        Lanes::Hosts(known) => {
            let (name, gpus) = known
                .get(i)
                .map(|(n, g)| (Arc::clone(n), late_gpus(g)))
                .unwrap_or_default();
            Part {
                gpus,
                procs: Vec::new(),
                host: Some(HostSnap {
                    name,
                    state: HostState::Late,
                }),
            }
        }
    }
}

/// `--once`: one frame, as plain text, the size of the terminal (80×24
/// when there is none).
fn once(plan: &Plan, collector: &mut Collector, title: &str) -> Result<(), NvqError> {
    let limit = deadline::limit_for(Duration::from_millis(plan.interval_ms));
    let sample = collector.sample(Instant::now() + limit);
    let mut history = History::new(HISTORY_CAP);
    record(&mut history, &sample);
    let (w, h) = ratatui::crossterm::terminal::size().unwrap_or((80, 24));
    let ui = Ui::new(plan.interval_ms, false);
    let (leaks, full) = (HashMap::new(), HashMap::new());
    let screen = Screen {
        sample: &sample,
        history: &history,
        leaks: &leaks,
        gpu_full_s: &full,
        ui: &ui,
        title,
    };
    let area = ratatui::layout::Rect::new(0, 0, w.max(40), h.max(12));
    let mut buf = ratatui::buffer::Buffer::empty(area);
    view::render(&screen, area, &mut buf);
    crate::output::Sink::stdout().write(crate::tui::buffer_text(&buf).as_bytes())
}

/// Add a sample's values to the history.
fn record(history: &mut History, s: &TopSample) {
    for g in s.gpus.iter().filter(|g| g.health == Health::Fresh) {
        let points = [
            g.mem_used.map(|v| (MEM_FIELD, v as f64)),
            g.util_gpu.map(|v| (UTIL_FIELD, v)),
        ];
        history.push_row(
            SeriesRef::Gpu {
                uuid: &g.series_id(),
            },
            points
                .into_iter()
                .flatten()
                .map(|(f, v)| (f, Point { t: s.t, v })),
        );
    }
    for p in &s.procs {
        if let Some(v) = p.gpu_mem {
            history.push(
                proc_key(p, &p.gpu_series_id()),
                PROC_MEM_FIELD,
                Point {
                    t: s.t,
                    v: v as f64,
                },
            );
        }
    }
    history.forget_older_than(s.t - FORGET_AFTER_S);
}

/// A process's series, on its GPU's series id `gpu`.
fn proc_key<'a>(p: &ProcSnap, gpu: &'a str) -> SeriesRef<'a> {
    SeriesRef::Process {
        gpu_uuid: gpu,
        pid: p.pid,
        start: p.start,
    }
}

/// The processes whose memory rises steadily, and the GPUs whose memory
/// does, with their time to full.
fn leaks(history: &History, s: &TopSample, cfg: &TrendConfig) -> (LeakMap, FullMap) {
    let mut procs = HashMap::new();
    let mut gpus = HashMap::new();
    let free: HashMap<(&str, u32), f64> = s
        .gpus
        .iter()
        .filter_map(|g| {
            Some((
                (&*g.host, g.index),
                g.mem_total? as f64 - g.mem_used? as f64,
            ))
        })
        .collect();
    for g in &s.gpus {
        let cap = g.mem_total.map(|t| t as f64);
        let series = history.series(
            SeriesRef::Gpu {
                uuid: &g.series_id(),
            },
            MEM_FIELD,
        );
        if let Some(full) = series
            .and_then(|x| rising_trend(x, cap, cfg))
            .and_then(|t| t.time_to_full_s)
        {
            gpus.insert((Arc::clone(&g.host), g.index), full);
        }
    }
    for p in &s.procs {
        let Some(t) = history
            .series(proc_key(p, &p.gpu_series_id()), PROC_MEM_FIELD)
            .and_then(|x| rising_trend(x, None, cfg))
        else {
            continue;
        };
        if t.slope_per_s > 0.0 {
            let gpu_full_s = free
                .get(&(&*p.host, p.gpu))
                .map(|f| f.max(0.0) / t.slope_per_s);
            procs.insert(
                (Arc::clone(&p.host), p.gpu, p.pid),
                Leak {
                    rate: t.slope_per_s,
                    gpu_full_s,
                },
            );
        }
    }
    (procs, gpus)
}

/// What reaches the UI thread.
enum Msg {
    /// The alarm: the sample in progress has come to its halfway point or
    /// its deadline without every lane having answered.
    Alarm,
    Input(Input),
    Stop,
    /// SIGTSTP: put the terminal back and stop.
    Suspend,
    /// SIGCONT: take the terminal again (if it was put back) and draw the
    /// whole screen.
    Continued,
}

fn interactive(
    plan: &Plan,
    collector: Collector,
    title: String,
    (tx, rx): (Sender<Msg>, Receiver<Msg>),
    shared: &Shared,
    alarm: Arc<Alarm>,
) -> Result<(), NvqError> {
    let signals = StopSignals::install();
    let colour = crate::output::terminal::stdout_colour(false);
    term::install_panic_hook();
    let terminal = term::Terminal::enter().map_err(|e| {
        NvqError::Terminal(format!(
            "top: cannot use this terminal ({e}); try `nvq top --once`."
        ))
    })?;
    let spawn = |name: &str, f: Box<dyn FnOnce() + Send>| {
        std::thread::Builder::new()
            .name(name.to_string())
            .spawn(f)
            .map(|_| ())
            .map_err(|e| NvqError::Start(format!("top: cannot start a thread: {e}")))
    };
    {
        let tx = tx.clone();
        spawn(
            "nvq-top-input",
            Box::new(move || loop {
                let input = term::next_input();
                let closed = matches!(input, Input::Closed);
                if tx.send(Msg::Input(input)).is_err() || closed {
                    break;
                }
            }),
        )?;
    }
    {
        let tx = tx.clone();
        spawn(
            "nvq-top-signals",
            Box::new(move || {
                let far = Instant::now() + Duration::from_secs(86400 * 365);
                loop {
                    if let Wake::Signal = signals.sleep_until(far, None) {
                        let _ = tx.send(Msg::Stop);
                        break;
                    }
                }
            }),
        )?;
    }
    // Without these handlers SIGTSTP would stop nvq top on the alternate
    // screen, in raw mode, with mouse reporting on.
    if let Ok(mut job) = signal_hook::iterator::Signals::new([libc::SIGTSTP, libc::SIGCONT]) {
        spawn(
            "nvq-top-job",
            Box::new(move || {
                for sig in job.forever() {
                    let msg = if sig == libc::SIGTSTP {
                        Msg::Suspend
                    } else {
                        Msg::Continued
                    };
                    if tx.send(msg).is_err() {
                        break;
                    }
                }
            }),
        )?;
    }
    *lock(shared) = Some(Loop::new(
        plan,
        collector,
        terminal,
        colour,
        title,
        Arc::clone(&alarm),
    ));
    let result = ui_loop(shared, &rx);
    // Put the screen away (the terminal as it was) here, whatever the end:
    // a lane that comes later finds nothing to draw on. The lanes' closure
    // holds `shared`, so the state would otherwise never be dropped.
    alarm.set(None);
    let state = lock(shared).take();
    drop(state);
    result
}

/// When to sample: every interval from the first tick; a pause stops it.
/// Each sample is begun as soon as the one before is over, to start on its
/// tick: the lanes then wake on their own timer.
struct Schedule {
    /// The tick of the next sample to begin.
    next: Instant,
    /// The sample in progress: its time (seconds since the epoch).
    begun: Option<f64>,
}

impl Schedule {
    /// What to wait for: the sample in progress, or the next tick.
    fn wake_at(&self, c: &Collector, paused: bool) -> Option<Instant> {
        match self.begun {
            Some(_) => c.wake_at(),
            None if paused => None,
            None => Some(self.next),
        }
    }

    /// Take the sample in progress if it is over, and begin the next one.
    fn step(&mut self, c: &mut Collector, interval_ms: u64, paused: bool) -> Option<TopSample> {
        let interval = Duration::from_millis(interval_ms);
        let mut done = None;
        if let Some(t) = self.begun {
            done = c.poll(t);
            if done.is_some() {
                self.begun = None;
            }
        }
        if self.begun.is_none() && !paused {
            // A hung GPU can push a sample past its tick: skip missed ticks.
            let now = Instant::now();
            while self.next + interval <= now {
                self.next += interval;
            }
            let tick = self.next.max(now);
            self.next = tick + interval;
            self.begun = Some(c.begin(tick, tick + deadline::limit_for(interval), self.next));
        }
        done
    }

    /// A new interval or the end of a pause: the next sample now.
    fn restart(&mut self, c: &mut Collector, interval_ms: u64) {
        let interval = Duration::from_millis(interval_ms);
        let now = Instant::now();
        self.next = now;
        if self.begun.is_some() {
            let moved = c.reschedule(now, now + deadline::limit_for(interval), now + interval);
            if let Some(t) = moved {
                self.begun = Some(t);
                self.next = now + interval;
            }
        }
    }
}

/// The screen's state between samples and keys.
struct Loop {
    collector: Collector,
    terminal: term::Terminal,
    title: String,
    ui: Ui,
    trend_cfg: TrendConfig,
    history: History,
    sample: TopSample,
    leak_map: LeakMap,
    full_map: FullMap,
    last_trend: Option<Instant>,
    schedule: Schedule,
    /// Set, after each message or sample, to [`Loop::wake_at`].
    alarm: Arc<Alarm>,
    /// Why a lane could not handle its sample (the UI thread returns it).
    failed: Option<NvqError>,
}

/// What a frame shows, as one `Screen` of a [`Loop`]'s fields (a macro:
/// the fields are borrowed only while the screen is used).
macro_rules! screen {
    ($l:expr) => {
        Screen {
            sample: &$l.sample,
            history: &$l.history,
            leaks: &$l.leak_map,
            gpu_full_s: &$l.full_map,
            ui: &$l.ui,
            title: &$l.title,
        }
    };
}

fn draw_err(e: std::io::Error) -> NvqError {
    NvqError::Terminal(format!("top: cannot draw: {e}"))
}

impl Loop {
    fn new(
        plan: &Plan,
        collector: Collector,
        terminal: term::Terminal,
        colour: bool,
        title: String,
        alarm: Arc<Alarm>,
    ) -> Loop {
        let mut history = History::new(HISTORY_CAP);
        // The leak marks read these series' trends once a second.
        history.keep_minima_of(MEM_FIELD);
        history.keep_minima_of(PROC_MEM_FIELD);
        Loop {
            collector,
            terminal,
            title,
            ui: Ui::new(plan.interval_ms, colour),
            trend_cfg: plan.trend(),
            history,
            sample: TopSample::default(),
            leak_map: HashMap::new(),
            full_map: HashMap::new(),
            last_trend: None,
            schedule: Schedule {
                next: Instant::now(),
                begun: None,
            },
            alarm,
            failed: None,
        }
    }

    /// Put the terminal back, stop as SIGTSTP does (`group`: the process
    /// group, as the terminal's Ctrl+Z), and once continued take the
    /// terminal again; the caller draws the whole screen. The lanes wait
    /// meanwhile: this runs under the state's lock.
    fn suspend(&mut self, group: bool) -> Result<(), NvqError> {
        self.terminal.leave();
        crate::schedule::signals::stop_as_sigtstp(group);
        self.terminal.take_again().map_err(draw_err)
    }

    /// When the alarm must go off: the sample in progress's checkpoint, or
    /// the next tick.
    fn wake_at(&self) -> Option<Instant> {
        self.schedule.wake_at(&self.collector, self.ui.paused)
    }

    /// Handle `msg` (`None`: a lane ran out of work, or the first time
    /// round), take the sample in progress if it is over and begin the next,
    /// draw if something shown changed, and set the alarm to what is waited
    /// for next. Returns whether to quit.
    fn handle(&mut self, msg: Option<Msg>) -> Result<bool, NvqError> {
        let mut dirty = false;
        match msg {
            None | Some(Msg::Alarm) => {}
            Some(Msg::Input(Input::Key(k))) => {
                test_panic_on_key();
                match self.ui.key(k, self.sample.gpus.len()) {
                    Action::Quit => return Ok(true),
                    Action::Suspend => {
                        self.suspend(true)?;
                        dirty = true;
                    }
                    Action::Collector => {
                        // A new interval or a pause: the next tick is now.
                        self.collector.set_interval(self.ui.interval_ms);
                        self.schedule
                            .restart(&mut self.collector, self.ui.interval_ms);
                        dirty = true;
                    }
                    Action::Redraw => dirty = true,
                    Action::None => {}
                }
            }
            Some(Msg::Input(Input::Mouse(m))) => {
                let area = self.terminal.tui.area();
                let screen = screen!(self);
                let (hit, more) = match m {
                    Mouse::Click { x, y } => (view::hit(&screen, area, x, y), 0),
                    _ => (None, {
                        let rows = view::shown_processes(&screen).len();
                        rows.saturating_sub(view::process_rows(&screen, area))
                    }),
                };
                let action = match (m, hit) {
                    (Mouse::Click { .. }, Some(Hit::Gpu(i))) => self.ui.click_gpu(i),
                    (Mouse::Click { .. }, Some(Hit::Column(c))) => self.ui.click_column(c),
                    (Mouse::WheelDown, _) => self.ui.wheel(true, more),
                    (Mouse::WheelUp, _) => self.ui.wheel(false, more),
                    _ => Action::None,
                };
                dirty = action != Action::None;
            }
            Some(Msg::Input(Input::Resize)) => {
                self.terminal.tui.autoresize().map_err(draw_err)?;
                dirty = true;
            }
            Some(Msg::Input(Input::Closed) | Msg::Stop) => return Ok(true),
            Some(Msg::Suspend) => {
                self.suspend(false)?;
                dirty = true;
            }
            Some(Msg::Continued) => {
                self.terminal.take_again().map_err(draw_err)?;
                dirty = true;
            }
        }
        // Take the sample in progress if it is over, begin the next on its
        // tick (after the keys: a pause or a new interval counts at once).
        let (interval_ms, paused) = (self.ui.interval_ms, self.ui.paused);
        // A frame after keys, the mouse or a resize is drawn whole; one after
        // a sample, over the last (what is the same is kept).
        let whole = dirty;
        let (mut before, mut old_marks) = (None, None);
        if let Some(s) = self.schedule.step(&mut self.collector, interval_ms, paused) {
            if !paused {
                record(&mut self.history, &s);
                // Redraw only what would look different: other values,
                // other marks, or curves that moved by a column (when a new
                // column of time begins).
                let now = Screen {
                    sample: &s,
                    ..screen!(self)
                };
                let moved = view::curves_moved(&now, self.terminal.tui.area(), self.sample.t);
                dirty |= s.gpus != self.sample.gpus
                    || s.procs != self.sample.procs
                    || s.hosts != self.sample.hosts
                    || moved;
                if self.last_trend.map_or(true, |t| t.elapsed() >= TREND_EVERY) {
                    let (l, f) = leaks(&self.history, &s, &self.trend_cfg);
                    if l != self.leak_map || f != self.full_map {
                        dirty = true;
                        let l = std::mem::replace(&mut self.leak_map, l);
                        old_marks = Some((l, std::mem::replace(&mut self.full_map, f)));
                    }
                    self.last_trend = Some(Instant::now());
                }
                before = Some(std::mem::replace(&mut self.sample, s));
                self.ui.selected = self
                    .ui
                    .selected
                    .min(self.sample.gpus.len().saturating_sub(1));
            }
        }
        if dirty {
            let screen = screen!(self);
            let tui = &mut self.terminal.tui;
            let (leaks, gpu_full_s) = old_marks
                .as_ref()
                .map_or((screen.leaks, screen.gpu_full_s), |(l, f)| (l, f));
            match before.as_ref() {
                Some(sample) if !whole && tui.holds_last_frame() => {
                    let old = view::Before {
                        sample,
                        leaks,
                        gpu_full_s,
                    };
                    tui.draw_over(|area, buf| view::render_over(&screen, &old, area, buf))
                }
                _ => tui.draw(|area, buf| view::render(&screen, area, buf)),
            }
            .map_err(draw_err)?;
        }
        self.alarm.set(self.wake_at());
        Ok(false)
    }
}

/// The UI thread: the first sample, then keys, signals and the alarm, each
/// handled under the state's lock, until a quit.
fn ui_loop(shared: &Shared, rx: &Receiver<Msg>) -> Result<(), NvqError> {
    let mut msg: Option<Msg> = None;
    loop {
        let mut held = lock(shared);
        let Some(l) = held.as_mut() else {
            return Ok(());
        };
        if let Some(e) = l.failed.take() {
            return Err(e);
        }
        if l.handle(msg)? {
            return Ok(());
        }
        drop(held);
        // Sleep until a key, a signal or the alarm (a lane handles its
        // sample itself).
        msg = Some(rx.recv().unwrap_or(Msg::Stop));
    }
}

/// Debug and test builds only: with `NVQ_TEST_TOP_PANIC=key`, the first
/// key panics, so that `tests/top.rs` can check that a panic puts the
/// terminal back. Release builds have no such switch.
#[cfg(debug_assertions)]
#[allow(clippy::panic)]
fn test_panic_on_key() {
    if std::env::var_os("NVQ_TEST_TOP_PANIC").is_some_and(|v| v == "key") {
        panic!("NVQ_TEST_TOP_PANIC: a panic on a key, as asked");
    }
}

#[cfg(not(debug_assertions))]
fn test_panic_on_key() {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn intervals_and_durations() {
        let bad = |s: &str| {
            let argv = ["top", "-d", s].map(OsString::from).to_vec();
            match crate::cli::parse(argv) {
                Ok(crate::cli::Parsed::Run(args)) => match &args.command {
                    Some(crate::cli::Command::Top(a)) => {
                        plan(a, a.interval.as_ref().map(|i| i.duration)).is_err()
                    }
                    _ => false,
                },
                _ => true,
            }
        };
        assert!(bad("0.05") && bad("11") && bad("x") && bad("-1") && bad("nan"));
        assert!(!bad("0.1") && !bad("10") && !bad("0.5") && !bad("500ms") && !bad("2s"));
    }

    #[test]
    fn the_handoff_reads_back_what_it_wrote_and_nothing_else() {
        let h = Handoff {
            plan: Plan {
                interval_ms: 100,
                once: true,
                leak_after_s: Some(90.5),
            },
            id: Some("0,GPU-1f2e".into()),
            lib: Some(PathBuf::from("/opt/x y/libnvidia-ml.so.1")),
            hosts: Some(Nodes {
                entries: vec!["gpu1".into(), "https://gpu2:9835/nvq".into()],
                options: crate::hosts::Options {
                    user: Some("alice".into()),
                    password_file: Some(PathBuf::from("/etc/nvq/pass word")),
                    ca_file: Some(PathBuf::from("/etc/nvq/ca.pem")),
                    server_name: Some("gpu.example".into()),
                    ..crate::hosts::Options::default()
                },
            }),
        };
        assert_eq!(Handoff::parse(&h.to_args()).ok(), Some(h));
        let plain = Handoff {
            plan: Plan {
                interval_ms: 1000,
                once: false,
                leak_after_s: None,
            },
            id: None,
            lib: None,
            hosts: None,
        };
        assert_eq!(
            plain.to_args(),
            [
                "--plan",
                r#"{"plan":{"interval_ms":1000,"once":false,"leak_after_s":null},"id":null}"#
            ]
            .map(OsString::from)
        );
        assert_eq!(Handoff::parse(&plain.to_args()).ok(), Some(plain));
        let bad = |args: &[&str]| {
            let args: Vec<OsString> = args.iter().map(OsString::from).collect();
            match Handoff::parse(&args) {
                Err(NvqError::Usage(m)) => m == NOT_A_HANDOFF,
                _ => false,
            }
        };
        // No plan, a user's options, values out of range, missing or unknown.
        let plan = |p: &str| format!(r#"{{"plan":{{{p}}},"id":null}}"#);
        let ok = plan(r#""interval_ms":100,"once":false,"leak_after_s":null"#);
        assert!(!bad(&["--plan", &ok]));
        assert!(bad(&[]));
        assert!(bad(&["--interval", "1"]));
        assert!(bad(&[
            "--plan",
            &plan(r#""interval_ms":50,"once":false,"leak_after_s":null"#)
        ]));
        assert!(bad(&[
            "--plan",
            &plan(r#""interval_ms":100,"once":false,"leak_after_s":0"#)
        ]));
        assert!(bad(&[
            "--plan",
            &plan(r#""interval_ms":100,"leak_after_s":null"#)
        ]));
        assert!(bad(&[
            "--plan",
            &plan(r#""interval_ms":100,"once":false,"leak_after_s":null,"x":1"#)
        ]));
        assert!(bad(&["--plan", &ok, "--nvml-lib"]));
        assert!(bad(&["--plan", &ok, "--help"]));
        // A node's file without nodes, a file twice, no node.
        assert!(bad(&["--plan", &ok, "--hosts-ca-file", "/x"]));
        let with_hosts = r#"{"plan":{"interval_ms":100,"once":false,"leak_after_s":null},"id":null,"hosts":{"entries":["a"],"user":null,"server_name":null}}"#;
        assert!(!bad(&["--plan", with_hosts, "--hosts-ca-file", "/x"]));
        assert!(bad(&[
            "--plan",
            with_hosts,
            "--hosts-ca-file",
            "/x",
            "--hosts-ca-file",
            "/y"
        ]));
        let no_node = with_hosts.replace(r#"["a"]"#, "[]");
        assert!(bad(&["--plan", &no_node]));
    }
}
