//! The raw NVML layer: every NVML function that nvml-wrapper does not wrap
//! (or wraps in a way that loses what nvidia-smi prints), called through the
//! wrapper's symbol table. Nothing else in nvq calls NVML through FFI.
//!
//! A symbol the library lacks becomes `FUNCTION_NOT_FOUND`, printed
//! `[Function Not Found]`, never a panic. Lists use one two-call protocol
//! ([`read_list`]) with named codes and a bounded size.

use super::{check, NvmlCode, Session};
use crate::model::mig::{Engines, Instance, Placement, Profile};
use nvml_wrapper_sys::bindings::*;
use std::os::raw::{c_uint, c_ulonglong};

/// A device as the raw calls see it: the session's library and the GPU's
/// handle (or the code looking it up failed with).
#[derive(Clone, Copy)]
pub struct Dev<'s> {
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

    /// The raw handle, or the code looking the GPU up failed with.
    pub fn handle(&self) -> Result<nvmlDevice_t, NvmlCode> {
        self.handle
    }
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
    let f = f?;
    let h = c.handle()?;
    let mut v: c_uint = 0;
    // SAFETY: a valid handle and a valid out-pointer.
    check(unsafe { f(h, &mut v) })?;
    Ok(v)
}

fn dev_u64(c: &Dev<'_>, f: Result<DevU64, NvmlCode>) -> Result<u64, NvmlCode> {
    let f = f?;
    let h = c.handle()?;
    let mut v: c_ulonglong = 0;
    // SAFETY: a valid handle and a valid out-pointer.
    check(unsafe { f(h, &mut v) })?;
    Ok(v)
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

/// Memory as nvidia-smi reads it: `nvmlDeviceGetMemoryInfo_v2`, or the v1
/// call when the library lacks v2 or rejects its struct version (drivers
/// before R510). v1 has no reserved figure.
#[derive(Debug, Clone, Copy)]
pub struct MemInfo {
    pub total: u64,
    pub reserved: Result<u64, NvmlCode>,
    pub used: u64,
    pub free: u64,
}

pub fn memory(c: &Dev<'_>) -> Result<MemInfo, NvmlCode> {
    let v2 = versioned!(nvmlMemory_v2_t, 2);
    let newer = dev_struct(c, sym!(c, nvmlDeviceGetMemoryInfo_v2), v2).map(|m| MemInfo {
        total: m.total,
        reserved: Ok(m.reserved),
        used: m.used,
        free: m.free,
    });
    let older_on = [
        NvmlCode::FUNCTION_NOT_FOUND,
        NvmlCode::ARGUMENT_VERSION_MISMATCH,
    ];
    or_older(newer, &older_on, || {
        let m = dev_struct(
            c,
            sym!(c, nvmlDeviceGetMemoryInfo),
            zeroed::<nvmlMemory_t>(),
        )?;
        Ok(MemInfo {
            total: m.total,
            reserved: Err(NvmlCode::NOT_SUPPORTED),
            used: m.used,
            free: m.free,
        })
    })
}

pub fn pci_info_ext(c: &Dev<'_>) -> Result<nvmlPciInfoExt_t, NvmlCode> {
    let p = versioned!(nvmlPciInfoExt_t, 1);
    dev_struct(c, sym!(c, nvmlDeviceGetPciInfoExt), p)
}

/// Clock event reasons (supported or active) as the raw 64-bit mask, from the
/// `…ClocksEventReasons` symbols, or the older `…ClocksThrottleReasons` ones
/// when the library predates the rename.
pub fn event_reasons(c: &Dev<'_>, supported: bool) -> Result<u64, NvmlCode> {
    let (event, throttle): (Result<DevU64, _>, Result<DevU64, _>) = if supported {
        (
            sym!(c, nvmlDeviceGetSupportedClocksEventReasons),
            sym!(c, nvmlDeviceGetSupportedClocksThrottleReasons),
        )
    } else {
        (
            sym!(c, nvmlDeviceGetCurrentClocksEventReasons),
            sym!(c, nvmlDeviceGetCurrentClocksThrottleReasons),
        )
    };
    or_older(dev_u64(c, event), &[NvmlCode::FUNCTION_NOT_FOUND], || {
        dev_u64(c, throttle)
    })
}

/// (current, pending) driver model; `_v2`, then the original symbol.
pub fn driver_model(c: &Dev<'_>) -> Result<(u32, u32), NvmlCode> {
    or_older(
        dev_pair(c, sym!(c, nvmlDeviceGetDriverModel_v2)),
        &[NvmlCode::FUNCTION_NOT_FOUND],
        || dev_pair(c, sym!(c, nvmlDeviceGetDriverModel)),
    )
}

pub fn gpu_operation_mode(c: &Dev<'_>) -> Result<(u32, u32), NvmlCode> {
    dev_pair(c, sym!(c, nvmlDeviceGetGpuOperationMode))
}

pub fn dram_encryption(c: &Dev<'_>) -> Result<(u32, u32), NvmlCode> {
    let f = sym!(c, nvmlDeviceGetDramEncryptionMode)?;
    let h = c.handle()?;
    let mut cur = versioned!(nvmlDramEncryptionInfo_t, 1);
    let mut pend = cur;
    // SAFETY: a valid handle and two versioned out-structs.
    check(unsafe { f(h, &mut cur, &mut pend) })?;
    Ok((cur.encryptionState, pend.encryptionState))
}

pub fn pstate(c: &Dev<'_>) -> Result<u32, NvmlCode> {
    dev_u32(c, sym!(c, nvmlDeviceGetPerformanceState))
}

pub fn compute_mode(c: &Dev<'_>) -> Result<u32, NvmlCode> {
    dev_u32(c, sym!(c, nvmlDeviceGetComputeMode))
}

/// Fan speed as nvidia-smi reads it: the unversioned call (the board's
/// intended speed), not the per-fan `_v2`.
pub fn fan_speed(c: &Dev<'_>) -> Result<u32, NvmlCode> {
    dev_u32(c, sym!(c, nvmlDeviceGetFanSpeed))
}

pub fn pcie_gen_gpumax(c: &Dev<'_>) -> Result<u32, NvmlCode> {
    dev_u32(c, sym!(c, nvmlDeviceGetGpuMaxPcieLinkGeneration))
}

pub fn margin_temperature(c: &Dev<'_>) -> Result<i32, NvmlCode> {
    let m = versioned!(nvmlMarginTemperature_t, 1);
    dev_struct(c, sym!(c, nvmlDeviceGetMarginTemperature), m).map(|m| m.marginTemperature)
}

/// JPEG (`ofa == false`) or OFA utilization, percent.
pub fn engine_utilization(c: &Dev<'_>, ofa: bool) -> Result<u32, NvmlCode> {
    let f = if ofa {
        sym!(c, nvmlDeviceGetOfaUtilization)
    } else {
        sym!(c, nvmlDeviceGetJpgUtilization)
    };
    dev_pair(c, f).map(|(util, _period)| util)
}

pub fn addressing_mode(c: &Dev<'_>) -> Result<u32, NvmlCode> {
    let m = versioned!(nvmlDeviceAddressingMode_t, 1);
    dev_struct(c, sym!(c, nvmlDeviceGetAddressingMode), m).map(|m| m.value)
}

pub fn c2c_mode(c: &Dev<'_>) -> Result<u32, NvmlCode> {
    dev_struct(
        c,
        sym!(c, nvmlDeviceGetC2cModeInfoV),
        zeroed::<nvmlC2cModeInfo_v1_t>(),
    )
    .map(|m| m.isC2cEnabled)
}

pub fn vgpu_driver_cap(c: &Dev<'_>, cap: u32) -> Result<u32, NvmlCode> {
    let f = sym!(c, nvmlGetVgpuDriverCapabilities)?;
    let mut v: c_uint = 0;
    // SAFETY: a valid out-pointer.
    check(unsafe { f(cap, &mut v) })?;
    Ok(v)
}

pub fn vgpu_device_cap(c: &Dev<'_>, cap: u32) -> Result<u32, NvmlCode> {
    let f = sym!(c, nvmlDeviceGetVgpuCapabilities)?;
    let h = c.handle()?;
    let mut v: c_uint = 0;
    // SAFETY: a valid handle and a valid out-pointer.
    check(unsafe { f(h, cap, &mut v) })?;
    Ok(v)
}

#[derive(Debug, Clone, Copy)]
pub struct RemappedRows {
    pub correctable: u32,
    pub uncorrectable: u32,
    pub pending: u32,
    pub failure: u32,
}

pub fn remapped_rows(c: &Dev<'_>) -> Result<RemappedRows, NvmlCode> {
    let f = sym!(c, nvmlDeviceGetRemappedRows)?;
    let h = c.handle()?;
    let mut r = RemappedRows {
        correctable: 0,
        uncorrectable: 0,
        pending: 0,
        failure: 0,
    };
    // SAFETY: a valid handle and four valid out-pointers.
    check(unsafe {
        f(
            h,
            &mut r.correctable,
            &mut r.uncorrectable,
            &mut r.pending,
            &mut r.failure,
        )
    })?;
    Ok(r)
}

/// `nvmlRemappedRowsInfo_v2_t` (NVML 13.x header; nvml-wrapper-sys 0.10
/// predates it): six counters and no version member.
#[repr(C)]
#[derive(Clone, Copy)]
struct RemappedRowsV2 {
    corr_active: c_uint,
    corr_inactive: c_uint,
    unc_active: c_uint,
    unc_inactive: c_uint,
    pending: c_uint,
    failure: c_uint,
}

/// (correctable, uncorrectable) remapped rows that are not in use yet, from
/// `nvmlDeviceGetRemappedRows_v2` (drivers 595 and later). The symbol is
/// looked up first: driver 590 does not export it, and a library without it,
/// or one that answers FUNCTION_NOT_FOUND, gives NOT_SUPPORTED (`[N/A]`, as
/// nvidia-smi prints there).
pub fn remapped_rows_inactive(c: &Dev<'_>) -> Result<(u32, u32), NvmlCode> {
    type GetV2 = unsafe extern "C" fn(nvmlDevice_t, *mut RemappedRowsV2) -> nvmlReturn_t;
    // SAFETY: `GetV2` is the symbol's signature in NVML's header.
    let f: GetV2 = unsafe {
        sym_by_name(
            c,
            b"nvmlDeviceGetRemappedRows_v2\0",
            NvmlCode::NOT_SUPPORTED,
        )?
    };
    let zero = RemappedRowsV2 {
        corr_active: 0,
        corr_inactive: 0,
        unc_active: 0,
        unc_inactive: 0,
        pending: 0,
        failure: 0,
    };
    match dev_struct(c, Ok(f), zero) {
        Ok(r) => Ok((r.corr_inactive, r.unc_inactive)),
        Err(code) if code == NvmlCode::FUNCTION_NOT_FOUND => Err(NvmlCode::NOT_SUPPORTED),
        Err(code) => Err(code),
    }
}

pub fn row_remapper_histogram(c: &Dev<'_>) -> Result<nvmlRowRemapperHistogramValues_t, NvmlCode> {
    dev_struct(c, sym!(c, nvmlDeviceGetRowRemapperHistogram), zeroed())
}

pub fn sram_ecc_status(c: &Dev<'_>) -> Result<nvmlEccSramErrorStatus_t, NvmlCode> {
    let s = versioned!(nvmlEccSramErrorStatus_t, 1);
    dev_struct(c, sym!(c, nvmlDeviceGetSramEccErrorStatus), s)
}

pub fn protected_memory(c: &Dev<'_>) -> Result<nvmlMemory_t, NvmlCode> {
    dev_struct(
        c,
        sym!(c, nvmlDeviceGetConfComputeProtectedMemoryUsage),
        zeroed(),
    )
}

/// What the fabric fields need, from either fabric call.
#[derive(Debug, Clone, Copy)]
pub struct FabricInfo {
    /// 0 not supported, 1 not started, 2 in progress, 3 completed.
    pub state: u8,
    /// The registration's NVML return code.
    pub status: u32,
    pub clique_id: u32,
    pub cluster_uuid: [u8; 16],
}

/// `nvmlDeviceGetGpuFabricInfoV` (v3 struct), or the older unversioned call.
pub fn fabric_info(c: &Dev<'_>) -> Result<FabricInfo, NvmlCode> {
    let v = versioned!(nvmlGpuFabricInfoV_t, 3);
    // The two structs name these members alike.
    macro_rules! fabric {
        ($i:expr) => {
            FabricInfo {
                state: $i.state,
                status: $i.status,
                clique_id: $i.cliqueId,
                cluster_uuid: $i.clusterUuid,
            }
        };
    }
    let newer = dev_struct(c, sym!(c, nvmlDeviceGetGpuFabricInfoV), v).map(|i| fabric!(i));
    or_older(newer, &[NvmlCode::FUNCTION_NOT_FOUND], || {
        let older = zeroed::<nvmlGpuFabricInfo_t>();
        dev_struct(c, sym!(c, nvmlDeviceGetGpuFabricInfo), older).map(|i| fabric!(i))
    })
}

pub fn platform_info(c: &Dev<'_>) -> Result<nvmlPlatformInfo_t, NvmlCode> {
    let p = versioned!(nvmlPlatformInfo_t, 2);
    dev_struct(c, sym!(c, nvmlDeviceGetPlatformInfo), p)
}

/// `nvmlHostname_v1_t`: NVML 13.x (driver 575+) has `nvmlDeviceGetHostname_v1`,
/// newer than the symbol table nvml-wrapper-sys was generated from, so it is
/// looked up by name.
#[repr(C)]
#[derive(Clone, Copy)]
struct Hostname {
    value: [u8; 64],
}

pub fn hostname(c: &Dev<'_>) -> Result<String, NvmlCode> {
    type GetHostname = unsafe extern "C" fn(nvmlDevice_t, *mut Hostname) -> nvmlReturn_t;
    // SAFETY: `GetHostname` is the symbol's signature in NVML's header.
    let f: GetHostname = unsafe {
        sym_by_name(
            c,
            b"nvmlDeviceGetHostname_v1\0",
            NvmlCode::FUNCTION_NOT_FOUND,
        )?
    };
    let out = dev_struct(c, Ok(f), Hostname { value: [0; 64] })?;
    Ok(c_bytes(&out.value))
}

/// A NUL-terminated byte buffer as text.
pub fn c_bytes(b: &[u8]) -> String {
    let end = b.iter().position(|&x| x == 0).unwrap_or(b.len());
    String::from_utf8_lossy(&b[..end]).into_owned()
}

/// One `nvmlDeviceGetFieldValues` result.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum FieldVal {
    Int(i64),
    UInt(u64),
    Float(f64),
}

