//! The per-GPU context that `--query-gpu` getters read from.
//!
//! One context is built per GPU per sample. It caches each NVML struct the
//! first time a getter needs it, so that four memory fields cost one
//! `nvmlDeviceGetMemoryInfo_v2` call, not four.

use crate::fields::Value;
use crate::nvml::{NvmlCode, Session};
use nvml_wrapper::struct_wrappers::device::{MemoryInfo, PciInfo, Utilization};
use nvml_wrapper::Device;
use std::cell::OnceCell;

pub struct GpuCtx<'s> {
    pub session: &'s Session,
    /// The GPU's index in NVML's enumeration.
    pub index: u32,
    /// The number of GPUs NVML reports (`count` field).
    pub count: u32,
    /// The sample's timestamp, taken when the context was built.
    pub timestamp: String,
    device: Result<Device<'s>, NvmlCode>,
    memory: OnceCell<Result<MemoryInfo, NvmlCode>>,
    pci: OnceCell<Result<PciInfo, NvmlCode>>,
    utilization: OnceCell<Result<Utilization, NvmlCode>>,
}

impl<'s> GpuCtx<'s> {
    pub fn new(session: &'s Session, index: u32, count: u32) -> Self {
        Self::with_device(session, index, count, session.device(index))
    }

    /// A context for a GPU whose handle was looked up earlier (a loop looks
    /// handles up once and reuses them in every sample).
    pub fn with_device(
        session: &'s Session,
        index: u32,
        count: u32,
        device: Result<Device<'s>, NvmlCode>,
    ) -> Self {
        GpuCtx {
            session,
            index,
            count,
            timestamp: crate::fields::time::timestamp_now(),
            device,
            memory: OnceCell::new(),
            pci: OnceCell::new(),
            utilization: OnceCell::new(),
        }
    }

    /// The device handle, or the code that getting it failed with.
    pub fn dev(&self) -> Result<&Device<'s>, NvmlCode> {
        self.device.as_ref().map_err(|c| *c)
    }

    /// A failed cell, spelled as this driver's nvidia-smi spells it.
    pub fn err(&self, code: NvmlCode) -> Value {
        let mut v = Value::err(code);
        if let Value::Error(t) = &mut v {
            t.legacy_spelling =
                code == NvmlCode::NOT_SUPPORTED && legacy_not_supported(self.session);
        }
        v
    }

    /// Turn a getter's result into a cell.
    pub fn value<T>(&self, r: Result<T, NvmlCode>, f: impl FnOnce(T) -> Value) -> Value {
        match r {
            Ok(v) => f(v),
            Err(c) => self.err(c),
        }
    }

    /// Call a wrapper method on the device, mapping its error to a code.
    pub fn call<T>(
        &self,
        f: impl FnOnce(&Device<'s>) -> Result<T, nvml_wrapper::error::NvmlError>,
    ) -> Result<T, NvmlCode> {
        let d = self.dev()?;
        f(d).map_err(NvmlCode::from)
    }

    pub fn memory(&self) -> Result<&MemoryInfo, NvmlCode> {
        self.memory
            .get_or_init(|| self.call(|d| d.memory_info()))
            .as_ref()
            .map_err(|c| *c)
    }

    pub fn pci(&self) -> Result<&PciInfo, NvmlCode> {
        self.pci
            .get_or_init(|| self.call(|d| d.pci_info()))
            .as_ref()
            .map_err(|c| *c)
    }

    pub fn utilization(&self) -> Result<&Utilization, NvmlCode> {
        self.utilization
            .get_or_init(|| self.call(|d| d.utilization_rates()))
            .as_ref()
            .map_err(|c| *c)
    }
}

/// Drivers before the 450 branch printed NOT_SUPPORTED as `[Not Supported]`;
/// 465.27 (2021) already prints `[N/A]`, 410.78 (2019) still the old form.
pub const NA_SPELLING_CHANGED_IN: u32 = 450;

fn legacy_not_supported(session: &Session) -> bool {
    let major = session.driver_major();
    major > 0 && major < NA_SPELLING_CHANGED_IN
}
