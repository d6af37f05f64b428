//! Device getters: MIG.

use super::*;

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
