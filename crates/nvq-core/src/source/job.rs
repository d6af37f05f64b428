//! `nvq run`'s reader: a GPU's memory and its compute processes, each
//! process marked as the job's or not by the caller's test (the job's
//! process tree, each process walked up to nvq once). NVML's PIDs are the host's:
//! they are mapped into nvq's PID namespace through `procinfo::HostProc`;
//! without such a view no process is marked (the report says so). Each
//! process's SM utilization comes from NVML's process samples where given.
//! The other processes are named once each ([`OtherNames`]: `comm` and user
//! from the host's `/proc`, else NVML's process name), so the report can
//! say who held the rest of a GPU.

use super::gpu::read;
use super::pmon::UtilSamples;
use super::procinfo::{self, HostProc};
use super::target::Target;
use crate::model::job::{GpuReading, ProcReading};
use crate::model::job_verdict::ProcName;
use crate::nvml::raw::{self, ProcessList};
use crate::nvml::{NvmlCode, Session};
use std::collections::{BTreeMap, HashMap};

/// The most other processes whose names are kept; past it, those not seen
/// for [`NAME_KEEP`] samples are forgotten, and a new one is left unnamed
/// while none can be.
pub const MAX_NAMES: usize = 4096;

/// How many samples a name is kept after its process was last seen.
pub const NAME_KEEP: u64 = 600;

/// The other processes' names and users, read once per PID, shared by the
/// GPUs' readers.
#[derive(Debug, Default)]
pub struct OtherNames {
    by_pid: HashMap<u32, (ProcName, u64)>,
    users: HashMap<u32, Option<String>>,
    sample: u64,
}

impl OtherNames {
    /// A new sample begins (names unseen for [`NAME_KEEP`] samples may go).
    pub fn next_sample(&mut self) {
        self.sample += 1;
    }

    /// What is known of `pid` (as [`ProcReading::pid`] gives it).
    pub fn get(&self, pid: u32) -> Option<&ProcName> {
        self.by_pid.get(&pid).map(|(n, _)| n)
    }

    /// The names of `pids` that are known.
    pub fn of(&self, pids: impl IntoIterator<Item = u32>) -> BTreeMap<u32, ProcName> {
        pids.into_iter()
            .filter_map(|p| Some((p, self.get(p)?.clone())))
            .collect()
    }

    fn seen(&mut self, pid: u32) -> bool {
        match self.by_pid.get_mut(&pid) {
            Some((_, at)) => {
                *at = self.sample;
                true
            }
            None => false,
        }
    }

    fn insert(&mut self, pid: u32, name: ProcName) {
        if self.by_pid.len() >= MAX_NAMES {
            let now = self.sample;
            self.by_pid
                .retain(|_, (_, at)| now.saturating_sub(*at) <= NAME_KEEP);
            if self.by_pid.len() >= MAX_NAMES {
                return;
            }
        }
        self.by_pid.insert(pid, (name, self.sample));
    }

    fn user(&mut self, uid: u32) -> String {
        self.users
            .entry(uid)
            .or_insert_with(|| procinfo::user_name(uid))
            .clone()
            .unwrap_or_else(|| uid.to_string())
    }
}

/// The `Name:` line of a `/proc/PID/status` text (the process's `comm`).
fn status_name(status: &str) -> Option<String> {
    status
        .lines()
        .find_map(|l| l.strip_prefix("Name:"))
        .map(|n| n.trim().to_string())
}

