//! GPM (GPU performance monitoring, Hopper and later): support, sample
//! buffers and metrics between two samples.

use super::{dev_struct, zeroed, Dev};
use crate::nvml::{check, NvmlCode, Session};
use nvml_wrapper_sys::bindings::*;
use std::os::raw::c_uint;

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
