//! Device getters.

use crate::call::*;
use crate::pci::pci_struct;
use crate::scenario::{Clocks, EccCounts, FieldScalar};
use crate::state::*;
use nvml_wrapper_sys::bindings::*;
use std::os::raw::{c_char, c_int, c_uint, c_ulong, c_ulonglong};

/// `sizeof(T) | version << 24`, NVML's versioned-struct tag.
const fn struct_version<T>(v: u32) -> u32 {
    std::mem::size_of::<T>() as u32 | (v << 24)
}

pub(crate) const MEMORY_V2_VERSION: u32 = struct_version::<nvmlMemory_v2_t>(2);
const PCI_INFO_EXT_V1: u32 = struct_version::<nvmlPciInfoExt_v1_t>(1);
const MARGIN_TEMP_V1: u32 = struct_version::<nvmlMarginTemperature_v1_t>(1);
const FABRIC_V3: u32 = struct_version::<nvmlGpuFabricInfo_v3_t>(3);
const PLATFORM_V2: u32 = struct_version::<nvmlPlatformInfo_v2_t>(2);
const SRAM_ECC_V1: u32 = struct_version::<nvmlEccSramErrorStatus_v1_t>(1);
const ADDRESSING_V1: u32 = struct_version::<nvmlDeviceAddressingMode_v1_t>(1);
const PDI_V1: u32 = struct_version::<nvmlPdi_v1_t>(1);
const REPAIR_V1: u32 = struct_version::<nvmlRepairStatus_v1_t>(1);
const CAPS_V1: u32 = struct_version::<nvmlDeviceCapabilities_v1_t>(1);
const PROFILES_INFO_V1: u32 = struct_version::<nvmlWorkloadPowerProfileProfilesInfo_v1_t>(1);
const PROFILE_INFO_V1: u32 = struct_version::<nvmlWorkloadPowerProfileInfo_v1_t>(1);
const CURRENT_PROFILES_V1: u32 = struct_version::<nvmlWorkloadPowerProfileCurrentProfiles_v1_t>(1);
const DRAM_ENCRYPTION_V1: u32 = struct_version::<nvmlDramEncryptionInfo_v1_t>(1);

/// Single-value getter: `fn(device, *mut T)` reading one (series) scenario field.
macro_rules! scalar {
    ($name:ident, $ty:ty, |$d:ident| $field:expr) => {
        /// # Safety
        /// An NVML client's contract: each pointer argument is null or valid for
        /// what NVML documents for this function, and a handle is one this library
        /// handed out. Null pointers and unknown handles get INVALID_ARGUMENT.
        #[no_mangle]
        pub unsafe extern "C" fn $name(device: nvmlDevice_t, out: *mut $ty) -> nvmlReturn_t {
            dev_fn(stringify!($name), device, |c| {
                let o = nn(out)?;
                let $d = c.dev;
                o.set(c.val(&$field)?);
                Ok(())
            })
        }
    };
}

/// String getter: `fn(device, *mut c_char, length)`.
macro_rules! string {
    ($name:ident, |$d:ident| $field:expr) => {
        /// # Safety
        /// An NVML client's contract: each pointer argument is null or valid for
        /// what NVML documents for this function, and a handle is one this library
        /// handed out. Null pointers and unknown handles get INVALID_ARGUMENT.
        #[no_mangle]
        pub unsafe extern "C" fn $name(
            device: nvmlDevice_t,
            buf: *mut c_char,
            length: c_uint,
        ) -> nvmlReturn_t {
            dev_fn(stringify!($name), device, |c| {
                if buf.is_null() {
                    return Err(INVALID_ARGUMENT);
                }
                let $d = c.dev;
                put_str(buf, length, $field.as_deref().ok_or(NOT_SUPPORTED)?)
            })
        }
    };
}

/// Current/pending pair getter: `fn(device, *mut T, *mut T)`.
macro_rules! pair {
    ($name:ident, $ty:ty, |$d:ident| $field:expr) => {
        /// # Safety
        /// An NVML client's contract: each pointer argument is null or valid for
        /// what NVML documents for this function, and a handle is one this library
        /// handed out. Null pointers and unknown handles get INVALID_ARGUMENT.
        #[no_mangle]
        pub unsafe extern "C" fn $name(
            device: nvmlDevice_t,
            current: *mut $ty,
            pending: *mut $ty,
        ) -> nvmlReturn_t {
            dev_fn(stringify!($name), device, |c| {
                let (oc, op) = (nn(current)?, nn(pending)?);
                let $d = c.dev;
                let f = &$field;
                let (cur, pen) = (c.val(&f.current)?, c.val(&f.pending)?);
                oc.set(cur);
                op.set(pen);
                Ok(())
            })
        }
    };
}

/// Utilization-with-sampling-period getter: `fn(device, *mut util, *mut period)`.
macro_rules! util_sampled {
    ($name:ident, |$d:ident| $field:expr) => {
        /// # Safety
        /// An NVML client's contract: each pointer argument is null or valid for
        /// what NVML documents for this function, and a handle is one this library
        /// handed out. Null pointers and unknown handles get INVALID_ARGUMENT.
        #[no_mangle]
        pub unsafe extern "C" fn $name(
            device: nvmlDevice_t,
            utilization: *mut c_uint,
            samplingPeriodUs: *mut c_uint,
        ) -> nvmlReturn_t {
            dev_fn(stringify!($name), device, |c| {
                let (ou, op) = (nn(utilization)?, nn(samplingPeriodUs)?);
                let $d = c.dev;
                ou.set(c.val(&$field)?);
                op.set(c.dev.utilization.sampling_period_us.unwrap_or(167_000));
                Ok(())
            })
        }
    };
}

// ---- identity -------------------------------------------------------------------------------

/// # Safety
/// An NVML client's contract: each pointer argument is null or valid for
/// what NVML documents for this function, and a handle is one this library
/// handed out. Null pointers and unknown handles get INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceGetName(
    device: nvmlDevice_t,
    name: *mut c_char,
    length: c_uint,
) -> nvmlReturn_t {
    any_fn("nvmlDeviceGetName", device, |c| {
        if name.is_null() {
            return Err(INVALID_ARGUMENT);
        }
        let s = match c.mig() {
            Some(m) => m.name.as_deref(),
            None => c.dev.name.as_deref(),
        };
        put_str(name, length, s.ok_or(NOT_SUPPORTED)?)
    })
}

/// # Safety
/// An NVML client's contract: each pointer argument is null or valid for
/// what NVML documents for this function, and a handle is one this library
/// handed out. Null pointers and unknown handles get INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceGetUUID(
    device: nvmlDevice_t,
    uuid: *mut c_char,
    length: c_uint,
) -> nvmlReturn_t {
    any_fn("nvmlDeviceGetUUID", device, |c| {
        if uuid.is_null() {
            return Err(INVALID_ARGUMENT);
        }
        let s = match c.mig() {
            Some(m) => m.uuid.as_deref(),
            None => c.dev.uuid.as_deref(),
        };
        put_str(uuid, length, s.ok_or(NOT_SUPPORTED)?)
    })
}

string!(nvmlDeviceGetSerial, |d| d.serial);
string!(nvmlDeviceGetBoardPartNumber, |d| d.board_part_number);
string!(nvmlDeviceGetVbiosVersion, |d| d.vbios_version);
string!(nvmlDeviceGetInforomImageVersion, |d| d.inforom.image);

/// # Safety
/// An NVML client's contract: each pointer argument is null or valid for
/// what NVML documents for this function, and a handle is one this library
/// handed out. Null pointers and unknown handles get INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceGetLastBBXFlushTime(
    device: nvmlDevice_t,
    timestamp: *mut c_ulonglong,
    durationUs: *mut c_ulong,
) -> nvmlReturn_t {
    dev_fn("nvmlDeviceGetLastBBXFlushTime", device, |c| {
        let (t, d) = (nn(timestamp)?, nn(durationUs)?);
        let i = &c.dev.inforom;
        let start = c.val(&i.bbx_flush_timestamp)?;
        let took = c.val(&i.bbx_flush_duration_us)?;
        t.set(start);
        d.set(c_ulong::try_from(took).map_err(|_| UNKNOWN)?);
        Ok(())
    })
}

/// # Safety
/// An NVML client's contract: each pointer argument is null or valid for
/// what NVML documents for this function, and a handle is one this library
/// handed out. Null pointers and unknown handles get INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceGetIndex(
    device: nvmlDevice_t,
    index: *mut c_uint,
) -> nvmlReturn_t {
    // On a MIG handle: its own index among its parent's MIG devices, as a
    // real driver answers (the `<index>` 0..3 of the four MIG devices of one
    // GPU in Telegraf's real A100 document; NVIDIA's mock NVML answers the
    // parent's index instead).
    any_fn("nvmlDeviceGetIndex", device, |c| {
        let i = match c.target {
            Target::Mig(_, j) => j,
            Target::Gpu(i) => i,
        };
        nn(index)?.set(c_uint::try_from(i).map_err(|_| UNKNOWN)?);
        Ok(())
    })
}

scalar!(nvmlDeviceGetBrand, nvmlBrandType_t, |d| d.brand);
scalar!(nvmlDeviceGetArchitecture, nvmlDeviceArchitecture_t, |d| d
    .architecture);
scalar!(nvmlDeviceGetMinorNumber, c_uint, |d| d.minor_number);
scalar!(nvmlDeviceGetBoardId, c_uint, |d| d.board_id);
scalar!(nvmlDeviceGetModuleId, c_uint, |d| d.module_id);
scalar!(nvmlDeviceGetMultiGpuBoard, c_uint, |d| d.multi_gpu_board);
scalar!(nvmlDeviceGetHostVgpuMode, nvmlHostVgpuMode_t, |d| d
    .host_vgpu_mode);
