//! NVML events: scripted XID errors (`[[device.xid]]`: `at_ms` after
//! `nvmlInit`, `code`) delivered through `nvmlEventSetCreate`,
//! `nvmlDeviceRegisterEvents`, `nvmlEventSetWait(_v2)` and
//! `nvmlEventSetFree`. Each set receives each registered GPU's events once,
//! in time order; a wait sleeps (without the simulator lock) until the next
//! event is due or its timeout passes (`NVML_ERROR_TIMEOUT`).

use crate::call::{enter, guard, nn, ret, INVALID_ARGUMENT, NOT_SUPPORTED, R, UNINITIALIZED};
use crate::state::{device_handle, lock, EventSet, Target};
use nvml_wrapper_sys::bindings::*;
use std::os::raw::{c_uint, c_ulonglong};
use std::time::{Duration, Instant};

/// `nvmlEventTypeXidCriticalError`, the only event type the simulator has.
pub(crate) const XID: c_ulonglong = 0x8;
const TIMEOUT: nvmlReturn_t = 10;
/// Event sets that may exist at once.
const MAX_SETS: usize = 1024;
/// Event set handles point into this (never dereferenced).
static SET_SPACE: [u8; MAX_SETS] = [0; MAX_SETS];

fn set_handle(i: usize) -> nvmlEventSet_t {
    SET_SPACE.as_ptr().wrapping_add(i) as nvmlEventSet_t
}

fn set_number(set: nvmlEventSet_t) -> R<usize> {
    let base = SET_SPACE.as_ptr() as usize;
    let p = set as usize;
    if set.is_null() || p < base || p >= base + MAX_SETS {
        return Err(INVALID_ARGUMENT);
    }
    Ok(p - base)
}

/// # Safety
/// `set` must be null or point to writable memory for one `nvmlEventSet_t`.
#[no_mangle]
pub unsafe extern "C" fn nvmlEventSetCreate(set: *mut nvmlEventSet_t) -> nvmlReturn_t {
    guard(|| {
        ret((|| {
            enter("nvmlEventSetCreate", None, true)?;
            let out = nn(set)?;
            let mut g = lock();
            let st = g.as_mut().ok_or(UNINITIALIZED)?;
            let i = (0..MAX_SETS)
                .map(|k| (st.next_event_set + k) % MAX_SETS)
                .find(|k| !st.event_sets.contains_key(k))
                .ok_or(crate::call::UNKNOWN)?;
            st.next_event_set = i + 1;
            st.event_sets.insert(i, EventSet::default());
            out.set(set_handle(i));
            Ok(())
        })())
    })
}

/// # Safety
/// `types` must be null or point to writable memory for one `unsigned long long`.
#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceGetSupportedEventTypes(
    device: nvmlDevice_t,
    types: *mut c_ulonglong,
) -> nvmlReturn_t {
    crate::call::dev_fn("nvmlDeviceGetSupportedEventTypes", device, |_| {
        nn(types)?.set(XID);
        Ok(())
    })
}

/// # Safety
/// `device` and `set` are handles; nothing is dereferenced.
#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceRegisterEvents(
    device: nvmlDevice_t,
    types: c_ulonglong,
    set: nvmlEventSet_t,
) -> nvmlReturn_t {
    guard(|| {
        ret((|| {
            let (target, _) = enter("nvmlDeviceRegisterEvents", Some(device), true)?;
            let Some(Target::Gpu(gpu)) = target else {
                return Err(INVALID_ARGUMENT);
            };
            if types & !XID != 0 {
                return Err(NOT_SUPPORTED);
            }
            let i = set_number(set)?;
            let mut g = lock();
            let st = g.as_mut().ok_or(UNINITIALIZED)?;
            let s = st.event_sets.get_mut(&i).ok_or(INVALID_ARGUMENT)?;
            if types & XID != 0 && !s.gpus.contains(&gpu) {
                s.gpus.push(gpu);
            }
            Ok(())
        })())
    })
}

/// The earliest event of set `i` not delivered yet: (gpu, its number, at_ms, code).
fn next_event(st: &crate::state::State, i: usize) -> R<Option<(usize, usize, u64, u64)>> {
    let s = st.event_sets.get(&i).ok_or(INVALID_ARGUMENT)?;
    let mut best: Option<(usize, usize, u64, u64)> = None;
    for &gpu in &s.gpus {
        let Some(dev) = st.sc.device.get(gpu) else {
            continue;
        };
        for (k, x) in dev.xid.iter().enumerate() {
            let earlier = best.map_or(true, |(_, _, t, _)| x.at_ms < t);
            if !s.delivered.contains(&(gpu, k)) && earlier {
                best = Some((gpu, k, x.at_ms, x.code));
            }
        }
    }
    Ok(best)
}

fn wait(set: nvmlEventSet_t, data: *mut nvmlEventData_t, timeout_ms: c_uint) -> R {
    enter("nvmlEventSetWait_v2", None, true)?;
    let out = nn(data)?;
    let i = set_number(set)?;
    let until = Instant::now() + Duration::from_millis(u64::from(timeout_ms));
    loop {
        let sleep = {
            let mut g = lock();
            let st = g.as_mut().ok_or(UNINITIALIZED)?;
            let now_ms = u64::try_from(st.started.elapsed().as_millis()).unwrap_or(u64::MAX);
            match next_event(st, i)? {
                Some((gpu, k, at, code)) if at <= now_ms => {
                    if let Some(s) = st.event_sets.get_mut(&i) {
                        s.delivered.insert((gpu, k));
                    }
                    out.set(nvmlEventData_t {
                        device: device_handle(gpu),
                        eventType: XID,
                        eventData: code,
                        gpuInstanceId: u32::MAX,
                        computeInstanceId: u32::MAX,
                    });
                    return Ok(());
                }
                Some((_, _, at, _)) => Duration::from_millis(at - now_ms),
                None => Duration::MAX,
            }
        };
        let left = until.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(TIMEOUT);
        }
        std::thread::sleep(sleep.min(left).min(Duration::from_millis(50)));
    }
}

/// # Safety
/// `data` must be null or point to writable memory for one `nvmlEventData_t`.
#[no_mangle]
pub unsafe extern "C" fn nvmlEventSetWait_v2(
    set: nvmlEventSet_t,
    data: *mut nvmlEventData_t,
    timeoutms: c_uint,
) -> nvmlReturn_t {
    guard(|| ret(wait(set, data, timeoutms)))
}

/// # Safety
/// `data` must be null or point to writable memory for one `nvmlEventData_t`.
#[no_mangle]
pub unsafe extern "C" fn nvmlEventSetWait(
    set: nvmlEventSet_t,
    data: *mut nvmlEventData_t,
    timeoutms: c_uint,
) -> nvmlReturn_t {
    guard(|| ret(wait(set, data, timeoutms)))
}

/// # Safety
/// `set` is a handle; nothing is dereferenced.
#[no_mangle]
pub unsafe extern "C" fn nvmlEventSetFree(set: nvmlEventSet_t) -> nvmlReturn_t {
    guard(|| {
        ret((|| {
            enter("nvmlEventSetFree", None, true)?;
            let i = set_number(set)?;
            let mut g = lock();
            let st = g.as_mut().ok_or(UNINITIALIZED)?;
            st.event_sets.remove(&i).map(|_| ()).ok_or(INVALID_ARGUMENT)
        })())
    })
}
