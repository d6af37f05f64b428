//! The raw NVML layer: every NVML function that nvml-wrapper does not wrap
//! (or wraps in a way that loses what nvidia-smi prints), called through the
//! wrapper's symbol table. Nothing else in nvq calls NVML through FFI.
//!
//! It also holds the typed reads, through nvml-wrapper, of what is not one
//! GPU's fact (a device's identity for `-i` and for its peers, MIG devices,
//! NVLinks, the topology, vGPU instances, units, XID events): outside this
//! layer only the catalogue's reader (`source/gpu/`) calls nvml-wrapper's
//! getters (`scripts/check-layers.py`).
//!
//! A symbol the library lacks becomes `FUNCTION_NOT_FOUND`, printed
//! `[Function Not Found]`, never a panic. Lists use one two-call protocol
//! ([`read_list`]) with named codes and a bounded size.

use super::{check, NvmlCode, Session};
use nvml_wrapper_sys::bindings::*;
use std::os::raw::{c_uint, c_ulonglong};

/// A device as the raw calls see it: the session's library and the GPU's
/// handle (or the code looking it up failed with).
#[derive(Clone, Copy)]
pub struct Dev<'s> {
    /// The open session whose library the calls go through.
    pub session: &'s Session,
    handle: Result<nvmlDevice_t, NvmlCode>,
}

impl<'s> Dev<'s> {
    /// A device of `session` by its raw handle.
    pub fn new(session: &'s Session, handle: Result<nvmlDevice_t, NvmlCode>) -> Self {
        Dev { session, handle }
    }

    /// A device of `session` by nvml-wrapper's device (a GPU or a MIG device).
    pub fn of(session: &'s Session, d: &nvml_wrapper::Device<'_>) -> Self {
        // SAFETY: the handle belongs to this open session; the raw calls only
        // pass it back to NVML while the session lives.
        Dev::new(session, Ok(unsafe { d.handle() }))
    }

    /// GPU `index` of `session` (NVML's enumeration), looked up now.
    pub fn by_index(session: &'s Session, index: u32) -> Self {
        let found = session.nvml().device_by_index(index);
        // SAFETY: as in `Dev::of`: the handle belongs to this open session.
        Dev::new(
            session,
            found.map(|d| unsafe { d.handle() }).map_err(NvmlCode::from),
        )
    }

    /// The raw handle, or the code looking the GPU up failed with.
    pub fn handle(&self) -> Result<nvmlDevice_t, NvmlCode> {
        self.handle
    }
}

/// nvml-wrapper's device for a raw handle, for the wrapper's getters: this
/// layer's and the catalogue's reader's (`source/gpu/`) alone
/// (`scripts/check-layers.py` fails on a use elsewhere).
pub(crate) fn wrapper<'s>(c: &Dev<'s>) -> Result<nvml_wrapper::Device<'s>, NvmlCode> {
    let h = c.handle()?;
    // SAFETY: the handle came from this session (a lookup or a list NVML
    // answered), which is open for `'s`; it is only passed back to NVML.
    Ok(unsafe { nvml_wrapper::Device::new(h, c.session.nvml()) })
}

/// An nvml-wrapper getter of the device, its error as a code.
fn wrapped<'s, T>(
    c: &Dev<'s>,
    f: impl FnOnce(&nvml_wrapper::Device<'s>) -> Result<T, nvml_wrapper::error::NvmlError>,
) -> Result<T, NvmlCode> {
    f(&wrapper(c)?).map_err(NvmlCode::from)
}

/// Resolve a symbol of the wrapper's table (a copy of the function pointer).
macro_rules! sym {
    ($c:expr, $name:ident) => {
        nvml_wrapper::error::nvml_sym($c.session.lib().$name.as_ref())
            .map(|f| *f)
            .map_err(NvmlCode::from)
    };
}

/// A symbol newer than nvml-wrapper-sys's table, looked up in the library
/// by its NUL-terminated `name`; `missing` when the library lacks it.
///
/// # Safety
/// `F` must be the symbol's C signature as NVML's header declares it.
unsafe fn sym_by_name<F: Copy>(c: &Dev<'_>, name: &[u8], missing: NvmlCode) -> Result<F, NvmlCode> {
    // SAFETY: the caller vouches that `F` is the symbol's signature.
    let found = unsafe { c.session.lib().__library.get::<F>(name) };
    found.map(|s| *s).map_err(|_| missing)
}

/// `NVML_STRUCT_VERSION`: the struct's size, with the version in the top byte.
const fn version<T>(v: u32) -> u32 {
    (std::mem::size_of::<T>() as u32) | (v << 24)
}

