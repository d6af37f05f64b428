//! `--query-compute-apps`: one row per compute process per GPU.
//!
//! Rows come in GPU enumeration order, then in the order NVML lists each
//! GPU's processes. Each GPU's process list is read once per sample, and all
//! its rows carry the same timestamp. No processes: the header alone.
//!
//! Decisions where nvidia-smi's behaviour is not known:
//! - a GPU whose process list NVML does not support contributes no rows; any
//!   other failure (a lost GPU, ...) gives that GPU one row whose process
//!   columns carry the error token, so that the failure is visible;
//! - a process that exits between the list and the name lookup keeps its
//!   row; its `process_name` is NVML's token for the failure, `[Not Found]`.
//!
//! In MIG mode the list is read from the parent GPU, so the rows carry the
//! parent's name, bus id and UUID, as nvidia-smi prints them.

use super::list_mode::{field, gpu_columns, list_mode_def, ListGpu, ListMode};
use super::mode_def::ModeDef;
use super::procinfo;
use crate::model::{FieldInfo, ListField, NvmlCode, Section, Value};
use crate::nvml::raw::{self, Proc, ProcessList};
use std::cell::OnceCell;

/// One row: a process, and what was read of it from the host's `/proc`.
pub struct ProcRow {
    /// The process as NVML reports it in the compute process list (PID, used GPU memory).
    pub proc: Proc,
    status: OnceCell<Result<String, NvmlCode>>,
}

impl ProcRow {
    /// A cell computed from the host's `/proc` entry of the process:
    /// `[N/A]` when nvq has no procfs of the host's PID namespace,
    /// `[Not Found]` when the process has exited.
    /// What `parse` finds in the process's `/proc/PID/cgroup`; `[N/A]`
    /// when it finds nothing.
    fn cgroup_cell(&self, gpu: &ListGpu<'_>, parse: fn(&str) -> Option<String>) -> Value {
        self.proc_cell(gpu, |host, pid, _| {
            let cg = host.read(pid, "cgroup")?;
            Ok(parse(&String::from_utf8_lossy(&cg)).map_or_else(|| gpu.na(), Value::Text))
        })
    }

    fn proc_cell(
        &self,
        gpu: &ListGpu<'_>,
        f: impl FnOnce(&procinfo::HostProc, u32, &str) -> Result<Value, NvmlCode>,
    ) -> Value {
        let Some(host) = gpu.shared.host.host() else {
            return gpu.na();
        };
        let pid = self.proc.pid;
        match self.status.get_or_init(|| host.status(pid)) {
            Ok(s) => f(host, pid, s).unwrap_or_else(|c| gpu.err(c)),
            Err(c) => gpu.err(*c),
        }
    }
}

/// The `--query-compute-apps` mode: one row per process that holds a compute context.
pub const MODE: ModeDef = list_mode_def!(
    "query-compute-apps",
    "List the processes that hold a compute context, with their GPU memory",
    LIST
);

