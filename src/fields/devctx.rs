//! The per-GPU half of a row in the list modes (`--query-compute-apps`,
//! `--query-accounted-apps`, `--query-retired-pages`, `--query-remapped-rows`,
//! `--query-supported-clocks`).
//!
//! These modes print several rows per GPU, each starting with the same GPU
//! columns (`timestamp`, `gpu_name`, `gpu_bus_id`, `gpu_serial`, `gpu_uuid`).
//! A [`DevCtx`] is built once per GPU per sample, wraps a [`GpuCtx`] (so the
//! device handle, the PCI struct and the memory struct are read at most once)
//! and caches the identity cells, so that a GPU with 64 processes costs one
//! `nvmlDeviceGetUUID` call, not 64. Every row of a GPU shares its timestamp.

use super::gpu::GpuCtx;
use super::{FieldInfo, Value};
use crate::nvml::{NvmlCode, Session};
use std::cell::OnceCell;

pub struct DevCtx<'s> {
    pub gpu: GpuCtx<'s>,
    name: OnceCell<Value>,
    serial: OnceCell<Value>,
    uuid: OnceCell<Value>,
    bus_id: OnceCell<Value>,
}

impl<'s> DevCtx<'s> {
    pub fn new(session: &'s Session, index: u32) -> Self {
        DevCtx {
            gpu: GpuCtx::new(session, index, 0),
            name: OnceCell::new(),
            serial: OnceCell::new(),
            uuid: OnceCell::new(),
            bus_id: OnceCell::new(),
        }
    }

    pub fn timestamp(&self) -> Value {
        Value::text(self.gpu.timestamp.clone())
    }

    pub fn name(&self) -> Value {
        self.name
            .get_or_init(|| self.gpu.value(self.gpu.call(|d| d.name()), Value::text))
            .clone()
    }

    pub fn serial(&self) -> Value {
        self.serial
            .get_or_init(|| self.gpu.value(self.gpu.call(|d| d.serial()), Value::text))
            .clone()
    }

    pub fn uuid(&self) -> Value {
        self.uuid
            .get_or_init(|| self.gpu.value(self.gpu.call(|d| d.uuid()), Value::text))
            .clone()
    }

    pub fn bus_id(&self) -> Value {
        self.bus_id
            .get_or_init(|| {
                self.gpu
                    .value(self.gpu.pci().map(|p| p.bus_id.clone()), Value::text)
            })
            .clone()
    }

    /// A failed cell, spelled as this driver's nvidia-smi spells it.
    pub fn err(&self, code: NvmlCode) -> Value {
        self.gpu.err(code)
    }

    /// `[N/A]`: nothing to report.
    pub fn na(&self) -> Value {
        self.err(NvmlCode::NOT_SUPPORTED)
    }

    /// Turn a result into a cell.
    pub fn value<T>(&self, r: Result<T, NvmlCode>, f: impl FnOnce(T) -> Value) -> Value {
        self.gpu.value(r, f)
    }
}

/// The GPU columns that every list mode starts with, in nvidia-smi's order.
pub mod info {
    use super::FieldInfo;

    pub const TIMESTAMP: FieldInfo = FieldInfo::new(
        "timestamp",
        "When the GPU was sampled, as \"YYYY/MM/DD HH:MM:SS.msec\" in local time; the same on every row of one GPU.",
    );
    pub const GPU_NAME: FieldInfo =
        FieldInfo::new("gpu_name", "Product name of the GPU the row belongs to.");
    pub const GPU_BUS_ID: FieldInfo = FieldInfo::new(
        "gpu_bus_id",
        "PCI address of that GPU as domain:bus:device.function, in hex.",
    );
    pub const GPU_SERIAL: FieldInfo = FieldInfo::new(
        "gpu_serial",
        "Serial number printed on the GPU's board; boards with several GPUs share it.",
    );
    pub const GPU_UUID: FieldInfo = FieldInfo::new(
        "gpu_uuid",
        "Globally unique, immutable identifier of that GPU (GPU-...); in MIG mode, the parent GPU's.",
    );
}

/// A list mode's row source: what tells it apart from the GPU's other rows
/// ([`crate::format::Row::labels`]). A mode with one row per GPU has
/// nothing to add.
pub trait RowKey {
    fn labels(&self) -> Vec<(&'static str, String)> {
        Vec::new()
    }
}

/// Build the rows of a list mode: `cells(row, field)` for each wanted field.
/// The row carries its GPU's sample timestamp (NDJSON prints it) and its
/// [`RowKey`] labels.
pub fn row<R: RowKey>(
    dev: &DevCtx<'_>,
    r: &R,
    fields: &[usize],
    get: impl Fn(&R, usize) -> Option<Value>,
) -> crate::format::Row {
    let mut row = crate::format::Row::new(
        fields
            .iter()
            .map(|&f| get(r, f).unwrap_or_else(|| Value::err(NvmlCode::NOT_SUPPORTED)))
            .collect(),
    );
    row.timestamp = Some(dev.gpu.timestamp.clone());
    row.labels = r.labels();
    row
}
