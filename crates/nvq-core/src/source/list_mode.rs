//! The list modes (`--query-compute-apps`, `--query-accounted-apps`,
//! `--query-retired-pages`, `--query-remapped-rows`,
//! `--query-supported-clocks`): several rows per GPU, each starting with the
//! same GPU columns (`timestamp`, `gpu_name`, `gpu_bus_id`, `gpu_serial`,
//! `gpu_uuid`).
//!
//! A mode declares a [`ListMode`]: its own fields, read from one item (a
//! process, a page, a clock pair), and the function that lists a GPU's
//! items. This module owns what they share: the GPU columns, the rows, and
//! the rule for a list that cannot be read (see [`ListMode::collect`]).
//!
//! A [`ListGpu`] is built once per GPU per sample. It wraps a [`GpuCtx`]
//! (so the device handle and NVML structs are read at most once) and caches
//! the GPU's cells, so that a GPU with 64 processes costs one
//! `nvmlDeviceGetUUID` call, not 64. Every row of a GPU shares its timestamp.

use super::gpu::GpuCtx;
use super::procinfo::ProcSample;
use super::Target;
use crate::model::{FieldDef, FieldInfo, NvmlCode, Row, Section, Value};
use crate::nvml::Session;

/// The [`ModeDef`](super::mode_def::ModeDef) of a list mode: its option, its
/// `--help` line, and the static [`ListMode`] that holds its fields and
/// reads its rows.
macro_rules! list_mode_def {
    ($option:expr, $about:expr, $list:ident) => {
        $crate::source::mode_def::ModeDef {
            option: $option,
            about: $about,
            fields: || $list.field_infos(),
            collect: |session, targets, req| $list.collect(session, targets, req),
            row_per_gpu: false,
        }
    };
}
use crate::source::mode_def::Request;
pub(crate) use list_mode_def;
use std::cell::OnceCell;

/// What every GPU of one sample shares.
#[derive(Default)]
pub struct Shared {
    /// The host's `/proc`, read lazily, once per sample.
    pub host: ProcSample,
}

/// A GPU as the list modes read it.
pub struct ListGpu<'s> {
    /// The GPU's per-sample context, which the rows' getters read from.
    pub gpu: GpuCtx<'s>,
    /// What all GPUs of the sample share (the host's `/proc`).
    pub shared: &'s Shared,
    name: OnceCell<Value>,
    serial: OnceCell<Value>,
    uuid: OnceCell<Value>,
    bus_id: OnceCell<Value>,
}

impl<'s> ListGpu<'s> {
    /// The GPU `gpu`, with the sample's shared state; its name is read on first use.
    pub fn new(gpu: GpuCtx<'s>, shared: &'s Shared) -> Self {
        ListGpu {
            gpu,
            shared,
            name: OnceCell::new(),
            serial: OnceCell::new(),
            uuid: OnceCell::new(),
            bus_id: OnceCell::new(),
        }
    }

    fn timestamp(&self) -> Value {
        Value::text(self.gpu.timestamp())
    }

    fn cached(
        &self,
        cell: &OnceCell<Value>,
        read: impl FnOnce() -> Result<String, NvmlCode>,
    ) -> Value {
        cell.get_or_init(|| self.gpu.value(read(), Value::Text))
            .clone()
    }

    fn name(&self) -> Value {
        self.cached(&self.name, || self.gpu.call(|d| d.name()))
    }

    fn serial(&self) -> Value {
        self.cached(&self.serial, || self.gpu.call(|d| d.serial()))
    }

    fn uuid(&self) -> Value {
        self.cached(&self.uuid, || self.gpu.call(|d| d.uuid()))
    }

