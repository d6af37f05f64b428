//! `nvq run -- CMD`: start the command at once (before NVML is loaded),
//! as `child` supervises it; beside it, a sampler thread loads NVML and
//! reads, every interval, each GPU's memory and compute processes, marking
//! those of the job (every process below nvq, a child subreaper: each GPU
//! process's parents walked up once, `child::tree::Members`). Each GPU is
//! read on its own lane of `schedule::deadline`, under the sample's
//! deadline, so a hung GPU stalls
//! neither the others nor the job. When the command ends, the verdicts are
//! drawn (`model::job_verdict`: leak, out of memory), the report goes to
//! stderr (or `--report-file`), a bundle is kept when the job died of
//! out-of-memory (`--bundle`, `run_bundle`), and nvq exits with the
//! command's status.
//!
//! Nothing of the watching can stop the job: NVML that cannot be loaded, a
//! GPU that cannot be read or hangs leaves a note in the report; nvq waits
//! for a stuck sampler at most a second after the command ended.

use super::plan::Common;
use super::run_bundle::{self, Bundle};
use crate::child;
use crate::cli::run::{Budget, BudgetAction, ReportForm, RunArgs};
use crate::error::NvqError;
use crate::model::job::{GpuReading, JobTrack, Recent, RecentSample, RunReport};
use crate::model::job_verdict::{self, OomReason, OOM_LAST_MS};
use crate::model::smi_table::SmiTable;
use crate::model::trend::TrendConfig;
use crate::nvml::{select, LibSource, NvmlCode, Session};
use crate::output::Sink;
use crate::render;
use crate::schedule::deadline::{self, lock, PerGpu};
use crate::source::job::OtherNames;
use crate::source::pmon::UtilSamples;
use crate::source::procinfo::{parse_cmdline, HostProc};
use crate::source::smi_table::Part;
use crate::source::top::PROCESS_UTIL_EVERY;
use crate::source::xid::XidCounts;
use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

/// The default interval between samples.
pub const DEFAULT_INTERVAL: Duration = Duration::from_millis(100);

/// How long nvq waits, after the command ended, for a sample under way.
const SAMPLER_GRACE: Duration = Duration::from_secs(1);

/// The shortest wait for a GPU in a sample: a busy machine seldom makes a
/// healthy GPU this late, and a hung one is given up on once, then not
/// waited for again until its call returns (`schedule::deadline`).
pub const MIN_DEADLINE: Duration = Duration::from_secs(1);

/// How much of the end of a run `--bundle` keeps, ms...
pub const BUNDLE_MS: u64 = 60_000;
/// ... in at most this many samples (all of 60 s down to a 50 ms interval).
pub const RECENT_MAX: usize = 1200;

/// With `--bundle`, a GPU's part of the summary table is read again at the
/// job's peak there at most this often.
pub const TABLE_EVERY: Duration = Duration::from_millis(500);

/// A GPU's lateness: samples in which its lane did not answer in time.
#[derive(Default)]
struct Late {
    /// Samples it missed.
    count: u64,
    /// The first one, ms since the start.
    first_ms: u64,
    /// Since when it has missed every sample (`None`: it answered last).
    since_ms: Option<u64>,
}

/// What the sampler has gathered, shared with the main thread.
struct Seen {
    track: JobTrack,
    commands: BTreeMap<u32, String>,
    notes: Vec<String>,
    /// GPUs already noted as failing (one note each).
    failing: BTreeSet<u32>,
    /// GPUs that missed a sample's deadline.
    late: BTreeMap<u32, Late>,
    /// Each job process's rank, by PID.
    ranks: BTreeMap<u32, u32>,
    /// The first time the job passed `--budget`: what to say.
    over_budget: Option<String>,
    /// The last samples (the out-of-memory verdict's, the bundle's).
    recent: Recent,
    /// The other processes' names, shared with the lanes.
    names: Arc<Mutex<OtherNames>>,
    /// With `--bundle`: each GPU's part of the table at the job's peak there.
    table: BTreeMap<u32, TablePart>,
    /// With `--bundle`: the table, put together when the sampler stopped.
    table_text: Option<String>,
    /// With `--bundle`: the XID events counted, and what kept them from being counted.
    xid: Option<Xids>,
}

