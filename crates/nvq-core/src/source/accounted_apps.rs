//! `--query-accounted-apps`: one row per process that accounting mode has
//! recorded on each GPU (running or finished), in GPU enumeration order.
//!
//! With accounting disabled or unsupported (NVML answers NOT_SUPPORTED) a GPU
//! contributes no rows, so an idle machine prints the header alone. Another
//! failure of the pid list gives the GPU one row carrying the error token; a
//! failure of one process's statistics puts the token in that row's
//! statistics columns.

use super::gpu::read;
use super::list_mode::{field, gpu_columns, list_mode_def, ListGpu, ListMode};
use super::mode_def::ModeDef;
use crate::model::{FieldInfo, ListField, NvmlCode, Section, Value};
use nvml_wrapper::struct_wrappers::device::AccountingStats;

/// One row: an accounted process.
pub struct AcctRow {
    /// The process id NVML's accounting recorded.
    pub pid: u32,
    /// Its accounting statistics (`nvmlDeviceGetAccountingStats`), or the NVML code that call failed with.
    pub stats: Result<AccountingStats, NvmlCode>,
}

impl AcctRow {
    fn stat(&self, gpu: &ListGpu<'_>, f: impl FnOnce(&AccountingStats) -> Option<Value>) -> Value {
        match &self.stats {
            Ok(s) => f(s).unwrap_or_else(|| gpu.na()),
            Err(c) => gpu.err(*c),
        }
    }
}

/// The `--query-accounted-apps` mode: one row per process accounting mode recorded.
pub const MODE: ModeDef = list_mode_def!(
    "query-accounted-apps",
    "List the processes that accounting mode has recorded",
    LIST
);

static LIST: ListMode<AcctRow> = ListMode {
    gpu: gpu_columns(Some(Section {
        name: "Accounted Graphics/Compute Processes",
        help: "Processes that accounting mode has recorded on a GPU while they held a graphics or compute \
               context, finished ones included. Accounting must be enabled (nvidia-smi -am 1).\n\nGive the \
               fields as a comma-separated list, with --format, for instance:\nnvq \
               --query-accounted-apps=gpu_name,pid,time,gpu_util,mem_util,max_memory_usage \
               --format=csv\n\nThe fields are:",
    })),
    fields: &[
            field(
            ListField::VgpuInstance.id(),
            FieldInfo::new(
                ListField::VgpuInstance.name(),
                "The vGPU instance the process ran in, on a vGPU host. nvq does not read vGPU \
                 accounting and prints [N/A].",
            ),
            |g, _| g.na(),
        ),
            field(
            ListField::Pid.id(),
            FieldInfo::new(ListField::Pid.name(), "Process id of the accounted process, as the driver reports it.").row_label(),
            |_, r| Value::Int(i64::from(r.pid)),
        ),
            field(
            ListField::GpuUtilization.id(),
            FieldInfo::new(
                ListField::GpuUtilization.name(),
                "Share of the process's lifetime during which at least one of its kernels ran on the \
                 GPU.",
            )
            .aliases(&["gpu_util"])
            .unit("%"),
            |g, r| r.stat(g, |s| s.gpu_utilization.map(|v| Value::Int(i64::from(v)))),
        ),
            field(
            ListField::MemUtilization.id(),
            FieldInfo::new(
                ListField::MemUtilization.name(),
                "Share of the process's lifetime during which its context read or wrote device \
                 memory.",
            )
            .aliases(&["mem_util"])
            .unit("%"),
            |g, r| r.stat(g, |s| s.memory_utilization.map(|v| Value::Int(i64::from(v)))),
        ),
            field(
            ListField::MaxMemoryUsage.id(),
            FieldInfo::new(
                ListField::MaxMemoryUsage.name(),
                "The most GPU memory the process's context ever held.",
            )
            .unit("MiB"),
            |g, r| r.stat(g, |s| s.max_memory_usage.map(Value::Bytes)),
        ),
            field(
            ListField::Time.id(),
            FieldInfo::new(
                ListField::Time.name(),
                "How long the process's context was active, in milliseconds; 0 while the process \
                 still runs.",
            )
            .unit("ms"),
            |g, r| r.stat(g, |s| i64::try_from(s.time).ok().map(Value::Int)),
        ),
    ],
    items: |gpu| {
        let pids = read::accounting_pids(&gpu.gpu)?;
        Ok(pids
            .into_iter()
            .map(|pid| AcctRow {
                pid,
                stats: read::accounting_stats(&gpu.gpu, pid),
            })
            .collect())
    },
    unsupported_is_empty: true,
    labels: |r| vec![("pid", r.pid.to_string())],
};

#[cfg(test)]
mod tests {
    use crate::source::QueryMode;

    #[test]
    fn headers_use_canonical_names_and_units() {
        let m = QueryMode::ACCOUNTED_APPS;
        let fields = m.fields();
        let h = |tok: &str| fields[m.lookup(tok).unwrap()].header(590);
        assert_eq!(h("gpu_util"), "gpu_utilization [%]");
        assert_eq!(h("mem_util"), "mem_utilization [%]");
        assert_eq!(h("max_memory_usage"), "max_memory_usage [MiB]");
        assert_eq!(h("time"), "time [ms]");
    }
}
