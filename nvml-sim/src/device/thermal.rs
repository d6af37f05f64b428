//! Device getters: temperature, power.

use super::*;

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