impl Seen {
    fn new(keep_ms: u64, interval: Duration) -> Self {
        let per = interval.as_millis().max(1) as u64;
        let max = usize::try_from(keep_ms / per + 2).unwrap_or(RECENT_MAX);
        Seen {
            track: JobTrack::default(),
            commands: BTreeMap::new(),
            notes: Vec::new(),
            failing: BTreeSet::new(),
            late: BTreeMap::new(),
            ranks: BTreeMap::new(),
            over_budget: None,
            recent: Recent::new(keep_ms, max.min(RECENT_MAX)),
            names: Arc::default(),
            table: BTreeMap::new(),
            table_text: None,
            xid: None,
        }
    }
}

/// The XID events counted, and what kept them from being counted.
type Xids = (Arc<XidCounts>, Arc<Mutex<Vec<String>>>);

/// Per GPU index: the job's peak so far there, the job's bytes when its
/// table part was last read, and when.
type TableWatch = Mutex<BTreeMap<u32, (u64, u64, Option<Instant>)>>;

/// A GPU's part of the summary table, read at the job's peak there.
struct TablePart {
    part: Part,
    when: SystemTime,
}

/// What the sampler does beside reading: the log, the budget, the bundle.
struct Duties {
    log: Option<Sink>,
    budget: Option<(Budget, BudgetAction)>,
    bundle: bool,
}

/// How long `--budget-action=stop` waits after SIGTERM before SIGKILL.
pub const STOP_GRACE: Duration = Duration::from_secs(10);

