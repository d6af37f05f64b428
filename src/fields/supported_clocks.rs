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
            rows.push(devctx::row(&r, fields, get));
        };
        match dev.gpu.call(|d| d.supported_memory_clocks()) {
            Ok(mems) => {
                for m in mems {
                    match dev.gpu.call(|d| d.supported_graphics_clocks(m)) {
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
