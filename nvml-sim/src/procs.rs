//! Running-process lists (two-call protocol) and accounting, the scenario's processes and the
//! live ones (`live.rs`: compute processes of the GPU, after the scenario's).

use crate::call::*;
use crate::scenario::{Process, UsedMemory};
use crate::state::*;
use nvml_wrapper_sys::bindings::*;
use std::os::raw::c_uint;

/// NVML_VALUE_NOT_AVAILABLE as unsigned long long.
const NOT_AVAILABLE_U64: u64 = u64::MAX;
const NOT_AVAILABLE_U32: u32 = u32::MAX;

#[derive(Clone, Copy)]
enum Kind {
    Compute,
    Graphics,
    Mps,
}

fn list<'a>(c: &'a Ctx, kind: Kind) -> Vec<&'a Process> {
    let all = match kind {
        Kind::Compute => &c.dev.process,
        Kind::Graphics => &c.dev.graphics_process,
        Kind::Mps => &c.dev.mps_process,
    };
    let mig = c.mig();
    all.iter()
        // On a MIG handle: only the processes of that GPU/compute instance.
        .filter(|p| {
            mig.map_or(true, |m| {
                p.gpu_instance_id == m.gpu_instance_id
                    && (m.compute_instance_id.is_none()
                        || p.compute_instance_id == m.compute_instance_id)
            })
        })
        .filter(|p| alive(c, p))
        .collect()
}

/// Is the process running at this call (its `alive` series, absent = always)?
fn alive(c: &Ctx, p: &Process) -> bool {
    c.opt(&p.alive) != Some(0)
}

fn used(c: &Ctx, p: &Process) -> u64 {
    match &p.used_memory {
        Some(UsedMemory::Bytes(s)) => s.at(c.idx()).unwrap_or(NOT_AVAILABLE_U64),
        _ => NOT_AVAILABLE_U64,
    }
}

/// The process's confidential-computing protected memory: 0 when the scenario does not say
/// (confidential computing off), NOT_AVAILABLE for "unavailable".
fn cc_protected(c: &Ctx, p: &Process) -> u64 {
    match &p.cc_protected_memory {
        None => 0,
        Some(UsedMemory::Bytes(s)) => s.at(c.idx()).unwrap_or(NOT_AVAILABLE_U64),
        Some(UsedMemory::Text(_)) => NOT_AVAILABLE_U64,
    }
}

/// The running live processes of the GPU (none on a MIG handle) in a compute list: (PID, bytes).
fn live(c: &Ctx, kind: Kind) -> Vec<(u32, u64)> {
    match (kind, c.target, c.live) {
        (Kind::Compute, Target::Gpu(i), Some(l)) => l.on_gpu(i).map(|(p, h)| (p, h.now)).collect(),
        _ => Vec::new(),
    }
}

fn live_v2((pid, bytes): (u32, u64)) -> nvmlProcessInfo_v2_t {
    nvmlProcessInfo_v2_t {
        pid,
        usedGpuMemory: bytes,
        gpuInstanceId: NOT_AVAILABLE_U32,
        computeInstanceId: NOT_AVAILABLE_U32,
    }
}

/// A list's entries: the scenario's processes, then the live ones.
fn entries(c: &Ctx, kind: Kind) -> Vec<(nvmlProcessInfo_v2_t, u64)> {
    let fixed = list(c, kind)
        .into_iter()
        .map(|p| (v2(c, p), cc_protected(c, p)));
    let live = live(c, kind).into_iter().map(|l| (live_v2(l), 0));
    fixed.chain(live).collect()
}

fn v2(c: &Ctx, p: &Process) -> nvmlProcessInfo_v2_t {
    nvmlProcessInfo_v2_t {
        pid: p.pid,
        usedGpuMemory: used(c, p),
        gpuInstanceId: p.gpu_instance_id.unwrap_or(NOT_AVAILABLE_U32),
        computeInstanceId: p.compute_instance_id.unwrap_or(NOT_AVAILABLE_U32),
    }
}

