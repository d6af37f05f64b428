//! GPM, NVML's GPU performance monitoring (Hopper and later): sample buffers
//! (`nvmlGpmSampleAlloc`/`Free`), samples of a GPU or of a MIG GPU instance
//! (`nvmlGpmSampleGet`, `nvmlGpmMigSampleGet`), and metrics between two
//! samples (`nvmlGpmMetricsGet`). A device's `gpm` table holds each metric's
//! series; the n-th sample of a GPU (or of one of its GPU instances) carries
//! element n-1, and the metrics between two samples are the later sample's.
//! A metric the table lacks is NOT_SUPPORTED in its own slot.

use crate::call::{
    dev_fn, enter, guard, nn, ret, Ctx, ARGUMENT_VERSION_MISMATCH, INVALID_ARGUMENT, NOT_SUPPORTED,
    R, SUCCESS, UNINITIALIZED,
};
use crate::scenario::{Device, Series};
use crate::state::{lock, Taken};
use nvml_wrapper_sys::bindings::*;
use std::collections::BTreeMap;
use std::os::raw::{c_char, c_uint};

/// Sample buffers that may exist at once.
const MAX_SAMPLES: usize = 4096;
/// Sample handles point into this (never dereferenced).
static SAMPLE_SPACE: [u8; MAX_SAMPLES] = [0; MAX_SAMPLES];
/// `NVML_GPM_METRIC_MAX`: the size of `nvmlGpmMetricsGet_t::metrics`.
const METRIC_MAX: u32 = 210;

fn handle(i: usize) -> nvmlGpmSample_t {
    SAMPLE_SPACE.as_ptr().wrapping_add(i) as nvmlGpmSample_t
}

fn number(s: nvmlGpmSample_t) -> R<usize> {
    let base = SAMPLE_SPACE.as_ptr() as usize;
    let p = s as usize;
    if s.is_null() || p < base || p >= base + MAX_SAMPLES {
        return Err(INVALID_ARGUMENT);
    }
    Ok(p - base)
}

/// Does the GPU have GPM? The scenario's `gpm_supported`, else Hopper (9) or later.
fn supported(d: &Device) -> bool {
    d.gpm_supported.unwrap_or_else(|| {
        d.architecture
            .as_ref()
            .and_then(Series::first)
            .is_some_and(|a| a >= 9)
    })
}

/// Short name, long name and unit of the metrics nvq reads (others get empty strings).
fn info(id: u32) -> (&'static [u8], &'static [u8], &'static [u8]) {
    match id {
        1 => (b"gract\0", b"Graphics Activity\0", b"%\0"),
        2 => (b"smutil\0", b"SM Activity\0", b"%\0"),
        3 => (b"smocc\0", b"SM Occupancy\0", b"%\0"),
        4 => (b"intutil\0", b"Integer Activity\0", b"%\0"),
        5 => (b"anyten\0", b"Tensor Activity\0", b"%\0"),
        6 => (b"dfmaten\0", b"DFMA Tensor Activity\0", b"%\0"),
        7 => (b"hmmaten\0", b"HMMA Tensor Activity\0", b"%\0"),
        9 => (b"immaten\0", b"IMMA Tensor Activity\0", b"%\0"),
        10 => (b"dramact\0", b"DRAM Activity\0", b"%\0"),
        11 => (b"fp64\0", b"FP64 Activity\0", b"%\0"),
        12 => (b"fp32\0", b"FP32 Activity\0", b"%\0"),
        13 => (b"fp16\0", b"FP16 Activity\0", b"%\0"),
        20 => (b"pcitx\0", b"PCIe TX\0", b"MiB/s\0"),
        21 => (b"pcirx\0", b"PCIe RX\0", b"MiB/s\0"),
        60 => (b"nvlrx\0", b"NVLink RX\0", b"MiB/s\0"),
        61 => (b"nvltx\0", b"NVLink TX\0", b"MiB/s\0"),
        _ => (b"\0", b"\0", b"\0"),
    }
}