scalar!(
    nvmlDeviceGetVirtualizationMode,
    nvmlGpuVirtualizationMode_t,
    |d| d.virtualization_mode
);

/// # Safety
/// An NVML client's contract: each pointer argument is null or valid for
/// what NVML documents for this function, and a handle is one this library
/// handed out. Null pointers and unknown handles get INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceGetInforomVersion(
    device: nvmlDevice_t,
    object: nvmlInforomObject_t,
    version: *mut c_char,
    length: c_uint,
) -> nvmlReturn_t {
    dev_fn("nvmlDeviceGetInforomVersion", device, |c| {
        if version.is_null() {
            return Err(INVALID_ARGUMENT);
        }
        let i = &c.dev.inforom;
        let s = match object {
            0 => &i.oem,
            1 => &i.ecc,
            2 => &i.power,
            3 => &i.den,
            _ => return Err(INVALID_ARGUMENT),
        };
        put_str(version, length, s.as_deref().ok_or(NOT_SUPPORTED)?)
    })
}

scalar!(nvmlDeviceGetInforomConfigurationChecksum, c_uint, |d| d
    .inforom
    .checksum);

/// # Safety
/// An NVML client's contract: each pointer argument is null or valid for
/// what NVML documents for this function, and a handle is one this library
/// handed out. Null pointers and unknown handles get INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceValidateInforom(device: nvmlDevice_t) -> nvmlReturn_t {
    dev_fn("nvmlDeviceValidateInforom", device, |c| {
        match c.dev.inforom.valid {
            Some(true) => Ok(()),
            Some(false) => Err(CORRUPTED_INFOROM),
            None => Err(NOT_SUPPORTED),
        }
    })
}

// ---- PCI ------------------------------------------------------------------------------------

fn pci_info(sym: &'static str, device: nvmlDevice_t, pci: *mut nvmlPciInfo_t) -> nvmlReturn_t {
    dev_fn(sym, device, |c| {
        let o = nn(pci)?;
        o.set(pci_struct(c.dev)?);
        Ok(())
    })
}

/// # Safety
/// An NVML client's contract: each pointer argument is null or valid for
/// what NVML documents for this function, and a handle is one this library
/// handed out. Null pointers and unknown handles get INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceGetPciInfo_v3(
    device: nvmlDevice_t,
    pci: *mut nvmlPciInfo_t,
) -> nvmlReturn_t {
    pci_info("nvmlDeviceGetPciInfo_v3", device, pci)
}

/// # Safety
/// An NVML client's contract: each pointer argument is null or valid for
/// what NVML documents for this function, and a handle is one this library
/// handed out. Null pointers and unknown handles get INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceGetPciInfo_v2(
    device: nvmlDevice_t,
    pci: *mut nvmlPciInfo_t,
) -> nvmlReturn_t {
    pci_info("nvmlDeviceGetPciInfo_v2", device, pci)
}

/// # Safety
/// An NVML client's contract: each pointer argument is null or valid for
/// what NVML documents for this function, and a handle is one this library
/// handed out. Null pointers and unknown handles get INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceGetPciInfo(
    device: nvmlDevice_t,
    pci: *mut nvmlPciInfo_t,
) -> nvmlReturn_t {
    pci_info("nvmlDeviceGetPciInfo", device, pci)
}

/// # Safety
/// An NVML client's contract: each pointer argument is null or valid for
/// what NVML documents for this function, and a handle is one this library
/// handed out. Null pointers and unknown handles get INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceGetPciInfoExt(
    device: nvmlDevice_t,
    pci: *mut nvmlPciInfoExt_t,
) -> nvmlReturn_t {
    dev_fn("nvmlDeviceGetPciInfoExt", device, |c| {
        let o = nn(pci)?;
        // SAFETY: reading the caller-set version field of a non-null struct.
        if unsafe { (*o.ptr()).version } != PCI_INFO_EXT_V1 {
            return Err(ARGUMENT_VERSION_MISMATCH);
        }
        let p = &c.dev.pci;
        let mut v = nvmlPciInfoExt_v1_t {
            version: PCI_INFO_EXT_V1,
            domain: p.domain.ok_or(NOT_SUPPORTED)?,
            bus: p.bus.ok_or(NOT_SUPPORTED)?,
            device: p.device.ok_or(NOT_SUPPORTED)?,
            pciDeviceId: p.device_id.unwrap_or(0),
            pciSubSystemId: p.subsystem_id.unwrap_or(0),
            baseClass: p.base_class.ok_or(NOT_SUPPORTED)?,
            subClass: p.sub_class.ok_or(NOT_SUPPORTED)?,
            busId: [0; 32],
        };
        fill_chars(&mut v.busId, &c.dev.bus_id().ok_or(NOT_SUPPORTED)?);
        o.set(v);
        Ok(())
    })
}

scalar!(nvmlDeviceGetCurrPcieLinkGeneration, c_uint, |d| d
    .pcie
    .link_gen_current);
scalar!(nvmlDeviceGetMaxPcieLinkGeneration, c_uint, |d| d
    .pcie
    .link_gen_max);
scalar!(nvmlDeviceGetGpuMaxPcieLinkGeneration, c_uint, |d| d
    .pcie
    .link_gen_gpu_max);
scalar!(nvmlDeviceGetCurrPcieLinkWidth, c_uint, |d| d
    .pcie
    .link_width_current);
scalar!(nvmlDeviceGetMaxPcieLinkWidth, c_uint, |d| d
    .pcie
    .link_width_max);
scalar!(nvmlDeviceGetPcieReplayCounter, c_uint, |d| d
    .pcie
    .replay_counter);

/// # Safety
/// An NVML client's contract: each pointer argument is null or valid for
/// what NVML documents for this function, and a handle is one this library
/// handed out. Null pointers and unknown handles get INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceGetPcieThroughput(
    device: nvmlDevice_t,
    counter: nvmlPcieUtilCounter_t,
    value: *mut c_uint,
) -> nvmlReturn_t {
    dev_fn("nvmlDeviceGetPcieThroughput", device, |c| {
        let o = nn(value)?;
        let f = match counter {
            0 => &c.dev.pcie.tx_throughput,
            1 => &c.dev.pcie.rx_throughput,
            _ => return Err(INVALID_ARGUMENT),
        };
        o.set(c.val(f)?);
        Ok(())
    })
}

/// Cumulative throttled time (ns) for the power (0) and thermal (1) policies; the reference
/// time is the call's place on a 1 s clock (µs).
///
/// # Safety
/// An NVML client's contract: each pointer argument is null or valid for
/// what NVML documents for this function, and a handle is one this library
/// handed out. Null pointers and unknown handles get INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceGetViolationStatus(
    device: nvmlDevice_t,
    perfPolicyType: nvmlPerfPolicyType_t,
    violTime: *mut nvmlViolationTime_t,
) -> nvmlReturn_t {
    dev_fn("nvmlDeviceGetViolationStatus", device, |c| {
        let o = nn(violTime)?;
        let f = match perfPolicyType {
            0 => &c.dev.violation.power,
            1 => &c.dev.violation.thermal,
            _ => return Err(NOT_SUPPORTED),
        };
        o.set(nvmlViolationTime_t {
            referenceTime: c.n.saturating_mul(1_000_000),
            violationTime: c.val(f)?,
        });
        Ok(())
    })
}

// ---- modes ----------------------------------------------------------------------------------

scalar!(nvmlDeviceGetDisplayMode, nvmlEnableState_t, |d| d
    .display_mode);
scalar!(nvmlDeviceGetDisplayActive, nvmlEnableState_t, |d| d
    .display_active);
scalar!(nvmlDeviceGetPersistenceMode, nvmlEnableState_t, |d| d
    .persistence_mode);
scalar!(nvmlDeviceGetAccountingMode, nvmlEnableState_t, |d| d
    .accounting_mode);
scalar!(nvmlDeviceGetAccountingBufferSize, c_uint, |d| d
    .accounting_buffer_size);
scalar!(nvmlDeviceGetComputeMode, nvmlComputeMode_t, |d| d
    .compute_mode);
scalar!(nvmlDeviceGetPerformanceState, nvmlPstates_t, |d| d
    .performance_state);
scalar!(nvmlDeviceGetPowerState, nvmlPstates_t, |d| d.power_state);
pair!(nvmlDeviceGetDriverModel, nvmlDriverModel_t, |d| d
    .driver_model);
pair!(nvmlDeviceGetDriverModel_v2, nvmlDriverModel_t, |d| d
    .driver_model);
pair!(nvmlDeviceGetGpuOperationMode, nvmlGpuOperationMode_t, |d| d
    .gpu_operation_mode);
pair!(nvmlDeviceGetEccMode, nvmlEnableState_t, |d| d.ecc_mode);
pair!(nvmlDeviceGetMigMode, c_uint, |d| d.mig);

/// # Safety
/// An NVML client's contract: each pointer argument is null or valid for
/// what NVML documents for this function, and a handle is one this library
/// handed out. Null pointers and unknown handles get INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceGetAddressingMode(
    device: nvmlDevice_t,
    mode: *mut nvmlDeviceAddressingMode_t,
) -> nvmlReturn_t {
    dev_fn("nvmlDeviceGetAddressingMode", device, |c| {
        let o = nn(mode)?;
        // SAFETY: reading the caller-set version field of a non-null struct.
        if unsafe { (*o.ptr()).version } != ADDRESSING_V1 {
            return Err(ARGUMENT_VERSION_MISMATCH);
        }
        let v = c.val(&c.dev.addressing_mode)?;
        o.set(nvmlDeviceAddressingMode_v1_t {
            version: ADDRESSING_V1,
            value: v,
        });
        Ok(())
    })
}

