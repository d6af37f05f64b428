//! `--query-remapped-rows`: one row per GPU with its row-remapping counters,
//! read with `nvmlDeviceGetRemappedRows` (which nvml-wrapper does not wrap).
//!
//! NVIDIA's help text for this mode was never published; the field names are
//! the ones scripts use (`remapped_rows.correctable`, ...), and the flags print
//! `Yes`/`No` like nvidia-smi's other booleans.

use super::devctx::{self, info, DevCtx};
use super::{FieldDef, FieldInfo, Value};
use crate::format::Row;
use crate::nvml::{check, NvmlCode, Session};

/// The four numbers `nvmlDeviceGetRemappedRows` returns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Remapped {
    pub correctable: u32,
    pub uncorrectable: u32,
    pub pending: bool,
    pub failure: bool,
}

/// Call `nvmlDeviceGetRemappedRows` through the raw symbol table.
pub fn remapped_rows(dev: &DevCtx<'_>) -> Result<Remapped, NvmlCode> {
    let d = dev.gpu.dev()?;
    let f = dev
        .gpu
        .session
        .lib()
        .nvmlDeviceGetRemappedRows
        .as_ref()
        .map_err(|_| NvmlCode::FUNCTION_NOT_FOUND)?;
    let (mut corr, mut unc, mut pending, mut failure) = (0, 0, 0, 0);
    // SAFETY: a live handle from nvml-wrapper and four valid out-pointers.
    let rc = unsafe { f(d.handle(), &mut corr, &mut unc, &mut pending, &mut failure) };
    check(rc)?;
    Ok(Remapped {
        correctable: corr,
        uncorrectable: unc,
        pending: pending != 0,
        failure: failure != 0,
    })
}

/// One row: a GPU and its counters.
pub struct RemapRow<'a> {
    pub dev: &'a DevCtx<'a>,
    pub rows: Result<Remapped, NvmlCode>,
}

impl devctx::RowKey for RemapRow<'_> {}

impl RemapRow<'_> {
    fn with(&self, f: impl FnOnce(&Remapped) -> Value) -> Value {
        self.dev.value(self.rows.as_ref().map_err(|c| *c), f)
    }
}

pub type Getter = for<'a, 'b> fn(&'a RemapRow<'b>) -> Value;

const fn f(info: FieldInfo, get: Getter) -> FieldDef<Getter> {
    FieldDef { info, get }
}

/// Every `--query-remapped-rows` field.
pub static FIELDS: &[FieldDef<Getter>] = &[
    f(info::TIMESTAMP, |r| r.dev.timestamp()),
    f(info::GPU_NAME, |r| r.dev.name()),
    f(info::GPU_BUS_ID, |r| r.dev.bus_id()),
    f(info::GPU_SERIAL, |r| r.dev.serial()),
    f(info::GPU_UUID, |r| r.dev.uuid()),
    f(
        FieldInfo::new(
            "remapped_rows.correctable",
            "Memory rows remapped because of correctable ECC errors.",
        ),
        |r| r.with(|m| Value::Int(i64::from(m.correctable))),
    ),
    f(
        FieldInfo::new(
            "remapped_rows.uncorrectable",
            "Memory rows remapped because of uncorrectable ECC errors.",
        ),
        |r| r.with(|m| Value::Int(i64::from(m.uncorrectable))),
    ),
    f(
        FieldInfo::new(
            "remapped_rows.pending",
            "Yes if a remapping waits for the GPU to be reset before it takes effect.",
        ),
        |r| r.with(|m| Value::yes_no(m.pending)),
    ),
    f(
        FieldInfo::new(
            "remapped_rows.failure",
            "Yes if a remapping has failed (no spare row was left); the GPU may need service.",
        ),
        |r| r.with(|m| Value::yes_no(m.failure)),
    ),
];

/// Read the given fields for every selected GPU.
pub fn collect(session: &Session, devices: &[u32], fields: &[usize]) -> Vec<Row> {
    let get = |r: &RemapRow<'_>, f: usize| FIELDS.get(f).map(|d| (d.get)(r));
    devices
        .iter()
        .map(|&i| {
            let dev = DevCtx::new(session, i);
            let r = RemapRow {
                rows: remapped_rows(&dev),
                dev: &dev,
            };
            devctx::row(&dev, &r, fields, get)
        })
        .collect()
}