/// A zeroed NVML out-struct of type `$t` whose `version` member names
/// struct version `$v` (`NVML_STRUCT_VERSION`).
macro_rules! versioned {
    ($t:ty, $v:expr) => {{
        let mut s: $t = zeroed();
        s.version = version::<$t>($v);
        s
    }};
}

/// A zeroed NVML out-struct.
fn zeroed<T: Copy>() -> T {
    // SAFETY: only used for NVML's plain C structs, for which all-zero bytes
    // are a valid value.
    unsafe { std::mem::zeroed() }
}

type DevU32 = unsafe extern "C" fn(nvmlDevice_t, *mut c_uint) -> nvmlReturn_t;
type DevU64 = unsafe extern "C" fn(nvmlDevice_t, *mut c_ulonglong) -> nvmlReturn_t;
type DevPair = unsafe extern "C" fn(nvmlDevice_t, *mut c_uint, *mut c_uint) -> nvmlReturn_t;

fn dev_u32(c: &Dev<'_>, f: Result<DevU32, NvmlCode>) -> Result<u32, NvmlCode> {
    dev_struct(c, f, 0)
}

fn dev_u64(c: &Dev<'_>, f: Result<DevU64, NvmlCode>) -> Result<u64, NvmlCode> {
    dev_struct(c, f, 0)
}

fn dev_pair(c: &Dev<'_>, f: Result<DevPair, NvmlCode>) -> Result<(u32, u32), NvmlCode> {
    let f = f?;
    let h = c.handle()?;
    let (mut a, mut b): (c_uint, c_uint) = (0, 0);
    // SAFETY: a valid handle and two valid out-pointers.
    check(unsafe { f(h, &mut a, &mut b) })?;
    Ok((a, b))
}

/// Call `f(handle, &mut out)` for a versioned or plain out-struct.
fn dev_struct<T: Copy>(
    c: &Dev<'_>,
    f: Result<unsafe extern "C" fn(nvmlDevice_t, *mut T) -> nvmlReturn_t, NvmlCode>,
    mut out: T,
) -> Result<T, NvmlCode> {
    let f = f?;
    let h = c.handle()?;
    // SAFETY: a valid handle and a valid, initialised out-struct.
    check(unsafe { f(h, &mut out) })?;
    Ok(out)
}

/// `newer`'s answer, unless it failed with one of `older_on` (the library
/// lacks the newer symbol, or rejects its struct version): then `older`'s.
fn or_older<T>(
    newer: Result<T, NvmlCode>,
    older_on: &[NvmlCode],
    older: impl FnOnce() -> Result<T, NvmlCode>,
) -> Result<T, NvmlCode> {
    match newer {
        Err(code) if older_on.contains(&code) => older(),
        r => r,
    }
}

/// A NUL-terminated byte buffer as text.
pub fn c_bytes(b: &[u8]) -> String {
    let end = b.iter().position(|&x| x == 0).unwrap_or(b.len());
    String::from_utf8_lossy(&b[..end]).into_owned()
}

/// The most entries nvq accepts from one NVML list (processes, clocks): a
/// count beyond it is a driver fault, not a buffer to allocate.
pub const MAX_LIST_LEN: u32 = 1 << 20;

/// NVML's two-call list protocol. `call(count, buf)` is one NVML list call:
/// with a null buffer and a count of 0 it asks for the length
/// (INSUFFICIENT_SIZE with the count, or SUCCESS for an empty list); with a
/// buffer it fills at most `count` entries and says how many. The buffer has
/// some headroom, and if the list grew past it meanwhile, nvq asks again, a
/// few times. A driver that answers INSUFFICIENT_SIZE without asking for
/// more room gets that error back, never a list padded with zeros (as
/// nvml-wrapper 0.13 returns for clocks).
///
/// # Safety
/// `call` must pass its arguments to an NVML list function whose records
/// are `T`, for a live device handle; `zero` must be a valid `T`.
pub unsafe fn read_list<T: Copy>(
    zero: T,
    mut call: impl FnMut(*mut c_uint, *mut T) -> nvmlReturn_t,
) -> Result<Vec<T>, NvmlCode> {
    let mut want: c_uint = 0;
    match NvmlCode(call(&mut want, std::ptr::null_mut())) {
        NvmlCode::SUCCESS => return Ok(Vec::new()),
        NvmlCode::INSUFFICIENT_SIZE => {}
        e => return Err(e),
    }
    fill_list(want, zero, call)
}

/// The buffer for a list of `len` entries: `len` with some headroom (a
/// list may grow between two calls), at most [`MAX_LIST_LEN`].
pub const fn list_room(len: u32) -> u32 {
    let room = len.saturating_add(len / 4).saturating_add(8);
    if room < MAX_LIST_LEN {
        room
    } else {
        MAX_LIST_LEN
    }
}

