//! Init/shutdown, error strings, system queries and device enumeration.

use crate::call::*;
use crate::state::*;
use nvml_wrapper_sys::bindings::*;
use std::os::raw::{c_char, c_int, c_uint};

/// # Safety
/// An NVML client's contract: each pointer argument is null or valid for
/// what NVML documents for this function, and a handle is one this library
/// handed out. Null pointers and unknown handles get INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn nvmlInit_v2() -> nvmlReturn_t {
    init()
}

/// # Safety
/// An NVML client's contract: each pointer argument is null or valid for
/// what NVML documents for this function, and a handle is one this library
/// handed out. Null pointers and unknown handles get INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn nvmlInit() -> nvmlReturn_t {
    init()
}

/// # Safety
/// An NVML client's contract: each pointer argument is null or valid for
/// what NVML documents for this function, and a handle is one this library
/// handed out. Null pointers and unknown handles get INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn nvmlInitWithFlags(_flags: c_uint) -> nvmlReturn_t {
    init()
}

/// # Safety
/// An NVML client's contract: each pointer argument is null or valid for
/// what NVML documents for this function, and a handle is one this library
/// handed out. Null pointers and unknown handles get INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn nvmlShutdown() -> nvmlReturn_t {
    shutdown()
}

fn error_string(code: nvmlReturn_t) -> &'static std::ffi::CStr {
    match code {
        0 => c"Success",
        1 => c"Uninitialized",
        2 => c"Invalid Argument",
        3 => c"Not Supported",
        4 => c"Insufficient Permissions",
        5 => c"Already Initialized",
        6 => c"Not Found",
        7 => c"Insufficient Size",
        8 => c"Insufficient External Power",
        9 => c"Driver Not Loaded",
        10 => c"Timeout",
        11 => c"Interrupt Request Issue",
        12 => c"NVML Shared Library Not Found",
        13 => c"Function Not Found",
        14 => c"Corrupted infoROM",
        15 => c"GPU is lost",
        16 => c"GPU requires reset",
        17 => c"GPU access blocked by the operating system",
        18 => c"Driver/library version mismatch",
        19 => c"In use by another client",
        20 => c"Insufficient Memory",
        21 => c"No data",
        22 => c"The requested vgpu operation is not available on target device, becasue ECC is enabled",
        23 => c"Insufficient resources",
        24 => c"Frequency not supported",
        25 => c"Argument version mismatch",
        26 => c"Requested functionality has been deprecated",
        27 => c"System is not ready",
        28 => c"GPU not found",
        29 => c"Invalid state",
        30 => c"Reset type not supported",
        _ => c"Unknown Error",
    }
}

/// # Safety
/// An NVML client's contract: each pointer argument is null or valid for
/// what NVML documents for this function, and a handle is one this library
/// handed out. Null pointers and unknown handles get INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn nvmlErrorString(result: nvmlReturn_t) -> *const c_char {
    std::panic::catch_unwind(|| error_string(result).as_ptr()).unwrap_or(c"Unknown Error".as_ptr())
}

/// # Safety
/// An NVML client's contract: each pointer argument is null or valid for
/// what NVML documents for this function, and a handle is one this library
/// handed out. Null pointers and unknown handles get INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn nvmlSystemGetDriverVersion(
    version: *mut c_char,
    length: c_uint,
) -> nvmlReturn_t {
    sys_fn("nvmlSystemGetDriverVersion", |st, _| {
        if version.is_null() {
            return Err(INVALID_ARGUMENT);
        }
        put_str(
            version,
            length,
            st.sc.driver_version.as_deref().ok_or(NOT_SUPPORTED)?,
        )
    })
}

/// # Safety
/// An NVML client's contract: each pointer argument is null or valid for
/// what NVML documents for this function, and a handle is one this library
/// handed out. Null pointers and unknown handles get INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn nvmlSystemGetNVMLVersion(
    version: *mut c_char,
    length: c_uint,
) -> nvmlReturn_t {
    if lock().is_none() {
        // Like the real library, the NVML version can be read without an
        // initialised library: nvidia-smi prints it when init reports a
        // driver/library version mismatch.
        return guard(|| {
            let r = (|| {
                if version.is_null() {
                    return Err(INVALID_ARGUMENT);
                }
                let sc = crate::scenario::Scenario::from_env().map_err(|_| UNKNOWN)?;
                put_str(
                    version,
                    length,
                    sc.nvml_version.as_deref().ok_or(NOT_SUPPORTED)?,
                )
            })();
            ret(r)
        });
    }
    sys_fn("nvmlSystemGetNVMLVersion", |st, _| {
        if version.is_null() {
            return Err(INVALID_ARGUMENT);
        }
        put_str(
            version,
            length,
            st.sc.nvml_version.as_deref().ok_or(NOT_SUPPORTED)?,
        )
    })
}