/// Every `--query-compute-apps` field, in `--help-query-compute-apps` order.
static LIST: ListMode<ProcRow> = ListMode {
    gpu: gpu_columns(Some(Section {
        name: "Active Compute Processes",
        help: "Processes that hold a compute context on a GPU; one line per process and GPU.",
    })),
    items: |gpu| {
        let procs = raw::processes(&gpu.gpu.raw(), ProcessList::Compute)?;
        Ok(procs
            .into_iter()
            .map(|proc| ProcRow {
                proc,
                status: OnceCell::new(),
            })
            .collect())
    },
    unsupported_is_empty: true,
    labels: |r| {
        let mut l = vec![("pid", r.proc.pid.to_string())];
        // The same PID can run in two MIG instances of one GPU.
        for (k, v) in [
            ("gpu_instance_id", r.proc.gpu_instance_id),
            ("compute_instance_id", r.proc.compute_instance_id),
        ] {
            if let Some(v) = v {
                l.push((k, v.to_string()));
            }
        }
        l
    },
    fields: &[
        field(
        ListField::Pid.id(),
        FieldInfo::new(ListField::Pid.name(), "Process id as the driver reports it (the host's PID namespace).").row_label(),
        |_, r| Value::Int(i64::from(r.proc.pid)),
    ),
        field(
        ListField::ProcessName.id(),
        FieldInfo::new(
            ListField::ProcessName.name(),
            "Name of the process as the driver reports it, usually its executable path. [Not \
             Found] if it exited while being listed.",
        )
        .aliases(&["name"]),
        |g, r| g.value(raw::process_name(g.gpu.session, r.proc.pid), Value::text),
    ),
        field(
        ListField::UsedGpuMemory.id(),
        FieldInfo::new(
            ListField::UsedGpuMemory.name(),
            "GPU memory the process's context holds. [N/A] where the driver cannot tell, e.g. on \
             Windows in WDDM mode, where the OS manages GPU memory.",
        )
        .aliases(&["used_memory"])
        .unit("MiB"),
        |g, r| r.proc.used_memory.map_or_else(|| g.na(), Value::Bytes),
    ),
        field(
        ListField::UsedGpuMemoryPercent.id(),
        FieldInfo::new(
            ListField::UsedGpuMemoryPercent.name(),
            "used_gpu_memory as a share of the GPU's total memory (memory.total), with two \
             decimals.",
        )
        .unit("%")
        .extension(),
        |g, r| {
            let Some(used) = r.proc.used_memory else {
                return g.na();
            };
            g.value(g.gpu.memory().map(|m| m.total), |total| {
                if total == 0 {
                    g.na()
                } else {
                    Value::Float {
                        value: used as f64 * 100.0 / total as f64,
                        decimals: 2,
                    }
                }
            })
        },
    ),
        field(
        ListField::LocalPid.id(),
        FieldInfo::new(
            ListField::LocalPid.name(),
            "The process's PID in nvq's own PID namespace, which differs from pid when nvq runs \
             in a container. [Not Found] if the process is not visible in that namespace (or has \
             exited). [N/A] if nvq cannot map host PIDs: inside a container it needs the host's \
             /proc, named by the NVQ_HOST_PROC environment variable.",
        )
        .extension(),
        |g, r| {
            r.proc_cell(g, |host, pid, status| {
                host.local_pid(pid, status).map(|l| Value::Int(i64::from(l)))
            })
        },
    ),
        field(
        ListField::User.id(),
        FieldInfo::new(
            ListField::User.name(),
            "Name of the user the process runs as (effective uid; the number when the uid has no \
             name). [N/A] as for local_pid.",
        )
        .extension(),
        |g, r| {
            r.proc_cell(g, |_, _, status| {
                let uid = procinfo::parse_euid(status).ok_or(NvmlCode::NOT_FOUND)?;
                Ok(Value::text(g.shared.host.user_name(uid)))
            })
        },
    ),
        field(
        ListField::CommandLine.id(),
        FieldInfo::new(
            ListField::CommandLine.name(),
            "The process's full command line, arguments joined by spaces (printed unquoted, like \
             process_name). [N/A] as for local_pid.",
        )
        .aliases(&["cmdline"])
        .extension(),
        |g, r| {
            r.proc_cell(g, |host, pid, _| {
                host.read(pid, "cmdline")
                    .map(|b| Value::text(procinfo::parse_cmdline(&b)))
            })
        },
    ),
        field(
        ListField::ContainerId.id(),
        FieldInfo::new(
            ListField::ContainerId.name(),
            "Full 64-hex-digit id of the container the process runs in (Docker, containerd, \
             CRI-O, Podman), read from its cgroup. [N/A] when it is in none, or as for local_pid.",
        )
        .extension(),
        |g, r| r.cgroup_cell(g, procinfo::container_id),
    ),
        field(
        ListField::PodUid.id(),
        FieldInfo::new(
            ListField::PodUid.name(),
            "UID of the Kubernetes pod the process runs in, read from its cgroup (the kubelet's \
             pod<uid> cgroup, either cgroup driver). [N/A] when it is in none, or as for local_pid.",
        )
        .extension(),
        |g, r| r.cgroup_cell(g, procinfo::pod_uid),
    ),
    ],
};

#[cfg(test)]
mod tests {
    use crate::source::QueryMode;

    #[test]
    fn aliases_resolve_to_canonical_fields() {
        let m = QueryMode::COMPUTE_APPS;
        assert_eq!(m.lookup("name"), m.lookup("process_name"));
        assert_eq!(m.lookup("used_memory"), m.lookup("used_gpu_memory"));
        let fields = m.fields();
        let used = fields[m.lookup("used_memory").unwrap()];
        assert_eq!(used.header(590), "used_gpu_memory [MiB]");
        assert!(
            m.lookup("uuid").is_none(),
            "query-gpu names are not compute-apps fields"
        );
    }

    #[test]
    fn nvidia_smi_fields_come_first_in_help_order() {
        let names: Vec<&str> = QueryMode::COMPUTE_APPS
            .fields()
            .iter()
            .filter(|f| !f.extension)
            .map(|f| f.name)
            .collect();
        assert_eq!(
            names,
            [
                "timestamp",
                "gpu_name",
                "gpu_bus_id",
                "gpu_serial",
                "gpu_uuid",
                "pid",
                "process_name",
                "used_gpu_memory"
            ]
        );
    }
}