impl FieldVal {
    pub fn as_f64(self) -> f64 {
        match self {
            FieldVal::Int(i) => i as f64,
            FieldVal::UInt(u) => u as f64,
            FieldVal::Float(f) => f,
        }
    }

    /// The value as an integer (a float is truncated).
    pub fn as_i64(self) -> i64 {
        match self {
            FieldVal::Int(i) => i,
            FieldVal::UInt(u) => i64::try_from(u).unwrap_or(i64::MAX),
            FieldVal::Float(f) => f as i64,
        }
    }
}

/// nvml-wrapper's rule: drivers from 580.82 on (CUDA 13.0 Update 1) number
/// field ids 251-273 differently; ids here use the older numbering.
fn translate_field_id(driver_version: &str, id: u32) -> u32 {
    let mut parts = driver_version.split('.');
    let major: u32 = parts.next().and_then(|s| s.parse().ok()).unwrap_or(0);
    let minor: u32 = parts.next().and_then(|s| s.parse().ok()).unwrap_or(0);
    let new_scheme = major > 580 || (major == 580 && minor >= 82);
    match id {
        251..=255 if new_scheme => id + 18,
        256..=273 if new_scheme => id - 5,
        other => other,
    }
}

/// Read several field values in one call. Each entry is the value or the
/// code NVML gave that entry (or the whole call).
pub fn field_values(c: &Dev<'_>, wanted: &[(u32, u32)]) -> Vec<Result<FieldVal, NvmlCode>> {
    let all = |code: NvmlCode| wanted.iter().map(|_| Err(code)).collect();
    let f = match sym!(c, nvmlDeviceGetFieldValues) {
        Ok(f) => f,
        Err(code) => return all(code),
    };
    let h = match c.handle() {
        Ok(h) => h,
        Err(code) => return all(code),
    };
    let driver = c.session.driver_version().unwrap_or("");
    let mut values: Vec<nvmlFieldValue_t> = wanted
        .iter()
        .map(|&(id, scope)| {
            let mut v: nvmlFieldValue_t = zeroed();
            v.fieldId = translate_field_id(driver, id);
            v.scopeId = scope;
            v
        })
        .collect();
    let n = i32::try_from(values.len()).unwrap_or(i32::MAX);
    // SAFETY: a valid handle and `n` initialised entries.
    if let Err(code) = check(unsafe { f(h, n, values.as_mut_ptr()) }) {
        return all(code);
    }
    values.iter().map(decode_field_value).collect()
}

