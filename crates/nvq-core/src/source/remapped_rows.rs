//! `--query-remapped-rows`: one row per GPU with its row-remapping counters,
//! read with `nvmlDeviceGetRemappedRows` (which nvml-wrapper does not wrap).
//!
//! NVIDIA's help text for this mode was never published; the field names are
//! the ones scripts use (`remapped_rows.correctable`, ...), and the flags print
//! `Yes`/`No` like nvidia-smi's other booleans.

use super::list_mode::{field, gpu_columns, list_mode_def, no_labels, ListMode};
use super::mode_def::ModeDef;
use crate::model::{FieldInfo, Value};
use crate::nvml::raw::{self, RemappedRows};

pub const MODE: ModeDef = list_mode_def!("query-remapped-rows", "Report remapped-row counts", LIST);

/// Every `--query-remapped-rows` field.
static LIST: ListMode<RemappedRows> = ListMode {
    gpu: gpu_columns(None),
    items: |gpu| raw::remapped_rows(&gpu.gpu.raw()).map(|r| vec![r]),
    unsupported_is_empty: false,
    labels: no_labels,
    fields: &[
        field(
            FieldInfo::new(
                "remapped_rows.correctable",
                "Memory rows remapped because of correctable ECC errors.",
            )
            .counter(),
            |_, m| Value::Int(i64::from(m.correctable)),
        ),
        field(
            FieldInfo::new(
                "remapped_rows.uncorrectable",
                "Memory rows remapped because of uncorrectable ECC errors.",
            )
            .counter(),
            |_, m| Value::Int(i64::from(m.uncorrectable)),
        ),
        field(
            FieldInfo::new(
                "remapped_rows.pending",
                "Yes if a remapping waits for the GPU to be reset before it takes effect.",
            ),
            |_, m| Value::yes_no(m.pending != 0),
        ),
        field(
            FieldInfo::new(
                "remapped_rows.failure",
                "Yes if a remapping has failed (no spare row was left); the GPU may need service.",
            ),
            |_, m| Value::yes_no(m.failure != 0),
        ),
    ],
};