/// Run `nvq run`.
pub fn run(a: &RunArgs, common: &Common<'_>) -> Result<(), NvqError> {
    one_arena();
    let form = a.report_form()?;
    let interval = common.interval.unwrap_or(DEFAULT_INTERVAL);
    // A report file or bundle that cannot be written is refused before the command starts.
    let report_sink = a.report_file.as_deref().map(Sink::file).transpose()?;
    let bundle = a.bundle.as_deref().map(Bundle::prepare).transpose()?;
    let mut duties = Duties {
        log: a.log.as_deref().map(Sink::file).transpose()?,
        budget: a.budget()?,
        bundle: bundle.is_some(),
    };
    let trend = trend_config(a);
    let torch = if a.torch || a.torch_snapshot {
        Some(child::torch::Torch::open(
            interval,
            a.torch_snapshot,
            in_job,
        )?)
    } else {
        None
    };
    let heard = torch.as_ref().map(|t| Arc::clone(&t.heard));
    child::arm(child::RUN_SIGNALS);
    child::become_subreaper();
    let started = Instant::now();
    let env = torch
        .as_ref()
        .map(child::torch::Torch::env)
        .unwrap_or_default();
    let start_epoch = epoch_now();
    let job = child::start_with(&a.command, &env)?;
    // What parsing the command line touched is not needed again.
    release_start_up_pages();
    let keep_ms = if bundle.is_some() {
        BUNDLE_MS
    } else {
        OOM_LAST_MS
    };
    let seen = Arc::new(Mutex::new(Seen::new(keep_ms, interval)));
    // The command's exit status, when it has ended.
    let (stop, stopped) = mpsc::channel::<i32>();
    let (done_tx, done) = mpsc::channel::<()>();
    {
        let seen = Arc::clone(&seen);
        let lib = common.lib.clone();
        let id = common.id.map(str::to_string);
        let command = command_text(&a.command);
        std::thread::spawn(move || {
            log_event(
                &seen,
                &mut duties,
                render::job::start_line(start_epoch, &command),
            );
            let exit = sample(
                &lib,
                id.as_deref(),
                interval,
                started,
                &stopped,
                &seen,
                &mut duties,
                heard.as_deref(),
            )
            .or_else(|| stopped.recv().ok());
            if let Some(code) = exit {
                log_event(&seen, &mut duties, render::job::end_line(epoch_now(), code));
            }
            let _ = done_tx.send(());
        });
    }
    let exit = job.wait_reaping()?;
    let run_ms = started.elapsed().as_millis() as u64;
    let _ = stop.send(exit);
    if done.recv_timeout(SAMPLER_GRACE).is_err() {
        note(
            &seen,
            "a GPU call had not returned when the command ended (a hung GPU?)".into(),
        );
    }
    let mut s = lock(&seen);
    let late = late_notes(&s.late, run_ms);
    s.notes.extend(late);
    let mut notes = s.notes.clone();
    let torch_report = torch.as_ref().map(|t| {
        let heard = lock(&t.heard);
        if heard.reported.is_empty() {
            notes.push(
                "--torch: no process of the job sent PyTorch's counters (torch not \
                 imported, CUDA not initialized, or Python run with -E, -I or -S)"
                    .into(),
            );
        }
        notes.extend(heard.notes());
        super::run_torch::report(t, &heard, a.bundle.as_deref(), &mut notes)
    });
    // PyTorch's word is a reason of its own beside the GPU's fullness.
    let also: &[OomReason] = match &torch_report {
        Some(t) if !t.ooms.is_empty() => &[OomReason::TorchReported],
        _ => &[],
    };
    let names = lock(&s.names);
    let fullest = s.recent.fullest(
        run_ms,
        &s.track.gpus,
        &names.of(all_others(&s)),
        s.track.totals_only,
    );
    let oom = job_verdict::oom(exit, fullest, also);
    // Named: the others at each GPU's peak, and those of the verdict.
    let mut mentioned: BTreeSet<u32> = s
        .track
        .gpus
        .values()
        .flat_map(|g| g.others_at_peak.iter().map(|(pid, _)| *pid))
        .collect();
    if let Some(f) = oom.as_ref().and_then(|o| o.fullest.as_ref()) {
        mentioned.extend(f.others.iter().map(|o| o.pid));
    }
    let mut report = RunReport {
        command: command_text(&a.command),
        exit,
        run_ms,
        interval_ms: interval.as_millis() as u64,
        track: s.track.clone(),
        commands: s.commands.clone(),
        notes,
        skew: crate::model::job::skew(&s.track.procs, &s.ranks),
        ranks: s.ranks.clone(),
        leaks: s
            .track
            .gpus
            .iter()
            .map(|(i, g)| (*i, g.leak(&trend)))
            .collect(),
        oom,
        others: names.of(mentioned),
        bundle: None,
        torch: torch_report,
    };
    drop(names);
    if let (Some(b), Some(_)) = (&bundle, &report.oom) {
        report.bundle = Some(b.dir().to_string());
        let contents = bundle_contents(&report, &s);
        if let Err(e) = b.write(&contents) {
            report.bundle = None;
            report.notes.push(format!(
                "the bundle could not be written: {}",
                e.nvq_text(None).trim()
            ));
        }
    }
    let over_budget = s.over_budget.clone();
    drop(s);
    let text = match form {
        ReportForm::Text => render::job::text(&report),
        ReportForm::Json => render::job::json(&report),
    };
    match report_sink {
        Some(mut sink) => sink.write(text.as_bytes())?,
        // Best effort: a closed stderr must not change the command's status.
        None => {
            let _ = std::io::stderr().write_all(text.as_bytes());
        }
    }
    let stopped = a
        .budget()?
        .is_some_and(|(_, act)| act == BudgetAction::Stop);
    match (exit, over_budget) {
        // A command stopped for its budget: the budget's status.
        (_, Some(why)) if stopped => Err(NvqError::Budget(why)),
        (0, Some(why)) => Err(NvqError::Budget(why)),
        (0, None) => Ok(()),
        (code, _) => Err(NvqError::ChildExit(code)),
    }
}

/// The leak verdict's settings: the trend options, the window all of the
/// run after its warm-up unless `--trend-window` says otherwise.
fn trend_config(a: &RunArgs) -> TrendConfig {
    let mut cfg = a.trend.config();
    if a.trend.window().is_none() {
        cfg.window_s = f64::INFINITY;
    }
    cfg
}

/// Every other process in the samples kept (for the verdict's names).
fn all_others(s: &Seen) -> Vec<u32> {
    s.recent
        .samples()
        .flat_map(|x| x.readings.iter())
        .flat_map(|r| r.procs.iter().filter(|p| !p.job).map(|p| p.pid))
        .collect()
}

