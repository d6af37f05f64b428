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

use super::devctx::{self, info, DevCtx};
use super::procinfo::{self, ProcSample};
use super::{FieldDef, FieldInfo, Value};
use crate::format::Row;
use crate::nvml::{NvmlCode, Session};
use nvml_wrapper::Device;
use nvml_wrapper_sys::bindings::{nvmlDevice_t, nvmlProcessInfo_v1_t, nvmlProcessInfo_v2_t};
use std::cell::OnceCell;
use std::os::raw::c_uint;

/// NVML's "no value" for 64-bit counters (`NVML_VALUE_NOT_AVAILABLE`).
const NOT_AVAILABLE_U64: u64 = u64::MAX;
/// NVML's "no value" for instance ids.
const NOT_AVAILABLE_U32: u32 = u32::MAX;
/// Buffer for `nvmlSystemGetProcessName`; NVML cuts longer names.
const PROCESS_NAME_LEN: usize = 1024;

/// One process in a GPU's compute process list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Proc {
    pub pid: u32,
    /// Bytes; `None` when NVML cannot tell (Windows WDDM, some MIG setups).
    pub used_memory: Option<u64>,
    pub gpu_instance_id: Option<u32>,
    pub compute_instance_id: Option<u32>,
}

impl From<nvmlProcessInfo_v2_t> for Proc {
    fn from(p: nvmlProcessInfo_v2_t) -> Self {
        Proc {
            pid: p.pid,
            used_memory: Some(p.usedGpuMemory).filter(|m| *m != NOT_AVAILABLE_U64),
            gpu_instance_id: Some(p.gpuInstanceId).filter(|i| *i != NOT_AVAILABLE_U32),
            compute_instance_id: Some(p.computeInstanceId).filter(|i| *i != NOT_AVAILABLE_U32),
        }
    }
}

impl From<nvmlProcessInfo_v1_t> for Proc {
    fn from(p: nvmlProcessInfo_v1_t) -> Self {
        Proc {
            pid: p.pid,
            used_memory: Some(p.usedGpuMemory).filter(|m| *m != NOT_AVAILABLE_U64),
            gpu_instance_id: None,
            compute_instance_id: None,
        }
    }
}

type ListFn<T> = unsafe extern "C" fn(nvmlDevice_t, *mut c_uint, *mut T) -> u32;

/// NVML's two-call list protocol: ask for the count, then fill a buffer with
/// some headroom; if the list grew past it meanwhile, ask again.
///
/// # Safety
/// `f` must be an NVML process-list function taking `T` records and
/// `handle` a live device handle.
unsafe fn read_list<T: Copy>(
    f: ListFn<T>,
    handle: nvmlDevice_t,
    zero: T,
) -> Result<Vec<T>, NvmlCode> {
    let mut want: c_uint = 0;
    // SAFETY: a null buffer with a zero count is the documented sizing call.
    match unsafe { f(handle, &mut want, std::ptr::null_mut()) } {
        0 => return Ok(Vec::new()),
        7 => {}
        e => return Err(NvmlCode(e)),
    }
    for _ in 0..8 {
        let cap = want.saturating_add(want / 4).saturating_add(8);
        let mut buf = vec![zero; cap as usize];
        let mut n = cap;
        // SAFETY: `buf` holds `n` records, the count NVML is told.
        match unsafe { f(handle, &mut n, buf.as_mut_ptr()) } {
            0 => {
                buf.truncate((n as usize).min(buf.len()));
                return Ok(buf);
            }
            7 => want = n.max(cap.saturating_mul(2)),
            e => return Err(NvmlCode(e)),
        }
    }
    Err(NvmlCode::INSUFFICIENT_SIZE)
}

/// Is this the answer of a driver that lacks the function?
fn missing(r: &Result<Vec<Proc>, NvmlCode>) -> bool {
    matches!(r, Err(c) if *c == NvmlCode::FUNCTION_NOT_FOUND)
}