    fn bus_id(&self) -> Value {
        self.cached(&self.bus_id, || self.gpu.pci().map(|p| p.bus_id.clone()))
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

/// How many GPU columns every list mode starts with.
pub const GPU_COLUMNS: usize = 6;

/// The GPU columns, in nvidia-smi's order; `heading` introduces the mode's
/// fields in `--help-query-*`.
pub const fn gpu_columns(heading: Option<Section>) -> [FieldInfo; GPU_COLUMNS] {
    let mut timestamp = FieldInfo::new(
        "timestamp",
        "When the GPU was sampled, as \"YYYY/MM/DD HH:MM:SS.msec\" in local time; \
         the same on every row of one GPU.",
    )
    .timestamp();
    timestamp.heading = heading;
    [
        timestamp,
        FieldInfo::new("gpu_name", "Product name of the GPU the row belongs to."),
        FieldInfo::new(
            "gpu_bus_id",
            "PCI address of that GPU as domain:bus:device.function, in hex.",
        ),
        FieldInfo::new(
            "gpu_serial",
            "Serial number printed on the GPU's board; boards with several GPUs share it.",
        ),
        FieldInfo::new(
            "gpu_uuid",
            "Globally unique, immutable identifier of that GPU (GPU-...); in MIG mode, the \
             parent GPU's.",
        ),
        FieldInfo::new(
            "gpu_index",
            "NVML index of the GPU the row belongs to (the index of --query-gpu and -i).",
        )
        .kind(crate::model::FieldKind::GpuIndex)
        .extension(),
    ]
}

/// The getter of a list mode's own field: a cell of one item of one GPU.
pub type ItemGetter<T> = for<'a, 'b> fn(&'a ListGpu<'b>, &'a T) -> Value;

/// A list mode, declared once.
pub struct ListMode<T: 'static> {
    /// The GPU columns (the first carries the mode's help heading).
    pub gpu: [FieldInfo; GPU_COLUMNS],
    /// The mode's own fields, after the GPU columns.
    pub fields: &'static [FieldDef<ItemGetter<T>>],
    /// One GPU's items, one row each, or the code its list failed with.
    pub items: for<'a> fn(&'a ListGpu<'a>) -> Result<Vec<T>, NvmlCode>,
    /// Does NOT_SUPPORTED mean "nothing to list" (no rows) rather than a
    /// failure to show?
    pub unsupported_is_empty: bool,
    /// What tells an item's row apart from the GPU's other rows, whether or
    /// not those fields were queried ([`Row::labels`]); `no_labels` for a
    /// mode with one row per GPU.
    pub labels: fn(&T) -> Vec<(&'static str, String)>,
}

/// [`ListMode::labels`] of a mode whose GPUs have one row each.
pub fn no_labels<T>(_: &T) -> Vec<(&'static str, String)> {
    Vec::new()
}

impl<T: 'static> ListMode<T> {
    /// Every field, in help order: the GPU columns, then the mode's own.
    pub fn field_infos(&'static self) -> Vec<&'static FieldInfo> {
        self.gpu
            .iter()
            .chain(self.fields.iter().map(|f| &f.info))
            .collect()
    }

    /// The rows of the selected GPUs, in enumeration order, each GPU's items
    /// in the order NVML lists them. A list that cannot be read gives its GPU
    /// one row whose item columns carry the failure's token, so that the
    /// failure is visible, except NOT_SUPPORTED where that means "nothing
    /// to list" ([`Self::unsupported_is_empty`]): no rows.
    pub fn collect(
        &'static self,
        session: &Session,
        targets: &[Target],
        req: &Request<'_>,
    ) -> Vec<Row> {
        let shared = Shared::default();
        let mut rows = Vec::new();
        for t in targets {
            let gpu = ListGpu::new(t.context(session, req.count), &shared);
            let ident = req.ident.then(|| t.ident(&gpu.gpu));
            let mut push = |item: Result<&T, NvmlCode>| {
                let mut row = Row::new(
                    req.fields
                        .iter()
                        .map(|&f| self.cell(&gpu, item, f))
                        .collect(),
                );
                row.timestamp = Some(gpu.gpu.timestamp().to_string());
                row.time = Some(gpu.gpu.taken);
                row.gpu = ident.clone();
                row.labels = item.map(self.labels).unwrap_or_default();
                rows.push(row);
            };
            match (self.items)(&gpu) {
                Ok(items) => items.iter().for_each(|i| push(Ok(i))),
                Err(c) if c == NvmlCode::NOT_SUPPORTED && self.unsupported_is_empty => {}
                Err(c) => push(Err(c)),
            }
        }
        rows
    }

    /// Field `f` (an index into [`Self::field_infos`]) of one item.
    fn cell(&self, gpu: &ListGpu<'_>, item: Result<&T, NvmlCode>, f: usize) -> Value {
        match f {
            0 => gpu.timestamp(),
            1 => gpu.name(),
            2 => gpu.bus_id(),
            3 => gpu.serial(),
            4 => gpu.uuid(),
            5 => Value::Int(i64::from(gpu.gpu.index)),
            _ => match (self.fields.get(f - GPU_COLUMNS), item) {
                (Some(def), Ok(item)) => (def.get)(gpu, item),
                (Some(_), Err(c)) => gpu.err(c),
                (None, _) => gpu.na(),
            },
        }
    }
}

/// Declare a list mode's own field.
pub const fn field<T>(info: FieldInfo, get: ItemGetter<T>) -> FieldDef<ItemGetter<T>> {
    FieldDef { info, get }
}