fn decode_field_value(v: &nvmlFieldValue_t) -> Result<FieldVal, NvmlCode> {
    check(v.nvmlReturn)?;
    // SAFETY: the union member read is the one `valueType` names.
    unsafe {
        match v.valueType {
            0 => Ok(FieldVal::Float(v.value.dVal)),
            1 => Ok(FieldVal::UInt(u64::from(v.value.uiVal))),
            2 => Ok(FieldVal::UInt(v.value.ulVal)),
            3 => Ok(FieldVal::UInt(v.value.ullVal)),
            4 => Ok(FieldVal::Int(v.value.sllVal)),
            5 => Ok(FieldVal::Int(i64::from(v.value.siVal))),
            6 => Ok(FieldVal::UInt(u64::from(v.value.usVal))),
            _ => Err(NvmlCode::UNKNOWN),
        }
    }
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

    #[test]
    fn field_ids_follow_the_driver_numbering() {
        // Before 580.82 the ids pass through.
        assert_eq!(translate_field_id("580.65.06", 251), 251);
        assert_eq!(translate_field_id("535.129.03", 260), 260);
        // From 580.82 on, event reason counters move up, smoothing moves down.
        assert_eq!(translate_field_id("580.82.07", 251), 269);
        assert_eq!(translate_field_id("590.48.01", 253), 271);
        assert_eq!(translate_field_id("610.57.04", 256), 251);
        assert_eq!(translate_field_id("610.57.04", 273), 268);
        // Ids outside the range never move.
        assert_eq!(translate_field_id("590.48.01", 74), 74);
        assert_eq!(translate_field_id("590.48.01", 274), 274);
    }

    #[test]
    fn struct_versions_match_nvml() {
        // nvmlMemory_v2 is 40 bytes: 0x02000028, as the real library checks.
        assert_eq!(version::<nvmlMemory_v2_t>(2), 0x0200_0028);
    }

    #[test]
    fn c_strings_stop_at_nul() {
        assert_eq!(c_bytes(b"abc\0def"), "abc");
        assert_eq!(c_bytes(b"\0"), "");
        assert_eq!(c_bytes(b"xyz"), "xyz");
    }
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
    for _ in 0..8 {
        if want > MAX_LIST_LEN {
            return Err(NvmlCode::INSUFFICIENT_SIZE);
        }
        let cap = want
            .saturating_add(want / 4)
            .saturating_add(8)
            .min(MAX_LIST_LEN);
        let mut buf = vec![zero; cap as usize];
        let mut n = cap;
        match NvmlCode(call(&mut n, buf.as_mut_ptr())) {
            NvmlCode::SUCCESS => {
                buf.truncate((n as usize).min(buf.len()));
                return Ok(buf);
            }
            NvmlCode::INSUFFICIENT_SIZE if n > cap => want = n,
            NvmlCode::INSUFFICIENT_SIZE => want = cap.saturating_mul(2),
            e => return Err(e),
        }
    }
    Err(NvmlCode::INSUFFICIENT_SIZE)
}

