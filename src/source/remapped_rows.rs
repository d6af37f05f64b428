//! `--query-remapped-rows`: one row per GPU with its row-remapping counters,
//! read with `nvmlDeviceGetRemappedRows` (which nvml-wrapper does not wrap).
//!
//! NVIDIA's help text for this mode was never published; the field names are
//! the ones scripts use (`remapped_rows.correctable`, ...), and the flags print
//! `Yes`/`No` like nvidia-smi's other booleans.

use super::list_mode::{field, gpu_columns, no_labels, ListGpu, ListMode};
use super::mode::ModeDef;
use crate::model::{FieldInfo, NvmlCode, Value};
use crate::nvml::check;

/// The four numbers `nvmlDeviceGetRemappedRows` returns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Remapped {
    pub correctable: u32,
    pub uncorrectable: u32,
    pub pending: bool,
    pub failure: bool,
}

/// Call `nvmlDeviceGetRemappedRows` through the raw symbol table.
pub fn remapped_rows(dev: &ListGpu<'_>) -> Result<Remapped, NvmlCode> {
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

pub const MODE: ModeDef = ModeDef {
    option: "query-remapped-rows",
    about: "Report remapped-row counts",
    fields: || LIST.field_infos(),
    collect: |session, targets, req| LIST.collect(session, targets, req),
    row_per_gpu: false,
};

/// Every `--query-remapped-rows` field.
static LIST: ListMode<Remapped> = ListMode {
    gpu: gpu_columns(None),
    items: |gpu| remapped_rows(gpu).map(|r| vec![r]),
    unsupported_is_empty: false,
    labels: no_labels,
    fields: &[
        field(
            FieldInfo::new(
                "remapped_rows.correctable",
                "Memory rows remapped because of correctable ECC errors.",
            ),
            |_, m| Value::Int(i64::from(m.correctable)),
        ),
        field(
            FieldInfo::new(
                "remapped_rows.uncorrectable",
                "Memory rows remapped because of uncorrectable ECC errors.",
            ),
            |_, m| Value::Int(i64::from(m.uncorrectable)),
        ),
        field(
            FieldInfo::new(
                "remapped_rows.pending",
                "Yes if a remapping waits for the GPU to be reset before it takes effect.",
            ),
            |_, m| Value::yes_no(m.pending),
        ),
        field(
            FieldInfo::new(
                "remapped_rows.failure",
                "Yes if a remapping has failed (no spare row was left); the GPU may need service.",
            ),
            |_, m| Value::yes_no(m.failure),
        ),
    ],
};
