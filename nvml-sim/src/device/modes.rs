//! Device getters: modes.

use super::*;

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
