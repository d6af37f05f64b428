//! `--query-supported-clocks`: one row per (memory clock, graphics clock)
//! pair the GPU supports, memory clocks in NVML's order, and for each the
//! graphics clocks NVML lists for it.
//!
//! NVIDIA's help text for this mode was never published; the header names
//! `memory [MHz]` and `graphics [MHz]` (aliases `mem`, `gr`) are those that
//! scripts show. When NVML cannot list the memory clocks the GPU gets one row
//! with the error token in both clock columns; when it cannot list the
//! graphics clocks of one memory clock, that memory clock gets one row with
//! the token in the graphics column.

use super::gpu::read;
use super::list_mode::{field, gpu_columns, list_mode_def, ListGpu, ListMode};
use super::mode_def::ModeDef;
use crate::model::{FieldInfo, ListField, NvmlCode, Section, Value};

/// One row: a clock pair.
pub struct ClockPair {
    /// The memory clock in MHz, or the NVML code listing the memory clocks failed with.
    pub memory: Result<u32, NvmlCode>,
    /// A graphics clock in MHz supported at that memory clock, or the NVML code listing them failed with.
    pub graphics: Result<u32, NvmlCode>,
}

/// The `--query-supported-clocks` mode: one row per (memory, graphics) clock pair.
pub const MODE: ModeDef = list_mode_def!(
    "query-supported-clocks",
    "List the supported memory/graphics clock pairs",
    LIST
);

static LIST: ListMode<ClockPair> = ListMode {
    gpu: gpu_columns(Some(Section {
        name: "Supported Clocks",
        help: "The memory and graphics clock pairs the GPU can run at (for application clocks); \
               one line per pair.",
    })),
    fields: &[
        field(
            ListField::Memory.id(),
            FieldInfo::new(ListField::Memory.name(), "A supported memory clock.")
                .aliases(&["mem"])
                .unit("MHz"),
            |g, r| g.value(r.memory, |v| Value::Int(i64::from(v))),
        ),
        field(
            ListField::Graphics.id(),
            FieldInfo::new(
                ListField::Graphics.name(),
                "A graphics clock supported together with that memory clock.",
            )
            .aliases(&["gr"])
            .unit("MHz"),
            |g, r| g.value(r.graphics, |v| Value::Int(i64::from(v))),
        ),
    ],
    items: pairs,
    unsupported_is_empty: false,
    labels: |r| {
        [("memory_mhz", &r.memory), ("graphics_mhz", &r.graphics)]
            .into_iter()
            .filter_map(|(k, v)| v.as_ref().ok().map(|mhz| (k, mhz.to_string())))
            .collect()
    },
};

/// Every clock pair of one GPU.
fn pairs(gpu: &ListGpu<'_>) -> Result<Vec<ClockPair>, NvmlCode> {
    let mut rows = Vec::new();
    let mut push = |memory, graphics| rows.push(ClockPair { memory, graphics });
    match read::supported_clocks(&gpu.gpu, None) {
        Ok(mems) => {
            for m in mems {
                match read::supported_clocks(&gpu.gpu, Some(m)) {
                    Ok(grs) => grs.into_iter().for_each(|g| push(Ok(m), Ok(g))),
                    Err(c) => push(Ok(m), Err(c)),
                }
            }
        }
        Err(c) => push(Err(c), Err(c)),
    }
    Ok(rows)
}
