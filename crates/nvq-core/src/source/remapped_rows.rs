//! `--query-remapped-rows`: one row per GPU with its row-remapping counters,
//! read with `nvmlDeviceGetRemappedRows` (which nvml-wrapper does not wrap).
//!
//! NVIDIA's help text for this mode was never published; the field names are
//! the ones scripts use (`remapped_rows.correctable`, ...), and the flags print
//! `Yes`/`No` like nvidia-smi's other booleans.

use super::list_mode::{field, gpu_columns, list_mode_def, no_labels, ListMode};
use super::mode_def::ModeDef;
use crate::model::{ColumnId, Fact, FieldInfo, Value};
use crate::nvml::raw::{self, RemappedRows};

/// The `--query-remapped-rows` mode: one row per GPU, from `nvmlDeviceGetRemappedRows`.
pub const MODE: ModeDef = list_mode_def!("query-remapped-rows", "Report remapped-row counts", LIST);

/// A catalogue fact as this mode's field: its name, aliases, kind and help,
/// without its `--help-query-gpu` section heading.
const fn fact(fact: Fact) -> FieldInfo {
    FieldInfo {
        heading: None,
        ..fact.describe()
    }
}

/// Every `--query-remapped-rows` field: the facts of the same names.
static LIST: ListMode<RemappedRows> = ListMode {
    gpu: gpu_columns(None),
    items: |gpu| raw::remapped_rows(&gpu.gpu.raw()).map(|r| vec![r]),
    unsupported_is_empty: false,
    labels: no_labels,
    fields: &[
        field(
            ColumnId::Fact(Fact::RemappedRowsCorrectable),
            fact(Fact::RemappedRowsCorrectable),
            |_, m| Value::Int(i64::from(m.correctable)),
        ),
        field(
            ColumnId::Fact(Fact::RemappedRowsUncorrectable),
            fact(Fact::RemappedRowsUncorrectable),
            |_, m| Value::Int(i64::from(m.uncorrectable)),
        ),
        field(
            ColumnId::Fact(Fact::RemappedRowsPending),
            fact(Fact::RemappedRowsPending),
            |_, m| Value::yes_no(m.pending != 0),
        ),
        field(
            ColumnId::Fact(Fact::RemappedRowsFailure),
            fact(Fact::RemappedRowsFailure),
            |_, m| Value::yes_no(m.failure != 0),
        ),
    ],
};
