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

use super::devctx::{self, info, DevCtx};
use super::{FieldDef, FieldInfo, Value};
use crate::format::Row;
use crate::nvml::{NvmlCode, Session};

/// One row: a GPU and one clock pair.
pub struct ClockRow<'a> {
    pub dev: &'a DevCtx<'a>,
    pub memory: Result<u32, NvmlCode>,
    pub graphics: Result<u32, NvmlCode>,
}

impl devctx::RowKey for ClockRow<'_> {
    fn labels(&self) -> Vec<(&'static str, String)> {
        [
            ("memory_mhz", &self.memory),
            ("graphics_mhz", &self.graphics),
        ]
        .into_iter()
        .filter_map(|(k, v)| v.as_ref().ok().map(|mhz| (k, mhz.to_string())))
        .collect()
    }
}

pub type Getter = for<'a, 'b> fn(&'a ClockRow<'b>) -> Value;

const fn f(info: FieldInfo, get: Getter) -> FieldDef<Getter> {
    FieldDef { info, get }
}

/// Every `--query-supported-clocks` field.
pub static FIELDS: &[FieldDef<Getter>] = &[
    f(
        info::TIMESTAMP.heading(
            "Supported Clocks",
            "The memory and graphics clock pairs the GPU can run at (for application clocks); one line per pair.",
        ),
        |r| r.dev.timestamp(),
    ),
    f(info::GPU_NAME, |r| r.dev.name()),
    f(info::GPU_BUS_ID, |r| r.dev.bus_id()),
    f(info::GPU_SERIAL, |r| r.dev.serial()),
    f(info::GPU_UUID, |r| r.dev.uuid()),
    f(
        FieldInfo::new("memory", "A supported memory clock.")
            .aliases(&["mem"])
            .unit("MHz"),
        |r| r.dev.value(r.memory, |v| Value::Int(i64::from(v))),
    ),
    f(
        FieldInfo::new("graphics", "A graphics clock supported together with that memory clock.")
            .aliases(&["gr"])
            .unit("MHz"),
        |r| r.dev.value(r.graphics, |v| Value::Int(i64::from(v))),
    ),
];

/// Read the given fields for every clock pair of every selected GPU.
pub fn collect(session: &Session, devices: &[u32], fields: &[usize]) -> Vec<Row> {
    let get = |r: &ClockRow<'_>, f: usize| FIELDS.get(f).map(|d| (d.get)(r));
    let mut rows = Vec::new();
    for &i in devices {
        let dev = DevCtx::new(session, i);
        let mut push = |memory, graphics| {
            let r = ClockRow {
                dev: &dev,
                memory,
                graphics,
            };
            rows.push(devctx::row(&dev, &r, fields, get));
        };
        match clock_list(&dev.gpu, None) {
            Ok(mems) => {
                for m in mems {
                    match clock_list(&dev.gpu, Some(m)) {
                        Ok(grs) => grs.into_iter().for_each(|g| push(Ok(m), Ok(g))),
                        Err(c) => push(Ok(m), Err(c)),
                    }
                }
            }
            Err(c) => push(Err(c), Err(c)),
        }
    }
    rows
}

/// NVML's two-call clock lists, read raw: `None` for the supported memory
/// clocks, `Some(mem)` for the graphics clocks that go with `mem`. A driver
/// that answers INSUFFICIENT_SIZE without asking for more room gets that
/// error back, never a list padded with zeros (nvml-wrapper 0.13 returns
/// its whole 128-entry buffer in that case).
fn clock_list(
    gpu: &crate::fields::gpu::GpuCtx<'_>,
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
