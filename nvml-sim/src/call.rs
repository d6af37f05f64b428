//! The call machinery every export shares: NVML's return codes, the panic guard at the C
//! boundary, checked out-pointers, strings and lists, and entering the state from an export
//! (`init`, `enter`: init check, absent function, handle, counting, loss, faults; then `dev_fn`,
//! `any_fn`, `peer_fn`, `pair_fn`, `sys_fn` and the `Ctx` a device body sees).

use crate::live::Live;
use crate::scenario::{Device, Fault, MigInstance, Scenario, Series};
use crate::state::{lock, State, Target};
use nvml_wrapper_sys::bindings::*;
use std::os::raw::{c_char, c_uint};
use std::panic::{catch_unwind, AssertUnwindSafe};

pub(crate) const SUCCESS: nvmlReturn_t = 0;
pub(crate) const UNINITIALIZED: nvmlReturn_t = 1;
pub(crate) const INVALID_ARGUMENT: nvmlReturn_t = 2;
pub(crate) const NOT_SUPPORTED: nvmlReturn_t = 3;
pub(crate) const NOT_FOUND: nvmlReturn_t = 6;
pub(crate) const INSUFFICIENT_SIZE: nvmlReturn_t = 7;
pub(crate) const FUNCTION_NOT_FOUND: nvmlReturn_t = 13;
pub(crate) const CORRUPTED_INFOROM: nvmlReturn_t = 14;
pub(crate) const GPU_IS_LOST: nvmlReturn_t = 15;
pub(crate) const ARGUMENT_VERSION_MISMATCH: nvmlReturn_t = 25;
pub(crate) const UNKNOWN: nvmlReturn_t = 999;

pub(crate) type R<T = ()> = Result<T, nvmlReturn_t>;

/// Run an export body; a panic becomes NVML_ERROR_UNKNOWN instead of unwinding into C.
pub(crate) fn guard(f: impl FnOnce() -> nvmlReturn_t) -> nvmlReturn_t {
    catch_unwind(AssertUnwindSafe(f)).unwrap_or(UNKNOWN)
}

pub(crate) fn ret(r: R) -> nvmlReturn_t {
    match r {
        Ok(()) => SUCCESS,
        Err(e) => e,
    }
}

/// A checked out-pointer.
pub(crate) struct Out<T>(*mut T);

impl<T> Out<T> {
    pub(crate) fn set(&self, v: T) {
        // SAFETY: non-null (checked by `nn`); the caller owns the memory it passed to NVML.
        unsafe { self.0.write(v) }
    }
    pub(crate) fn ptr(&self) -> *mut T {
        self.0
    }
}

impl<T: Copy> Out<T> {
    pub(crate) fn get(&self) -> T {
        // SAFETY: as above; NVML in-out parameters are read before being written.
        unsafe { self.0.read() }
    }
}

/// Null check of an out-pointer (INVALID_ARGUMENT when null).
pub(crate) fn nn<T>(p: *mut T) -> R<Out<T>> {
    if p.is_null() {
        Err(INVALID_ARGUMENT)
    } else {
        Ok(Out(p))
    }
}

/// Copy `s` NUL-terminated into a caller buffer of `len` bytes.
pub(crate) fn put_str(buf: *mut c_char, len: c_uint, s: &str) -> R {
    if buf.is_null() {
        return Err(INVALID_ARGUMENT);
    }
    let b = s.as_bytes();
    if b.len() + 1 > len as usize {
        return Err(INSUFFICIENT_SIZE);
    }
    // SAFETY: buf is non-null and the caller says it holds `len` >= b.len()+1 bytes.
    unsafe {
        std::ptr::copy_nonoverlapping(b.as_ptr(), buf.cast::<u8>(), b.len());
        *buf.add(b.len()) = 0;
    }
    Ok(())
}

/// Copy `s` into a fixed C char array (truncating, always NUL-terminated).
pub(crate) fn fill_chars<const N: usize>(dst: &mut [c_char; N], s: &str) {
    dst.fill(0);
    for (d, b) in dst.iter_mut().zip(s.bytes().take(N.saturating_sub(1))) {
        *d = b as c_char;
    }
}

/// Read a NUL-terminated C string argument.
pub(crate) fn read_cstr(p: *const c_char) -> R<String> {
    if p.is_null() {
        return Err(INVALID_ARGUMENT);
    }
    // SAFETY: non-null, NUL-terminated by the NVML contract.
    let s = unsafe { std::ffi::CStr::from_ptr(p) };
    Ok(s.to_string_lossy().into_owned())
}