fn procs_v2(
    sym: &'static str,
    kind: Kind,
    device: nvmlDevice_t,
    count: *mut c_uint,
    infos: *mut nvmlProcessInfo_v2_t,
) -> nvmlReturn_t {
    let fill = is_fill(count, infos);
    dev_call(sym, device, true, fill, |c| {
        put_list(count, infos, entries(c, kind).into_iter().map(|(i, _)| i))
    })
}

fn procs_v1(
    sym: &'static str,
    kind: Kind,
    device: nvmlDevice_t,
    count: *mut c_uint,
    infos: *mut nvmlProcessInfo_v1_t,
) -> nvmlReturn_t {
    let fill = is_fill(count, infos);
    dev_call(sym, device, true, fill, |c| {
        put_list(
            count,
            infos,
            entries(c, kind)
                .into_iter()
                .map(|(i, _)| nvmlProcessInfo_v1_t {
                    pid: i.pid,
                    usedGpuMemory: i.usedGpuMemory,
                }),
        )
    })
}

macro_rules! proc_fns {
    ($v3:ident, $v2:ident, $v1:ident, $kind:expr) => {
        /// # Safety
        /// An NVML client's contract: each pointer argument is null or valid for
        /// what NVML documents for this function, and a handle is one this library
        /// handed out. Null pointers and unknown handles get INVALID_ARGUMENT.
        #[no_mangle]
        pub unsafe extern "C" fn $v3(
            device: nvmlDevice_t,
            infoCount: *mut c_uint,
            infos: *mut nvmlProcessInfo_t,
        ) -> nvmlReturn_t {
            procs_v2(stringify!($v3), $kind, device, infoCount, infos)
        }
        /// # Safety
        /// An NVML client's contract: each pointer argument is null or valid for
        /// what NVML documents for this function, and a handle is one this library
        /// handed out. Null pointers and unknown handles get INVALID_ARGUMENT.
        #[no_mangle]
        pub unsafe extern "C" fn $v2(
            device: nvmlDevice_t,
            infoCount: *mut c_uint,
            infos: *mut nvmlProcessInfo_v2_t,
        ) -> nvmlReturn_t {
            procs_v2(stringify!($v2), $kind, device, infoCount, infos)
        }
        /// # Safety
        /// An NVML client's contract: each pointer argument is null or valid for
        /// what NVML documents for this function, and a handle is one this library
        /// handed out. Null pointers and unknown handles get INVALID_ARGUMENT.
        #[no_mangle]
        pub unsafe extern "C" fn $v1(
            device: nvmlDevice_t,
            infoCount: *mut c_uint,
            infos: *mut nvmlProcessInfo_v1_t,
        ) -> nvmlReturn_t {
            procs_v1(stringify!($v1), $kind, device, infoCount, infos)
        }
    };
}

proc_fns!(
    nvmlDeviceGetComputeRunningProcesses_v3,
    nvmlDeviceGetComputeRunningProcesses_v2,
    nvmlDeviceGetComputeRunningProcesses,
    Kind::Compute
);
proc_fns!(
    nvmlDeviceGetGraphicsRunningProcesses_v3,
    nvmlDeviceGetGraphicsRunningProcesses_v2,
    nvmlDeviceGetGraphicsRunningProcesses,
    Kind::Graphics
);
proc_fns!(
    nvmlDeviceGetMPSComputeRunningProcesses_v3,
    nvmlDeviceGetMPSComputeRunningProcesses_v2,
    nvmlDeviceGetMPSComputeRunningProcesses,
    Kind::Mps
);

/// `nvmlProcessDetailList_t` version 1.
const DETAIL_LIST_V1: u32 = std::mem::size_of::<nvmlProcessDetailList_v1_t>() as u32 | (1 << 24);

const DETAIL_LIST: &str = "nvmlDeviceGetRunningProcessDetailList";

