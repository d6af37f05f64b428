//! Single values of one device that nvml-wrapper lacks or reads differently
//! from nvidia-smi: memory, PCI, clock event reasons, modes, fan, remapped
//! rows, fabric, platform, hostname, supported clocks, vGPU and repair state,
//! the InfoROM BBX flush and the workload power profiles.

use super::{
    c_bytes, dev_pair, dev_struct, dev_u32, dev_u64, or_older, read_list, sym_by_name, version,
    zeroed, Dev, DevU64,
};
use crate::nvml::{check, NvmlCode};
use nvml_wrapper_sys::bindings::*;
use std::os::raw::{c_uint, c_ulonglong};

/// Memory as nvidia-smi reads it: `nvmlDeviceGetMemoryInfo_v2`, or the v1
/// call when the library lacks v2 or rejects its struct version (drivers
/// before R510). v1 has no reserved figure.
#[derive(Debug, Clone, Copy)]
pub struct MemInfo {
    /// Bytes in all.
    pub total: u64,
    /// Bytes the driver keeps for itself (v2 only).
    pub reserved: Result<u64, NvmlCode>,
    /// Bytes in use.
    pub used: u64,
    /// Bytes free.
    pub free: u64,
}

/// The GPU's memory, `_v2` first (see [`MemInfo`]).
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

/// `nvmlDeviceGetPciInfoExt`: PCI identity with base and sub class.
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

/// The GPU operation mode (GOM), current and pending.
pub fn gpu_operation_mode(c: &Dev<'_>) -> Result<(u32, u32), NvmlCode> {
    dev_pair(c, sym!(c, nvmlDeviceGetGpuOperationMode))
}

/// DRAM encryption, current and pending state.
pub fn dram_encryption(c: &Dev<'_>) -> Result<(u32, u32), NvmlCode> {
    let f = sym!(c, nvmlDeviceGetDramEncryptionMode)?;
    let h = c.handle()?;
    let mut cur = versioned!(nvmlDramEncryptionInfo_t, 1);
    let mut pend = cur;
    // SAFETY: a valid handle and two versioned out-structs.
    check(unsafe { f(h, &mut cur, &mut pend) })?;
    Ok((cur.encryptionState, pend.encryptionState))
}

/// The performance state (0 is P0, the fastest).
pub fn pstate(c: &Dev<'_>) -> Result<u32, NvmlCode> {
    dev_u32(c, sym!(c, nvmlDeviceGetPerformanceState))
}

/// The compute mode (`nvmlComputeMode_t`: 0 default, 2 prohibited, 3 exclusive process).
pub fn compute_mode(c: &Dev<'_>) -> Result<u32, NvmlCode> {
    dev_u32(c, sym!(c, nvmlDeviceGetComputeMode))
}

/// Fan speed as nvidia-smi reads it: the unversioned call (the board's
/// intended speed), not the per-fan `_v2`.
pub fn fan_speed(c: &Dev<'_>) -> Result<u32, NvmlCode> {
    dev_u32(c, sym!(c, nvmlDeviceGetFanSpeed))
}

/// The highest PCIe generation the GPU supports.
pub fn pcie_gen_gpumax(c: &Dev<'_>) -> Result<u32, NvmlCode> {
    dev_u32(c, sym!(c, nvmlDeviceGetGpuMaxPcieLinkGeneration))
}

/// How many degrees the GPU is below its slowdown point.
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

/// The device addressing mode (HMM, ATS or none).
pub fn addressing_mode(c: &Dev<'_>) -> Result<u32, NvmlCode> {
    let m = versioned!(nvmlDeviceAddressingMode_t, 1);
    dev_struct(c, sym!(c, nvmlDeviceGetAddressingMode), m).map(|m| m.value)
}

/// Whether the chip-to-chip link (Grace Hopper's C2C) is enabled.
pub fn c2c_mode(c: &Dev<'_>) -> Result<u32, NvmlCode> {
    dev_struct(
        c,
        sym!(c, nvmlDeviceGetC2cModeInfoV),
        zeroed::<nvmlC2cModeInfo_v1_t>(),
    )
    .map(|m| m.isC2cEnabled)
}

/// One vGPU capability of the driver (`nvmlVgpuDriverCapability_t` `cap`).
pub fn vgpu_driver_cap(c: &Dev<'_>, cap: u32) -> Result<u32, NvmlCode> {
    let f = sym!(c, nvmlGetVgpuDriverCapabilities)?;
    let mut v: c_uint = 0;
    // SAFETY: a valid out-pointer.
    check(unsafe { f(cap, &mut v) })?;
    Ok(v)
}