/// `nvmlDeviceGetSupportedMemoryClocks` (`mem` is `None`) or the graphics
/// clocks supported with memory clock `mem`.
pub fn supported_clocks(c: &Dev<'_>, mem: Option<u32>) -> Result<Vec<u32>, NvmlCode> {
    let h = c.handle()?;
    match mem {
        None => {
            let f = sym!(c, nvmlDeviceGetSupportedMemoryClocks)?;
            // SAFETY: `f` is the memory clock list of a live handle; records are u32.
            unsafe { read_list(0u32, |n, buf| f(h, n, buf)) }
        }
        Some(m) => {
            let f = sym!(c, nvmlDeviceGetSupportedGraphicsClocks)?;
            // SAFETY: `f` is the graphics clock list of a live handle; records are u32.
            unsafe { read_list(0u32, |n, buf| f(h, m, n, buf)) }
        }
    }
}

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
    pub pid: u32,
    /// Bytes; `None` when NVML cannot tell (Windows WDDM, some MIG setups).
    pub used_memory: Option<u64>,
    pub gpu_instance_id: Option<u32>,
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
    Compute,
    Graphics,
    /// Compute processes under MPS.
    MpsCompute,
}

type ListFn<T> = unsafe extern "C" fn(nvmlDevice_t, *mut c_uint, *mut T) -> nvmlReturn_t;

/// One version of a process-list function, read with [`read_list`].
fn proc_list<T: Copy>(
    c: &Dev<'_>,
    f: Result<ListFn<T>, NvmlCode>,
    zero: T,
) -> Result<Vec<Proc>, NvmlCode>
where
    Proc: From<T>,
{
    let (f, h) = (f?, c.handle()?);
    // SAFETY: `f` is an NVML process-list function whose records are `T`,
    // called for a live handle.
    let list = unsafe { read_list(zero, |n, buf| f(h, n, buf)) }?;
    Ok(list.into_iter().map(Proc::from).collect())
}