/// Read the next sample of `gpu` (or of its GPU instance `gi`) into buffer `s`.
fn take(gpu: usize, gi: Option<u32>, s: nvmlGpmSample_t) -> R {
    let i = number(s)?;
    let mut g = lock();
    let st = g.as_mut().ok_or(UNINITIALIZED)?;
    if !st.gpm.samples.contains_key(&i) {
        return Err(INVALID_ARGUMENT);
    }
    let n = st.gpm.taken.entry((gpu, gi)).or_insert(0);
    *n += 1;
    let n = *n;
    st.gpm.samples.insert(i, Some(Taken { gpu, gi, n }));
    Ok(())
}

/// # Safety
/// `gpm_sample` must be null or point to writable memory for one `nvmlGpmSample_t`.
#[no_mangle]
pub unsafe extern "C" fn nvmlGpmSampleAlloc(gpm_sample: *mut nvmlGpmSample_t) -> nvmlReturn_t {
    guard(|| {
        ret((|| {
            enter("nvmlGpmSampleAlloc", None, true)?;
            let out = nn(gpm_sample)?;
            let mut g = lock();
            let st = g.as_mut().ok_or(UNINITIALIZED)?;
            let i = (0..MAX_SAMPLES)
                .map(|k| (st.gpm.next + k) % MAX_SAMPLES)
                .find(|k| !st.gpm.samples.contains_key(k))
                .ok_or(crate::call::UNKNOWN)?;
            st.gpm.next = i + 1;
            st.gpm.samples.insert(i, None);
            out.set(handle(i));
            Ok(())
        })())
    })
}

/// # Safety
/// `gpm_sample` is a handle from `nvmlGpmSampleAlloc` (anything else gets INVALID_ARGUMENT).
#[no_mangle]
pub unsafe extern "C" fn nvmlGpmSampleFree(gpm_sample: nvmlGpmSample_t) -> nvmlReturn_t {
    guard(|| {
        ret((|| {
            enter("nvmlGpmSampleFree", None, true)?;
            let i = number(gpm_sample)?;
            let mut g = lock();
            let st = g.as_mut().ok_or(UNINITIALIZED)?;
            st.gpm
                .samples
                .remove(&i)
                .map(|_| ())
                .ok_or(INVALID_ARGUMENT)
        })())
    })
}

/// # Safety
/// An NVML client's contract: `device` is a handle this library handed out and
/// `gpm_sample` one from `nvmlGpmSampleAlloc`.
#[no_mangle]
pub unsafe extern "C" fn nvmlGpmSampleGet(
    device: nvmlDevice_t,
    gpm_sample: nvmlGpmSample_t,
) -> nvmlReturn_t {
    let mut gpu = None;
    let r = dev_fn("nvmlGpmSampleGet", device, |c: &Ctx| {
        if !supported(c.dev) {
            return Err(NOT_SUPPORTED);
        }
        gpu = Some(c.target.gpu());
        Ok(())
    });
    match gpu {
        Some(gpu) if r == SUCCESS => guard(|| ret(take(gpu, None, gpm_sample))),
        _ => r,
    }
}

/// # Safety
/// An NVML client's contract: `device` is a GPU handle this library handed out
/// and `gpm_sample` one from `nvmlGpmSampleAlloc`.
#[no_mangle]
pub unsafe extern "C" fn nvmlGpmMigSampleGet(
    device: nvmlDevice_t,
    gpu_instance_id: c_uint,
    gpm_sample: nvmlGpmSample_t,
) -> nvmlReturn_t {
    let mut gpu = None;
    let r = dev_fn("nvmlGpmMigSampleGet", device, |c: &Ctx| {
        if !supported(c.dev) || c.dev.mig.current.as_ref().and_then(Series::first) != Some(1) {
            return Err(NOT_SUPPORTED);
        }
        let known = c
            .dev
            .mig_instance
            .iter()
            .any(|m| m.gpu_instance_id == Some(gpu_instance_id))
            || c.dev.gpu_instance.iter().any(|g| g.id == gpu_instance_id);
        if !known {
            return Err(INVALID_ARGUMENT);
        }
        gpu = Some(c.target.gpu());
        Ok(())
    });
    match gpu {
        Some(gpu) if r == SUCCESS => guard(|| ret(take(gpu, Some(gpu_instance_id), gpm_sample))),
        _ => r,
    }
}