/// # Safety
/// An NVML client's contract: each pointer argument is null or valid for
/// what NVML documents for this function, and a handle is one this library
/// handed out. Null pointers and unknown handles get INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceGetPdi(
    device: nvmlDevice_t,
    pdi: *mut nvmlPdi_t,
) -> nvmlReturn_t {
    dev_fn("nvmlDeviceGetPdi", device, |c| {
        let o = nn(pdi)?;
        // SAFETY: reading the caller-set version field of a non-null struct.
        if unsafe { (*o.ptr()).version } != PDI_V1 {
            return Err(ARGUMENT_VERSION_MISMATCH);
        }
        let text = c.dev.pdi.as_deref().ok_or(NOT_SUPPORTED)?;
        let digits = text.trim_start_matches("0x").trim_start_matches("0X");
        let value = u64::from_str_radix(digits, 16).map_err(|_| UNKNOWN)?;
        o.set(nvmlPdi_v1_t {
            version: PDI_V1,
            value,
        });
        Ok(())
    })
}

/// # Safety
/// An NVML client's contract: each pointer argument is null or valid for
/// what NVML documents for this function, and a handle is one this library
/// handed out. Null pointers and unknown handles get INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceGetRepairStatus(
    device: nvmlDevice_t,
    repairStatus: *mut nvmlRepairStatus_t,
) -> nvmlReturn_t {
    dev_fn("nvmlDeviceGetRepairStatus", device, |c| {
        let o = nn(repairStatus)?;
        // SAFETY: reading the caller-set version field of a non-null struct.
        if unsafe { (*o.ptr()).version } != REPAIR_V1 {
            return Err(ARGUMENT_VERSION_MISMATCH);
        }
        let r = &c.dev.repair_status;
        let (channel, tpc) = (c.val(&r.channel_pending)?, c.val(&r.tpc_pending)?);
        o.set(nvmlRepairStatus_v1_t {
            version: REPAIR_V1,
            bChannelRepairPending: channel,
            bTpcRepairPending: tpc,
        });
        Ok(())
    })
}

/// `nvmlUnrepairableMemoryStatus_v1_t` (NVML 13.x header; not in nvml-wrapper-sys 0.10): one
/// flag, no version member.
#[repr(C)]
pub struct NvmlUnrepairableMemoryStatusV1 {
    pub b_unrepairable_memory: c_uint,
}

/// # Safety
/// An NVML client's contract: each pointer argument is null or valid for
/// what NVML documents for this function, and a handle is one this library
/// handed out. Null pointers and unknown handles get INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceGetUnrepairableMemoryFlag_v1(
    device: nvmlDevice_t,
    status: *mut NvmlUnrepairableMemoryStatusV1,
) -> nvmlReturn_t {
    dev_fn("nvmlDeviceGetUnrepairableMemoryFlag_v1", device, |c| {
        let o = nn(status)?;
        o.set(NvmlUnrepairableMemoryStatusV1 {
            b_unrepairable_memory: c.val(&c.dev.repair_status.unrepairable)?,
        });
        Ok(())
    })
}

/// # Safety
/// An NVML client's contract: each pointer argument is null or valid for
/// what NVML documents for this function, and a handle is one this library
/// handed out. Null pointers and unknown handles get INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceGetCapabilities(
    device: nvmlDevice_t,
    caps: *mut nvmlDeviceCapabilities_t,
) -> nvmlReturn_t {
    dev_fn("nvmlDeviceGetCapabilities", device, |c| {
        let o = nn(caps)?;
        // SAFETY: reading the caller-set version field of a non-null struct.
        if unsafe { (*o.ptr()).version } != CAPS_V1 {
            return Err(ARGUMENT_VERSION_MISMATCH);
        }
        let mask = c.val(&c.dev.capabilities)?;
        o.set(nvmlDeviceCapabilities_v1_t {
            version: CAPS_V1,
            capMask: mask,
        });
        Ok(())
    })
}

/// # Safety
/// An NVML client's contract: each pointer argument is null or valid for
/// what NVML documents for this function, and a handle is one this library
/// handed out. Null pointers and unknown handles get INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceGetCudaComputeCapability(
    device: nvmlDevice_t,
    major: *mut c_int,
    minor: *mut c_int,
) -> nvmlReturn_t {
    dev_fn("nvmlDeviceGetCudaComputeCapability", device, |c| {
        let (oa, ob) = (nn(major)?, nn(minor)?);
        let cc = &c.dev.cuda_compute_capability;
        let (a, b) = (
            cc.major.ok_or(NOT_SUPPORTED)?,
            cc.minor.ok_or(NOT_SUPPORTED)?,
        );
        oa.set(a);
        ob.set(b);
        Ok(())
    })
}

// ---- fans, clocks event reasons --------------------------------------------------------------

/// # Safety
/// An NVML client's contract: each pointer argument is null or valid for
/// what NVML documents for this function, and a handle is one this library
/// handed out. Null pointers and unknown handles get INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceGetFanSpeed(
    device: nvmlDevice_t,
    speed: *mut c_uint,
) -> nvmlReturn_t {
    dev_fn("nvmlDeviceGetFanSpeed", device, |c| {
        let o = nn(speed)?;
        let fans = c.dev.fans.as_ref().ok_or(NOT_SUPPORTED)?;
        let f = fans
            .first()
            .and_then(|s| s.at(c.idx()))
            .ok_or(NOT_SUPPORTED)?;
        o.set(f);
        Ok(())
    })
}

/// # Safety
/// An NVML client's contract: each pointer argument is null or valid for
/// what NVML documents for this function, and a handle is one this library
/// handed out. Null pointers and unknown handles get INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceGetFanSpeed_v2(
    device: nvmlDevice_t,
    fan: c_uint,
    speed: *mut c_uint,
) -> nvmlReturn_t {
    dev_fn("nvmlDeviceGetFanSpeed_v2", device, |c| {
        let o = nn(speed)?;
        let fans = c.dev.fans.as_ref().ok_or(NOT_SUPPORTED)?;
        let f = fans.get(fan as usize).ok_or(INVALID_ARGUMENT)?;
        o.set(f.at(c.idx()).ok_or(NOT_SUPPORTED)?);
        Ok(())
    })
}

/// # Safety
/// An NVML client's contract: each pointer argument is null or valid for
/// what NVML documents for this function, and a handle is one this library
/// handed out. Null pointers and unknown handles get INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceGetNumFans(
    device: nvmlDevice_t,
    numFans: *mut c_uint,
) -> nvmlReturn_t {
    dev_fn("nvmlDeviceGetNumFans", device, |c| {
        let o = nn(numFans)?;
        let fans = c.dev.fans.as_ref().ok_or(NOT_SUPPORTED)?;
        o.set(c_uint::try_from(fans.len()).map_err(|_| UNKNOWN)?);
        Ok(())
    })
}

scalar!(
    nvmlDeviceGetSupportedClocksThrottleReasons,
    c_ulonglong,
    |d| d.clocks_event_reasons_supported
);
scalar!(
    nvmlDeviceGetCurrentClocksThrottleReasons,
    c_ulonglong,
    |d| d.clocks_event_reasons
);
scalar!(nvmlDeviceGetSupportedClocksEventReasons, c_ulonglong, |d| d
    .clocks_event_reasons_supported);
scalar!(nvmlDeviceGetCurrentClocksEventReasons, c_ulonglong, |d| d
    .clocks_event_reasons);

// ---- memory ---------------------------------------------------------------------------------

/// (total, reserved, used, free) of the device or MIG instance.
fn memory_values(c: &Ctx) -> R<(u64, u64, u64, u64)> {
    let m = match c.mig() {
        Some(m) => &m.memory,
        None => &c.dev.memory,
    };
    let total = c.val(&m.total)?;
    let reserved = c.opt(&m.reserved).unwrap_or(0);
    let used = match &m.used_timeline {
        // A GPU cannot hold more than it has: the timeline stops at what is left after `reserved`.
        Some(tl) => (tl.at(c.elapsed_s) as u64).min(total.saturating_sub(reserved)),
        None => c.val(&m.used)?,
    };
    let free = c
        .opt(&m.free)
        .unwrap_or_else(|| total.saturating_sub(reserved).saturating_sub(used));
    Ok((total, reserved, used, free))
}

/// # Safety
/// An NVML client's contract: each pointer argument is null or valid for
/// what NVML documents for this function, and a handle is one this library
/// handed out. Null pointers and unknown handles get INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceGetMemoryInfo(
    device: nvmlDevice_t,
    memory: *mut nvmlMemory_t,
) -> nvmlReturn_t {
    any_fn("nvmlDeviceGetMemoryInfo", device, |c| {
        let o = nn(memory)?;
        let (total, reserved, used, free) = memory_values(c)?;
        o.set(nvmlMemory_t {
            total,
            free,
            used: used.saturating_add(reserved),
        });
        Ok(())
    })
}

/// # Safety
/// An NVML client's contract: each pointer argument is null or valid for
/// what NVML documents for this function, and a handle is one this library
/// handed out. Null pointers and unknown handles get INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceGetMemoryInfo_v2(
    device: nvmlDevice_t,
    memory: *mut nvmlMemory_v2_t,
) -> nvmlReturn_t {
    any_fn("nvmlDeviceGetMemoryInfo_v2", device, |c| {
        let o = nn(memory)?;
        // SAFETY: reading the caller-set version field of a non-null struct.
        if unsafe { (*o.ptr()).version } != MEMORY_V2_VERSION {
            return Err(ARGUMENT_VERSION_MISMATCH);
        }
        let (total, reserved, used, free) = memory_values(c)?;
        o.set(nvmlMemory_v2_t {
            version: MEMORY_V2_VERSION,
            total,
            reserved,
            free,
            used,
        });
        Ok(())
    })
}