/// A GPU's processes of one list, through `_v3`, else `_v2`, else the
/// original function: a symbol missing from the library and an NVML
/// FUNCTION_NOT_FOUND answer both move on to the next older one.
pub fn processes(c: &Dev<'_>, which: ProcessList) -> Result<Vec<Proc>, NvmlCode> {
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
    or_older(proc_list(c, v3, zero2), &missing, || {
        or_older(proc_list(c, v2, zero2), &missing, || {
            proc_list(c, v1, zero1)
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
/// follows the two-call protocol ([`read_list`]). FUNCTION_NOT_FOUND on
/// drivers without it: callers fall back to [`processes`].
pub fn process_details(c: &Dev<'_>, which: ProcessList) -> Result<Vec<Proc>, NvmlCode> {
    let f = sym!(c, nvmlDeviceGetRunningProcessDetailList)?;
    let h = c.handle()?;
    let mode = process_mode(which);
    let zero: nvmlProcessDetail_v1_t = zeroed();
    // SAFETY: `f` is NVML's detail list for a live handle; each call passes a
    // versioned list whose array (NULL or `buf`) holds the `*n` entries that
    // `read_list` allocated, and `n` is a valid count pointer.
    let list = unsafe {
        read_list(zero, |n, buf| {
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

/// The CUDA driver version NVML reports (13010 means 13.1): the unversioned
/// `nvmlSystemGetCudaDriverVersion` first (the `_v2` one needs libcuda,
/// which utility-only containers lack), else `_v2`.
pub fn cuda_driver_version(session: &Session) -> Result<i32, NvmlCode> {
    let lib = session.lib();
    let mut result = Err(NvmlCode::FUNCTION_NOT_FOUND);
    for f in [
        lib.nvmlSystemGetCudaDriverVersion.as_ref(),
        lib.nvmlSystemGetCudaDriverVersion_v2.as_ref(),
    ]
    .into_iter()
    .flatten()
    {
        let mut v: std::os::raw::c_int = 0;
        // SAFETY: NVML writes one int through the pointer.
        result = check(unsafe { f(&mut v) }).map(|()| v);
        if result.is_ok() {
            break;
        }
    }
    result
}

/// A MIG device's GPU instance id.
pub fn gpu_instance_id(c: &Dev<'_>) -> Result<u32, NvmlCode> {
    dev_u32(c, sym!(c, nvmlDeviceGetGpuInstanceId))
}

/// A MIG device's compute instance id.
pub fn compute_instance_id(c: &Dev<'_>) -> Result<u32, NvmlCode> {
    dev_u32(c, sym!(c, nvmlDeviceGetComputeInstanceId))
}

/// `nvmlSystemGetNVMLVersion` of the library at `path` (the system's
/// `libnvidia-ml.so.1` when `None`), without `nvmlInit`: nvidia-smi prints it
/// when the library and the kernel driver disagree, and init then fails.
pub fn nvml_version_without_init(path: Option<&std::path::Path>) -> Option<String> {
    let name = super::lib_name(path);
    // SAFETY: loading the NVML library runs its initialisers, as nvml-wrapper
    // itself does; the symbol is called with a valid buffer and length.
    unsafe {
        let lib = NvmlLib::new(name).ok()?;
        let f = lib.nvmlSystemGetNVMLVersion.as_ref().ok()?;
        let mut buf = [0 as std::os::raw::c_char; 80];
        if f(buf.as_mut_ptr(), buf.len() as u32) != 0 {
            return None;
        }
        let s = std::ffi::CStr::from_ptr(buf.as_ptr())
            .to_string_lossy()
            .into_owned();
        Some(s)
    }
}

/// What is at the far end of an NVLink (`nvmlIntNvLinkDeviceType_t`: 0 GPU,
/// 1 IBM NPU, 2 NVSwitch, 255 unknown). nvml-wrapper 0.13's
/// `remote_device_type` passes NVML a pointer to a temporary and so always
/// answers "unknown"; this reads the value NVML writes.
pub fn nvlink_remote_device_type(c: &Dev<'_>, link: u32) -> Result<u32, NvmlCode> {
    let f = sym!(c, nvmlDeviceGetNvLinkRemoteDeviceType)?;
    let h = c.handle()?;
    let mut t: nvmlIntNvLinkDeviceType_t = 0;
    // SAFETY: a handle of this open session, a valid link number type and one
    // writable enum for NVML to fill.
    check(unsafe { f(h, link, &mut t) })?;
    Ok(t)
}

/// The GPU's module id on its baseboard (`-q` Platform Info).
pub fn module_id(c: &Dev<'_>) -> Result<u32, NvmlCode> {
    dev_u32(c, sym!(c, nvmlDeviceGetModuleId))
}

/// The host's vGPU mode (`nvmlDeviceGetHostVgpuMode`): 0 non-SR-IOV, 1 SR-IOV.
pub fn host_vgpu_mode(c: &Dev<'_>) -> Result<u32, NvmlCode> {
    dev_u32(c, sym!(c, nvmlDeviceGetHostVgpuMode))
}

/// vGPU heterogeneous mode (`nvmlDeviceGetVgpuHeterogeneousMode`): 0 or 1.
pub fn vgpu_heterogeneous_mode(c: &Dev<'_>) -> Result<u32, NvmlCode> {
    let m = versioned!(nvmlVgpuHeterogeneousMode_t, 1);
    dev_struct(c, sym!(c, nvmlDeviceGetVgpuHeterogeneousMode), m).map(|m| m.mode)
}

/// The per-device identifier (`nvmlDeviceGetPdi`, `-q` "GPU PDI").
pub fn pdi(c: &Dev<'_>) -> Result<u64, NvmlCode> {
    let p = versioned!(nvmlPdi_t, 1);
    dev_struct(c, sym!(c, nvmlDeviceGetPdi), p).map(|p| p.value)
}

/// Pending repairs: (channel, TPC), non-zero when pending.
pub fn repair_status(c: &Dev<'_>) -> Result<(u32, u32), NvmlCode> {
    let r = versioned!(nvmlRepairStatus_t, 1);
    dev_struct(c, sym!(c, nvmlDeviceGetRepairStatus), r)
        .map(|r| (r.bChannelRepairPending, r.bTpcRepairPending))
}

/// The device capability mask (`NVML_DEV_CAP_*`).
pub fn capabilities(c: &Dev<'_>) -> Result<u32, NvmlCode> {
    let m = versioned!(nvmlDeviceCapabilities_t, 1);
    dev_struct(c, sym!(c, nvmlDeviceGetCapabilities), m).map(|m| m.capMask)
}

/// `NVML_DEV_CAP_EGM`: extended GPU memory.
pub const DEV_CAP_EGM: u32 = NVML_DEV_CAP_EGM;

/// `nvmlDeviceGetProcessesUtilizationInfo` (drivers from 550 on): each
/// process's samples newer than `last_seen` (µs), with the JPEG and OFA
/// engines that `nvmlDeviceGetProcessUtilization` lacks. Two calls: the
/// count, then the samples. No sample at all is NVML's NOT_FOUND.
pub fn processes_utilization(
    c: &Dev<'_>,
    last_seen: u64,
) -> Result<Vec<nvmlProcessUtilizationInfo_v1_t>, NvmlCode> {
    let f = sym!(c, nvmlDeviceGetProcessesUtilizationInfo)?;
    let h = c.handle()?;
    let mut info = versioned!(nvmlProcessesUtilizationInfo_t, 1);
    info.lastSeenTimeStamp = last_seen;
    info.procUtilArray = std::ptr::null_mut();
    // SAFETY: a valid handle; a versioned struct whose array pointer is
    // NULL, which asks only for the count.
    match check(unsafe { f(h, &mut info) }) {
        Ok(()) if info.processSamplesCount == 0 => return Ok(Vec::new()),
        Ok(()) => {}
        Err(code) if code == NvmlCode::INSUFFICIENT_SIZE => {}
        Err(code) => return Err(code),
    }
    let n = info.processSamplesCount.min(MAX_LIST_LEN);
    let mut samples: Vec<nvmlProcessUtilizationInfo_v1_t> = vec![zeroed(); n as usize];
    info.processSamplesCount = n;
    info.procUtilArray = samples.as_mut_ptr();
    // SAFETY: `procUtilArray` points to `processSamplesCount` writable
    // elements, which outlive the call.
    check(unsafe { f(h, &mut info) })?;
    samples.truncate(info.processSamplesCount.min(n) as usize);
    Ok(samples)
}

/// A GPU instance of a MIG-enabled GPU (an NVML handle, valid while the
/// session is open).
#[derive(Clone, Copy)]
pub struct GiHandle(nvmlGpuInstance_t);

/// Profile indices tried for GPU and compute instance profiles: NVML's
/// `*_PROFILE_COUNT` grows with drivers, and indices a driver lacks answer an
/// error that the caller skips.
pub const MAX_PROFILE_INDEX: u32 = 32;

/// Most instances read per profile: NVML fills a buffer sized by the
/// profile's instance count; this bounds what a library may claim.
const MAX_INSTANCES: u32 = 64;

/// A C name array as text (up to its first NUL), as [`c_bytes`].
fn c_name(name: &[std::os::raw::c_char]) -> String {
    let bytes: Vec<u8> = name.iter().map(|&c| c as u8).collect();
    c_bytes(&bytes)
}

/// GPU instance profile `index` (`nvmlDeviceGetGpuInstanceProfileInfoV`)
/// with its remaining capacity (`nvmlDeviceGetGpuInstanceRemainingCapacity`).
pub fn gi_profile(c: &Dev<'_>, index: u32) -> Result<Profile, NvmlCode> {
    let f = sym!(c, nvmlDeviceGetGpuInstanceProfileInfoV)?;
    let h = c.handle()?;
    let mut p = versioned!(nvmlGpuInstanceProfileInfo_v2_t, 2);
    // SAFETY: a valid handle and a versioned, initialised out-struct.
    check(unsafe { f(h, index, &mut p) })?;
    let remaining = sym!(c, nvmlDeviceGetGpuInstanceRemainingCapacity)?;
    let mut free: c_uint = 0;
    // SAFETY: a valid handle and a valid out-pointer.
    let free = check(unsafe { remaining(h, p.id, &mut free) }).map(|()| free);
    Ok(Profile {
        id: p.id,
        name: c_name(&p.name),
        slices: p.sliceCount,
        total: p.instanceCount,
        free,
        memory_mib: p.memorySizeMB,
        p2p: p.isP2pSupported != 0,
        engines: Engines {
            sm: p.multiprocessorCount,
            ce: p.copyEngineCount,
            dec: p.decoderCount,
            enc: p.encoderCount,
            jpeg: p.jpegCount,
            ofa: p.ofaCount,
        },
        placements: None,
    })
}

/// The GPU instances of `profile` (`nvmlDeviceGetGpuInstances`), each with
/// its id and placement (`nvmlGpuInstanceGetInfo`).
pub fn gpu_instances(
    c: &Dev<'_>,
    profile: &Profile,
) -> Result<Vec<(GiHandle, Instance)>, NvmlCode> {
    let list = sym!(c, nvmlDeviceGetGpuInstances)?;
    let info = sym!(c, nvmlGpuInstanceGetInfo)?;
    let h = c.handle()?;
    // SAFETY: a valid handle and the buffer and count `read_instances` gives.
    let handles = unsafe { read_instances(profile, |buf, n| list(h, profile.id, buf, n)) }?;
    handles
        .into_iter()
        .map(|g| {
            let mut i: nvmlGpuInstanceInfo_t = zeroed();
            // SAFETY: `g` is a GPU instance handle NVML just returned; `i` a valid out-struct.
            check(unsafe { info(g, &mut i) })?;
            let placement = (i.placement.start, i.placement.size);
            Ok((GiHandle(g), instance(profile, i.id, i.profileId, placement)))
        })
        .collect()
}

/// NVML's instance lists: a buffer of handles as long as the profile's
/// instance count (bounded), which `list(buf, count)` fills, saying how many.
///
/// # Safety
/// `list` must pass its arguments to an NVML instance-list function whose
/// records are `*mut H` handles, for a live parent handle.
unsafe fn read_instances<H>(
    profile: &Profile,
    list: impl FnOnce(*mut *mut H, *mut c_uint) -> nvmlReturn_t,
) -> Result<Vec<*mut H>, NvmlCode> {
    let cap = profile.total.clamp(1, MAX_INSTANCES);
    let mut handles: Vec<*mut H> = vec![std::ptr::null_mut(); cap as usize];
    let mut n: c_uint = 0;
    check(list(handles.as_mut_ptr(), &mut n))?;
    handles.truncate((n as usize).min(handles.len()));
    Ok(handles)
}

/// An instance of `profile` at `(start, size)`.
fn instance(profile: &Profile, id: u32, profile_id: u32, (start, size): (u32, u32)) -> Instance {
    Instance {
        id,
        profile_id,
        name: profile.name.clone(),
        start,
        size,
    }
}

/// Compute instance profile `index` of GPU instance `gi`
/// (`nvmlGpuInstanceGetComputeInstanceProfileInfoV`, shared engines) with
/// its remaining capacity.
pub fn ci_profile(c: &Dev<'_>, gi: GiHandle, index: u32) -> Result<Profile, NvmlCode> {
    let f = sym!(c, nvmlGpuInstanceGetComputeInstanceProfileInfoV)?;
    let mut p = versioned!(nvmlComputeInstanceProfileInfo_v2_t, 2);
    let shared = NVML_COMPUTE_INSTANCE_ENGINE_PROFILE_SHARED;
    // SAFETY: a GPU instance handle of this session and a versioned out-struct.
    check(unsafe { f(gi.0, index, shared, &mut p) })?;
    let remaining = sym!(c, nvmlGpuInstanceGetComputeInstanceRemainingCapacity)?;
    let mut free: c_uint = 0;
    // SAFETY: as above, with a valid out-pointer.
    let free = check(unsafe { remaining(gi.0, p.id, &mut free) }).map(|()| free);
    Ok(Profile {
        id: p.id,
        name: c_name(&p.name),
        slices: p.sliceCount,
        total: p.instanceCount,
        free,
        memory_mib: 0,
        p2p: false,
        engines: Engines {
            sm: p.multiprocessorCount,
            ce: p.sharedCopyEngineCount,
            dec: p.sharedDecoderCount,
            enc: p.sharedEncoderCount,
            jpeg: p.sharedJpegCount,
            ofa: p.sharedOfaCount,
        },
        placements: None,
    })
}

/// The compute instances of `profile` in GPU instance `gi`
/// (`nvmlGpuInstanceGetComputeInstances`, `nvmlComputeInstanceGetInfo_v2`).
pub fn compute_instances(
    c: &Dev<'_>,
    gi: GiHandle,
    profile: &Profile,
) -> Result<Vec<Instance>, NvmlCode> {
    let list = sym!(c, nvmlGpuInstanceGetComputeInstances)?;
    let info = sym!(c, nvmlComputeInstanceGetInfo_v2)?;
    // SAFETY: a GPU instance handle of this session and the buffer and count
    // `read_instances` gives.
    let handles = unsafe { read_instances(profile, |buf, n| list(gi.0, profile.id, buf, n)) }?;
    handles
        .into_iter()
        .map(|ci| {
            let mut i: nvmlComputeInstanceInfo_t = zeroed();
            // SAFETY: a compute instance handle NVML just returned; a valid out-struct.
            check(unsafe { info(ci, &mut i) })?;
            let placement = (i.placement.start, i.placement.size);
            Ok(instance(profile, i.id, i.profileId, placement))
        })
        .collect()
}

// ---- MIG placements (`mig -lgipp`, `-lcipp`).

/// Most placements read per profile: a GPU has 8 memory slices; this bounds
/// what a library may claim.
const MAX_PLACEMENTS: c_uint = 64;

/// NVML's placement lists: a null buffer asks for the count (SUCCESS); then
/// a buffer of that many records is filled and the count says how many.
///
/// # Safety
/// `call` must pass its arguments to an NVML placement function whose
/// records are `nvmlGpuInstancePlacement_t`-shaped `T`, for a live handle.
unsafe fn read_placements<T: Copy>(
    zero: T,
    mut call: impl FnMut(*mut T, *mut c_uint) -> nvmlReturn_t,
    each: impl Fn(&T) -> Placement,
) -> Result<Vec<Placement>, NvmlCode> {
    let mut n: c_uint = 0;
    check(call(std::ptr::null_mut(), &mut n))?;
    if n == 0 {
        return Ok(Vec::new());
    }
    if n > MAX_PLACEMENTS {
        return Err(NvmlCode::INSUFFICIENT_SIZE);
    }
    let mut buf = vec![zero; n as usize];
    let mut got = n;
    check(call(buf.as_mut_ptr(), &mut got))?;
    buf.truncate((got as usize).min(buf.len()));
    Ok(buf.iter().map(each).collect())
}

/// Where GPU instances of profile `profile_id` may sit
/// (`nvmlDeviceGetGpuInstancePossiblePlacements_v2`; nvml-wrapper 0.13's
/// version returns an empty list).
pub fn gi_placements(c: &Dev<'_>, profile_id: u32) -> Result<Vec<Placement>, NvmlCode> {
    let f = sym!(c, nvmlDeviceGetGpuInstancePossiblePlacements_v2)?;
    let h = c.handle()?;
    let zero = nvmlGpuInstancePlacement_t { start: 0, size: 0 };
    // SAFETY: a valid handle; the buffer holds the count NVML gave.
    unsafe {
        read_placements(
            zero,
            |buf, n| f(h, profile_id, buf, n),
            |p| Placement {
                start: p.start,
                size: p.size,
            },
        )
    }
}

/// Where compute instances of profile `profile_id` may sit inside GPU
/// instance `gi` (`nvmlGpuInstanceGetComputeInstancePossiblePlacements`).
pub fn ci_placements(
    c: &Dev<'_>,
    gi: GiHandle,
    profile_id: u32,
) -> Result<Vec<Placement>, NvmlCode> {
    let f = sym!(c, nvmlGpuInstanceGetComputeInstancePossiblePlacements)?;
    let zero = nvmlComputeInstancePlacement_t { start: 0, size: 0 };
    // SAFETY: a GPU instance handle of this session; the buffer holds the
    // count NVML gave.
    unsafe {
        read_placements(
            zero,
            |buf, n| f(gi.0, profile_id, buf, n),
            |p| Placement {
                start: p.start,
                size: p.size,
            },
        )
    }
}
/// GPM (GPU performance monitoring, Hopper and later): does the GPU have it?
pub fn gpm_supported(c: &Dev<'_>) -> Result<bool, NvmlCode> {
    let mut s: nvmlGpmSupport_t = zeroed();
    s.version = NVML_GPM_SUPPORT_VERSION;
    let s = dev_struct(c, sym!(c, nvmlGpmQueryDeviceSupport), s)?;
    Ok(s.isSupportedDevice != 0)
}

/// One GPM sample buffer (`nvmlGpmSampleAlloc`), freed when dropped. It
/// keeps its session (and so the library) alive. A buffer is used by one
/// thread at a time: it is `Send`, not `Sync`.
pub struct GpmSample {
    session: std::sync::Arc<Session>,
    sample: nvmlGpmSample_t,
}

// SAFETY: the buffer is memory NVML allocated for this value alone; NVML lets
// any thread use it, and `&mut self` on every use keeps one user at a time.
unsafe impl Send for GpmSample {}

impl GpmSample {
    /// Allocate an empty buffer.
    pub fn alloc(session: &std::sync::Arc<Session>) -> Result<Self, NvmlCode> {
        let c = Dev::new(session, Err(NvmlCode::INVALID_ARGUMENT));
        let f = sym!(c, nvmlGpmSampleAlloc)?;
        let mut sample: nvmlGpmSample_t = std::ptr::null_mut();
        // SAFETY: a valid out-pointer for one handle.
        check(unsafe { f(&mut sample) })?;
        if sample.is_null() {
            return Err(NvmlCode::UNKNOWN);
        }
        Ok(GpmSample {
            session: std::sync::Arc::clone(session),
            sample,
        })
    }

    /// Read the GPU's counters now into this buffer (`nvmlGpmSampleGet`).
    pub fn read(&mut self, c: &Dev<'_>) -> Result<(), NvmlCode> {
        let f = sym!(c, nvmlGpmSampleGet)?;
        let h = c.handle()?;
        // SAFETY: a valid device handle and a live buffer of this library.
        check(unsafe { f(h, self.sample) })
    }

    /// Read the counters of the GPU's MIG GPU instance `gi` into this
    /// buffer (`nvmlGpmMigSampleGet`; `c` is the parent GPU).
    pub fn read_mig(&mut self, c: &Dev<'_>, gi: u32) -> Result<(), NvmlCode> {
        let f = sym!(c, nvmlGpmMigSampleGet)?;
        let h = c.handle()?;
        // SAFETY: a valid device handle and a live buffer of this library.
        check(unsafe { f(h, gi, self.sample) })
    }
}

impl Drop for GpmSample {
    fn drop(&mut self) {
        let c = Dev::new(&self.session, Err(NvmlCode::INVALID_ARGUMENT));
        if let Ok(f) = sym!(c, nvmlGpmSampleFree) {
            // SAFETY: the buffer came from nvmlGpmSampleAlloc of this library
            // and is freed once, here. A failure leaves nothing to do.
            let _ = unsafe { f(self.sample) };
        }
    }
}

/// The GPM metrics `ids` between two samples of one GPU (or GPU instance),
/// `earlier` taken before `later`: each metric's value (percent, MiB/s, as
/// NVML gives it) or the code NVML gave for that metric alone.
pub fn gpm_metrics(
    earlier: &GpmSample,
    later: &GpmSample,
    ids: &[u32],
) -> Result<Vec<Result<f64, NvmlCode>>, NvmlCode> {
    let c = Dev::new(&later.session, Err(NvmlCode::INVALID_ARGUMENT));
    let f = sym!(c, nvmlGpmMetricsGet)?;
    let mut m: nvmlGpmMetricsGet_t = zeroed();
    if ids.is_empty() || ids.len() > m.metrics.len() {
        return Err(NvmlCode::INVALID_ARGUMENT);
    }
    m.version = NVML_GPM_METRICS_GET_VERSION;
    m.numMetrics = ids.len() as c_uint;
    m.sample1 = earlier.sample;
    m.sample2 = later.sample;
    for (slot, id) in m.metrics.iter_mut().zip(ids) {
        slot.metricId = *id;
    }
    // SAFETY: a versioned request naming two live buffers and `ids.len()`
    // metric slots, all inside the struct.
    check(unsafe { f(&mut m) })?;
    Ok(m.metrics
        .iter()
        .take(ids.len())
        .map(|s| check(s.nvmlReturn).map(|()| s.value))
        .collect())
}

// ---- The report's late gaps (issue 19): InfoROM BBX flush, workload power
// profiles. Self-contained on purpose: it uses only `sym!`, `check`,
// `version` and `zeroed` from above.

/// `nvmlDeviceGetLastBBXFlushTime`: the last flush of the InfoROM's BBX
/// (black box) object in this run, as (start, duration in µs). NVML leaves
/// the start's unit undocumented; it is taken as µs since the Unix epoch,
/// NVML's unit for its other timestamps (unverified for this one). No flush
/// yet is NVML's NOT_READY.
// `c_ulong` is 32 bits on Windows, 64 on Linux: the conversion is needed there.
#[allow(clippy::useless_conversion)]
pub fn last_bbx_flush(c: &Dev<'_>) -> Result<(u64, u64), NvmlCode> {
    let f = sym!(c, nvmlDeviceGetLastBBXFlushTime)?;
    let h = c.handle()?;
    let mut start: c_ulonglong = 0;
    let mut took: std::os::raw::c_ulong = 0;
    // SAFETY: a valid handle and two valid out-pointers.
    check(unsafe { f(h, &mut start, &mut took) })?;
    Ok((start, u64::from(took)))
}

/// `nvmlUnrepairableMemoryStatus_v1_t` (NVML 13.x header; nvml-wrapper-sys
/// 0.10 predates it): one flag, no version member.
#[repr(C)]
#[derive(Clone, Copy)]
struct UnrepairableMemoryV1 {
    unrepairable: c_uint,
}

/// `nvmlDeviceGetUnrepairableMemoryFlag_v1` (Hopper and newer): whether
/// the GPU has memory it can no longer repair. Looked up by name; a library
/// without it gives NOT_SUPPORTED, as for the remapped rows' `_v2`.
pub fn unrepairable_memory(c: &Dev<'_>) -> Result<bool, NvmlCode> {
    type Get = unsafe extern "C" fn(nvmlDevice_t, *mut UnrepairableMemoryV1) -> nvmlReturn_t;
    // SAFETY: `Get` is the symbol's signature in NVML's header.
    let f: Get = unsafe {
        sym_by_name(
            c,
            b"nvmlDeviceGetUnrepairableMemoryFlag_v1\0",
            NvmlCode::NOT_SUPPORTED,
        )?
    };
    let h = c.handle()?;
    let mut v = UnrepairableMemoryV1 { unrepairable: 0 };
    // SAFETY: a valid handle and a valid out-pointer to the documented struct.
    check(unsafe { f(h, &mut v) })?;
    Ok(v.unrepairable != 0)
}

/// The bits set in an NVML 255-bit mask, lowest first.
fn mask255_bits(m: &nvmlMask255_t) -> Vec<u32> {
    (0..255u32)
        .filter(|&i| {
            m.mask
                .get((i / 32) as usize)
                .is_some_and(|w| w & (1 << (i % 32)) != 0)
        })
        .collect()
}

/// The workload power profiles (Blackwell and newer): the NVML profile ids
/// (`nvmlPowerProfileType_t`) requested and enforced, lowest first.
/// `nvmlDeviceWorkloadPowerProfileGetCurrentProfiles` gives the masks, whose
/// bits index `nvmlDeviceWorkloadPowerProfileGetProfilesInfo`'s profiles;
/// each bit is mapped to that profile's id, or taken as the id itself where
/// the info call fails or does not list the bit.
pub fn power_profiles(c: &Dev<'_>) -> Result<(Vec<u32>, Vec<u32>), NvmlCode> {
    let f = sym!(c, nvmlDeviceWorkloadPowerProfileGetCurrentProfiles)?;
    let h = c.handle()?;
    let mut cur: nvmlWorkloadPowerProfileCurrentProfiles_t = zeroed();
    cur.version = version::<nvmlWorkloadPowerProfileCurrentProfiles_t>(1);
    // SAFETY: a valid handle and a versioned, zeroed out-struct.
    check(unsafe { f(h, &mut cur) })?;
    let info = sym!(c, nvmlDeviceWorkloadPowerProfileGetProfilesInfo).and_then(|g| {
        let mut all: Box<nvmlWorkloadPowerProfileProfilesInfo_t> = Box::new(zeroed());
        all.version = version::<nvmlWorkloadPowerProfileProfilesInfo_t>(1);
        // SAFETY: a valid handle and a versioned, zeroed out-struct on the heap.
        check(unsafe { g(h, &mut *all) })?;
        Ok(all)
    });
    let id = |bit: u32| -> u32 {
        match &info {
            Ok(all) if mask255_bits(&all.perfProfilesMask).contains(&bit) => all
                .perfProfile
                .get(bit as usize)
                .map_or(bit, |p| p.profileId),
            Ok(_) => bit,
            Err(_) => bit,
        }
    };
    let ids = |m: &nvmlMask255_t| mask255_bits(m).into_iter().map(id).collect::<Vec<_>>();
    Ok((
        ids(&cur.requestedProfilesMask),
        ids(&cur.enforcedProfilesMask),
    ))
}