/// The GPU's compute processes, through `_v3`, else `_v2`, else the
/// original function: a symbol missing from the library and an NVML
/// FUNCTION_NOT_FOUND answer both move on to the next older one.
pub fn running_compute_processes(
    session: &Session,
    device: &Device<'_>,
) -> Result<Vec<Proc>, NvmlCode> {
    let lib = session.lib();
    // SAFETY: the handle comes from nvml-wrapper and stays valid while the
    // session lives; the record types match each symbol's prototype.
    let handle = unsafe { device.handle() };
    let zero2 = nvmlProcessInfo_v2_t {
        pid: 0,
        usedGpuMemory: 0,
        gpuInstanceId: 0,
        computeInstanceId: 0,
    };
    let r = match lib.nvmlDeviceGetComputeRunningProcesses_v3.as_ref() {
        Ok(f) => {
            unsafe { read_list(*f, handle, zero2) }.map(|v| v.into_iter().map(Proc::from).collect())
        }
        Err(_) => Err(NvmlCode::FUNCTION_NOT_FOUND),
    };
    if !missing(&r) {
        return r;
    }
    let r = match lib.nvmlDeviceGetComputeRunningProcesses_v2.as_ref() {
        Ok(f) => {
            unsafe { read_list(*f, handle, zero2) }.map(|v| v.into_iter().map(Proc::from).collect())
        }
        Err(_) => Err(NvmlCode::FUNCTION_NOT_FOUND),
    };
    if !missing(&r) {
        return r;
    }
    let zero1 = nvmlProcessInfo_v1_t {
        pid: 0,
        usedGpuMemory: 0,
    };
    match lib.nvmlDeviceGetComputeRunningProcesses.as_ref() {
        Ok(f) => {
            unsafe { read_list(*f, handle, zero1) }.map(|v| v.into_iter().map(Proc::from).collect())
        }
        Err(_) => Err(NvmlCode::FUNCTION_NOT_FOUND),
    }
}

/// `nvmlSystemGetProcessName`, keeping names that are not valid UTF-8.
pub fn process_name(session: &Session, pid: u32) -> Result<String, NvmlCode> {
    let f = session
        .lib()
        .nvmlSystemGetProcessName
        .as_ref()
        .map_err(|_| NvmlCode::FUNCTION_NOT_FOUND)?;
    let mut buf = vec![0 as std::os::raw::c_char; PROCESS_NAME_LEN];
    // SAFETY: NVML writes at most `len` bytes, NUL-terminated, into `buf`.
    let rc = unsafe { f(pid, buf.as_mut_ptr(), buf.len() as c_uint) };
    crate::nvml::check(rc)?;
    if let Some(last) = buf.last_mut() {
        *last = 0;
    }
    // SAFETY: the buffer is NUL-terminated (forced above).
    let name = unsafe { std::ffi::CStr::from_ptr(buf.as_ptr()) };
    Ok(name.to_string_lossy().into_owned())
}

/// One row: a GPU and one of its processes (or the reason there is none).
pub struct ProcRow<'a> {
    pub dev: &'a DevCtx<'a>,
    pub proc: Result<Proc, NvmlCode>,
    pub host: &'a ProcSample,
    status: OnceCell<Result<String, NvmlCode>>,
}

impl devctx::RowKey for ProcRow<'_> {
    fn labels(&self) -> Vec<(&'static str, String)> {
        let Ok(p) = &self.proc else {
            return Vec::new();
        };
        let mut l = vec![("pid", p.pid.to_string())];
        // The same PID can run in two MIG instances of one GPU.
        for (k, v) in [
            ("gpu_instance_id", p.gpu_instance_id),
            ("compute_instance_id", p.compute_instance_id),
        ] {
            if let Some(v) = v {
                l.push((k, v.to_string()));
            }
        }
        l
    }
}

