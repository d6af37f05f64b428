//! Device getters: utilization.

use super::*;

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