/// Each of `nvmlDeviceGetRunningProcessDetailList`'s modes counts its calls apart (as the three
/// process-list functions do), so that a process's `alive` series means the same whichever
/// function lists it; faults and latency name the compute mode's symbol.
fn detail_mode(mode: c_uint) -> Option<(&'static str, Kind)> {
    match mode {
        0 => Some((DETAIL_LIST, Kind::Compute)),
        1 => Some((
            "nvmlDeviceGetRunningProcessDetailList(graphics)",
            Kind::Graphics,
        )),
        2 => Some(("nvmlDeviceGetRunningProcessDetailList(mps)", Kind::Mps)),
        _ => None,
    }
}

/// A GPU's processes of one mode (0 compute, 1 graphics, 2 MPS compute) with their memory and
/// confidential-computing protected memory, in a versioned list: `numProcArrayEntries = 0` and
/// `procArray` NULL ask for the count (INSUFFICIENT_SIZE with it; SUCCESS and 0 for none).
///
/// # Safety
/// An NVML client's contract: each pointer argument is null or valid for
/// what NVML documents for this function, and a handle is one this library
/// handed out. Null pointers and unknown handles get INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceGetRunningProcessDetailList(
    device: nvmlDevice_t,
    plist: *mut nvmlProcessDetailList_t,
) -> nvmlReturn_t {
    if plist.is_null() {
        return dev_call(DETAIL_LIST, device, true, false, |_| Err(INVALID_ARGUMENT));
    }
    // SAFETY: non-null (checked above); the caller owns the struct for the call.
    let v = unsafe { *plist };
    let Some((sym, kind)) = detail_mode(v.mode) else {
        return dev_call(DETAIL_LIST, device, true, false, |_| Err(INVALID_ARGUMENT));
    };
    // The other modes' symbols are not real: an absent function is absent in every mode.
    let absent = guard(|| match lock().as_ref() {
        Some(st) if st.absent.contains(DETAIL_LIST) => FUNCTION_NOT_FOUND,
        _ => SUCCESS,
    });
    if absent != SUCCESS {
        return absent;
    }
    let fill = !v.procArray.is_null() && v.numProcArrayEntries > 0;
    dev_call(sym, device, true, fill, |c| {
        let out = nn(plist)?;
        let mut v = out.get();
        if v.version != DETAIL_LIST_V1 {
            return Err(ARGUMENT_VERSION_MISMATCH);
        }
        let mut count = v.numProcArrayEntries;
        let r = put_list(
            &mut count,
            v.procArray,
            entries(c, kind)
                .into_iter()
                .map(|(i, cc)| nvmlProcessDetail_v1_t {
                    pid: i.pid,
                    usedGpuMemory: i.usedGpuMemory,
                    gpuInstanceId: i.gpuInstanceId,
                    computeInstanceId: i.computeInstanceId,
                    usedGpuCcProtectedMemory: cc,
                }),
        );
        v.numProcArrayEntries = count;
        out.set(v);
        r
    })
}

/// # Safety
/// An NVML client's contract: each pointer argument is null or valid for
/// what NVML documents for this function, and a handle is one this library
/// handed out. Null pointers and unknown handles get INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceGetAccountingPids(
    device: nvmlDevice_t,
    count: *mut c_uint,
    pids: *mut c_uint,
) -> nvmlReturn_t {
    let fill = is_fill(count, pids);
    dev_call("nvmlDeviceGetAccountingPids", device, false, fill, |c| {
        if c.dev.accounting_mode.is_none() && c.dev.accounting.is_empty() {
            return Err(NOT_SUPPORTED);
        }
        let fixed = c.dev.accounting.iter().map(|a| a.pid);
        let live = live_accounted(c).into_iter().map(|(pid, _)| pid);
        put_list(
            count,
            pids,
            fixed.chain(live).collect::<Vec<_>>().into_iter(),
        )
    })
}

