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

use super::list_mode::{field, gpu_columns, ListGpu, ListMode};
use super::mode::ModeDef;
use crate::model::{FieldInfo, NvmlCode, Section, Value};

/// One row: a clock pair.
pub struct ClockPair {
    pub memory: Result<u32, NvmlCode>,
    pub graphics: Result<u32, NvmlCode>,
}

pub const MODE: ModeDef = ModeDef {
    option: "query-supported-clocks",
    about: "List the supported memory/graphics clock pairs",
    fields: || LIST.field_infos(),
    collect: |session, targets, req| LIST.collect(session, targets, req),
    row_per_gpu: false,
};

static LIST: ListMode<ClockPair> = ListMode {
    gpu: gpu_columns(Some(Section {
        name: "Supported Clocks",
        help: "The memory and graphics clock pairs the GPU can run at (for application clocks); one line per pair.",
    })),
    fields: &[
        field(
            FieldInfo::new("memory", "A supported memory clock.").aliases(&["mem"]).unit("MHz"),
            |g, r| g.value(r.memory, |v| Value::Int(i64::from(v))),
        ),
        field(
            FieldInfo::new("graphics", "A graphics clock supported together with that memory clock.")
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
    match clock_list(&gpu.gpu, None) {
        Ok(mems) => {
            for m in mems {
                match clock_list(&gpu.gpu, Some(m)) {
                    Ok(grs) => grs.into_iter().for_each(|g| push(Ok(m), Ok(g))),
                    Err(c) => push(Ok(m), Err(c)),
                }
            }
        }
        Err(c) => push(Err(c), Err(c)),
    }
    Ok(rows)
}

/// NVML's two-call clock lists, read raw: `None` for the supported memory
/// clocks, `Some(mem)` for the graphics clocks that go with `mem`. A driver
/// that answers INSUFFICIENT_SIZE without asking for more room gets that
/// error back, never a list padded with zeros (nvml-wrapper 0.13 returns
/// its whole 128-entry buffer in that case).
fn clock_list(
    gpu: &crate::source::gpu::GpuCtx<'_>,
    mem: Option<u32>,
) -> Result<Vec<u32>, NvmlCode> {
    let handle = gpu.handle()?;
    let lib = gpu.session.lib();
    let mut size: u32 = 128;
    for _ in 0..4 {
        let mut items = vec![0u32; size as usize];
        let mut count = size;
        // SAFETY: `items` has room for `count` entries; the handle belongs
        // to this open session.
        let ret = unsafe {
            match mem {
                None => {
                    let f = nvml_wrapper::error::nvml_sym(
                        lib.nvmlDeviceGetSupportedMemoryClocks.as_ref(),
                    )
                    .map_err(NvmlCode::from)?;
                    f(handle, &mut count, items.as_mut_ptr())
                }
                Some(m) => {
                    let f = nvml_wrapper::error::nvml_sym(
                        lib.nvmlDeviceGetSupportedGraphicsClocks.as_ref(),
                    )
                    .map_err(NvmlCode::from)?;
                    f(handle, m, &mut count, items.as_mut_ptr())
                }
            }
        };
        match ret {
            0 => {
                items.truncate(count.min(size) as usize);
                return Ok(items);
            }
            7 if count > size => size = count,
            code => return Err(NvmlCode(code)),
        }
    }
    Err(NvmlCode::INSUFFICIENT_SIZE)
}
