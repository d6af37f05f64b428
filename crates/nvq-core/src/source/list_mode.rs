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
//! (so the device handle, the NVML structs and the GPU's identity are read
//! at most once), so that a GPU with 64 processes costs one
//! `nvmlDeviceGetUUID` call, not 64. Every row of a GPU shares its timestamp.

use super::gpu::GpuCtx;
use super::procinfo::ProcSample;
use super::Target;
use crate::model::{ColumnId, FieldDef, FieldInfo, ListField, NvmlCode, Row, Section, Value};
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
            ids: || $list.ids(),
            collect: |session, targets, req| $list.collect(session, targets, req),
            row_per_gpu: false,
        }
    };
}
use crate::source::mode_def::Request;
pub(crate) use list_mode_def;

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
}

impl<'s> ListGpu<'s> {
    /// The GPU `gpu`, with the sample's shared state; its name is read on first use.
    pub fn new(gpu: GpuCtx<'s>, shared: &'s Shared) -> Self {
        ListGpu { gpu, shared }
    }

    fn timestamp(&self) -> Value {
        Value::text(self.gpu.timestamp())
    }

    /// A GPU column: the context reads the GPU's identity once per sample.
    fn ident(&self, read: Result<&str, NvmlCode>) -> Value {
        self.gpu.value(read, Value::text)
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

/// The ids of the GPU columns, in nvidia-smi's order.
pub const GPU_COLUMN_IDS: [ListField; GPU_COLUMNS] = [
    ListField::Timestamp,
    ListField::GpuName,
    ListField::GpuBusId,
    ListField::GpuSerial,
    ListField::GpuUuid,
    ListField::GpuIndex,
];

/// The GPU columns, in nvidia-smi's order; `heading` introduces the mode's
/// fields in `--help-query-*`.
pub const fn gpu_columns(heading: Option<Section>) -> [FieldInfo; GPU_COLUMNS] {
    let mut timestamp = FieldInfo::new(
        ListField::Timestamp.name(),
        "When the GPU was sampled, as \"YYYY/MM/DD HH:MM:SS.msec\" in local time; \
         the same on every row of one GPU.",
    )
    .timestamp();
    timestamp.heading = heading;
    [
        timestamp,
        FieldInfo::new(
            ListField::GpuName.name(),
            "Product name of the GPU the row belongs to.",
        ),
        FieldInfo::new(
            ListField::GpuBusId.name(),
            "PCI address of that GPU as domain:bus:device.function, in hex.",
        ),
        FieldInfo::new(
            ListField::GpuSerial.name(),
            "Serial number printed on the GPU's board; boards with several GPUs share it.",
        ),
        FieldInfo::new(
            ListField::GpuUuid.name(),
            "Globally unique, immutable identifier of that GPU (GPU-...); in MIG mode, the \
             parent GPU's.",
        ),
        FieldInfo::new(
            ListField::GpuIndex.name(),
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
    /// The mode's own fields, after the GPU columns, each with its id.
    pub fields: &'static [(ColumnId, FieldDef<ItemGetter<T>>)],
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
            .chain(self.fields.iter().map(|(_, f)| &f.info))
            .collect()
    }

    /// Every field's id, in the order of [`Self::field_infos`].
    pub fn ids(&'static self) -> Vec<ColumnId> {
        GPU_COLUMN_IDS
            .iter()
            .map(|l| l.id())
            .chain(self.fields.iter().map(|(id, _)| *id))
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
            1 => gpu.ident(gpu.gpu.name()),
            2 => gpu.ident(gpu.gpu.bus_id()),
            3 => gpu.ident(gpu.gpu.serial()),
            4 => gpu.ident(gpu.gpu.uuid()),
            5 => Value::Int(i64::from(gpu.gpu.index)),
            _ => match (self.fields.get(f - GPU_COLUMNS), item) {
                (Some((_, def)), Ok(item)) => (def.get)(gpu, item),
                (Some(_), Err(c)) => gpu.err(c),
                (None, _) => gpu.na(),
            },
        }
    }
}

/// Declare a list mode's own field: its id, description and getter.
pub const fn field<T>(
    id: ColumnId,
    info: FieldInfo,
    get: ItemGetter<T>,
) -> (ColumnId, FieldDef<ItemGetter<T>>) {
    (id, FieldDef { info, get })
}