/// # Safety
/// An NVML client's contract: each pointer argument is null or valid for
/// what NVML documents for this function, and a handle is one this library
/// handed out. Null pointers and unknown handles get INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceGetBAR1MemoryInfo(
    device: nvmlDevice_t,
    bar1Memory: *mut nvmlBAR1Memory_t,
) -> nvmlReturn_t {
    any_fn("nvmlDeviceGetBAR1MemoryInfo", device, |c| {
        let o = nn(bar1Memory)?;
        // A MIG device has its own BAR1 share.
        let b = c.mig().map_or(&c.dev.bar1, |m| &m.bar1);
        let total = c.val(&b.total)?;
        let used = c.val(&b.used)?;
        let free = c.opt(&b.free).unwrap_or(total.saturating_sub(used));
        o.set(nvmlBAR1Memory_t {
            bar1Total: total,
            bar1Free: free,
            bar1Used: used,
        });
        Ok(())
    })
}

/// # Safety
/// An NVML client's contract: each pointer argument is null or valid for
/// what NVML documents for this function, and a handle is one this library
/// handed out. Null pointers and unknown handles get INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceGetConfComputeProtectedMemoryUsage(
    device: nvmlDevice_t,
    memory: *mut nvmlMemory_t,
) -> nvmlReturn_t {
    dev_fn(
        "nvmlDeviceGetConfComputeProtectedMemoryUsage",
        device,
        |c| {
            let o = nn(memory)?;
            let m = &c.dev.conf_compute_protected_memory;
            let total = c.val(&m.total)?;
            let used = c.val(&m.used)?;
            let free = c.opt(&m.free).unwrap_or(total.saturating_sub(used));
            o.set(nvmlMemory_t { total, free, used });
            Ok(())
        },
    )
}

// ---- utilization ----------------------------------------------------------------------------

/// # Safety
/// An NVML client's contract: each pointer argument is null or valid for
/// what NVML documents for this function, and a handle is one this library
/// handed out. Null pointers and unknown handles get INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceGetUtilizationRates(
    device: nvmlDevice_t,
    utilization: *mut nvmlUtilization_t,
) -> nvmlReturn_t {
    dev_fn("nvmlDeviceGetUtilizationRates", device, |c| {
        let o = nn(utilization)?;
        let u = &c.dev.utilization;
        let (gpu, memory) = (c.val(&u.gpu)?, c.val(&u.memory)?);
        o.set(nvmlUtilization_t { gpu, memory });
        Ok(())
    })
}

util_sampled!(nvmlDeviceGetEncoderUtilization, |d| d.utilization.encoder);
util_sampled!(nvmlDeviceGetDecoderUtilization, |d| d.utilization.decoder);
util_sampled!(nvmlDeviceGetJpgUtilization, |d| d.utilization.jpeg);
util_sampled!(nvmlDeviceGetOfaUtilization, |d| d.utilization.ofa);

/// # Safety
/// An NVML client's contract: each pointer argument is null or valid for
/// what NVML documents for this function, and a handle is one this library
/// handed out. Null pointers and unknown handles get INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceGetEncoderStats(
    device: nvmlDevice_t,
    sessionCount: *mut c_uint,
    averageFps: *mut c_uint,
    averageLatency: *mut c_uint,
) -> nvmlReturn_t {
    dev_fn("nvmlDeviceGetEncoderStats", device, |c| {
        let (a, b, d) = (nn(sessionCount)?, nn(averageFps)?, nn(averageLatency)?);
        let s = &c.dev.encoder_stats;
        let v = (
            c.val(&s.session_count)?,
            c.val(&s.average_fps)?,
            c.val(&s.average_latency)?,
        );
        a.set(v.0);
        b.set(v.1);
        d.set(v.2);
        Ok(())
    })
}

/// The first sample's timestamp (µs): any fixed point will do.
const SAMPLES_EPOCH_US: u64 = 1_700_000_000_000_000;

/// # Safety
/// An NVML client's contract: each pointer argument is null or valid for
/// what NVML documents for this function, and a handle is one this library
/// handed out. Null pointers and unknown handles get INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceGetSamples(
    device: nvmlDevice_t,
    sampleType: nvmlSamplingType_t,
    lastSeenTimeStamp: c_ulonglong,
    sampleValType: *mut nvmlValueType_t,
    sampleCount: *mut c_uint,
    samples: *mut nvmlSample_t,
) -> nvmlReturn_t {
    dev_fn("nvmlDeviceGetSamples", device, |c| {
        let (vt, cnt) = (nn(sampleValType)?, nn(sampleCount)?);
        let b = &c.dev.samples;
        let list = match sampleType {
            0 => &b.power,
            1 => &b.gpu_util,
            2 => &b.memory_util,
            3 => &b.encoder_util,
            4 => &b.decoder_util,
            5 => &b.processor_clock,
            6 => &b.memory_clock,
            _ => return Err(INVALID_ARGUMENT),
        };
        let list = list.as_ref().ok_or(NOT_SUPPORTED)?;
        let period = b.period_us.unwrap_or(20_000).max(1);
        let newer: Vec<(u64, u32)> = list
            .iter()
            .enumerate()
            .map(|(i, v)| (SAMPLES_EPOCH_US + i as u64 * period, *v))
            .filter(|(t, _)| *t > lastSeenTimeStamp)
            .collect();
        // No sample newer than the last seen one (an empty buffer included):
        // NOT_FOUND, as NVML documents it (nvidia-smi -q -d then prints "Not
        // Found" on each line of the block).
        if newer.is_empty() {
            return Err(NOT_FOUND);
        }
        vt.set(nvmlValueType_enum_NVML_VALUE_TYPE_UNSIGNED_INT);
        // NULL buffer: say how many there are (SUCCESS, as NVML does).
        if samples.is_null() {
            cnt.set(c_uint::try_from(newer.len()).map_err(|_| UNKNOWN)?);
            return Ok(());
        }
        let room = cnt.get() as usize;
        let n = newer.len().min(room);
        for (i, (t, v)) in newer.into_iter().take(n).enumerate() {
            // SAFETY: a plain C union, for which zero bytes are a valid value.
            let mut value: nvmlValue_t = unsafe { std::mem::zeroed() };
            value.uiVal = v;
            // SAFETY: `samples` is non-null and the caller said it holds
            // `room` >= n records.
            unsafe {
                samples.add(i).write(nvmlSample_t {
                    timeStamp: t,
                    sampleValue: value,
                })
            };
        }
        cnt.set(c_uint::try_from(n).map_err(|_| UNKNOWN)?);
        Ok(())
    })
}

/// # Safety
/// An NVML client's contract: each pointer argument is null or valid for
/// what NVML documents for this function, and a handle is one this library
/// handed out. Null pointers and unknown handles get INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceGetFBCStats(
    device: nvmlDevice_t,
    fbcStats: *mut nvmlFBCStats_t,
) -> nvmlReturn_t {
    dev_fn("nvmlDeviceGetFBCStats", device, |c| {
        let o = nn(fbcStats)?;
        let s = &c.dev.fbc_stats;
        o.set(nvmlFBCStats_t {
            sessionsCount: c.val(&s.session_count)?,
            averageFPS: c.val(&s.average_fps)?,
            averageLatency: c.val(&s.average_latency)?,
        });
        Ok(())
    })
}

/// # Safety
/// An NVML client's contract: each pointer argument is null or valid for
/// what NVML documents for this function, and a handle is one this library
/// handed out. Null pointers and unknown handles get INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceGetEncoderCapacity(
    device: nvmlDevice_t,
    encoderQueryType: nvmlEncoderType_t,
    encoderCapacity: *mut c_uint,
) -> nvmlReturn_t {
    dev_fn("nvmlDeviceGetEncoderCapacity", device, |c| {
        let o = nn(encoderCapacity)?;
        if encoderQueryType > 3 {
            return Err(INVALID_ARGUMENT);
        }
        o.set(c.val(&c.dev.encoder_capacity)?);
        Ok(())
    })
}

// ---- ECC, retired pages, remapping -----------------------------------------------------------

fn ecc_counts(error_type: u32, counter_type: u32) -> R<&'static str> {
    match (error_type, counter_type) {
        (0, 0) => Ok("corrected_volatile"),
        (0, 1) => Ok("corrected_aggregate"),
        (1, 0) => Ok("uncorrected_volatile"),
        (1, 1) => Ok("uncorrected_aggregate"),
        _ => Err(INVALID_ARGUMENT),
    }
}

fn ecc_set<'a>(c: &'a Ctx, which: &str) -> &'a EccCounts {
    let e = &c.dev.ecc_errors;
    match which {
        "corrected_volatile" => &e.corrected_volatile,
        "corrected_aggregate" => &e.corrected_aggregate,
        "uncorrected_volatile" => &e.uncorrected_volatile,
        _ => &e.uncorrected_aggregate,
    }
}

/// # Safety
/// An NVML client's contract: each pointer argument is null or valid for
/// what NVML documents for this function, and a handle is one this library
/// handed out. Null pointers and unknown handles get INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceGetTotalEccErrors(
    device: nvmlDevice_t,
    errorType: nvmlMemoryErrorType_t,
    counterType: nvmlEccCounterType_t,
    eccCounts: *mut c_ulonglong,
) -> nvmlReturn_t {
    any_fn("nvmlDeviceGetTotalEccErrors", device, |c| {
        let o = nn(eccCounts)?;
        let which = ecc_counts(errorType, counterType)?;
        if let Some(m) = c.mig() {
            // A MIG device counts only its volatile uncorrected errors.
            return match which {
                "uncorrected_volatile" => {
                    o.set(m.ecc_uncorrected_volatile.ok_or(NOT_SUPPORTED)?);
                    Ok(())
                }
                _ => Err(NOT_SUPPORTED),
            };
        }
        let set = ecc_set(c, which);
        o.set(c.val(&set.total)?);
        Ok(())
    })
}