/// One vGPU capability of the GPU (`nvmlDeviceVgpuCapability_t` `cap`).
pub fn vgpu_device_cap(c: &Dev<'_>, cap: u32) -> Result<u32, NvmlCode> {
    let f = sym!(c, nvmlDeviceGetVgpuCapabilities)?;
    let h = c.handle()?;
    let mut v: c_uint = 0;
    // SAFETY: a valid handle and a valid out-pointer.
    check(unsafe { f(h, cap, &mut v) })?;
    Ok(v)
}

/// The row remapper's counts (`nvmlDeviceGetRemappedRows`).
#[derive(Debug, Clone, Copy)]
pub struct RemappedRows {
    /// Rows remapped for correctable errors.
    pub correctable: u32,
    /// Rows remapped for uncorrectable errors.
    pub uncorrectable: u32,
    /// Non-zero: a remapping waits for the next reset.
    pub pending: u32,
    /// Non-zero: a remapping failed.
    pub failure: u32,
}

/// The row remapper's counts and flags.
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

/// How many banks have how many spare rows left.
pub fn row_remapper_histogram(c: &Dev<'_>) -> Result<nvmlRowRemapperHistogramValues_t, NvmlCode> {
    dev_struct(c, sym!(c, nvmlDeviceGetRowRemapperHistogram), zeroed())
}

/// SRAM ECC error counts by kind and location.
pub fn sram_ecc_status(c: &Dev<'_>) -> Result<nvmlEccSramErrorStatus_t, NvmlCode> {
    let s = versioned!(nvmlEccSramErrorStatus_t, 1);
    dev_struct(c, sym!(c, nvmlDeviceGetSramEccErrorStatus), s)
}

/// Confidential computing's protected memory, total, used and free.
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
    /// The NVLink clique the GPU belongs to.
    pub clique_id: u32,
    /// The fabric cluster's UUID, as bytes.
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

/// Where the GPU sits: chassis, slot, tray, host and module ids.
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

/// The hostname the GPU was given (`nvmlDeviceGetHostname_v1`).
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

/// One running vGPU's utilization sample: its instance id and its SM,
/// memory, encoder and decoder percentages.
pub type VgpuUtilization = (u32, [u32; 4]);

/// The GPU's per-vGPU utilization samples since `last_seen` (µs;
/// `nvmlDeviceGetVgpuUtilization`), those of unsigned-int type only.
pub fn vgpu_utilization(c: &Dev<'_>, last_seen: u64) -> Result<Vec<VgpuUtilization>, NvmlCode> {
    let f = sym!(c, nvmlDeviceGetVgpuUtilization)?;
    let h = c.handle()?;
    let mut kind: nvmlValueType_t = 0;
    let zero = zeroed::<nvmlVgpuInstanceUtilizationSample_t>();
    // SAFETY: a valid handle; `read_list` hands a count and a buffer of that many samples.
    let samples = unsafe { read_list(zero, |n, buf| f(h, last_seen, &mut kind, n, buf)) }?;
    if kind != nvmlValueType_enum_NVML_VALUE_TYPE_UNSIGNED_INT {
        return Err(NvmlCode::UNKNOWN);
    }
    // SAFETY: NVML says each value is an unsigned int (checked above).
    let pct = |v: nvmlValue_t| unsafe { v.uiVal };
    Ok(samples
        .into_iter()
        .map(|s| {
            let u = [
                pct(s.smUtil),
                pct(s.memUtil),
                pct(s.encUtil),
                pct(s.decUtil),
            ];
            (s.vgpuInstance, u)
        })
        .collect())
}

/// The GPU's running vGPU instances (`nvmlDeviceGetActiveVgpus`), by id.
pub fn active_vgpus(c: &Dev<'_>) -> Result<Vec<nvmlVgpuInstance_t>, NvmlCode> {
    let f = sym!(c, nvmlDeviceGetActiveVgpus)?;
    let h = c.handle()?;
    // SAFETY: a valid handle; `read_list` hands a count and a buffer of that many ids.
    unsafe { read_list(0, |n, buf| f(h, n, buf)) }
}

/// A running vGPU's placement on its GPU (`nvmlVgpuInstanceGetPlacementId`,
/// versioned struct; drivers before R550 lack it).
pub fn vgpu_placement_id(c: &Dev<'_>, instance: nvmlVgpuInstance_t) -> Result<u32, NvmlCode> {
    let f = sym!(c, nvmlVgpuInstanceGetPlacementId)?;
    let mut p = versioned!(nvmlVgpuPlacementId_t, 1);
    // SAFETY: a valid out-pointer to a struct of the version it says.
    check(unsafe { f(instance, &mut p) })?;
    Ok(p.placementId)
}
