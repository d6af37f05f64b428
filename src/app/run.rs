//! `nvq run -- CMD`: start the command at once (before NVML is loaded),
//! as `child` supervises it; beside it, a sampler thread loads NVML and
//! reads, every interval, each GPU's memory and compute processes, marking
//! those of the job (every process below nvq, a child subreaper, found
//! afresh each sample). When the command ends, the report goes to stderr
//! (or `--report-file`) and nvq exits with the command's status.
//!
//! Nothing of the watching can stop the job: NVML that cannot be loaded, a
//! GPU that cannot be read or hangs leaves a note in the report; nvq waits
//! for a stuck sampler at most a second after the command ended.

use super::plan::Common;
use crate::child;
use crate::cli::run::{Budget, BudgetAction, ReportForm, RunArgs};
use crate::error::NvqError;
use crate::model::job::{GpuReading, JobTrack, RunReport};
use crate::nvml::{select, LibSource, Session};
use crate::output::Sink;
use crate::render;
use crate::source::procinfo::{parse_cmdline, HostProc};
use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The default interval between samples.
pub const DEFAULT_INTERVAL: Duration = Duration::from_millis(100);

/// How long nvq waits, after the command ended, for a sample under way.
const SAMPLER_GRACE: Duration = Duration::from_secs(1);

/// What the sampler has gathered, shared with the main thread.
#[derive(Default)]
struct Seen {
    track: JobTrack,
    commands: BTreeMap<u32, String>,
    notes: Vec<String>,
    /// GPUs already noted as failing (one note each).
    failing: BTreeSet<u32>,
    /// Each job process's rank, by PID.
    ranks: BTreeMap<u32, u32>,
    /// The first time the job passed `--budget`: what to say.
    over_budget: Option<String>,
}

/// What the sampler does beside reading: the log, the budget.
struct Duties {
    log: Option<Sink>,
    budget: Option<(Budget, BudgetAction)>,
}

/// How long `--budget-action=stop` waits after SIGTERM before SIGKILL.
pub const STOP_GRACE: Duration = Duration::from_secs(10);

/// Run `nvq run`.
pub fn run(a: &RunArgs, common: &Common<'_>) -> Result<(), NvqError> {
    let form = a.report_form()?;
    let interval = common.interval.unwrap_or(DEFAULT_INTERVAL);
    // A report file that cannot be written is refused before the command starts.
    let report_sink = a.report_file.as_deref().map(Sink::file).transpose()?;
    let mut duties = Duties {
        log: a.log.as_deref().map(Sink::file).transpose()?,
        budget: a.budget()?,
    };
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
    let job = child::start_with(&a.command, &env)?;
    let seen = Arc::new(Mutex::new(Seen::default()));
    let (stop, stopped) = mpsc::channel::<()>();
    let (done_tx, done) = mpsc::channel::<()>();
    {
        let seen = Arc::clone(&seen);
        let lib = common.lib.clone();
        let id = common.id.map(str::to_string);
        std::thread::spawn(move || {
            sample(
                &lib,
                id.as_deref(),
                interval,
                started,
                &stopped,
                &seen,
                &mut duties,
                heard.as_deref(),
            );
            let _ = done_tx.send(());
        });
    }
    let exit = job.wait_reaping()?;
    let run_ms = started.elapsed().as_millis() as u64;
    let _ = stop.send(());
    if done.recv_timeout(SAMPLER_GRACE).is_err() {
        note(
            &seen,
            "a GPU call had not returned when the command ended (a hung GPU?)".into(),
        );
    }
    let (report, over_budget) = {
        let s = seen
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let mut report = RunReport {
            command: command_text(&a.command),
            exit,
            run_ms,
            interval_ms: interval.as_millis() as u64,
            track: s.track.clone(),
            commands: s.commands.clone(),
            notes: s.notes.clone(),
            skew: crate::model::job::skew(&s.track.procs, &s.ranks),
            ranks: s.ranks.clone(),
            torch: None,
        };
        if let Some(t) = &torch {
            let heard = t
                .heard
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            if heard.reported.is_empty() {
                report.notes.push(
                    "--torch: no process of the job sent PyTorch's counters (torch not \
                     imported, CUDA not initialized, or Python run with -E, -I or -S)"
                        .into(),
                );
            }
            report.notes.extend(heard.notes());
            report.torch = Some(super::run_torch::report(
                t,
                &heard,
                a.bundle.as_deref(),
                &mut report.notes,
            ));
        }
        (report, s.over_budget.clone())
    };
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

/// One sample as NDJSON lines: one per GPU (`pid` null) and one per process,
/// sizes in MiB as nvq's loops print them.
fn log_lines(ok: &[GpuReading]) -> String {
    let epoch = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0.0, |d| d.as_millis() as f64 / 1000.0);
    let mib = |b: u64| b / (1 << 20);
    let mut out = String::new();
    for r in ok {
        let gpu = format!(
            "\"memory.used\":{},\"memory.total\":{}",
            mib(r.used),
            mib(r.total)
        );
        out.push_str(&format!(
            "{{\"timestamp.epoch\":{epoch:.3},\"gpu_index\":{},\"pid\":null,\"job\":null,\"used_memory\":null,{gpu}}}\n",
            r.index
        ));
        for p in &r.procs {
            out.push_str(&format!(
                "{{\"timestamp.epoch\":{epoch:.3},\"gpu_index\":{},\"pid\":{},\"job\":{},\"used_memory\":{},{gpu}}}\n",
                r.index,
                p.pid,
                p.job,
                mib(p.bytes)
            ));
        }
    }
    out
}

