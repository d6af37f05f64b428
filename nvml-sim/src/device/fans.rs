//! Device getters: fans, clocks event reasons.

use super::*;

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
