//! Running-process lists (two-call protocol) and accounting.

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
    match c.mig() {
        // On a MIG handle: only the processes of that GPU/compute instance.
        Some(m) => all
            .iter()
            .filter(|p| {
                p.gpu_instance_id == m.gpu_instance_id
                    && (m.compute_instance_id.is_none()
                        || p.compute_instance_id == m.compute_instance_id)
            })
            .collect(),
        None => all.iter().collect(),
    }
}

fn used(c: &Ctx, p: &Process) -> u64 {
    match &p.used_memory {
        Some(UsedMemory::Bytes(s)) => s.at(c.idx()).unwrap_or(NOT_AVAILABLE_U64),
        _ => NOT_AVAILABLE_U64,
    }
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
        let l = list(c, kind);
        put_list(count, infos, l.iter().map(|p| v2(c, p)))
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
        let l = list(c, kind);
        put_list(
            count,
            infos,
            l.iter().map(|p| nvmlProcessInfo_v1_t {
                pid: p.pid,
                usedGpuMemory: used(c, p),
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
        put_list(count, pids, c.dev.accounting.iter().map(|a| a.pid))
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
        let a = c
            .dev
            .accounting
            .iter()
            .find(|a| a.pid == pid)
            .ok_or(NOT_FOUND)?;
        o.set(nvmlAccountingStats_t {
            gpuUtilization: a.gpu_utilization,
            memoryUtilization: a.memory_utilization,
            maxMemoryUsage: a.max_memory_usage,
            time: a.time,
            startTime: a.start_time,
            isRunning: a.is_running,
            reserved: [0; 5],
        });
        Ok(())
    })
}
