//! The lanes that read `nvq top`'s GPUs (this machine's, one lane a GPU,
//! or the nodes of `--hosts`, one lane a node) under the sample's
//! deadline, and a sample put together from their parts (a late lane shown
//! late, with what is known of it).

use crate::hosts::{Client, Conn, Failure, Host};
use crate::schedule::deadline::{self, PerGpu};
use nvq_core::error::NvqError;
use nvq_core::model::top::{GpuSnap, Health, HostSnap, HostState, ProcSnap, TopSample};
use nvq_core::model::NvmlCode;
use nvq_core::nvml::Session;
use nvq_core::source::top::TopReader;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

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
pub(super) enum Source {
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
pub(super) struct Collector {
    workers: PerGpu<Part>,
    lanes: Lanes,
    /// The `ssh` masters of the `ssh://` nodes, shared by their samples
    /// (killed and reaped when the collector goes).
    _masters: Option<crate::hosts::lanes::Masters>,
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
        let (gpus, procs, state, lacks) =
            match crate::hosts::top::read_top(&mut conn, deadline, &last) {
                Ok(read) => {
                    last.clone_from(&read.gpus);
                    let lacks = read
                        .no_processes
                        .map(|e| Arc::from(format!("{e} lists no processes")));
                    (read.gpus, read.procs, HostState::Reachable, lacks)
                }
                Err(Failure::Late) => (late_gpus(&last), Vec::new(), HostState::Late, None),
                Err(f) => (
                    Vec::new(),
                    Vec::new(),
                    HostState::Failed(Arc::from(f.to_string())),
                    None,
                ),
            };
        Part {
            gpus,
            procs,
            host: Some(HostSnap {
                name: Arc::clone(&name),
                state,
                lacks,
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
    pub(super) fn start(
        source: &Source,
        interval_ms: u64,
        notify: Option<deadline::Notify>,
    ) -> Result<Self, NvqError> {
        let interval_ms = Arc::new(AtomicU64::new(interval_ms));
        let (workers, lanes, masters) = match source {
            Source::Local(session, devices, _) => {
                let count = session.device_count().unwrap_or(0);
                let jobs = devices
                    .iter()
                    .map(|&gpu| local_job(session, gpu, count))
                    .collect();
                let known = devices
                    .iter()
                    .map(|&d| (d, Arc::default(), Arc::default()))
                    .collect();
                let workers = PerGpu::start_notifying(jobs, notify)
                    .map_err(|e| NvqError::Start(format!("cannot start the GPU readers: {e}")))?;
                (workers, Lanes::Local(known), None)
            }
            Source::Hosts(hosts, client, _) => {
                // On the screen, an ssh:// node's samples share one ssh
                // connection, as a loop's do.
                let looping = notify.is_some();
                let (workers, masters) =
                    crate::hosts::lanes::start(hosts, client, looping, notify, |conn| {
                        host_job(conn, Arc::clone(&interval_ms))
                    })?;
                let known = hosts
                    .iter()
                    .map(|h| (Arc::from(h.name.as_str()), Vec::new()))
                    .collect();
                (workers, Lanes::Hosts(known), Some(masters))
            }
        };
        Ok(Collector {
            workers,
            lanes,
            _masters: masters,
            interval_ms,
        })
    }

    /// One sample, every GPU answered or late by `deadline` (waits).
    pub(super) fn sample(&mut self, deadline: Instant) -> TopSample {
        let t = now_s();
        let parts = self.workers.sample(deadline, late(&self.lanes));
        self.assemble(t, parts)
    }

    /// Start a sample that the lanes begin at `tick` (now or later) and is
    /// over by `deadline`; `next`: the tick after it. Returns its time
    /// (seconds since the epoch); [`Collector::poll`] takes it.
    pub(super) fn begin(&mut self, tick: Instant, deadline: Instant, next: Instant) -> f64 {
        self.workers.begin_at(tick, deadline, Some(next));
        epoch_s(tick)
    }

    /// Move the sample not yet started to `tick` (a new interval).
    pub(super) fn reschedule(
        &mut self,
        tick: Instant,
        deadline: Instant,
        next: Instant,
    ) -> Option<f64> {
        self.workers
            .reschedule(tick, deadline, Some(next))
            .then(|| epoch_s(tick))
    }

    /// The sample begun at `t`, once every GPU has answered or the deadline
    /// has passed.
    pub(super) fn poll(&mut self, t: f64) -> Option<TopSample> {
        let parts = self.workers.poll(late(&self.lanes))?;
        Some(self.assemble(t, parts))
    }

    /// When the sample in progress must be looked at though no lane spoke.
    pub(super) fn wake_at(&self) -> Option<Instant> {
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
    pub(super) fn set_interval(&self, ms: u64) {
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
                    lacks: None,
                }),
            }
        }
    }
}