/// # Safety
/// An NVML client's contract: each pointer argument is null or valid for
/// what NVML documents for this function, and a handle is one this library
/// handed out. Null pointers and unknown handles get INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceGetAccountingStats(
    device: nvmlDevice_t,
    pid: c_uint,
    stats: *mut nvmlAccountingStats_t,
) -> nvmlReturn_t {
    dev_fn("nvmlDeviceGetAccountingStats", device, |c| {
        let o = nn(stats)?;
        if c.dev.accounting_mode.is_none() && c.dev.accounting.is_empty() {
            return Err(NOT_SUPPORTED);
        }
        let a = match c.dev.accounting.iter().find(|a| a.pid == pid) {
            Some(a) => nvmlAccountingStats_t {
                gpuUtilization: a.gpu_utilization,
                memoryUtilization: a.memory_utilization,
                maxMemoryUsage: a.max_memory_usage,
                time: a.time,
                startTime: a.start_time,
                isRunning: a.is_running,
                reserved: [0; 5],
            },
            None => live_accounted(c)
                .into_iter()
                .find(|(p, _)| *p == pid)
                .map(|(_, s)| s)
                .ok_or(NOT_FOUND)?,
        };
        o.set(a);
        Ok(())
    })
}

/// The live processes' accounting records on the GPU, when its accounting mode is on (an
/// administrator's choice: off, NVML keeps no record): every PID that held memory on it, running
/// or not, with the most it held (`maxMemoryUsage`), its first line's time (`startTime`, µs) and
/// `time` 0 while it runs, then the ms it ran (as NVML reports them).
fn live_accounted(c: &Ctx) -> Vec<(u32, nvmlAccountingStats_t)> {
    let (Target::Gpu(gpu), Some(live)) = (c.target, c.live) else {
        return Vec::new();
    };
    if c.opt(&c.dev.accounting_mode) != Some(1) {
        return Vec::new();
    }
    live.accounted(gpu)
        .map(|(pid, p)| {
            let start = p.first_ms.unwrap_or(0);
            let stats = nvmlAccountingStats_t {
                gpuUtilization: 0,
                memoryUtilization: 0,
                maxMemoryUsage: p.gpus.get(&gpu).map_or(0, |h| h.max),
                time: p.ended_ms.map_or(0, |end| end.saturating_sub(start)),
                startTime: start.saturating_mul(1000),
                isRunning: u32::from(!p.gone),
                reserved: [0; 5],
            };
            (pid, stats)
        })
        .collect()
}

/// The first sample's CPU timestamp (µs); call n's sample is `n - 1` seconds later.
const SAMPLE_EPOCH_US: u64 = 1_790_000_000_000_000;

/// The newest sample of `p` up to call index `idx` (the last element at or before it
/// whose `sm` is not negative), with its timestamp.
fn latest_sample(p: &Process, idx: usize) -> Option<nvmlProcessUtilizationInfo_v1_t> {
    let u = &p.utilization;
    let at = |v: &crate::scenario::Val<i64>, k: usize| v.as_ref().and_then(|s| s.at(k));
    let pct = |v: Option<i64>| u32::try_from(v.unwrap_or(0).clamp(0, 100)).unwrap_or(0);
    (0..=idx).rev().find_map(|k| {
        let sm = at(&u.sm, k)?;
        (sm >= 0).then(|| nvmlProcessUtilizationInfo_v1_t {
            timeStamp: SAMPLE_EPOCH_US + (k as u64) * 1_000_000,
            pid: p.pid,
            smUtil: pct(Some(sm)),
            memUtil: pct(at(&u.mem, k)),
            encUtil: pct(at(&u.enc, k)),
            decUtil: pct(at(&u.dec, k)),
            jpgUtil: pct(at(&u.jpg, k)),
            ofaUtil: pct(at(&u.ofa, k)),
        })
    })
}