/// [`read_list`] for a reader that reads the same list again and again:
/// the first call already passes a buffer of `room` entries (the size last
/// read, with [`list_room`]'s headroom), so a list that still fits is one
/// call, not two. NVML's list functions take a buffer with its size in
/// `count` and answer SUCCESS with the entries written (none for an empty
/// list), or INSUFFICIENT_SIZE with the count they need: then the list is
/// read as [`read_list`] reads it after its sizing call. A `room` of 0 is
/// [`read_list`] itself.
///
/// # Safety
/// As for [`read_list`].
pub unsafe fn read_list_into<T: Copy>(
    room: u32,
    zero: T,
    call: impl FnMut(*mut c_uint, *mut T) -> nvmlReturn_t,
) -> Result<Vec<T>, NvmlCode> {
    if room == 0 {
        // SAFETY: `call` keeps this function's contract, which is read_list's.
        return unsafe { read_list(zero, call) };
    }
    fill_list_from(room.min(MAX_LIST_LEN), zero, call)
}

/// The fill calls of [`read_list`], for a list of `want` entries (the
/// caller's `call` keeps [`read_list`]'s contract).
fn fill_list<T: Copy>(
    want: c_uint,
    zero: T,
    call: impl FnMut(*mut c_uint, *mut T) -> nvmlReturn_t,
) -> Result<Vec<T>, NvmlCode> {
    if want > MAX_LIST_LEN {
        return Err(NvmlCode::INSUFFICIENT_SIZE);
    }
    fill_list_from(list_room(want), zero, call)
}

/// The longest list [`fill_list_from`] reads into a buffer on the stack.
const SMALL_LIST: usize = 16;

/// Fill calls from a buffer of `cap` entries: a list that grew past the
/// buffer is asked for again with the room it says it needs (or twice the
/// room, when it says no more), at most eight times (the caller's `call`
/// keeps [`read_list`]'s contract).
fn fill_list_from<T: Copy>(
    mut cap: c_uint,
    zero: T,
    mut call: impl FnMut(*mut c_uint, *mut T) -> nvmlReturn_t,
) -> Result<Vec<T>, NvmlCode> {
    for _ in 0..8 {
        // A short list is read into the stack (an empty one, the usual
        // graphics or MPS list, then allocates nothing).
        let mut small = [zero; SMALL_LIST];
        let mut heap = Vec::new();
        let on_stack = cap as usize <= SMALL_LIST;
        let buf: &mut [T] = match small.get_mut(..cap as usize) {
            Some(b) => b,
            None => {
                heap.resize(cap as usize, zero);
                &mut heap
            }
        };
        let mut n = cap;
        let want = match NvmlCode(call(&mut n, buf.as_mut_ptr())) {
            NvmlCode::SUCCESS => {
                let n = (n as usize).min(buf.len());
                if on_stack {
                    return Ok(buf.get(..n).unwrap_or_default().to_vec());
                }
                heap.truncate(n);
                return Ok(heap);
            }
            NvmlCode::INSUFFICIENT_SIZE if n > cap => n,
            NvmlCode::INSUFFICIENT_SIZE => cap.saturating_mul(2),
            e => return Err(e),
        };
        if want > MAX_LIST_LEN {
            return Err(NvmlCode::INSUFFICIENT_SIZE);
        }
        cap = list_room(want);
    }
    Err(NvmlCode::INSUFFICIENT_SIZE)
}

mod device;
mod event;
mod field;
mod gpm;
mod ident;
mod mig;
mod nvlink;
mod process;
mod system;
mod topo;
mod unit;
mod vgpu;