/// How long a GPU must have missed every sample, at the end, to be said
/// to have stopped answering.
const STOPPED_AFTER_MS: u64 = 1000;

/// The notes on GPUs that missed samples' deadlines.
fn late_notes(late: &BTreeMap<u32, Late>, run_ms: u64) -> Vec<String> {
    late.iter()
        .map(|(gpu, l)| match l.since_ms {
            Some(t) if run_ms.saturating_sub(t) >= STOPPED_AFTER_MS => format!(
                "GPU {gpu} stopped answering at {} (a hung GPU?) and was not watched from then on",
                render::job::since(t)
            ),
            _ => format!(
                "GPU {gpu} missed the deadline of {} sample(s), the first at {} (a busy machine or a \
                 slow GPU): they lack it",
                l.count,
                render::job::since(l.first_ms)
            ),
        })
        .collect()
}

/// The bundle's files ([`run_bundle::FILES`]): the report as text and JSON,
/// the last samples of the job's GPUs as the log's NDJSON, the table at the
/// peak, the XID events.
fn bundle_contents(report: &RunReport, s: &Seen) -> run_bundle::Contents {
    let mut samples = String::new();
    for x in s.recent.samples() {
        let on: Vec<GpuReading> = x
            .readings
            .iter()
            .filter(|r| report.track.gpus.contains_key(&r.index))
            .cloned()
            .collect();
        samples.push_str(&render::job::log_lines(x.epoch_ms, &on));
    }
    let table = s
        .table_text
        .clone()
        .unwrap_or_else(|| "the table was not read (no sample at a peak of the job)\n".into());
    let xid = match &s.xid {
        Some((counts, problems)) => serde_json::json!({
            "events": counts.snapshot().iter().map(|x| serde_json::json!({
                "gpu": x.gpu,
                "code": x.code,
                "count": x.count,
                "last_unix_ms": x.last_unix_ms,
            })).collect::<Vec<_>>(),
            "notes": *lock(problems),
        }),
        None => serde_json::json!({ "events": [], "notes": ["XID events were not watched"] }),
    };
    [
        render::job::text(report),
        render::job::json(report),
        samples,
        table,
        format!("{xid}\n"),
    ]
}

/// Check the sample against `--budget`: the first GPU on which the job
/// passed it is noted; `stop` sends SIGTERM at once and SIGKILL after
/// [`STOP_GRACE`].
fn check_budget(
    budget: Option<(Budget, BudgetAction)>,
    at_ms: u64,
    ok: &[GpuReading],
    seen: &mut Seen,
) {
    let Some((b, action)) = budget else { return };
    if seen.over_budget.is_some() {
        return;
    }
    for r in ok {
        let job: u64 = r.procs.iter().filter(|p| p.job).map(|p| p.bytes).sum();
        let limit = b.on(r.total);
        if job > limit {
            let why = format!(
                "nvq run: the job passed its budget of {} on GPU {} at {} ({})",
                render::job::size(limit),
                r.index,
                render::job::since(at_ms),
                render::job::size(job)
            );
            seen.notes.push(match action {
                BudgetAction::Fail => why.trim_start_matches("nvq run: ").to_string(),
                BudgetAction::Stop => {
                    format!("{}; stopped (SIGTERM)", why.trim_start_matches("nvq run: "))
                }
            });
            seen.over_budget = Some(why);
            if action == BudgetAction::Stop {
                child::forward::signal(libc::SIGTERM);
                std::thread::spawn(|| {
                    std::thread::sleep(STOP_GRACE);
                    child::forward::signal(libc::SIGKILL);
                });
            }
            return;
        }
    }
}

/// Is `pid` one of the job's processes now (below nvq)?
fn in_job(pid: u32) -> bool {
    child::tree::Members::of_nvq().contains(pid)
}

fn note(seen: &Mutex<Seen>, text: String) {
    let mut s = lock(seen);
    if !s.notes.contains(&text) {
        s.notes.push(text);
    }
}