/// Each running process's newest sample, if it is newer than `last_seen`.
/// A PID in several lists is sampled once. A live process whose last line gave its SM
/// utilization has a sample stamped now.
fn samples(c: &Ctx, last_seen: u64) -> Vec<nvmlProcessUtilizationInfo_v1_t> {
    let mut seen = std::collections::BTreeSet::new();
    let fixed = [Kind::Compute, Kind::Graphics, Kind::Mps]
        .into_iter()
        .flat_map(|k| list(c, k))
        .filter(|p| seen.insert(p.pid))
        .filter_map(|p| latest_sample(p, c.idx()));
    let now_us = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_micros()).unwrap_or(u64::MAX));
    let live: Vec<_> = match (c.target, c.live) {
        (Target::Gpu(i), Some(l)) => l
            .on_gpu(i)
            .filter_map(|(pid, h)| {
                Some(nvmlProcessUtilizationInfo_v1_t {
                    timeStamp: now_us,
                    pid,
                    smUtil: h.sm?,
                    memUtil: 0,
                    encUtil: 0,
                    decUtil: 0,
                    jpgUtil: 0,
                    ofaUtil: 0,
                })
            })
            .collect(),
        _ => Vec::new(),
    };
    fixed
        .chain(live)
        .filter(|s| s.timeStamp > last_seen)
        .collect()
}

/// Per-process utilization (sm, mem, enc, dec): see [`samples`]. Two-call protocol; no
/// sample at all is NOT_FOUND, as NVML answers.
///
/// # Safety
/// An NVML client's contract: each pointer argument is null or valid for
/// what NVML documents for this function, and a handle is one this library
/// handed out. Null pointers and unknown handles get INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceGetProcessUtilization(
    device: nvmlDevice_t,
    utilization: *mut nvmlProcessUtilizationSample_t,
    processSamplesCount: *mut c_uint,
    lastSeenTimeStamp: u64,
) -> nvmlReturn_t {
    let fill = is_fill(processSamplesCount, utilization);
    dev_call(
        "nvmlDeviceGetProcessUtilization",
        device,
        false,
        fill,
        |c| {
            let samples = samples(c, lastSeenTimeStamp);
            if samples.is_empty() {
                return Err(NOT_FOUND);
            }
            let old = samples.into_iter().map(|s| nvmlProcessUtilizationSample_t {
                pid: s.pid,
                timeStamp: s.timeStamp,
                smUtil: s.smUtil,
                memUtil: s.memUtil,
                encUtil: s.encUtil,
                decUtil: s.decUtil,
            });
            put_list(processSamplesCount, utilization, old)
        },
    )
}

/// `nvmlProcessesUtilizationInfo_t` version 1.
const PROCESSES_UTIL_V1: u32 =
    std::mem::size_of::<nvmlProcessesUtilizationInfo_v1_t>() as u32 | (1 << 24);

/// Per-process utilization with the JPEG and OFA engines (NVML 12.4 on): the samples of
/// [`samples`] in a versioned struct; `procUtilArray` NULL asks for the count.
///
/// # Safety
/// An NVML client's contract: each pointer argument is null or valid for
/// what NVML documents for this function, and a handle is one this library
/// handed out. Null pointers and unknown handles get INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceGetProcessesUtilizationInfo(
    device: nvmlDevice_t,
    procesesUtilInfo: *mut nvmlProcessesUtilizationInfo_t,
) -> nvmlReturn_t {
    // SAFETY: read only after the null check; the caller owns the struct.
    let fill =
        !procesesUtilInfo.is_null() && unsafe { !(*procesesUtilInfo).procUtilArray.is_null() };
    dev_call(
        "nvmlDeviceGetProcessesUtilizationInfo",
        device,
        false,
        fill,
        |c| {
            let info = nn(procesesUtilInfo)?;
            let mut v = info.get();
            if v.version != PROCESSES_UTIL_V1 {
                return Err(ARGUMENT_VERSION_MISMATCH);
            }
            let samples = samples(c, v.lastSeenTimeStamp);
            if samples.is_empty() {
                return Err(NOT_FOUND);
            }
            let mut count = v.processSamplesCount;
            let r = put_list(&mut count, v.procUtilArray, samples.into_iter());
            v.processSamplesCount = count;
            info.set(v);
            r
        },
    )
}