impl<'a> ProcRow<'a> {
    pub fn new(dev: &'a DevCtx<'a>, proc: Result<Proc, NvmlCode>, host: &'a ProcSample) -> Self {
        ProcRow {
            dev,
            proc,
            host,
            status: OnceCell::new(),
        }
    }

    /// A cell computed from the process, or the list's error token.
    fn with(&self, f: impl FnOnce(&Proc) -> Value) -> Value {
        match &self.proc {
            Ok(p) => f(p),
            Err(c) => self.dev.err(*c),
        }
    }

    /// A cell computed from the host's `/proc` entry of the process:
    /// `[N/A]` when nvq has no procfs of the host's PID namespace,
    /// `[Not Found]` when the process has exited.
    fn proc_cell(
        &self,
        f: impl FnOnce(&procinfo::HostProc, u32, &str) -> Result<Value, NvmlCode>,
    ) -> Value {
        self.with(|p| {
            let Some(host) = self.host.host() else {
                return self.dev.na();
            };
            let status = self.status.get_or_init(|| host.status(p.pid));
            match status {
                Ok(s) => f(host, p.pid, s).unwrap_or_else(|c| self.dev.err(c)),
                Err(c) => self.dev.err(*c),
            }
        })
    }
}

/// The getter of a `--query-compute-apps` field.
pub type Getter = for<'a, 'b> fn(&'a ProcRow<'b>) -> Value;

const fn f(info: FieldInfo, get: Getter) -> FieldDef<Getter> {
    FieldDef { info, get }
}

/// Every `--query-compute-apps` field, in `--help-query-compute-apps` order.
pub static FIELDS: &[FieldDef<Getter>] = &[
    f(
        info::TIMESTAMP.heading(
            "Active Compute Processes",
            "Processes that hold a compute context on a GPU; one line per process and GPU.",
        ),
        |r| r.dev.timestamp(),
    ),
    f(info::GPU_NAME, |r| r.dev.name()),
    f(info::GPU_BUS_ID, |r| r.dev.bus_id()),
    f(info::GPU_SERIAL, |r| r.dev.serial()),
    f(info::GPU_UUID, |r| r.dev.uuid()),
    f(
        FieldInfo::new("pid", "Process id as the driver reports it (the host's PID namespace)."),
        |r| r.with(|p| Value::Int(i64::from(p.pid))),
    ),
    f(
        FieldInfo::new(
            "process_name",
            "Name of the process as the driver reports it, usually its executable path. [Not Found] if it exited while being listed.",
        )
        .aliases(&["name"]),
        |r| r.with(|p| r.dev.value(process_name(r.dev.gpu.session, p.pid), Value::text)),
    ),
    f(
        FieldInfo::new(
            "used_gpu_memory",
            "GPU memory the process's context holds. [N/A] where the driver cannot tell, e.g. on Windows in WDDM mode, where the OS manages GPU memory.",
        )
        .aliases(&["used_memory"])
        .unit("MiB"),
        |r| r.with(|p| p.used_memory.map_or_else(|| r.dev.na(), Value::Bytes)),
    ),
    f(
        FieldInfo::new(
            "used_gpu_memory.percent",
            "used_gpu_memory as a share of the GPU's total memory (memory.total), with two decimals.",
        )
        .unit("%")
        .extension(),
        |r| {
            r.with(|p| {
                let Some(used) = p.used_memory else {
                    return r.dev.na();
                };
                r.dev.value(r.dev.gpu.memory().map(|m| m.total), |total| {
                    if total == 0 {
                        r.dev.na()
                    } else {
                        Value::Float {
                            value: used as f64 * 100.0 / total as f64,
                            decimals: 2,
                        }
                    }
                })
            })
        },
    ),
    f(
        FieldInfo::new(
            "local_pid",
            "The process's PID in nvq's own PID namespace, which differs from pid when nvq runs in a container. [Not Found] if the process is not visible in that namespace (or has exited). [N/A] if nvq cannot map host PIDs: inside a container it needs the host's /proc, named by the NVQ_HOST_PROC environment variable.",
        )
        .extension(),
        |r| r.proc_cell(|host, pid, status| host.local_pid(pid, status).map(|l| Value::Int(i64::from(l)))),
    ),
    f(
        FieldInfo::new(
            "user",
            "Name of the user the process runs as (effective uid; the number when the uid has no name). [N/A] as for local_pid.",
        )
        .extension(),
        |r| {
            r.proc_cell(|_, _, status| {
                let uid = procinfo::parse_euid(status).ok_or(NvmlCode::NOT_FOUND)?;
                Ok(Value::text(r.host.user_name(uid)))
            })
        },
    ),
    f(
        FieldInfo::new(
            "command_line",
            "The process's full command line, arguments joined by spaces (printed unquoted, like process_name). [N/A] as for local_pid.",
        )
        .aliases(&["cmdline"])
        .extension(),
        |r| {
            r.proc_cell(|host, pid, _| {
                host.read(pid, "cmdline")
                    .map(|b| Value::text(procinfo::parse_cmdline(&b)))
            })
        },
    ),
    f(
        FieldInfo::new(
            "container_id",
            "Full 64-hex-digit id of the container the process runs in (Docker, containerd, CRI-O, Podman), read from its cgroup. [N/A] when it is in none, or as for local_pid.",
        )
        .extension(),
        |r| {
            r.proc_cell(|host, pid, _| {
                let cg = host.read(pid, "cgroup")?;
                Ok(procinfo::container_id(&String::from_utf8_lossy(&cg))
                    .map_or_else(|| r.dev.na(), Value::Text))
            })
        },
    ),
];