/// What the GPUs' lanes share with the sampler.
struct Lanes {
    /// Which processes are the job's, each found once.
    members: Mutex<child::tree::Members>,
    names: Arc<Mutex<OtherNames>>,
    /// With `--bundle`: per GPU, the job's peak so far there, the job's
    /// bytes when its table part was last read, and when.
    table: Option<TableWatch>,
    /// The table's CUDA version part, read once.
    cuda: Mutex<Option<Part>>,
}

/// What a GPU's lane gives each sample: its reading, and with `--bundle`
/// its table part when the job was at its peak there.
type LaneRead = (Result<GpuReading, NvmlCode>, Option<TablePart>);

/// The job of GPU `index`'s lane: its handle looked up on the lane (under
/// the deadline), then every sample its reading.
fn lane_job(
    session: &Arc<Session>,
    index: u32,
    count: u32,
    host: Option<HostProc>,
    shared: &Arc<Lanes>,
) -> impl FnMut() -> LaneRead + Send + 'static {
    let (session, shared) = (Arc::clone(session), Arc::clone(shared));
    let mut targets = None;
    let mut util = UtilSamples::default();
    // When the job's processes' SM shares were last read here.
    let mut util_at: Option<Instant> = None;
    move || {
        let targets = targets.get_or_insert_with(|| crate::source::targets(&session, &[index]));
        let Some(t) = targets.first() else {
            return (Err(NvmlCode::UNKNOWN), None);
        };
        // The SM shares once a second, as nvq top reads them
        // (`PROCESS_UTIL_EVERY`): the dearest read of a sample.
        let util_due = util_at.map_or(true, |at| at.elapsed() >= PROCESS_UTIL_EVERY);
        let r = crate::source::job::read_gpu(
            &session,
            t,
            count,
            host.as_ref(),
            &|p| lock(&shared.members).contains(p),
            &shared.names,
            util_due.then_some(&mut util),
        );
        if util_due && matches!(&r, Ok(g) if g.procs.iter().any(|p| p.job)) {
            util_at = Some(Instant::now());
        }
        let part = match (&r, &shared.table) {
            (Ok(g), Some(table)) => table_at_peak(&session, g, table, &shared.cuda),
            _ => None,
        };
        (r, part)
    }
}

/// The GPU's part of the summary table, when the job is at its peak there
/// (and more than when the part was last read, at most every [`TABLE_EVERY`]).
fn table_at_peak(
    session: &Session,
    g: &GpuReading,
    table: &TableWatch,
    cuda: &Mutex<Option<Part>>,
) -> Option<TablePart> {
    let job: u64 = g.procs.iter().filter(|p| p.job).map(|p| p.bytes).sum();
    {
        let mut t = lock(table);
        let (peak, read_job, read_at) = t.entry(g.index).or_default();
        *peak = (*peak).max(job);
        let due = read_at.map_or(true, |at| at.elapsed() >= TABLE_EVERY);
        if job == 0 || job < *peak || job <= *read_job || !due {
            return None;
        }
        *read_job = job;
        *read_at = Some(Instant::now());
    }
    if lock(cuda).is_none() {
        // The part past the last GPU: the CUDA version.
        let version = Part::read(session, &[], 0);
        *lock(cuda) = Some(version);
    }
    Some(TablePart {
        part: Part::read(session, &[g.index], 0),
        when: SystemTime::now(),
    })
}

/// The summary table from the parts read at the peaks (the date of the
/// newest), as `render::smi_table` prints it.
fn table_text(session: &Session, s: &Seen, cuda: Option<Part>) -> Option<String> {
    let newest = s.table.values().map(|p| p.when).max()?;
    let mut parts: Vec<Part> = s.table.values().map(|p| p.part.clone()).collect();
    parts.push(cuda.unwrap_or(Part::Cuda(Err(NvmlCode::UNKNOWN))));
    let mut table: SmiTable = crate::source::smi_table::assemble(session, parts);
    table.date = crate::source::smi_table::date_line(newest);
    let mut out = Vec::new();
    render::smi_table::render(&table, false, &mut out);
    Some(String::from_utf8_lossy(&out).into_owned())
}

