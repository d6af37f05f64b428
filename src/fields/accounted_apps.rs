//! `--query-accounted-apps`: one row per process that accounting mode has
//! recorded on each GPU (running or finished), in GPU enumeration order.
//!
//! With accounting disabled or unsupported (NVML answers NOT_SUPPORTED) a GPU
//! contributes no rows, so an idle machine prints the header alone. Another
//! failure of the pid list gives the GPU one row carrying the error token; a
//! failure of one process's statistics puts the token in that row's
//! statistics columns.

use super::devctx::{self, info, DevCtx};
use super::{FieldDef, FieldInfo, Value};
use crate::format::Row;
use crate::nvml::{NvmlCode, Session};
use nvml_wrapper::struct_wrappers::device::AccountingStats;

/// One row: a GPU and one accounted process.
pub struct AcctRow<'a> {
    pub dev: &'a DevCtx<'a>,
    pub pid: Result<u32, NvmlCode>,
    pub stats: Result<AccountingStats, NvmlCode>,
}

impl devctx::RowKey for AcctRow<'_> {
    fn labels(&self) -> Vec<(&'static str, String)> {
        self.pid.iter().map(|p| ("pid", p.to_string())).collect()
    }
}

impl AcctRow<'_> {
    fn stat(&self, f: impl FnOnce(&AccountingStats) -> Option<Value>) -> Value {
        match &self.stats {
            Ok(s) => f(s).unwrap_or_else(|| self.dev.na()),
            Err(c) => self.dev.err(*c),
        }
    }
}

pub type Getter = for<'a, 'b> fn(&'a AcctRow<'b>) -> Value;

const fn f(info: FieldInfo, get: Getter) -> FieldDef<Getter> {
    FieldDef { info, get }
}

/// Every `--query-accounted-apps` field, in help order.
pub static FIELDS: &[FieldDef<Getter>] = &[
    f(
        info::TIMESTAMP.heading(
            "Accounted Graphics/Compute Processes",
            "Processes that accounting mode has recorded on a GPU while they held a graphics or compute context, finished ones included. Accounting must be enabled (nvidia-smi -am 1).\n\nGive the fields as a comma-separated list, with --format, for instance:\nnvq --query-accounted-apps=gpu_name,pid,time,gpu_util,mem_util,max_memory_usage --format=csv\n\nThe fields are:",
        ),
        |r| r.dev.timestamp(),
    ),
    f(info::GPU_NAME, |r| r.dev.name()),
    f(info::GPU_BUS_ID, |r| r.dev.bus_id()),
    f(info::GPU_SERIAL, |r| r.dev.serial()),
    f(info::GPU_UUID, |r| r.dev.uuid()),
    f(
        FieldInfo::new(
            "vgpu_instance",
            "The vGPU instance the process ran in, on a vGPU host. nvq does not read vGPU accounting and prints [N/A].",
        ),
        |r| r.dev.na(),
    ),
    f(
        FieldInfo::new("pid", "Process id of the accounted process, as the driver reports it."),
        |r| r.dev.value(r.pid, |p| Value::Int(i64::from(p))),
    ),
    f(
        FieldInfo::new(
            "gpu_utilization",
            "Share of the process's lifetime during which at least one of its kernels ran on the GPU.",
        )
        .aliases(&["gpu_util"])
        .unit("%"),
        |r| r.stat(|s| s.gpu_utilization.map(|v| Value::Int(i64::from(v)))),
    ),
    f(
        FieldInfo::new(
            "mem_utilization",
            "Share of the process's lifetime during which its context read or wrote device memory.",
        )
        .aliases(&["mem_util"])
        .unit("%"),
        |r| r.stat(|s| s.memory_utilization.map(|v| Value::Int(i64::from(v)))),
    ),
    f(
        FieldInfo::new(
            "max_memory_usage",
            "The most GPU memory the process's context ever held.",
        )
        .unit("MiB"),
        |r| r.stat(|s| s.max_memory_usage.map(Value::Bytes)),
    ),
    f(
        FieldInfo::new(
            "time",
            "How long the process's context was active, in milliseconds; 0 while the process still runs.",
        )
        .unit("ms"),
        |r| r.stat(|s| i64::try_from(s.time).ok().map(Value::Int)),
    ),
];

/// Read the given fields for every accounted process of every selected GPU.
pub fn collect(session: &Session, devices: &[u32], fields: &[usize]) -> Vec<Row> {
    let get = |r: &AcctRow<'_>, f: usize| FIELDS.get(f).map(|d| (d.get)(r));
    let mut rows = Vec::new();
    for &i in devices {
        let dev = DevCtx::new(session, i);
        match dev.gpu.call(|d| d.accounting_pids()) {
            Ok(pids) => {
                for pid in pids {
                    let stats = dev.gpu.call(|d| d.accounting_stats_for(pid));
                    let r = AcctRow {
                        dev: &dev,
                        pid: Ok(pid),
                        stats,
                    };
                    rows.push(devctx::row(&dev, &r, fields, get));
                }
            }
            Err(c) if c == NvmlCode::NOT_SUPPORTED => {}
            Err(c) => {
                let r = AcctRow {
                    dev: &dev,
                    pid: Err(c),
                    stats: Err(c),
                };
                rows.push(devctx::row(&dev, &r, fields, get));
            }
        }
    }
    rows
}

#[cfg(test)]
mod tests {
    use crate::fields::QueryMode;

    #[test]
    fn headers_use_canonical_names_and_units() {
        let m = QueryMode::AccountedApps;
        let fields = m.fields();
        let h = |tok: &str| fields[m.lookup(tok).unwrap()].header(590);
        assert_eq!(h("gpu_util"), "gpu_utilization [%]");
        assert_eq!(h("mem_util"), "mem_utilization [%]");
        assert_eq!(h("max_memory_usage"), "max_memory_usage [MiB]");
        assert_eq!(h("time"), "time [ms]");
    }
}