pub use device::{
    active_vgpus, addressing_mode, c2c_mode, capabilities, compute_mode, dram_encryption,
    driver_model, engine_utilization, event_reasons, fabric_info, fan_speed, gpu_operation_mode,
    host_vgpu_mode, hostname, last_bbx_flush, margin_temperature, memory, module_id,
    nvlink_remote_device_type, pci_info_ext, pcie_gen_gpumax, pdi, platform_info, power_profiles,
    protected_memory, pstate, remapped_rows, remapped_rows_inactive, repair_status,
    row_remapper_histogram, sram_ecc_status, supported_clocks, unrepairable_memory,
    vgpu_device_cap, vgpu_driver_cap, vgpu_heterogeneous_mode, vgpu_placement_id, vgpu_utilization,
    FabricInfo, MemInfo, RemappedRows, VgpuUtilization, DEV_CAP_EGM,
};
pub use event::{xid_events, Watch, XidEvents};
pub use field::{field_values, FieldVal};
pub use gpm::{gpm_metrics, gpm_supported, GpmSample};
pub(crate) use ident::driver_version;
pub use ident::{device_count, index, look_up, name, nvml_version, pci_info, serial, uuid, LookUp};
pub use mig::{
    ci_placements, ci_profile, compute_instance_id, compute_instances, gi_placements, gi_profile,
    gpu_instance_id, gpu_instances, mig_device, mig_devices, mig_memory, mig_parent_uuid, GiHandle,
    MigRead, MAX_PROFILE_INDEX,
};
pub use nvlink::{link_active, link_capability, link_error_counter, link_remote_bus_id};
pub use process::{
    process_details, process_name, processes, processes_in, processes_utilization, Proc,
    ProcessList, PROCESS_NAME_LEN,
};
pub use system::{cuda_driver_version, nvml_version_without_init};
pub use topo::{
    common_ancestor, cpu_affinity, cpu_gpus, memory_affinity, nearest_gpus, numa_node_id,
    p2p_status,
};
pub use unit::{hic_versions, unit, unit_count, UnitRead};
pub use vgpu::{vgpu_instance, vgpu_type_names, VgpuExtra};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn struct_versions_match_nvml() {
        // nvmlMemory_v2 is 40 bytes: 0x02000028, as the real library checks.
        assert_eq!(version::<nvmlMemory_v2_t>(2), 0x0200_0028);
    }

    /// A call of a fake list function: the count it was given, and whether
    /// it was given a buffer.
    type Call = (u32, bool);

    /// Read with `read_list_into(room, …)` from a list function whose list
    /// is `lists[k]` at its k-th call (the last repeats), answering as NVML
    /// documents: with no room, INSUFFICIENT_SIZE and the count it needs.
    /// Returns the list read and the calls made, as (count in, buffer given).
    fn read_fake(room: u32, lists: &[Vec<u32>]) -> (Result<Vec<u32>, NvmlCode>, Vec<Call>) {
        let mut calls = Vec::new();
        let call = |n: *mut c_uint, buf: *mut u32| {
            let list = &lists[calls.len().min(lists.len() - 1)];
            // SAFETY: `n` is read_list's valid count pointer.
            let have = unsafe { *n };
            calls.push((have, !buf.is_null()));
            let need = list.len() as u32;
            // SAFETY: as above.
            unsafe { *n = need };
            if need == 0 {
                return NvmlCode::SUCCESS.0;
            }
            if buf.is_null() || have < need {
                return NvmlCode::INSUFFICIENT_SIZE.0;
            }
            for (i, v) in list.iter().enumerate() {
                // SAFETY: the buffer holds `have` >= `need` entries.
                unsafe { buf.add(i).write(*v) };
            }
            NvmlCode::SUCCESS.0
        };
        // SAFETY: the fake honours the list protocol on read_list's buffers.
        let got = unsafe { read_list_into(room, 0u32, call) };
        (got, calls)
    }

    #[test]
    fn a_list_that_fits_its_room_is_one_call() {
        let (got, calls) = read_fake(10, &[vec![1, 2, 3]]);
        assert_eq!(got, Ok(vec![1, 2, 3]));
        assert_eq!(calls, [(10, true)]);
        // An empty list: one call too, SUCCESS with none.
        let (got, calls) = read_fake(8, &[vec![]]);
        assert_eq!(got, Ok(vec![]));
        assert_eq!(calls, [(8, true)]);
        // Without room: NVML's sizing call, then the list.
        let (got, calls) = read_fake(0, &[vec![7, 8]]);
        assert_eq!(got, Ok(vec![7, 8]));
        assert_eq!(calls, [(0, false), (list_room(2), true)]);
    }

    #[test]
    fn a_list_that_grows_between_calls_is_read_whole() {
        let long: Vec<u32> = (0..30).collect();
        let longer: Vec<u32> = (0..60).collect();
        // Outgrew its room: asked again with the room NVML asked for.
        let (got, calls) = read_fake(8, std::slice::from_ref(&long));
        assert_eq!(got, Ok(long.clone()));
        assert_eq!(calls, [(8, true), (list_room(30), true)]);
        // And grew again before the second call: a third.
        let (got, calls) = read_fake(8, &[long, longer.clone()]);
        assert_eq!(got, Ok(longer));
        assert_eq!(
            calls,
            [(8, true), (list_room(30), true), (list_room(60), true)]
        );
        // A list far beyond any buffer is an error, not an allocation.
        assert_eq!(list_room(u32::MAX), MAX_LIST_LEN);
    }

    #[test]
    fn c_strings_stop_at_nul() {
        assert_eq!(c_bytes(b"abc\0def"), "abc");
        assert_eq!(c_bytes(b"\0"), "");
        assert_eq!(c_bytes(b"xyz"), "xyz");
    }
}