/// # Safety
/// An NVML client's contract: each pointer argument is null or valid for
/// what NVML documents for this function, and a handle is one this library
/// handed out. Null pointers and unknown handles get INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceGetMemoryErrorCounter(
    device: nvmlDevice_t,
    errorType: nvmlMemoryErrorType_t,
    counterType: nvmlEccCounterType_t,
    locationType: nvmlMemoryLocation_t,
    count: *mut c_ulonglong,
) -> nvmlReturn_t {
    dev_fn("nvmlDeviceGetMemoryErrorCounter", device, |c| {
        let o = nn(count)?;
        let set = ecc_set(c, ecc_counts(errorType, counterType)?);
        let f = match locationType {
            0 => &set.l1_cache,
            1 => &set.l2_cache,
            2 => &set.device_memory,
            3 => &set.register_file,
            4 => &set.texture_memory,
            5 => &set.texture_shm,
            6 => &set.cbu,
            7 => &set.sram,
            _ => return Err(INVALID_ARGUMENT),
        };
        o.set(c.val(f)?);
        Ok(())
    })
}

/// # Safety
/// An NVML client's contract: each pointer argument is null or valid for
/// what NVML documents for this function, and a handle is one this library
/// handed out. Null pointers and unknown handles get INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceGetSramEccErrorStatus(
    device: nvmlDevice_t,
    status: *mut nvmlEccSramErrorStatus_t,
) -> nvmlReturn_t {
    dev_fn("nvmlDeviceGetSramEccErrorStatus", device, |c| {
        let o = nn(status)?;
        // SAFETY: reading the caller-set version field of a non-null struct.
        if unsafe { (*o.ptr()).version } != SRAM_ECC_V1 {
            return Err(ARGUMENT_VERSION_MISMATCH);
        }
        let s = c.dev.sram_ecc_status.as_ref().ok_or(NOT_SUPPORTED)?;
        o.set(nvmlEccSramErrorStatus_v1_t {
            version: SRAM_ECC_V1,
            aggregateUncParity: s.aggregate_unc_parity,
            aggregateUncSecDed: s.aggregate_unc_sec_ded,
            aggregateCor: s.aggregate_cor,
            volatileUncParity: s.volatile_unc_parity,
            volatileUncSecDed: s.volatile_unc_sec_ded,
            volatileCor: s.volatile_cor,
            aggregateUncBucketL2: s.aggregate_unc_bucket_l2,
            aggregateUncBucketSm: s.aggregate_unc_bucket_sm,
            aggregateUncBucketPcie: s.aggregate_unc_bucket_pcie,
            aggregateUncBucketMcu: s.aggregate_unc_bucket_mcu,
            aggregateUncBucketOther: s.aggregate_unc_bucket_other,
            bThresholdExceeded: s.threshold_exceeded,
        });
        Ok(())
    })
}

fn retired<'a>(c: &'a Ctx, cause: u32) -> R<(&'a [u64], &'a [u64])> {
    let r = &c.dev.retired_pages;
    let (pages, ts) = match cause {
        0 => (&r.single_bit, &r.single_bit_timestamps),
        1 => (&r.double_bit, &r.double_bit_timestamps),
        _ => return Err(INVALID_ARGUMENT),
    };
    Ok((pages.as_deref().ok_or(NOT_SUPPORTED)?, ts.as_slice()))
}

/// # Safety
/// An NVML client's contract: each pointer argument is null or valid for
/// what NVML documents for this function, and a handle is one this library
/// handed out. Null pointers and unknown handles get INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceGetRetiredPages(
    device: nvmlDevice_t,
    cause: nvmlPageRetirementCause_t,
    pageCount: *mut c_uint,
    addresses: *mut c_ulonglong,
) -> nvmlReturn_t {
    let fill = is_fill(pageCount, addresses);
    dev_call("nvmlDeviceGetRetiredPages", device, false, fill, |c| {
        let (pages, _) = retired(c, cause)?;
        put_list(pageCount, addresses, pages.iter().copied())
    })
}

/// # Safety
/// An NVML client's contract: each pointer argument is null or valid for
/// what NVML documents for this function, and a handle is one this library
/// handed out. Null pointers and unknown handles get INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceGetRetiredPages_v2(
    device: nvmlDevice_t,
    cause: nvmlPageRetirementCause_t,
    pageCount: *mut c_uint,
    addresses: *mut c_ulonglong,
    timestamps: *mut c_ulonglong,
) -> nvmlReturn_t {
    let fill = is_fill(pageCount, addresses);
    dev_call("nvmlDeviceGetRetiredPages_v2", device, false, fill, |c| {
        let (pages, ts) = retired(c, cause)?;
        let have = if pageCount.is_null() {
            0
        } else {
            nn(pageCount)?.get() as usize
        };
        put_list(pageCount, addresses, pages.iter().copied())?;
        if !timestamps.is_null() && have >= pages.len() {
            for i in 0..pages.len() {
                // SAFETY: the caller's timestamps buffer has as many elements as addresses.
                unsafe { timestamps.add(i).write(ts.get(i).copied().unwrap_or(0)) };
            }
        }
        Ok(())
    })
}

scalar!(
    nvmlDeviceGetRetiredPagesPendingStatus,
    nvmlEnableState_t,
    |d| d.retired_pages.pending
);

/// # Safety
/// An NVML client's contract: each pointer argument is null or valid for
/// what NVML documents for this function, and a handle is one this library
/// handed out. Null pointers and unknown handles get INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceGetRemappedRows(
    device: nvmlDevice_t,
    corrRows: *mut c_uint,
    uncRows: *mut c_uint,
    isPending: *mut c_uint,
    failureOccurred: *mut c_uint,
) -> nvmlReturn_t {
    dev_fn("nvmlDeviceGetRemappedRows", device, |c| {
        let (a, b, p, f) = (
            nn(corrRows)?,
            nn(uncRows)?,
            nn(isPending)?,
            nn(failureOccurred)?,
        );
        let r = &c.dev.remapped_rows;
        let v = (
            c.val(&r.correctable)?,
            c.val(&r.uncorrectable)?,
            c.val(&r.pending)?,
            c.val(&r.failure)?,
        );
        a.set(v.0);
        b.set(v.1);
        p.set(v.2);
        f.set(v.3);
        Ok(())
    })
}

/// `nvmlRemappedRowsInfo_v2_t` (NVML 13.x header; not in nvml-wrapper-sys 0.10): six counters,
/// no version member.
#[repr(C)]
pub struct NvmlRemappedRowsInfoV2 {
    pub corr_active: c_uint,
    pub corr_inactive: c_uint,
    pub unc_active: c_uint,
    pub unc_inactive: c_uint,
    pub pending: c_uint,
    pub failure: c_uint,
}

/// # Safety
/// An NVML client's contract: each pointer argument is null or valid for
/// what NVML documents for this function, and a handle is one this library
/// handed out. Null pointers and unknown handles get INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceGetRemappedRows_v2(
    device: nvmlDevice_t,
    info: *mut NvmlRemappedRowsInfoV2,
) -> nvmlReturn_t {
    dev_fn("nvmlDeviceGetRemappedRows_v2", device, |c| {
        let o = nn(info)?;
        let r = &c.dev.remapped_rows;
        o.set(NvmlRemappedRowsInfoV2 {
            corr_active: c.val(&r.correctable)?,
            corr_inactive: c.val(&r.correctable_inactive)?,
            unc_active: c.val(&r.uncorrectable)?,
            unc_inactive: c.val(&r.uncorrectable_inactive)?,
            pending: c.val(&r.pending)?,
            failure: c.val(&r.failure)?,
        });
        Ok(())
    })
}

/// # Safety
/// An NVML client's contract: each pointer argument is null or valid for
/// what NVML documents for this function, and a handle is one this library
/// handed out. Null pointers and unknown handles get INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceGetRowRemapperHistogram(
    device: nvmlDevice_t,
    values: *mut nvmlRowRemapperHistogramValues_t,
) -> nvmlReturn_t {
    dev_fn("nvmlDeviceGetRowRemapperHistogram", device, |c| {
        let o = nn(values)?;
        let h = &c.dev.row_remapper_histogram;
        o.set(nvmlRowRemapperHistogramValues_t {
            max: c.val(&h.max)?,
            high: c.val(&h.high)?,
            partial: c.val(&h.partial)?,
            low: c.val(&h.low)?,
            none: c.val(&h.none)?,
        });
        Ok(())
    })
}

// ---- temperature, power ---------------------------------------------------------------------

/// # Safety
/// An NVML client's contract: each pointer argument is null or valid for
/// what NVML documents for this function, and a handle is one this library
/// handed out. Null pointers and unknown handles get INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceGetTemperature(
    device: nvmlDevice_t,
    sensorType: nvmlTemperatureSensors_t,
    temp: *mut c_uint,
) -> nvmlReturn_t {
    dev_fn("nvmlDeviceGetTemperature", device, |c| {
        let o = nn(temp)?;
        if sensorType != 0 {
            return Err(INVALID_ARGUMENT);
        }
        o.set(c.val(&c.dev.temperature.gpu)?);
        Ok(())
    })
}

/// The versioned temperature query (`nvmlTemperature_v1_t`, version
/// `sizeof | 1 << 24`); newer clients such as nvitop prefer it.
///
/// # Safety
/// An NVML client's contract: each pointer argument is null or valid for
/// what NVML documents for this function, and a handle is one this library
/// handed out. Null pointers and unknown handles get INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceGetTemperatureV(
    device: nvmlDevice_t,
    temperature: *mut nvmlTemperature_t,
) -> nvmlReturn_t {
    dev_fn("nvmlDeviceGetTemperatureV", device, |c| {
        let o = nn(temperature)?;
        let mut t = o.get();
        let want = std::mem::size_of::<nvmlTemperature_t>() as u32 | (1 << 24);
        if t.version != want {
            return Err(ARGUMENT_VERSION_MISMATCH);
        }
        if t.sensorType != 0 {
            return Err(INVALID_ARGUMENT);
        }
        let v: u32 = c.val(&c.dev.temperature.gpu)?;
        t.temperature = i32::try_from(v).map_err(|_| UNKNOWN)?;
        o.set(t);
        Ok(())
    })
}