fn cuda_version(sym: &'static str, out: *mut c_int) -> nvmlReturn_t {
    sys_fn(sym, |st, n| {
        let o = nn(out)?;
        let v = st.sc.cuda_driver_version.as_ref().ok_or(NOT_SUPPORTED)?;
        o.set(v.at(n.saturating_sub(1) as usize).ok_or(NOT_SUPPORTED)?);
        Ok(())
    })
}

/// # Safety
/// An NVML client's contract: each pointer argument is null or valid for
/// what NVML documents for this function, and a handle is one this library
/// handed out. Null pointers and unknown handles get INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn nvmlSystemGetCudaDriverVersion(
    cudaDriverVersion: *mut c_int,
) -> nvmlReturn_t {
    cuda_version("nvmlSystemGetCudaDriverVersion", cudaDriverVersion)
}

/// # Safety
/// An NVML client's contract: each pointer argument is null or valid for
/// what NVML documents for this function, and a handle is one this library
/// handed out. Null pointers and unknown handles get INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn nvmlSystemGetCudaDriverVersion_v2(
    cudaDriverVersion: *mut c_int,
) -> nvmlReturn_t {
    cuda_version("nvmlSystemGetCudaDriverVersion_v2", cudaDriverVersion)
}

/// # Safety
/// An NVML client's contract: each pointer argument is null or valid for
/// what NVML documents for this function, and a handle is one this library
/// handed out. Null pointers and unknown handles get INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn nvmlSystemGetProcessName(
    pid: c_uint,
    name: *mut c_char,
    length: c_uint,
) -> nvmlReturn_t {
    const SYM: &str = "nvmlSystemGetProcessName";
    guard(|| {
        let r = (|| {
            enter(SYM, None, true)?;
            let mut g = lock();
            let st = g.as_mut().ok_or(UNINITIALIZED)?;
            process_name(st, pid, name, length)
        })();
        ret(r)
    })
}

/// The name of `pid` into `name` (`length` bytes), truncated as NVML truncates it; each call
/// for a PID with `names` moves on to the next one.
fn process_name(st: &mut State, pid: c_uint, name: *mut c_char, length: c_uint) -> R {
    if name.is_null() || length == 0 {
        return Err(INVALID_ARGUMENT);
    }
    let Some(p) = st.proc_names.get_mut(&pid) else {
        // A live process (`live.rs`): its name from procfs, while it runs.
        let local = st
            .live
            .as_ref()
            .and_then(|l| l.local(pid).filter(|p| l.running(*p)))
            .ok_or(NOT_FOUND)?;
        let s = crate::live::process_name(local).ok_or(NOT_FOUND)?;
        return put_truncated(name, length, &s);
    };
    if let Some(e) = p.error {
        if e != SUCCESS {
            return Err(e);
        }
    }
    p.calls += 1;
    let s = if p.names.is_empty() {
        p.name.as_deref()
    } else {
        let k = p.calls.min(p.names.len());
        p.names.get(k - 1).map(String::as_str)
    }
    .ok_or(NOT_FOUND)?;
    put_truncated(name, length, s)
}

/// NVML truncates process names to the buffer (`length` > 0).
fn put_truncated(name: *mut c_char, length: c_uint, s: &str) -> R {
    let mut end = s.len().min(length as usize - 1);
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    put_str(name, length, &s[..end])
}

fn count(sym: &'static str, out: *mut c_uint) -> nvmlReturn_t {
    sys_fn(sym, |st, _| {
        let o = nn(out)?;
        o.set(c_uint::try_from(st.sc.device.len()).map_err(|_| UNKNOWN)?);
        Ok(())
    })
}

/// # Safety
/// An NVML client's contract: each pointer argument is null or valid for
/// what NVML documents for this function, and a handle is one this library
/// handed out. Null pointers and unknown handles get INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceGetCount_v2(deviceCount: *mut c_uint) -> nvmlReturn_t {
    count("nvmlDeviceGetCount_v2", deviceCount)
}

/// # Safety
/// An NVML client's contract: each pointer argument is null or valid for
/// what NVML documents for this function, and a handle is one this library
/// handed out. Null pointers and unknown handles get INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceGetCount(deviceCount: *mut c_uint) -> nvmlReturn_t {
    count("nvmlDeviceGetCount", deviceCount)
}

