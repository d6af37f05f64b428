//! A GPU's process lists (`_v3` → `_v2` → v1, and the detail list with
//! protected memory), process names and per-process utilisation.

use super::{list_room, or_older, read_list_into, version, zeroed, Dev, MAX_LIST_LEN};
use crate::nvml::{check, NvmlCode, Session};
use nvml_wrapper_sys::bindings::*;
use std::os::raw::c_uint;

/// NVML's "no value" for 64-bit counters (`NVML_VALUE_NOT_AVAILABLE`).
const NOT_AVAILABLE_U64: u64 = u64::MAX;
/// NVML's "no value" for instance ids.
const NOT_AVAILABLE_U32: u32 = u32::MAX;

/// `v`, unless it is NVML's "no value" `none`.
fn known<T: PartialEq>(v: T, none: T) -> Option<T> {
    Some(v).filter(|v| *v != none)
}

/// One process in a GPU's process list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Proc {
    /// The process id.
    pub pid: u32,
    /// Bytes; `None` when NVML cannot tell (Windows WDDM, some MIG setups).
    pub used_memory: Option<u64>,
    /// The MIG GPU instance the process runs in.
    pub gpu_instance_id: Option<u32>,
    /// The MIG compute instance the process runs in.
    pub compute_instance_id: Option<u32>,
    /// Confidential-computing protected memory, bytes: only
    /// `nvmlDeviceGetRunningProcessDetailList` reports it ([`process_details`]).
    pub cc_protected_memory: Option<u64>,
}

impl From<nvmlProcessInfo_v2_t> for Proc {
    fn from(p: nvmlProcessInfo_v2_t) -> Self {
        Proc {
            pid: p.pid,
            used_memory: known(p.usedGpuMemory, NOT_AVAILABLE_U64),
            gpu_instance_id: known(p.gpuInstanceId, NOT_AVAILABLE_U32),
            compute_instance_id: known(p.computeInstanceId, NOT_AVAILABLE_U32),
            cc_protected_memory: None,
        }
    }
}

impl From<nvmlProcessInfo_v1_t> for Proc {
    fn from(p: nvmlProcessInfo_v1_t) -> Self {
        Proc {
            pid: p.pid,
            used_memory: known(p.usedGpuMemory, NOT_AVAILABLE_U64),
            gpu_instance_id: None,
            compute_instance_id: None,
            cc_protected_memory: None,
        }
    }
}

impl From<nvmlProcessDetail_v1_t> for Proc {
    fn from(p: nvmlProcessDetail_v1_t) -> Self {
        Proc {
            pid: p.pid,
            used_memory: known(p.usedGpuMemory, NOT_AVAILABLE_U64),
            gpu_instance_id: known(p.gpuInstanceId, NOT_AVAILABLE_U32),
            compute_instance_id: known(p.computeInstanceId, NOT_AVAILABLE_U32),
            cc_protected_memory: known(p.usedGpuCcProtectedMemory, NOT_AVAILABLE_U64),
        }
    }
}

/// Which of a GPU's process lists.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProcessList {
    /// CUDA (compute) processes.
    Compute,
    /// Graphics processes.
    Graphics,
    /// Compute processes under MPS.
    MpsCompute,
}

type ListFn<T> = unsafe extern "C" fn(nvmlDevice_t, *mut c_uint, *mut T) -> nvmlReturn_t;

/// One version of a process-list function, read with [`read_list_into`]
/// (first with a buffer of `room` entries; 0: NVML's sizing call first).
fn proc_list<T: Copy>(
    c: &Dev<'_>,
    f: Result<ListFn<T>, NvmlCode>,
    zero: T,
    room: u32,
) -> Result<Vec<Proc>, NvmlCode>
where
    Proc: From<T>,
{
    let (f, h) = (f?, c.handle()?);
    // SAFETY: `f` is an NVML process-list function whose records are `T`,
    // called for a live handle.
    let list = unsafe { read_list_into(room, zero, |n, buf| f(h, n, buf)) }?;
    Ok(list.into_iter().map(Proc::from).collect())
}

