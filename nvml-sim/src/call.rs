//! The call machinery every export shares, apart from the state: NVML's return codes, the
//! device handles, the panic guard at the C boundary, and checked out-pointers, strings and
//! lists.

use crate::scenario::{MAX_DEVICES, MAX_MIG_INSTANCES};
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

/// Handles are addresses inside this (never written) block: device `i` is `base + i*64`,
/// its MIG instance `j` is `base + i*64 + 1 + j`.
const SLOT: usize = MAX_MIG_INSTANCES + 1;
static HANDLE_SPACE: [u8; MAX_DEVICES * SLOT] = [0; MAX_DEVICES * SLOT];

pub(crate) fn device_handle(i: usize) -> nvmlDevice_t {
    HANDLE_SPACE.as_ptr().wrapping_add(i * SLOT) as nvmlDevice_t
}

pub(crate) fn mig_handle(i: usize, j: usize) -> nvmlDevice_t {
    HANDLE_SPACE.as_ptr().wrapping_add(i * SLOT + 1 + j) as nvmlDevice_t
}

/// The device `i` and slot `k` (0: the GPU, `1 + j`: its MIG instance `j`) a handle points
/// at, if it is one of ours at all.
pub(crate) fn handle_slot(h: nvmlDevice_t) -> Option<(usize, usize)> {
    let base = HANDLE_SPACE.as_ptr() as usize;
    let p = h as usize;
    if h.is_null() || p < base || p >= base + HANDLE_SPACE.len() {
        return None;
    }
    let off = p - base;
    Some((off / SLOT, off % SLOT))
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Target {
    Gpu(usize),
    Mig(usize, usize),
}

impl Target {
    pub(crate) fn gpu(self) -> usize {
        match self {
            Target::Gpu(i) | Target::Mig(i, _) => i,
        }
    }
}

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
