//! `--query-gpu`: one row per GPU.
//!
//! - `registry`: the field table (names, units, help, getters);
//! - [`get`]: the getters, turning NVML answers into nvidia-smi's cells
//!   (from the per-GPU, per-sample cache, [`crate::source::ctx`], which with
//!   these files is the only caller of nvml-wrapper's getters outside the
//!   raw layer);
//! - [`report_get`]: the getters of the internal facts only `-q` shows;
//! - [`read`]: typed reads of what is more than one cell (accounting, sample
//!   buffers, violation times, process utilization, energy, supported
//!   clocks, the virtualization mode);
//! - [`collect`]: rows out of the table.

mod collect;
pub mod get;
pub mod read;
mod registry;
pub mod report_get;

pub use crate::nvml::raw::FieldVal;
pub use crate::source::ctx::{GpuCtx, NA_SPELLING_CHANGED_IN};
pub use collect::collect;
pub use get::DEPRECATED_FROM;
pub use registry::{fact_def, FACTS, FIELDS};

use crate::model::Value;
use crate::nvml::NvmlCode;
use crate::source::mode_def::ModeDef;

/// The `--query-gpu` mode: one row per GPU, the fields of the [`FIELDS`] registry.
pub const MODE: ModeDef = ModeDef {
    option: "query-gpu",
    about: "Query GPU properties (comma-separated field list; see --help-query-gpu)",
    fields: || FIELDS.iter().map(|f| &f.info).collect(),
    ids: || {
        crate::model::Fact::ALL[..FIELDS.len()]
            .iter()
            .map(|&f| f.into())
            .collect()
    },
    collect,
    row_per_gpu: true,
};

/// The getter of a `--query-gpu` field computed from the context.
pub type Getter = for<'a, 'b> fn(&'a GpuCtx<'b>) -> Value;

/// How a field is read.
#[derive(Clone, Copy)]
pub enum Get {
    /// A function of the GPU's context.
    Fn(Getter),
    /// One entry of `nvmlDeviceGetFieldValues`: all such fields of a row are
    /// read in one call.
    Field {
        /// The NVML field id, in nvml-wrapper's (pre-580.82) numbering; translated for newer drivers.
        id: u32,
        /// The field's scope id: 0 the GPU, 1 the module.
        scope: u32,
        /// How the value is printed.
        fmt: FvFmt,
    },
}

/// How a field value is printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FvFmt {
    /// Milliwatts, printed as watts with two decimals.
    Watts,
    /// Nanoseconds, printed as whole microseconds.
    NsAsUs,
    /// An integer.
    Int,
    /// An integer; a failure prints a bare `N/A` (temperature.memory).
    BareInt,
    /// A number with two decimals (edpp_multiplier).
    Percent2,
    /// An integer stays an integer, a real number gets two decimals.
    Number,
    /// Non-zero is `Yes`.
    YesNo,
    /// Non-zero is `Enabled`.
    EnabledDisabled,
    /// `nvmlDeviceGpuRecoveryAction_t`.
    Recovery,
}

impl Get {
    /// The field value this getter reads, if it is one.
    pub fn field_value(&self) -> Option<(u32, u32)> {
        match *self {
            Get::Field { id, scope, .. } => Some((id, scope)),
            Get::Fn(_) => None,
        }
    }

    /// Read the cell.
    pub fn read(&self, c: &GpuCtx) -> Value {
        match *self {
            Get::Fn(f) => f(c),
            Get::Field { id, scope, fmt } => match c.field_value(id, scope) {
                Ok(v) => format_field_value(c, v, fmt),
                Err(_) if fmt == FvFmt::BareInt => Value::NotAvailable,
                Err(code) => c.err(code),
            },
        }
    }
}

fn format_field_value(c: &GpuCtx, v: FieldVal, fmt: FvFmt) -> Value {
    let two = |value: f64| Value::Float { value, decimals: 2 };
    match fmt {
        FvFmt::Watts => two(v.as_f64() / 1000.0),
        FvFmt::NsAsUs => Value::Int(v.as_i64() / 1000),
        FvFmt::Int | FvFmt::BareInt => Value::Int(v.as_i64()),
        FvFmt::Percent2 => two(v.as_f64()),
        FvFmt::Number => match v {
            FieldVal::Float(f) => two(f),
            other => Value::Int(other.as_i64()),
        },
        FvFmt::YesNo => Value::yes_no(v.as_i64() != 0),
        FvFmt::EnabledDisabled => Value::enabled(v.as_i64() != 0),
        FvFmt::Recovery => match v.as_i64() {
            0 => Value::text("None"),
            1 => Value::text("Reset"),
            2 => Value::text("Reboot"),
            3 => Value::text("Drain P2P"),
            4 => Value::text("Drain and Reset"),
            _ => c.err(NvmlCode::UNKNOWN),
        },
    }
}

/// A cell that failed for a reason other than NVML (kept for getters that
/// need a code of their own).
pub fn unsupported() -> Value {
    Value::err(NvmlCode::NOT_SUPPORTED)
}

#[cfg(test)]
mod tests;