/// A GPU's processes of one list, through `_v3`, else `_v2`, else the
/// original function: a symbol missing from the library and an NVML
/// FUNCTION_NOT_FOUND answer both move on to the next older one.
pub fn processes(c: &Dev<'_>, which: ProcessList) -> Result<Vec<Proc>, NvmlCode> {
    processes_in(c, which, 0)
}

/// [`processes`] for a reader that reads the list again and again: the
/// first call passes a buffer of `room` entries ([`read_list_into`]), so a
/// list that fits is read in one call.
pub fn processes_in(c: &Dev<'_>, which: ProcessList, room: u32) -> Result<Vec<Proc>, NvmlCode> {
    let zero2 = nvmlProcessInfo_v2_t {
        pid: 0,
        usedGpuMemory: 0,
        gpuInstanceId: 0,
        computeInstanceId: 0,
    };
    let zero1 = nvmlProcessInfo_v1_t {
        pid: 0,
        usedGpuMemory: 0,
    };
    let (v3, v2, v1) = match which {
        ProcessList::Compute => (
            sym!(c, nvmlDeviceGetComputeRunningProcesses_v3),
            sym!(c, nvmlDeviceGetComputeRunningProcesses_v2),
            sym!(c, nvmlDeviceGetComputeRunningProcesses),
        ),
        ProcessList::Graphics => (
            sym!(c, nvmlDeviceGetGraphicsRunningProcesses_v3),
            sym!(c, nvmlDeviceGetGraphicsRunningProcesses_v2),
            sym!(c, nvmlDeviceGetGraphicsRunningProcesses),
        ),
        ProcessList::MpsCompute => (
            sym!(c, nvmlDeviceGetMPSComputeRunningProcesses_v3),
            sym!(c, nvmlDeviceGetMPSComputeRunningProcesses_v2),
            sym!(c, nvmlDeviceGetMPSComputeRunningProcesses),
        ),
    };
    let missing = [NvmlCode::FUNCTION_NOT_FOUND];
    or_older(proc_list(c, v3, zero2, room), &missing, || {
        or_older(proc_list(c, v2, zero2, room), &missing, || {
            proc_list(c, v1, zero1, room)
        })
    })
}

/// `nvmlProcessDetailList_t`'s `mode` for each process list
/// (`NVML_PROCESS_MODE_COMPUTE`, `_GRAPHICS`, `_MPS`).
const fn process_mode(which: ProcessList) -> c_uint {
    match which {
        ProcessList::Compute => 0,
        ProcessList::Graphics => 1,
        ProcessList::MpsCompute => 2,
    }
}

/// A GPU's processes of one list through `nvmlDeviceGetRunningProcessDetailList`
/// (newer drivers), which adds each process's confidential-computing
/// protected memory to what the process lists give. The versioned list
/// follows the list protocol of [`read_list_into`], the first call with a
/// buffer of `room` entries (0: the sizing call first). FUNCTION_NOT_FOUND
/// on drivers without it: callers fall back to [`processes_in`].
pub fn process_details(c: &Dev<'_>, which: ProcessList, room: u32) -> Result<Vec<Proc>, NvmlCode> {
    let f = sym!(c, nvmlDeviceGetRunningProcessDetailList)?;
    let h = c.handle()?;
    let mode = process_mode(which);
    let zero: nvmlProcessDetail_v1_t = zeroed();
    // SAFETY: `f` is NVML's detail list for a live handle; each call passes a
    // versioned list whose array (NULL or `buf`) holds the `*n` entries that
    // `read_list_into` allocated, and `n` is a valid count pointer.
    let list = unsafe {
        read_list_into(room, zero, |n, buf| {
            let mut l = versioned!(nvmlProcessDetailList_v1_t, 1);
            l.mode = mode;
            l.numProcArrayEntries = *n;
            l.procArray = buf;
            let r = f(h, &mut l);
            *n = l.numProcArrayEntries;
            r
        })
    }?;
    Ok(list.into_iter().map(Proc::from).collect())
}

/// The longest process name NVML hands back (its own buffer limit).
pub const PROCESS_NAME_LEN: usize = 1024;