fn by_index(sym: &'static str, index: c_uint, out: *mut nvmlDevice_t) -> nvmlReturn_t {
    sys_fn(sym, |st, _| {
        let o = nn(out)?;
        let i = index as usize;
        if i >= st.sc.device.len() {
            return Err(INVALID_ARGUMENT);
        }
        o.set(device_handle(i));
        Ok(())
    })
}

/// # Safety
/// An NVML client's contract: each pointer argument is null or valid for
/// what NVML documents for this function, and a handle is one this library
/// handed out. Null pointers and unknown handles get INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceGetHandleByIndex_v2(
    index: c_uint,
    device: *mut nvmlDevice_t,
) -> nvmlReturn_t {
    by_index("nvmlDeviceGetHandleByIndex_v2", index, device)
}

/// # Safety
/// An NVML client's contract: each pointer argument is null or valid for
/// what NVML documents for this function, and a handle is one this library
/// handed out. Null pointers and unknown handles get INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceGetHandleByIndex(
    index: c_uint,
    device: *mut nvmlDevice_t,
) -> nvmlReturn_t {
    by_index("nvmlDeviceGetHandleByIndex", index, device)
}

fn find_handle(
    sym: &'static str,
    key: *const c_char,
    out: *mut nvmlDevice_t,
    matches: impl Fn(&crate::scenario::Device, &str) -> bool,
) -> nvmlReturn_t {
    sys_fn(sym, |st, _| {
        let o = nn(out)?;
        let k = read_cstr(key)?;
        for (i, d) in st.sc.device.iter().enumerate() {
            if matches(d, &k) {
                o.set(device_handle(i));
                return Ok(());
            }
            for (j, m) in d.mig_instance.iter().enumerate() {
                if sym == "nvmlDeviceGetHandleByUUID" && m.uuid.as_deref() == Some(k.as_str()) {
                    o.set(mig_handle(i, j));
                    return Ok(());
                }
            }
        }
        Err(NOT_FOUND)
    })
}

/// # Safety
/// An NVML client's contract: each pointer argument is null or valid for
/// what NVML documents for this function, and a handle is one this library
/// handed out. Null pointers and unknown handles get INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceGetHandleByUUID(
    uuid: *const c_char,
    device: *mut nvmlDevice_t,
) -> nvmlReturn_t {
    find_handle("nvmlDeviceGetHandleByUUID", uuid, device, |d, k| {
        d.uuid.as_deref() == Some(k)
    })
}

/// # Safety
/// An NVML client's contract: each pointer argument is null or valid for
/// what NVML documents for this function, and a handle is one this library
/// handed out. Null pointers and unknown handles get INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceGetHandleBySerial(
    serial: *const c_char,
    device: *mut nvmlDevice_t,
) -> nvmlReturn_t {
    find_handle("nvmlDeviceGetHandleBySerial", serial, device, |d, k| {
        d.serial.as_deref() == Some(k)
    })
}

/// Parse "[domain:]bus:device[.function]" (hex) into (domain, bus, device).
fn parse_bus_id(s: &str) -> Option<(u32, u32, u32)> {
    let s = s.trim();
    let s = s.split('.').next()?;
    let parts: Vec<&str> = s.split(':').collect();
    let h = |x: &str| u32::from_str_radix(x, 16).ok();
    match parts.as_slice() {
        [d, b, dev] => Some((h(d)?, h(b)?, h(dev)?)),
        [b, dev] => Some((0, h(b)?, h(dev)?)),
        _ => None,
    }
}

fn pci_match(d: &crate::scenario::Device, k: &str) -> bool {
    let (Some(want), Some(have)) = (parse_bus_id(k), d.bus_id().and_then(|b| parse_bus_id(&b)))
    else {
        return false;
    };
    want == have
}

/// # Safety
/// An NVML client's contract: each pointer argument is null or valid for
/// what NVML documents for this function, and a handle is one this library
/// handed out. Null pointers and unknown handles get INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceGetHandleByPciBusId_v2(
    pciBusId: *const c_char,
    device: *mut nvmlDevice_t,
) -> nvmlReturn_t {
    find_handle(
        "nvmlDeviceGetHandleByPciBusId_v2",
        pciBusId,
        device,
        pci_match,
    )
}

/// # Safety
/// An NVML client's contract: each pointer argument is null or valid for
/// what NVML documents for this function, and a handle is one this library
/// handed out. Null pointers and unknown handles get INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceGetHandleByPciBusId(
    pciBusId: *const c_char,
    device: *mut nvmlDevice_t,
) -> nvmlReturn_t {
    find_handle("nvmlDeviceGetHandleByPciBusId", pciBusId, device, pci_match)
}