/// # Safety
/// `device` is a handle this library handed out; `gpm_support` null or valid
/// for one `nvmlGpmSupport_t` whose `version` the caller set.
#[no_mangle]
pub unsafe extern "C" fn nvmlGpmQueryDeviceSupport(
    device: nvmlDevice_t,
    gpm_support: *mut nvmlGpmSupport_t,
) -> nvmlReturn_t {
    dev_fn("nvmlGpmQueryDeviceSupport", device, |c| {
        let out = nn(gpm_support)?;
        let mut v = out.get();
        if v.version != NVML_GPM_SUPPORT_VERSION {
            return Err(ARGUMENT_VERSION_MISMATCH);
        }
        v.isSupportedDevice = c_uint::from(supported(c.dev));
        out.set(v);
        Ok(())
    })
}

/// # Safety
/// `device` is a handle this library handed out; `state` null or valid for one `unsigned int`.
#[no_mangle]
pub unsafe extern "C" fn nvmlGpmQueryIfStreamingEnabled(
    device: nvmlDevice_t,
    state: *mut c_uint,
) -> nvmlReturn_t {
    dev_fn("nvmlGpmQueryIfStreamingEnabled", device, |c| {
        let out = nn(state)?;
        if !supported(c.dev) {
            return Err(NOT_SUPPORTED);
        }
        // The simulator never streams: samples are read on request.
        out.set(0);
        Ok(())
    })
}

/// The series table a sample was taken from.
fn table(d: &Device, gi: Option<u32>) -> Option<&BTreeMap<String, Series<f64>>> {
    match gi {
        None => Some(&d.gpm),
        Some(id) => d
            .mig_instance
            .iter()
            .find(|m| m.gpu_instance_id == Some(id))
            .map(|m| &m.gpm),
    }
}

/// # Safety
/// `metrics_get` is null or valid for one `nvmlGpmMetricsGet_t` whose
/// `version`, `numMetrics`, samples and metric ids the caller set.
#[no_mangle]
pub unsafe extern "C" fn nvmlGpmMetricsGet(metrics_get: *mut nvmlGpmMetricsGet_t) -> nvmlReturn_t {
    guard(|| {
        ret((|| {
            enter("nvmlGpmMetricsGet", None, true)?;
            let out = nn(metrics_get)?;
            // SAFETY: `nn` checked the pointer; the caller owns the struct for the call.
            let m = unsafe { &mut *out.ptr() };
            if m.version != NVML_GPM_METRICS_GET_VERSION {
                return Err(ARGUMENT_VERSION_MISMATCH);
            }
            if m.numMetrics == 0 || m.numMetrics > METRIC_MAX {
                return Err(INVALID_ARGUMENT);
            }
            let (i1, i2) = (number(m.sample1)?, number(m.sample2)?);
            let g = lock();
            let st = g.as_ref().ok_or(UNINITIALIZED)?;
            let s1 = st.gpm.samples.get(&i1).copied().flatten();
            let s2 = st.gpm.samples.get(&i2).copied().flatten();
            let (Some(s1), Some(s2)) = (s1, s2) else {
                return Err(INVALID_ARGUMENT);
            };
            if i1 == i2 || s1.gpu != s2.gpu || s1.gi != s2.gi {
                return Err(INVALID_ARGUMENT);
            }
            let dev = st.sc.device.get(s2.gpu).ok_or(INVALID_ARGUMENT)?;
            let series = table(dev, s2.gi);
            let at = usize::try_from(s2.n.saturating_sub(1)).unwrap_or(usize::MAX);
            let n = m.numMetrics as usize;
            for slot in m.metrics.iter_mut().take(n) {
                let value = series
                    .and_then(|t| t.get(&slot.metricId.to_string()))
                    .and_then(|s| s.at(at));
                let (short, long, unit) = info(slot.metricId);
                slot.metricInfo.shortName = short.as_ptr() as *mut c_char;
                slot.metricInfo.longName = long.as_ptr() as *mut c_char;
                slot.metricInfo.unit = unit.as_ptr() as *mut c_char;
                match value {
                    Some(v) => {
                        slot.nvmlReturn = SUCCESS;
                        slot.value = v;
                    }
                    None => {
                        slot.nvmlReturn = NOT_SUPPORTED;
                        slot.value = 0.0;
                    }
                }
            }
            Ok(())
        })())
    })
}
