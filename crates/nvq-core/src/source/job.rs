//! `nvq run`'s reader: for each GPU, its memory and its compute processes,
//! each process marked as the job's or not by the caller's test (the job's
//! process tree, found afresh every sample). NVML's PIDs are the host's:
//! they are mapped into nvq's PID namespace through `procinfo::HostProc`;
//! without such a view no process is marked (the report says so). Each
//! process's SM utilization comes from NVML's process samples where given.

use super::gpu::read;
use super::pmon::UtilSamples;
use super::procinfo::HostProc;
use super::target::Target;
use crate::model::job::{GpuReading, ProcReading};
use crate::nvml::raw::{self, ProcessList};
use crate::nvml::{NvmlCode, Session};

/// Read every target GPU once; `is_job(local_pid)` tells the job's
/// processes; `util` holds each target's utilization samples (one per
/// target, in order). A GPU whose memory cannot be read is left out, with
/// its code.
pub fn read(
    session: &Session,
    targets: &[Target],
    host: Option<&HostProc>,
    is_job: &dyn Fn(u32) -> bool,
    util: &mut [UtilSamples],
) -> Vec<Result<GpuReading, (u32, NvmlCode)>> {
    targets
        .iter()
        .zip(util.iter_mut())
        .map(|(t, util)| {
            // A unified-memory GPU's memory is the system's, marked.
            let ctx = t.context(session, targets.len() as u32).deriving_memory();
            let dev = ctx.raw();
            let mem = *ctx.memory().map_err(|c| (t.index, c))?;
            let local = |pid: u32| {
                host.and_then(|h| {
                    let status = h.status(pid).ok()?;
                    h.local_pid(pid, &status).ok()
                })
            };
            // Accounting mode (an administrator's choice; never turned on
            // here): each job process's maximum, a spike between samples.
            let accounting = match read::accounting_enabled(&ctx) {
                Ok(true) => Some(
                    read::accounting_pids(&ctx)
                        .unwrap_or_default()
                        .into_iter()
                        .filter_map(|pid| {
                            let l = local(pid).filter(|l| is_job(*l))?;
                            let most = read::accounting_stats(&ctx, pid).ok()?.max_memory_usage?;
                            Some((l, most))
                        })
                        .collect(),
                ),
                _ => None,
            };
            let procs: Vec<_> = raw::processes(&dev, ProcessList::Compute)
                .unwrap_or_default()
                .into_iter()
                .map(|p| (p, local(p.pid)))
                .collect();
            // Utilization samples only where a process of the job is on the GPU.
            let samples = if procs.iter().any(|(_, l)| l.is_some_and(is_job)) {
                util.read(&ctx)
            } else {
                Vec::new()
            };
            let procs = procs
                .into_iter()
                .map(|(p, local)| ProcReading {
                    pid: local.unwrap_or(p.pid),
                    bytes: p.used_memory.unwrap_or(0),
                    job: local.is_some_and(is_job),
                    torch: None,
                    sm: samples
                        .binary_search_by_key(&p.pid, |(pid, _)| *pid)
                        .ok()
                        .map(|i| samples[i].1.sm),
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
        })
        .collect()
}