/// Two-call protocol for lists: `count` is in/out, `buf` may be NULL for the sizing call.
pub(crate) fn put_list<T>(
    count: *mut c_uint,
    buf: *mut T,
    items: impl ExactSizeIterator<Item = T>,
) -> R {
    let cnt = nn(count)?;
    let need = items.len();
    let have = cnt.get() as usize;
    let need_u = c_uint::try_from(need).map_err(|_| UNKNOWN)?;
    if need == 0 {
        cnt.set(0);
        return Ok(());
    }
    if buf.is_null() || have < need {
        cnt.set(need_u);
        return Err(INSUFFICIENT_SIZE);
    }
    for (i, it) in items.enumerate() {
        // SAFETY: buf is non-null and the caller said it holds `have` >= need elements.
        unsafe { buf.add(i).write(it) };
    }
    cnt.set(need_u);
    Ok(())
}

/// Whether a two-call list call is a fill call (counted) rather than a sizing call.
pub(crate) fn is_fill<T>(count: *mut c_uint, buf: *mut T) -> bool {
    // SAFETY: read only after the null check.
    !buf.is_null() && !count.is_null() && unsafe { *count } > 0
}

/// `nvmlInit*`: reference-counted.
pub(crate) fn init() -> nvmlReturn_t {
    guard(|| {
        let mut g = lock();
        if let Some(st) = g.as_mut() {
            st.refcount = st.refcount.saturating_add(1);
            return SUCCESS;
        }
        let sc = match Scenario::from_env() {
            Ok(sc) => sc,
            Err(e) => {
                eprintln!("nvml-sim: cannot load scenario: {e}");
                return UNKNOWN;
            }
        };
        if let Some(c) = &sc.init_fault {
            return c.value().unwrap_or(UNKNOWN);
        }
        *g = Some(State::new(sc));
        SUCCESS
    })
}

pub(crate) fn shutdown() -> nvmlReturn_t {
    guard(|| {
        let mut g = lock();
        match g.as_mut() {
            None => UNINITIALIZED,
            Some(st) => {
                st.refcount = st.refcount.saturating_sub(1);
                if st.refcount == 0 {
                    *g = None;
                }
                SUCCESS
            }
        }
    })
}

/// Body of a generated stub.
pub(crate) fn stub(sym: &'static str) -> nvmlReturn_t {
    guard(|| {
        let g = lock();
        match g.as_ref() {
            None => UNINITIALIZED,
            Some(st) if st.absent.contains(sym) => FUNCTION_NOT_FOUND,
            Some(_) => NOT_SUPPORTED,
        }
    })
}

fn active_fault<'a>(faults: &'a [Fault], sym: &str, n: u64) -> Option<&'a Fault> {
    faults
        .iter()
        .find(|f| f.function == sym && n > f.after_calls)
}

/// Phase 1 of every call: init check, absent function, handle check, counting, loss, faults
/// (including the delay, slept without the lock). Returns the target and the 1-based call number.
pub(crate) fn enter(
    sym: &'static str,
    h: Option<nvmlDevice_t>,
    counted: bool,
) -> R<(Option<Target>, u64)> {
    let (res, delay) = {
        let mut g = lock();
        let st = g.as_mut().ok_or(UNINITIALIZED)?;
        if st.absent.contains(sym) {
            return Err(FUNCTION_NOT_FOUND);
        }
        if let Some(live) = st.live.as_mut().filter(|_| crate::live::reads(sym)) {
            live.refresh(st.sc.device.len());
        }
        let target = match h {
            Some(h) => Some(st.resolve(h).ok_or(INVALID_ARGUMENT)?),
            None => None,
        };
        let key = target.map(Target::gpu).unwrap_or(usize::MAX);
        let c = st.counters.entry((key, sym)).or_insert(0);
        let n = if counted {
            *c += 1;
            *c
        } else {
            *c + 1
        };
        let faults: &[Fault] = match target {
            Some(t) => {
                let gi = t.gpu();
                let calls = st.dev_calls.get_mut(gi).ok_or(INVALID_ARGUMENT)?;
                *calls += 1;
                let calls = *calls;
                let dev = st.sc.device.get(gi).ok_or(INVALID_ARGUMENT)?;
                if dev.lost_after_calls.is_some_and(|l| calls > l) {
                    return Err(GPU_IS_LOST);
                }
                &dev.fault
            }
            None => &st.sc.fault,
        };
        let latency = st.sc.latency.of(sym);
        match active_fault(faults, sym, n) {
            Some(f) => {
                let code = f.code.as_ref().map(|c| c.value().unwrap_or(UNKNOWN));
                let res = match code {
                    Some(c) if c != SUCCESS => Err(c),
                    _ => Ok((target, n)),
                };
                (res, latency + std::time::Duration::from_millis(f.delay_ms))
            }
            None => (Ok((target, n)), latency),
        }
    };
    if !delay.is_zero() {
        std::thread::sleep(delay);
    }
    res
}

/// What a device function body sees.
pub(crate) struct Ctx<'a> {
    pub dev: &'a Device,
    pub target: Target,
    /// 1-based number of this call of this function on this device.
    pub n: u64,
    /// Seconds since `nvmlInit` loaded the scenario (for values that follow the clock).
    pub elapsed_s: f64,
    /// The live processes, if the scenario has them (read afresh by the calls that list them).
    pub live: Option<&'a Live>,
}