/// Read the given fields for every process of every selected GPU.
pub fn collect(session: &Session, devices: &[u32], fields: &[usize]) -> Vec<Row> {
    collect_with(session, devices, fields, &ProcSample::new())
}

/// [`collect`] with a given `/proc` view.
pub fn collect_with(
    session: &Session,
    devices: &[u32],
    fields: &[usize],
    host: &ProcSample,
) -> Vec<Row> {
    let get = |r: &ProcRow<'_>, f: usize| FIELDS.get(f).map(|d| (d.get)(r));
    let mut rows = Vec::new();
    for &i in devices {
        let dev = DevCtx::new(session, i);
        let list = dev
            .gpu
            .dev()
            .and_then(|d| running_compute_processes(session, d));
        match list {
            Ok(procs) => {
                rows.reserve(procs.len());
                for p in procs {
                    rows.push(devctx::row(
                        &dev,
                        &ProcRow::new(&dev, Ok(p), host),
                        fields,
                        get,
                    ));
                }
            }
            Err(c) if c == NvmlCode::NOT_SUPPORTED => {}
            Err(c) => rows.push(devctx::row(
                &dev,
                &ProcRow::new(&dev, Err(c), host),
                fields,
                get,
            )),
        }
    }
    rows
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fields::QueryMode;

    #[test]
    fn aliases_resolve_to_canonical_fields() {
        let m = QueryMode::ComputeApps;
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
        let names: Vec<&str> = QueryMode::ComputeApps
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

    #[test]
    fn not_available_memory_is_none() {
        let p = Proc::from(nvmlProcessInfo_v2_t {
            pid: 7,
            usedGpuMemory: NOT_AVAILABLE_U64,
            gpuInstanceId: 1,
            computeInstanceId: NOT_AVAILABLE_U32,
        });
        assert_eq!(p.used_memory, None);
        assert_eq!(p.gpu_instance_id, Some(1));
        assert_eq!(p.compute_instance_id, None);
        let p = Proc::from(nvmlProcessInfo_v1_t {
            pid: 8,
            usedGpuMemory: 1 << 20,
        });
        assert_eq!(p.used_memory, Some(1 << 20));
    }
}
