//! Device getters: identity.

use super::*;

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