/// # Safety
/// An NVML client's contract: each pointer argument is null or valid for
/// what NVML documents for this function, and a handle is one this library
/// handed out. Null pointers and unknown handles get INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceGetTemperatureThreshold(
    device: nvmlDevice_t,
    thresholdType: nvmlTemperatureThresholds_t,
    temp: *mut c_uint,
) -> nvmlReturn_t {
    dev_fn("nvmlDeviceGetTemperatureThreshold", device, |c| {
        let o = nn(temp)?;
        let t = &c.dev.temperature;
        let signed = match thresholdType {
            0 => Some(&t.shutdown),
            1 => Some(&t.slowdown),
            2 => Some(&t.mem_max),
            3 => Some(&t.gpu_max),
            _ => None,
        };
        if let Some(f) = signed {
            // A negative threshold travels as its two's complement.
            o.set(c.val(f)? as c_uint);
            return Ok(());
        }
        let f = match thresholdType {
            4 => &t.acoustic_min,
            5 => &t.acoustic_curr,
            6 => &t.acoustic_max,
            7 => &t.gps_curr,
            _ => return Err(INVALID_ARGUMENT),
        };
        o.set(c.val(f)?);
        Ok(())
    })
}

/// # Safety
/// An NVML client's contract: each pointer argument is null or valid for
/// what NVML documents for this function, and a handle is one this library
/// handed out. Null pointers and unknown handles get INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceGetMarginTemperature(
    device: nvmlDevice_t,
    marginTempInfo: *mut nvmlMarginTemperature_t,
) -> nvmlReturn_t {
    dev_fn("nvmlDeviceGetMarginTemperature", device, |c| {
        let o = nn(marginTempInfo)?;
        // SAFETY: reading the caller-set version field of a non-null struct.
        if unsafe { (*o.ptr()).version } != MARGIN_TEMP_V1 {
            return Err(ARGUMENT_VERSION_MISMATCH);
        }
        let m = c.val(&c.dev.temperature.margin)?;
        o.set(nvmlMarginTemperature_v1_t {
            version: MARGIN_TEMP_V1,
            marginTemperature: m,
        });
        Ok(())
    })
}

scalar!(nvmlDeviceGetPowerUsage, c_uint, |d| d.power.usage);
scalar!(nvmlDeviceGetPowerManagementLimit, c_uint, |d| d.power.limit);
scalar!(nvmlDeviceGetPowerManagementDefaultLimit, c_uint, |d| d
    .power
    .default_limit);
scalar!(nvmlDeviceGetEnforcedPowerLimit, c_uint, |d| d
    .power
    .enforced_limit);
scalar!(nvmlDeviceGetPowerManagementMode, nvmlEnableState_t, |d| d
    .power
    .management_mode);
scalar!(nvmlDeviceGetTotalEnergyConsumption, c_ulonglong, |d| d
    .power
    .total_energy);

/// # Safety
/// An NVML client's contract: each pointer argument is null or valid for
/// what NVML documents for this function, and a handle is one this library
/// handed out. Null pointers and unknown handles get INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceGetPowerManagementLimitConstraints(
    device: nvmlDevice_t,
    minLimit: *mut c_uint,
    maxLimit: *mut c_uint,
) -> nvmlReturn_t {
    dev_fn(
        "nvmlDeviceGetPowerManagementLimitConstraints",
        device,
        |c| {
            let (a, b) = (nn(minLimit)?, nn(maxLimit)?);
            let p = &c.dev.power;
            let (lo, hi) = (c.val(&p.min_limit)?, c.val(&p.max_limit)?);
            a.set(lo);
            b.set(hi);
            Ok(())
        },
    )
}

// ---- clocks ---------------------------------------------------------------------------------

fn clock_of(c: &Ctx, set: &Clocks, t: u32) -> R<u32> {
    c.val(set.by_type(t).ok_or(INVALID_ARGUMENT)?)
}

macro_rules! clock_getter {
    ($name:ident, |$d:ident| $set:expr) => {
        /// # Safety
        /// An NVML client's contract: each pointer argument is null or valid for
        /// what NVML documents for this function, and a handle is one this library
        /// handed out. Null pointers and unknown handles get INVALID_ARGUMENT.
        #[no_mangle]
        pub unsafe extern "C" fn $name(
            device: nvmlDevice_t,
            clockType: nvmlClockType_t,
            clock: *mut c_uint,
        ) -> nvmlReturn_t {
            dev_fn(stringify!($name), device, |c| {
                let o = nn(clock)?;
                let $d = c.dev;
                o.set(clock_of(c, &$set, clockType)?);
                Ok(())
            })
        }
    };
}

clock_getter!(nvmlDeviceGetClockInfo, |d| d.clocks);
clock_getter!(nvmlDeviceGetMaxClockInfo, |d| d.max_clocks);
clock_getter!(nvmlDeviceGetApplicationsClock, |d| d.applications_clocks);
clock_getter!(nvmlDeviceGetDefaultApplicationsClock, |d| d
    .default_applications_clocks);
clock_getter!(nvmlDeviceGetMaxCustomerBoostClock, |d| d
    .max_customer_boost_clocks);

/// # Safety
/// An NVML client's contract: each pointer argument is null or valid for
/// what NVML documents for this function, and a handle is one this library
/// handed out. Null pointers and unknown handles get INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceGetClock(
    device: nvmlDevice_t,
    clockType: nvmlClockType_t,
    clockId: nvmlClockId_t,
    clockMHz: *mut c_uint,
) -> nvmlReturn_t {
    dev_fn("nvmlDeviceGetClock", device, |c| {
        let o = nn(clockMHz)?;
        let d = c.dev;
        let set = match clockId {
            0 => &d.clocks,
            1 => &d.applications_clocks,
            2 => &d.default_applications_clocks,
            3 => &d.max_customer_boost_clocks,
            _ => return Err(INVALID_ARGUMENT),
        };
        o.set(clock_of(c, set, clockType)?);
        Ok(())
    })
}

/// # Safety
/// An NVML client's contract: each pointer argument is null or valid for
/// what NVML documents for this function, and a handle is one this library
/// handed out. Null pointers and unknown handles get INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceGetSupportedMemoryClocks(
    device: nvmlDevice_t,
    count: *mut c_uint,
    clocksMHz: *mut c_uint,
) -> nvmlReturn_t {
    dev_fn("nvmlDeviceGetSupportedMemoryClocks", device, |c| {
        let l = c
            .dev
            .supported_memory_clocks
            .as_ref()
            .ok_or(NOT_SUPPORTED)?;
        put_list(count, clocksMHz, l.iter().copied())
    })
}

/// # Safety
/// An NVML client's contract: each pointer argument is null or valid for
/// what NVML documents for this function, and a handle is one this library
/// handed out. Null pointers and unknown handles get INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceGetSupportedGraphicsClocks(
    device: nvmlDevice_t,
    memoryClockMHz: c_uint,
    count: *mut c_uint,
    clocksMHz: *mut c_uint,
) -> nvmlReturn_t {
    dev_fn("nvmlDeviceGetSupportedGraphicsClocks", device, |c| {
        if let Some(m) = &c.dev.supported_memory_clocks {
            if !m.contains(&memoryClockMHz) {
                return Err(NOT_FOUND);
            }
        }
        let by_memory = &c.dev.supported_graphics_clocks_by_memory;
        let l = match by_memory.get(&memoryClockMHz.to_string()) {
            Some(l) => l,
            None => c
                .dev
                .supported_graphics_clocks
                .as_ref()
                .ok_or(NOT_SUPPORTED)?,
        };
        put_list(count, clocksMHz, l.iter().copied())
    })
}

// ---- MIG ------------------------------------------------------------------------------------

scalar!(nvmlDeviceGetMaxMigDeviceCount, c_uint, |d| d
    .mig
    .max_devices);

/// # Safety
/// An NVML client's contract: each pointer argument is null or valid for
/// what NVML documents for this function, and a handle is one this library
/// handed out. Null pointers and unknown handles get INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceGetMigDeviceHandleByIndex(
    device: nvmlDevice_t,
    index: c_uint,
    migDevice: *mut nvmlDevice_t,
) -> nvmlReturn_t {
    dev_fn("nvmlDeviceGetMigDeviceHandleByIndex", device, |c| {
        let o = nn(migDevice)?;
        if c.dev.mig_instance.is_empty() && c.dev.mig.current.is_none() {
            return Err(NOT_SUPPORTED);
        }
        let j = index as usize;
        if j >= c.dev.mig_instance.len() {
            return Err(NOT_FOUND);
        }
        o.set(mig_handle(c.target.gpu(), j));
        Ok(())
    })
}

/// # Safety
/// An NVML client's contract: each pointer argument is null or valid for
/// what NVML documents for this function, and a handle is one this library
/// handed out. Null pointers and unknown handles get INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceIsMigDeviceHandle(
    device: nvmlDevice_t,
    isMigDevice: *mut c_uint,
) -> nvmlReturn_t {
    any_fn("nvmlDeviceIsMigDeviceHandle", device, |c| {
        nn(isMigDevice)?.set(u32::from(c.mig().is_some()));
        Ok(())
    })
}