/// The sampler: load NVML, then sample every `interval` until told to stop,
/// each GPU on its lane under the sample's deadline.
#[allow(clippy::too_many_arguments)]
fn sample(
    lib: &LibSource,
    id: Option<&str>,
    interval: Duration,
    started: Instant,
    stop: &mpsc::Receiver<i32>,
    seen: &Mutex<Seen>,
    duties: &mut Duties,
    torch: Option<&Mutex<child::torch::channel::Heard>>,
) -> Option<i32> {
    let session = match Session::open(lib) {
        Ok(s) => Arc::new(s),
        Err(e) => {
            let why = e.nvq_text(None);
            note(
                seen,
                format!(
                    "NVML could not be loaded, the job ran unwatched: {}",
                    why.trim()
                ),
            );
            return None;
        }
    };
    let gpus = match select::select(&session, id) {
        Ok(g) => g,
        Err(e) => {
            note(
                seen,
                format!("no GPU to watch: {}", e.nvq_text(None).trim()),
            );
            return None;
        }
    };
    let host = HostProc::detect();
    if host.is_none() {
        note(
            seen,
            "nvq runs in a PID namespace other than the GPUs' processes: which processes are \
             the job's cannot be told here, the figures are each GPU's used memory, every \
             process's (run nvq in the host's PID namespace, or set NVQ_HOST_PROC)"
                .into(),
        );
        lock(seen).track.totals_only = true;
    }
    // Each GPU's UUID, to match PyTorch's devices (`--torch` only).
    let uuids: BTreeMap<u32, String> = match torch {
        Some(_) => {
            let targets = crate::source::targets(&session, &gpus);
            targets
                .iter()
                .map(|t| {
                    let ctx = t.context(&session, targets.len() as u32);
                    (t.index, t.ident(&ctx).uuid.clone())
                })
                .collect()
        }
        None => BTreeMap::new(),
    };
    if duties.bundle {
        let counts = Arc::new(XidCounts::default());
        let problems: Arc<Mutex<Vec<String>>> = Arc::default();
        let kept = Arc::clone(&problems);
        let log = move |line: &str| {
            // The events themselves are counted; the rest is why not.
            let mut p = lock(&kept);
            if !line.starts_with("XID ") && p.len() < 16 {
                p.push(line.to_string());
            }
        };
        if crate::source::xid::watch(Arc::clone(&session), gpus.clone(), Arc::clone(&counts), log)
            .is_ok()
        {
            lock(seen).xid = Some((counts, problems));
        }
    }
    let shared = Arc::new(Lanes {
        members: Mutex::new(child::tree::Members::of_nvq()),
        names: Arc::clone(&lock(seen).names),
        table: duties.bundle.then(Mutex::default),
        cuda: Mutex::new(None),
    });
    let count = gpus.len() as u32;
    let jobs: Vec<_> = gpus
        .iter()
        .map(|&index| lane_job(&session, index, count, host.clone(), &shared))
        .collect();
    let mut lanes = match PerGpu::start(jobs) {
        Ok(l) => l,
        Err(e) => {
            note(
                seen,
                format!("the GPUs could not be watched: no thread: {e}"),
            );
            return None;
        }
    };
    let limit = deadline::limit_for(interval).max(MIN_DEADLINE);
    let mut next = Instant::now();
    let mut exit = None;
    loop {
        lock(&shared.names).next_sample();
        // The sample's time is when the GPUs were asked (a late GPU's too).
        let at_ms = started.elapsed().as_millis() as u64;
        let reads = lanes.sample(Instant::now() + limit, |_| (Err(NvmlCode::TIMEOUT), None));
        let torch = torch.map(|heard| (heard, &uuids));
        take_sample(&gpus, reads, at_ms, seen, duties, torch);
        if lock(seen).track.samples == 1 {
            release_start_up_pages();
        }
        next += interval;
        let now = Instant::now();
        if next < now {
            // A slow sample: the next one starts now, not in a burst.
            next = now;
        }
        match stop.recv_timeout(next - now) {
            Err(RecvTimeoutError::Timeout) => {}
            Ok(code) => {
                exit = Some(code);
                break;
            }
            Err(RecvTimeoutError::Disconnected) => break,
        }
    }
    if duties.bundle {
        let cuda = lock(&shared.cuda).clone();
        let mut s = lock(seen);
        s.table_text = table_text(&session, &s, cuda);
    }
    exit
}