fn note(seen: &Mutex<Seen>, text: String) {
    let mut s = seen
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if !s.notes.contains(&text) {
        s.notes.push(text);
    }
}

/// Is `pid` one of the job's processes now (below nvq)?
fn in_job(pid: u32) -> bool {
    child::tree::job_pids().contains(&pid)
}

/// The sampler: load NVML, then sample every `interval` until told to stop.
#[allow(clippy::too_many_arguments)]
fn sample(
    lib: &LibSource,
    id: Option<&str>,
    interval: Duration,
    started: Instant,
    stop: &mpsc::Receiver<()>,
    seen: &Mutex<Seen>,
    duties: &mut Duties,
    torch: Option<&Mutex<child::torch::channel::Heard>>,
) {
    let session = match Session::open(lib) {
        Ok(s) => s,
        Err(e) => {
            let why = e.nvq_text(None);
            note(
                seen,
                format!(
                    "NVML could not be loaded, the job ran unwatched: {}",
                    why.trim()
                ),
            );
            return;
        }
    };
    let gpus = match select::select(&session, id) {
        Ok(g) => g,
        Err(e) => {
            note(
                seen,
                format!("no GPU to watch: {}", e.nvq_text(None).trim()),
            );
            return;
        }
    };
    let targets = crate::source::target::targets(&session, &gpus);
    let host = HostProc::detect();
    if host.is_none() {
        note(
            seen,
            "nvq runs in a PID namespace other than the GPUs' processes: which processes are \
             the job's cannot be told here, the figures are each GPU's used memory, every \
             process's (run nvq in the host's PID namespace, or set NVQ_HOST_PROC)"
                .into(),
        );
        seen.lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .track
            .totals_only = true;
    }
    let mut util: Vec<_> = targets.iter().map(|_| Default::default()).collect();
    // Each GPU's UUID, to match PyTorch's devices (`--torch` only).
    let uuids: BTreeMap<u32, String> = targets
        .iter()
        .filter(|_| torch.is_some())
        .map(|t| {
            let ctx = t.context(&session, targets.len() as u32);
            (t.index, t.ident(&ctx).uuid.clone())
        })
        .collect();
    let mut next = Instant::now();
    loop {
        let job = child::tree::job_pids();
        let readings = crate::source::job::read(
            &session,
            &targets,
            host.as_ref(),
            &|p| job.contains(&p),
            &mut util,
        );
        let at_ms = started.elapsed().as_millis() as u64;
        {
            let mut ok: Vec<_> = readings
                .iter()
                .filter_map(|r| r.as_ref().ok())
                .cloned()
                .collect();
            if let Some(heard) = torch {
                let heard = heard
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner);
                super::run_torch::attach(&mut ok, &uuids, &heard);
            }
            let mut s = seen
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            for (index, code) in readings.iter().filter_map(|r| r.as_ref().err()) {
                if s.failing.insert(*index) {
                    let text = format!(
                        "GPU {index} could not be read from {} on: {}",
                        render::job::since(at_ms),
                        code.message()
                    );
                    s.notes.push(text);
                }
            }
            s.track.add(at_ms, &ok);
            check_budget(duties.budget, at_ms, &ok, &mut s);
            if let Some(log) = duties.log.as_mut() {
                if let Err(e) = log.write(log_lines(&ok).as_bytes()) {
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
        }
        next += interval;
        let now = Instant::now();
        if next < now {
            // A slow sample: the next one starts now, not in a burst.
            next = now;
        }
        match stop.recv_timeout(next - now) {
            Err(RecvTimeoutError::Timeout) => {}
            _ => return,
        }
    }
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