/// # Safety
/// An NVML client's contract: each pointer argument is null or valid for
/// what NVML documents for this function, and a handle is one this library
/// handed out. Null pointers and unknown handles get INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceGetGpuInstanceId(
    device: nvmlDevice_t,
    id: *mut c_uint,
) -> nvmlReturn_t {
    any_fn("nvmlDeviceGetGpuInstanceId", device, |c| {
        let o = nn(id)?;
        let m = c.mig().ok_or(NOT_SUPPORTED)?;
        o.set(m.gpu_instance_id.ok_or(NOT_SUPPORTED)?);
        Ok(())
    })
}

/// # Safety
/// An NVML client's contract: each pointer argument is null or valid for
/// what NVML documents for this function, and a handle is one this library
/// handed out. Null pointers and unknown handles get INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceGetComputeInstanceId(
    device: nvmlDevice_t,
    id: *mut c_uint,
) -> nvmlReturn_t {
    any_fn("nvmlDeviceGetComputeInstanceId", device, |c| {
        let o = nn(id)?;
        let m = c.mig().ok_or(NOT_SUPPORTED)?;
        o.set(m.compute_instance_id.ok_or(NOT_SUPPORTED)?);
        Ok(())
    })
}

/// # Safety
/// An NVML client's contract: each pointer argument is null or valid for
/// what NVML documents for this function, and a handle is one this library
/// handed out. Null pointers and unknown handles get INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceGetDeviceHandleFromMigDeviceHandle(
    migDevice: nvmlDevice_t,
    device: *mut nvmlDevice_t,
) -> nvmlReturn_t {
    any_fn(
        "nvmlDeviceGetDeviceHandleFromMigDeviceHandle",
        migDevice,
        |c| {
            let o = nn(device)?;
            if c.mig().is_none() {
                return Err(INVALID_ARGUMENT);
            }
            o.set(device_handle(c.target.gpu()));
            Ok(())
        },
    )
}

// ---- GSP, fabric, platform ------------------------------------------------------------------

/// # Safety
/// An NVML client's contract: each pointer argument is null or valid for
/// what NVML documents for this function, and a handle is one this library
/// handed out. Null pointers and unknown handles get INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceGetGspFirmwareMode(
    device: nvmlDevice_t,
    isEnabled: *mut c_uint,
    defaultMode: *mut c_uint,
) -> nvmlReturn_t {
    dev_fn("nvmlDeviceGetGspFirmwareMode", device, |c| {
        let (a, b) = (nn(isEnabled)?, nn(defaultMode)?);
        let g = &c.dev.gsp;
        let (e, d) = (c.val(&g.enabled)?, c.val(&g.default_enabled)?);
        a.set(e);
        b.set(d);
        Ok(())
    })
}

/// # Safety
/// An NVML client's contract: each pointer argument is null or valid for
/// what NVML documents for this function, and a handle is one this library
/// handed out. Null pointers and unknown handles get INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceGetGspFirmwareVersion(
    device: nvmlDevice_t,
    version: *mut c_char,
) -> nvmlReturn_t {
    dev_fn("nvmlDeviceGetGspFirmwareVersion", device, |c| {
        if version.is_null() {
            return Err(INVALID_ARGUMENT);
        }
        let v = c.dev.gsp.version.as_deref().ok_or(NOT_SUPPORTED)?;
        put_str(version, NVML_GSP_FIRMWARE_VERSION_BUF_SIZE, v)
    })
}

/// # Safety
/// An NVML client's contract: each pointer argument is null or valid for
/// what NVML documents for this function, and a handle is one this library
/// handed out. Null pointers and unknown handles get INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceGetC2cModeInfoV(
    device: nvmlDevice_t,
    c2cModeInfo: *mut nvmlC2cModeInfo_v1_t,
) -> nvmlReturn_t {
    dev_fn("nvmlDeviceGetC2cModeInfoV", device, |c| {
        let o = nn(c2cModeInfo)?;
        let v = c.val(&c.dev.c2c_mode)?;
        o.set(nvmlC2cModeInfo_v1_t { isC2cEnabled: v });
        Ok(())
    })
}

/// # Safety
/// An NVML client's contract: each pointer argument is null or valid for
/// what NVML documents for this function, and a handle is one this library
/// handed out. Null pointers and unknown handles get INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceGetDramEncryptionMode(
    device: nvmlDevice_t,
    current: *mut nvmlDramEncryptionInfo_t,
    pending: *mut nvmlDramEncryptionInfo_t,
) -> nvmlReturn_t {
    dev_fn("nvmlDeviceGetDramEncryptionMode", device, |c| {
        let (cur, pend) = (nn(current)?, nn(pending)?);
        // SAFETY: reading the caller-set version fields of non-null structs.
        if unsafe { ((*cur.ptr()).version, (*pend.ptr()).version) }
            != (DRAM_ENCRYPTION_V1, DRAM_ENCRYPTION_V1)
        {
            return Err(ARGUMENT_VERSION_MISMATCH);
        }
        let mode = &c.dev.dram_encryption;
        let (a, b) = (c.val(&mode.current)?, c.val(&mode.pending)?);
        cur.set(nvmlDramEncryptionInfo_v1_t {
            version: DRAM_ENCRYPTION_V1,
            encryptionState: a,
        });
        pend.set(nvmlDramEncryptionInfo_v1_t {
            version: DRAM_ENCRYPTION_V1,
            encryptionState: b,
        });
        Ok(())
    })
}

/// `nvmlHostname_v1_t` (NVML 13.x, newer than nvml-wrapper-sys 0.10's table).
#[repr(C)]
pub struct NvmlHostnameV1 {
    pub value: [c_char; 64],
}

/// # Safety
/// An NVML client's contract: each pointer argument is null or valid for
/// what NVML documents for this function, and a handle is one this library
/// handed out. Null pointers and unknown handles get INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceGetHostname_v1(
    device: nvmlDevice_t,
    hostname: *mut NvmlHostnameV1,
) -> nvmlReturn_t {
    dev_fn("nvmlDeviceGetHostname_v1", device, |c| {
        if hostname.is_null() {
            return Err(INVALID_ARGUMENT);
        }
        let h = c.dev.hostname.as_deref().ok_or(NOT_SUPPORTED)?;
        // SAFETY: non-null pointer to a caller-owned 64-byte buffer.
        let buf = unsafe { (*hostname).value.as_mut_ptr() };
        put_str(buf, 64, h)
    })
}

fn hex16(s: &str) -> [u8; 16] {
    let digits: Vec<u8> = s.bytes().filter(u8::is_ascii_hexdigit).collect();
    let mut out = [0u8; 16];
    for (i, pair) in digits.chunks(2).take(16).enumerate() {
        let txt = std::str::from_utf8(pair).unwrap_or("0");
        out[i] = u8::from_str_radix(txt, 16).unwrap_or(0);
    }
    out
}

fn fabric<'a>(c: &Ctx<'a>) -> R<(&'a crate::scenario::Fabric, [u8; 16], u32)> {
    let f = c.dev.fabric.as_ref().ok_or(NOT_SUPPORTED)?;
    let uuid = f.cluster_uuid.as_deref().map(hex16).unwrap_or([0; 16]);
    let status = match &f.status {
        Some(s) => s.value().unwrap_or(UNKNOWN),
        None => SUCCESS,
    };
    Ok((f, uuid, status))
}

/// # Safety
/// An NVML client's contract: each pointer argument is null or valid for
/// what NVML documents for this function, and a handle is one this library
/// handed out. Null pointers and unknown handles get INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceGetGpuFabricInfoV(
    device: nvmlDevice_t,
    gpuFabricInfo: *mut nvmlGpuFabricInfoV_t,
) -> nvmlReturn_t {
    dev_fn("nvmlDeviceGetGpuFabricInfoV", device, |c| {
        let o = nn(gpuFabricInfo)?;
        // SAFETY: reading the caller-set version field of a non-null struct.
        if unsafe { (*o.ptr()).version } != FABRIC_V3 {
            return Err(ARGUMENT_VERSION_MISMATCH);
        }
        let (f, uuid, status) = fabric(c)?;
        o.set(nvmlGpuFabricInfo_v3_t {
            version: FABRIC_V3,
            clusterUuid: uuid,
            status,
            cliqueId: f.clique_id,
            state: f.state,
            healthMask: f.health_mask,
            healthSummary: f.health_summary,
        });
        Ok(())
    })
}

/// # Safety
/// An NVML client's contract: each pointer argument is null or valid for
/// what NVML documents for this function, and a handle is one this library
/// handed out. Null pointers and unknown handles get INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceGetGpuFabricInfo(
    device: nvmlDevice_t,
    gpuFabricInfo: *mut nvmlGpuFabricInfo_t,
) -> nvmlReturn_t {
    dev_fn("nvmlDeviceGetGpuFabricInfo", device, |c| {
        let o = nn(gpuFabricInfo)?;
        let (f, uuid, status) = fabric(c)?;
        o.set(nvmlGpuFabricInfo_t {
            clusterUuid: uuid,
            status,
            cliqueId: f.clique_id,
            state: f.state,
        });
        Ok(())
    })
}

/// # Safety
/// An NVML client's contract: each pointer argument is null or valid for
/// what NVML documents for this function, and a handle is one this library
/// handed out. Null pointers and unknown handles get INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceGetPlatformInfo(
    device: nvmlDevice_t,
    platformInfo: *mut nvmlPlatformInfo_t,
) -> nvmlReturn_t {
    dev_fn("nvmlDeviceGetPlatformInfo", device, |c| {
        let o = nn(platformInfo)?;
        // SAFETY: reading the caller-set version field of a non-null struct.
        if unsafe { (*o.ptr()).version } != PLATFORM_V2 {
            return Err(ARGUMENT_VERSION_MISMATCH);
        }
        let p = c.dev.platform.as_ref().ok_or(NOT_SUPPORTED)?;
        let mut serial = [0u8; 16];
        for (d, b) in serial
            .iter_mut()
            .zip(p.chassis_serial_number.as_deref().unwrap_or("").bytes())
        {
            *d = b;
        }
        o.set(nvmlPlatformInfo_v2_t {
            version: PLATFORM_V2,
            ibGuid: p.ib_guid.as_deref().map(hex16).unwrap_or([0; 16]),
            chassisSerialNumber: serial,
            slotNumber: p.slot_number,
            trayIndex: p.tray_index,
            hostId: p.host_id,
            peerType: p.peer_type,
            moduleId: p.module_id,
        });
        Ok(())
    })
}