/// One malloc arena for all of nvq run's threads (glibc gives each thread
/// its own, a few hundred KiB of resident memory each): the lanes allocate
/// a little per sample, so sharing one costs nothing measurable.
fn one_arena() {
    #[cfg(target_env = "gnu")]
    // SAFETY: mallopt(3) with M_ARENA_MAX takes a number and only sets
    // malloc's limit for arenas created from now on.
    unsafe {
        libc::mallopt(libc::M_ARENA_MAX, 1);
    }
}

/// Let go of the pages that only the start touched (parsing the command
/// line; loading NVML, which the simulator does by parsing its scenario),
/// once the command has started and again after the first sample: every
/// read-only file-backed mapping that holds nothing but the file's own
/// pages (text and constants; not what the loader relocated) is dropped
/// from nvq's resident memory (`MADV_DONTNEED`: the pages stay in the page
/// cache), and the sampler faults back in what it uses. The loop's memory
/// is then what it uses, not what the start touched (issue #51).
fn release_start_up_pages() {
    let Ok(smaps) = std::fs::read_to_string("/proc/self/smaps") else {
        return;
    };
    for (start, end) in file_only_ranges(&smaps) {
        // SAFETY: the range is a whole mapping of this process, from its
        // own smaps: read-only (so it cannot have been written since),
        // file-backed and without an anonymous (written) page. MADV_DONTNEED
        // unmaps its pages, and the next read of one maps the same page of
        // the same file again.
        unsafe {
            libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_DONTNEED);
        }
    }
}

/// The address ranges of the private, read-only, file-backed mappings in a
/// `/proc/PID/smaps` text that hold no anonymous page (none was written:
/// text and constants, not a segment the loader relocated).
fn file_only_ranges(smaps: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    // The mapping being read: its range, when it is read-only and file-backed.
    let mut current: Option<(usize, usize)> = None;
    for line in smaps.lines() {
        let mut f = line.split_whitespace();
        let Some(first) = f.next() else { continue };
        if let Some(kib) = first.strip_prefix("Anonymous:").map(|_| f.next()) {
            if let (Some(range), Some("0")) = (current.take(), kib) {
                out.push(range);
            }
            continue;
        }
        let Some((a, b)) = first.split_once('-') else {
            continue;
        };
        let (Ok(a), Ok(b)) = (usize::from_str_radix(a, 16), usize::from_str_radix(b, 16)) else {
            continue;
        };
        let perms = f.next().unwrap_or("");
        let inode = f.nth(2).unwrap_or("0");
        let path = f.next().unwrap_or("");
        let read_only = perms == "r-xp" || perms == "r--p";
        current = (read_only && inode != "0" && path.starts_with('/') && a < b).then_some((a, b));
    }
    out
}

/// Now, as milliseconds since 1970 (the log's `timestamp.epoch`).
fn epoch_now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

/// Write a line of the log (a log that cannot be written is noted and
/// closed, as in a sample).
fn log_event(seen: &Mutex<Seen>, duties: &mut Duties, line: String) {
    if let Some(log) = duties.log.as_mut() {
        if let Err(e) = log.write(line.as_bytes()) {
            note(
                seen,
                format!("the log could not be written: {}", e.nvq_text(None).trim()),
            );
            duties.log = None;
        }
    }
}