impl Ctx<'_> {
    pub(crate) fn idx(&self) -> usize {
        usize::try_from(self.n.saturating_sub(1)).unwrap_or(usize::MAX)
    }
    /// Current value of a series, NOT_SUPPORTED if absent.
    pub(crate) fn val<T: Copy>(&self, v: &Option<Series<T>>) -> R<T> {
        v.as_ref()
            .and_then(|s| s.at(self.idx()))
            .ok_or(NOT_SUPPORTED)
    }
    pub(crate) fn opt<T: Copy>(&self, v: &Option<Series<T>>) -> Option<T> {
        v.as_ref().and_then(|s| s.at(self.idx()))
    }
    pub(crate) fn mig(&self) -> Option<&MigInstance> {
        match self.target {
            Target::Mig(_, j) => self.dev.mig_instance.get(j),
            Target::Gpu(_) => None,
        }
    }
}

/// A call on a device handle. `mig_ok`: MIG handles are accepted (else NOT_SUPPORTED for them).
/// `counted`: false for sizing calls of two-call protocols.
pub(crate) fn dev_call(
    sym: &'static str,
    h: nvmlDevice_t,
    mig_ok: bool,
    counted: bool,
    f: impl FnOnce(&Ctx) -> R,
) -> nvmlReturn_t {
    guard(|| {
        let r = (|| {
            let (target, n) = enter(sym, Some(h), counted)?;
            let target = target.ok_or(INVALID_ARGUMENT)?;
            if !mig_ok && matches!(target, Target::Mig(..)) {
                return Err(NOT_SUPPORTED);
            }
            let g = lock();
            let st = g.as_ref().ok_or(UNINITIALIZED)?;
            let dev = st.sc.device.get(target.gpu()).ok_or(INVALID_ARGUMENT)?;
            f(&Ctx {
                dev,
                target,
                n,
                elapsed_s: st.started.elapsed().as_secs_f64(),
                live: st.live.as_ref(),
            })
        })();
        ret(r)
    })
}

/// A GPU-only call that also sees every device of the scenario (NVLink peers).
pub(crate) fn peer_fn(
    sym: &'static str,
    h: nvmlDevice_t,
    f: impl FnOnce(&Ctx, &State) -> R,
) -> nvmlReturn_t {
    guard(|| {
        let r = (|| {
            let (target, n) = enter(sym, Some(h), true)?;
            let target = target.ok_or(INVALID_ARGUMENT)?;
            if matches!(target, Target::Mig(..)) {
                return Err(NOT_SUPPORTED);
            }
            let g = lock();
            let st = g.as_ref().ok_or(UNINITIALIZED)?;
            let dev = st.sc.device.get(target.gpu()).ok_or(INVALID_ARGUMENT)?;
            f(
                &Ctx {
                    dev,
                    target,
                    n,
                    elapsed_s: st.started.elapsed().as_secs_f64(),
                    live: st.live.as_ref(),
                },
                st,
            )
        })();
        ret(r)
    })
}

/// A call on two GPU handles (`f` gets the first one's context and the second device).
pub(crate) fn pair_fn(
    sym: &'static str,
    h1: nvmlDevice_t,
    h2: nvmlDevice_t,
    f: impl FnOnce(&Ctx, &Device) -> R,
) -> nvmlReturn_t {
    peer_fn(sym, h1, |c, st| match st.resolve(h2) {
        Some(Target::Gpu(j)) => {
            let d = st.sc.device.get(j).ok_or(INVALID_ARGUMENT)?;
            // The second GPU is lost when its next call would be.
            let calls = st.dev_calls.get(j).copied().unwrap_or(0);
            if d.lost_after_calls.is_some_and(|l| calls >= l) {
                return Err(GPU_IS_LOST);
            }
            f(c, d)
        }
        Some(Target::Mig(..)) => Err(NOT_SUPPORTED),
        None => Err(INVALID_ARGUMENT),
    })
}

/// A GPU-only device call.
pub(crate) fn dev_fn(
    sym: &'static str,
    h: nvmlDevice_t,
    f: impl FnOnce(&Ctx) -> R,
) -> nvmlReturn_t {
    dev_call(sym, h, false, true, f)
}

/// A device call that also accepts MIG handles.
pub(crate) fn any_fn(
    sym: &'static str,
    h: nvmlDevice_t,
    f: impl FnOnce(&Ctx) -> R,
) -> nvmlReturn_t {
    dev_call(sym, h, true, true, f)
}

/// A call without a device handle; `f` gets the state and the 1-based call number.
pub(crate) fn sys_fn(sym: &'static str, f: impl FnOnce(&State, u64) -> R) -> nvmlReturn_t {
    guard(|| {
        let r = (|| {
            let (_, n) = enter(sym, None, true)?;
            let g = lock();
            let st = g.as_ref().ok_or(UNINITIALIZED)?;
            f(st, n)
        })();
        ret(r)
    })
}