/// `nvmlSystemGetProcessName`, keeping names that are not valid UTF-8.
pub fn process_name(session: &Session, pid: u32) -> Result<String, NvmlCode> {
    let f = nvml_wrapper::error::nvml_sym(session.lib().nvmlSystemGetProcessName.as_ref())
        .map_err(NvmlCode::from)?;
    let mut buf = vec![0 as std::os::raw::c_char; PROCESS_NAME_LEN];
    // SAFETY: NVML writes at most `len` bytes, NUL-terminated, into `buf`.
    check(unsafe { f(pid, buf.as_mut_ptr(), buf.len() as c_uint) })?;
    if let Some(last) = buf.last_mut() {
        *last = 0;
    }
    // SAFETY: the buffer is NUL-terminated (forced above).
    let name = unsafe { std::ffi::CStr::from_ptr(buf.as_ptr()) };
    Ok(name.to_string_lossy().into_owned())
}

/// `nvmlDeviceGetProcessesUtilizationInfo` (drivers from 550 on): each
/// process's samples newer than `last_seen` (µs), with the JPEG and OFA
/// engines that `nvmlDeviceGetProcessUtilization` lacks. With a `room` of 0,
/// two calls: the count (with a NULL array), then the samples; else the
/// first call already passes an array of `room` entries and is the only one
/// when the samples fit (INSUFFICIENT_SIZE with the count needed, else).
/// No sample at all is NVML's NOT_FOUND.
pub fn processes_utilization(
    c: &Dev<'_>,
    last_seen: u64,
    room: u32,
) -> Result<Vec<nvmlProcessUtilizationInfo_v1_t>, NvmlCode> {
    let f = sym!(c, nvmlDeviceGetProcessesUtilizationInfo)?;
    let h = c.handle()?;
    // One call with an array of `n` entries (NULL for none): its code, and
    // the count NVML wrote back.
    let call = |n: c_uint, array: *mut nvmlProcessUtilizationInfo_v1_t| {
        let mut info = versioned!(nvmlProcessesUtilizationInfo_t, 1);
        info.lastSeenTimeStamp = last_seen;
        info.processSamplesCount = n;
        info.procUtilArray = array;
        // SAFETY: a valid handle; a versioned struct whose array is NULL
        // (which asks only for the count) or `n` writable elements that
        // outlive the call.
        let r = check(unsafe { f(h, &mut info) });
        (r, info.processSamplesCount)
    };
    let filled = |n: c_uint| {
        let mut samples: Vec<nvmlProcessUtilizationInfo_v1_t> = vec![zeroed(); n as usize];
        let (r, got) = call(n, samples.as_mut_ptr());
        samples.truncate(got.min(n) as usize);
        r.map(|()| samples)
    };
    let need = if room > 0 {
        let room = room.min(MAX_LIST_LEN);
        let mut samples: Vec<nvmlProcessUtilizationInfo_v1_t> = vec![zeroed(); room as usize];
        match call(room, samples.as_mut_ptr()) {
            (Ok(()), got) => {
                samples.truncate(got.min(room) as usize);
                return Ok(samples);
            }
            // The samples did not fit: once more, with the room NVML asks
            // for and some headroom (twice the room when it asks for no more).
            (Err(code), need) if code == NvmlCode::INSUFFICIENT_SIZE && need > room => {
                list_room(need)
            }
            (Err(code), _) if code == NvmlCode::INSUFFICIENT_SIZE => room.saturating_mul(2),
            (Err(code), _) => return Err(code),
        }
    } else {
        match call(0, std::ptr::null_mut()) {
            (Ok(()), 0) => return Ok(Vec::new()),
            (Ok(()), need) => need,
            (Err(code), need) if code == NvmlCode::INSUFFICIENT_SIZE => need,
            (Err(code), _) => return Err(code),
        }
    };
    filled(need.min(MAX_LIST_LEN))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn not_available_memory_is_none() {
        let p = Proc::from(nvmlProcessInfo_v2_t {
            pid: 7,
            usedGpuMemory: u64::MAX,
            gpuInstanceId: 1,
            computeInstanceId: u32::MAX,
        });
        assert_eq!(p.used_memory, None);
        assert_eq!(p.gpu_instance_id, Some(1));
        assert_eq!(p.compute_instance_id, None);
        let p = Proc::from(nvmlProcessInfo_v1_t {
            pid: 8,
            usedGpuMemory: 1 << 20,
        });
        assert_eq!(p.used_memory, Some(1 << 20));
    }
}