/// Take in one sample's readings (`reads[i]` is GPU `gpus[i]`'s).
fn take_sample(
    gpus: &[u32],
    reads: Vec<LaneRead>,
    at_ms: u64,
    seen: &Mutex<Seen>,
    duties: &mut Duties,
    torch: Option<(&Mutex<child::torch::channel::Heard>, &BTreeMap<u32, String>)>,
) {
    let epoch_ms = SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64);
    let mut s = lock(seen);
    let mut ok = Vec::with_capacity(reads.len());
    for (&index, (r, part)) in gpus.iter().zip(reads) {
        match r {
            Ok(g) => {
                if let Some(l) = s.late.get_mut(&index) {
                    l.since_ms = None;
                }
                ok.push(g);
            }
            Err(NvmlCode::TIMEOUT) => {
                let l = s.late.entry(index).or_default();
                if l.count == 0 {
                    l.first_ms = at_ms;
                }
                l.count += 1;
                l.since_ms.get_or_insert(at_ms);
            }
            Err(code) => {
                if s.failing.insert(index) {
                    let text = format!(
                        "GPU {index} could not be read from {} on: {}",
                        render::job::since(at_ms),
                        code.message()
                    );
                    s.notes.push(text);
                }
            }
        }
        if let Some(p) = part {
            s.table.insert(index, p);
        }
    }
    if let Some((heard, uuids)) = torch {
        super::run_torch::attach(&mut ok, uuids, &lock(heard));
    }
    s.track.add(at_ms, &ok);
    check_budget(duties.budget, at_ms, &ok, &mut s);
    if let Some(log) = duties.log.as_mut() {
        if let Err(e) = log.write(render::job::log_lines(epoch_ms, &ok).as_bytes()) {
            s.notes.push(format!(
                "the log could not be written from {} on: {}",
                render::job::since(at_ms),
                e.nvq_text(None).trim()
            ));
            duties.log = None;
        }
    }
    for r in &ok {
        for p in r.procs.iter().filter(|p| p.job && p.bytes > 0) {
            if !s.commands.contains_key(&p.pid) {
                if let Some(rank) = std::fs::read(format!("/proc/{}/environ", p.pid))
                    .ok()
                    .and_then(|e| child::tree::rank_of(&e))
                {
                    s.ranks.insert(p.pid, rank);
                }
            }
            s.commands.entry(p.pid).or_insert_with(|| {
                std::fs::read(format!("/proc/{}/cmdline", p.pid))
                    .map(|raw| child::shown(&parse_cmdline(&raw)))
                    .unwrap_or_default()
            });
        }
    }
    s.recent.push(RecentSample {
        at_ms,
        epoch_ms,
        readings: ok,
    });
}

/// The command as the report names it: its words joined by spaces,
/// shown as a terminal may show them.
fn command_text(command: &[std::ffi::OsString]) -> String {
    let words: Vec<String> = command
        .iter()
        .map(|w| w.to_string_lossy().into_owned())
        .collect();
    child::shown(&words.join(" "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn start_up_pages_are_let_go_and_run_again() {
        let smaps = "55d0a0000000-55d0a0100000 r--p 00000000 fd:01 1234 /usr/bin/nvq\n\
                     Rss: 512 kB\nAnonymous: 0 kB\n\
                     55d0a0100000-55d0a0800000 r-xp 00100000 fd:01 1234 /usr/bin/nvq\n\
                     Anonymous: 0 kB\n\
                     55d0a0800000-55d0a0900000 r--p 00800000 fd:01 1234 /usr/bin/nvq\n\
                     Anonymous: 364 kB\n\
                     55d0a0900000-55d0a0910000 rw-p 00900000 fd:01 1234 /usr/bin/nvq\n\
                     Anonymous: 0 kB\n\
                     7f0000000000-7f0000021000 rw-p 00000000 00:00 0 \n\
                     Anonymous: 132 kB\n\
                     7ffd00000000-7ffd00002000 r-xp 00000000 00:00 0 [vdso]\n\
                     Anonymous: 0 kB\n\
                     7f1000000000-7f1000100000 r-xp 00026000 fd:01 99 /usr/lib/libc.so.6\n\
                     Anonymous: 0 kB\n";
        assert_eq!(
            file_only_ranges(smaps),
            [
                (0x55d0_a000_0000, 0x55d0_a010_0000),
                (0x55d0_a010_0000, 0x55d0_a080_0000),
                (0x7f10_0000_0000, 0x7f10_0010_0000)
            ],
            "the relocated (written) segment, the writable one and the anonymous ones stay"
        );
        let own = std::fs::read_to_string("/proc/self/smaps").unwrap();
        assert!(!file_only_ranges(&own).is_empty(), "{own}");
        // This very code, its constants and every other thread's run on after their pages went.
        release_start_up_pages();
        assert_eq!(command_text(&["a".into(), "b\u{7}".into()]), "a b?");
    }
}