// ---- field values ---------------------------------------------------------------------------

fn now_us() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| i64::try_from(d.as_micros()).unwrap_or(i64::MAX))
        .unwrap_or(0)
}

/// # Safety
/// An NVML client's contract: each pointer argument is null or valid for
/// what NVML documents for this function, and a handle is one this library
/// handed out. Null pointers and unknown handles get INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceGetFieldValues(
    device: nvmlDevice_t,
    valuesCount: c_int,
    values: *mut nvmlFieldValue_t,
) -> nvmlReturn_t {
    dev_fn("nvmlDeviceGetFieldValues", device, |c| {
        if values.is_null() || valuesCount < 0 {
            return Err(INVALID_ARGUMENT);
        }
        let ts = now_us();
        for i in 0..valuesCount as usize {
            // SAFETY: the caller passes `valuesCount` structs with fieldId/scopeId set.
            let fv = unsafe { &mut *values.add(i) };
            let keys = [
                format!("{}:{}", fv.fieldId, fv.scopeId),
                fv.fieldId.to_string(),
            ];
            let found = keys.iter().find_map(|k| c.dev.field_values.get(k));
            fv.timestamp = ts;
            fv.latencyUsec = 0;
            fv.value = nvmlValue_t { ullVal: 0 };
            fv.valueType = 3;
            fv.nvmlReturn = NOT_SUPPORTED;
            let Some(s) = found.and_then(|v| v.at_field(c.idx())) else {
                // NVLink fields that `[device.topology]` describes (see `topo::nvlink_field`).
                if let Some(v) = crate::topo::nvlink_field(c.dev, fv.fieldId, fv.scopeId) {
                    fv.value = nvmlValue_t { ullVal: v };
                    fv.nvmlReturn = SUCCESS;
                }
                continue;
            };
            match s {
                FieldScalar::Int(v) if v >= 0 => {
                    fv.valueType = 3;
                    fv.value = nvmlValue_t { ullVal: v as u64 };
                    fv.nvmlReturn = SUCCESS;
                }
                FieldScalar::Int(v) => {
                    fv.valueType = 4;
                    fv.value = nvmlValue_t { sllVal: v };
                    fv.nvmlReturn = SUCCESS;
                }
                FieldScalar::Float(v) => {
                    fv.valueType = 0;
                    fv.value = nvmlValue_t { dVal: v };
                    fv.nvmlReturn = SUCCESS;
                }
                FieldScalar::Error(e) => {
                    let code = match e.trim().parse::<u32>() {
                        Ok(n) => n,
                        Err(_) => crate::scenario::Code::Name(e).value().unwrap_or(UNKNOWN),
                    };
                    fv.nvmlReturn = code;
                }
            }
        }
        Ok(())
    })
}

/// # Safety
/// An NVML client's contract: each pointer argument is null or valid for
/// what NVML documents for this function, and a handle is one this library
/// handed out. Null pointers and unknown handles get INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceGetAttributes_v2(
    device: nvmlDevice_t,
    attributes: *mut nvmlDeviceAttributes_t,
) -> nvmlReturn_t {
    any_fn("nvmlDeviceGetAttributes_v2", device, |c| {
        let o = nn(attributes)?;
        // Only MIG devices carry attributes in the simulator.
        let a = c.mig().and_then(|m| m.attributes).ok_or(NOT_SUPPORTED)?;
        o.set(nvmlDeviceAttributes_t {
            multiprocessorCount: a.multiprocessor_count,
            sharedCopyEngineCount: a.shared_copy_engine_count,
            sharedDecoderCount: a.shared_decoder_count,
            sharedEncoderCount: a.shared_encoder_count,
            sharedJpegCount: a.shared_jpeg_count,
            sharedOfaCount: a.shared_ofa_count,
            gpuInstanceSliceCount: a.gpu_instance_slice_count,
            computeInstanceSliceCount: a.compute_instance_slice_count,
            memorySizeMB: a.memory_size_mb,
        });
        Ok(())
    })
}

/// # Safety
/// An NVML client's contract: each pointer argument is null or valid for
/// what NVML documents for this function, and a handle is one this library
/// handed out. Null pointers and unknown handles get INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceGetVgpuHeterogeneousMode(
    device: nvmlDevice_t,
    pHeterogeneousMode: *mut nvmlVgpuHeterogeneousMode_t,
) -> nvmlReturn_t {
    dev_fn("nvmlDeviceGetVgpuHeterogeneousMode", device, |c| {
        let o = nn(pHeterogeneousMode)?;
        let mode = c.val(&c.dev.vgpu_heterogeneous_mode)?;
        // SAFETY: reading the caller-set version field of a non-null struct.
        let version = unsafe { (*o.ptr()).version };
        o.set(nvmlVgpuHeterogeneousMode_t { version, mode });
        Ok(())
    })
}

/// # Safety
/// An NVML client's contract: each pointer argument is null or valid for
/// what NVML documents for this function, and a handle is one this library
/// handed out. Null pointers and unknown handles get INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceGetBridgeChipInfo(
    device: nvmlDevice_t,
    bridgeHierarchy: *mut nvmlBridgeChipHierarchy_t,
) -> nvmlReturn_t {
    dev_fn("nvmlDeviceGetBridgeChipInfo", device, |c| {
        let o = nn(bridgeHierarchy)?;
        let chips = c.dev.bridge_chips.as_ref().ok_or(NOT_SUPPORTED)?;
        // SAFETY: an all-zero hierarchy (integers and enums) is valid.
        let mut h: nvmlBridgeChipHierarchy_t = unsafe { std::mem::zeroed() };
        for (slot, chip) in h.bridgeChipInfo.iter_mut().zip(chips) {
            slot.type_ = if chip.kind == "BR04" {
                nvmlBridgeChipType_enum_NVML_BRIDGE_CHIP_BRO4
            } else {
                nvmlBridgeChipType_enum_NVML_BRIDGE_CHIP_PLX
            };
            slot.fwVersion = chip.fw_version;
        }
        h.bridgeCount =
            u8::try_from(chips.len().min(h.bridgeChipInfo.len())).map_err(|_| UNKNOWN)?;
        o.set(h);
        Ok(())
    })
}

/// A 255-bit NVML mask with the bits of `ids` set (ids of 255 and above are
/// left out).
fn mask255(ids: &[u32]) -> nvmlMask255_t {
    let mut m = nvmlMask255_t { mask: [0; 8] };
    for &id in ids.iter().filter(|&&id| id < 255) {
        if let Some(word) = m.mask.get_mut((id / 32) as usize) {
            *word |= 1 << (id % 32);
        }
    }
    m
}

/// # Safety
/// An NVML client's contract: each pointer argument is null or valid for
/// what NVML documents for this function, and a handle is one this library
/// handed out. Null pointers and unknown handles get INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceWorkloadPowerProfileGetProfilesInfo(
    device: nvmlDevice_t,
    profilesInfo: *mut nvmlWorkloadPowerProfileProfilesInfo_t,
) -> nvmlReturn_t {
    dev_fn(
        "nvmlDeviceWorkloadPowerProfileGetProfilesInfo",
        device,
        |c| {
            let o = nn(profilesInfo)?;
            // SAFETY: reading the caller-set version field of a non-null struct.
            if unsafe { (*o.ptr()).version } != PROFILES_INFO_V1 {
                return Err(ARGUMENT_VERSION_MISMATCH);
            }
            let p = c.dev.power_profiles.as_ref().ok_or(NOT_SUPPORTED)?;
            // SAFETY: all-zero bytes are a valid value of this plain C struct.
            let mut info: nvmlWorkloadPowerProfileProfilesInfo_v1_t = unsafe { std::mem::zeroed() };
            info.version = PROFILES_INFO_V1;
            info.perfProfilesMask = mask255(&p.supported);
            for &id in &p.supported {
                if let Some(slot) = info.perfProfile.get_mut(id as usize) {
                    slot.version = PROFILE_INFO_V1;
                    slot.profileId = id;
                }
            }
            o.set(info);
            Ok(())
        },
    )
}

/// # Safety
/// An NVML client's contract: each pointer argument is null or valid for
/// what NVML documents for this function, and a handle is one this library
/// handed out. Null pointers and unknown handles get INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceWorkloadPowerProfileGetCurrentProfiles(
    device: nvmlDevice_t,
    currentProfiles: *mut nvmlWorkloadPowerProfileCurrentProfiles_t,
) -> nvmlReturn_t {
    dev_fn(
        "nvmlDeviceWorkloadPowerProfileGetCurrentProfiles",
        device,
        |c| {
            let o = nn(currentProfiles)?;
            // SAFETY: reading the caller-set version field of a non-null struct.
            if unsafe { (*o.ptr()).version } != CURRENT_PROFILES_V1 {
                return Err(ARGUMENT_VERSION_MISMATCH);
            }
            let p = c.dev.power_profiles.as_ref().ok_or(NOT_SUPPORTED)?;
            o.set(nvmlWorkloadPowerProfileCurrentProfiles_v1_t {
                version: CURRENT_PROFILES_V1,
                perfProfilesMask: mask255(&p.supported),
                requestedProfilesMask: mask255(&p.requested),
                enforcedProfilesMask: mask255(&p.enforced),
            });
            Ok(())
        },
    )
}