/// Read GPU `t` once; `is_job(local_pid)` tells the job's processes;
/// `util` holds the GPU's utilization samples, read when given (`None`:
/// not this sample); the other processes not named yet are named into
/// `names`. A GPU whose memory cannot be read gives its code.
pub fn read_gpu(
    session: &Session,
    t: &Target,
    count: u32,
    host: Option<&HostProc>,
    is_job: &dyn Fn(u32) -> bool,
    names: &std::sync::Mutex<OtherNames>,
    util: Option<&mut UtilSamples>,
) -> Result<GpuReading, NvmlCode> {
    // A unified-memory GPU's memory is the system's, marked.
    let ctx = t.context(session, count).deriving_memory();
    let dev = ctx.raw();
    let mem = *ctx.memory()?;
    let local = |pid: u32, status: Option<&str>| {
        let h = host?;
        h.local_pid(pid, status?).ok()
    };
    let status = |pid: u32| host.and_then(|h| h.status(pid).ok());
    // Accounting mode (an administrator's choice; never turned on here):
    // each job process's maximum, a spike between samples.
    let accounting = match read::accounting_enabled(&ctx) {
        Ok(true) => Some(
            read::accounting_pids(&ctx)
                .unwrap_or_default()
                .into_iter()
                .filter_map(|pid| {
                    let l = local(pid, status(pid).as_deref()).filter(|l| is_job(*l))?;
                    let most = read::accounting_stats(&ctx, pid).ok()?.max_memory_usage?;
                    Some((l, most))
                })
                .collect(),
        ),
        _ => None,
    };
    // In the host's PID namespace a PID is nvq's as it is: no status is read
    // to map it (one that has gone is not the job's: `is_job` says so), and
    // another process's status is read only to name it, once.
    let own = host.is_some_and(HostProc::is_own);
    let procs: Vec<_> = raw::processes(&dev, ProcessList::Compute)
        .unwrap_or_default()
        .into_iter()
        .map(|p| {
            let (st, l) = if own {
                (None, Some(p.pid))
            } else {
                let st = status(p.pid);
                let l = local(p.pid, st.as_deref());
                (st, l)
            };
            let job = l.is_some_and(is_job);
            (p, l, job, st)
        })
        .collect();
    // Utilization samples only where a process of the job is on the GPU.
    let samples = match util {
        Some(util) if procs.iter().any(|(_, _, job, _)| *job) => util.read(&ctx),
        _ => Vec::new(),
    };
    let procs = procs
        .into_iter()
        .map(|(p, local, job, st)| {
            let reading = ProcReading {
                pid: local.unwrap_or(p.pid),
                bytes: p.used_memory.unwrap_or(0),
                job,
                torch: None,
                sm: samples
                    .binary_search_by_key(&p.pid, |(pid, _)| *pid)
                    .ok()
                    .map(|i| samples[i].1.sm),
            };
            if !reading.job {
                name_other(session, p.pid, reading.pid, st.as_deref(), host, names);
            }
            reading
        })
        .collect();
    Ok(GpuReading {
        index: t.index,
        total: mem.total,
        used: mem.used,
        procs,
        accounting,
        memory_derived: ctx.memory_derived(),
    })
}

/// Name another process (host PID `host_pid`, shown as `pid`) unless it is
/// named already: `comm` and the user from its `/proc` status (`status`, or
/// read from `host` when not read yet), else NVML's process name.
fn name_other(
    session: &Session,
    host_pid: u32,
    pid: u32,
    status: Option<&str>,
    host: Option<&HostProc>,
    names: &std::sync::Mutex<OtherNames>,
) {
    let mut n = names
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if n.seen(pid) {
        return;
    }
    let read;
    let status = match status {
        Some(s) => Some(s),
        None => {
            read = host.and_then(|h| h.status(host_pid).ok());
            read.as_deref()
        }
    };
    let user = status.and_then(procinfo::parse_euid).map(|uid| n.user(uid));
    let name = match status.and_then(status_name) {
        Some(name) => Some(name),
        None => {
            // NVML's name (a path, as it reads procfs): without the lock.
            drop(n);
            let name = raw::process_name(session, host_pid).ok();
            n = names
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            name
        }
    };
    n.insert(pid, ProcName { name, user });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_kept_bounded() {
        assert_eq!(
            status_name("Name:\tpython3\nUmask:\t0022\n").as_deref(),
            Some("python3")
        );
        let mut n = OtherNames::default();
        for pid in 0..MAX_NAMES as u32 {
            n.insert(pid, ProcName::default());
        }
        // Full, all seen recently: a new one is left unnamed.
        n.insert(999_999, ProcName::default());
        assert!(n.get(999_999).is_none());
        for _ in 0..=NAME_KEEP {
            n.next_sample();
        }
        assert!(n.seen(5));
        // Those unseen for long make room.
        n.insert(999_999, ProcName::default());
        assert!(n.get(999_999).is_some() && n.get(5).is_some() && n.get(6).is_none());
    }
}
