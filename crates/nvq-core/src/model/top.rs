//! `nvq top`'s data: one sample of the GPUs and their processes, as the
//! collector reads it and the view draws it. Numbers are in base units
//! (bytes, percent, watts, MHz, bytes per second); `None` is a value NVML
//! does not give for this GPU (or a process `/proc` does not show). Text is
//! shared (`Arc<str>`): a sample holds the reader's strings, not copies, so
//! a sample costs no allocation for names that did not change.

use super::NvmlCode;
use std::borrow::Cow;
use std::sync::Arc;

/// Whether a GPU answered this sample.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Health {
    /// It answered before the sample's deadline.
    Fresh,
    /// It did not answer in time (a hung driver call): its values are
    /// unknown this sample, not the last ones seen.
    Late,
    /// NVML says it is gone (fallen off the bus, needs a reset, ...).
    Lost(NvmlCode),
}

/// A MIG device of a GPU.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MigSnap {
    /// The profile, as the device's name carries it (`1g.10gb`).
    pub profile: Arc<str>,
    /// The MIG device's UUID (`MIG-…`).
    pub uuid: Arc<str>,
    /// The id of its GPU instance.
    pub gpu_instance: Option<u32>,
    /// The id of its compute instance within that GPU instance.
    pub compute_instance: Option<u32>,
    /// Its memory in use, bytes.
    pub mem_used: Option<u64>,
    /// Its memory in all, bytes.
    pub mem_total: Option<u64>,
}

/// One GPU in one sample.
#[derive(Clone, Debug, PartialEq)]
pub struct GpuSnap {
    /// The node it was read from (`--hosts`, as named there); empty for
    /// this machine's GPUs.
    pub host: Arc<str>,
    /// The GPU's NVML index (on its node).
    pub index: u32,
    /// Its UUID (`GPU-…`).
    pub uuid: Arc<str>,
    /// Its product name.
    pub name: Arc<str>,
    /// Whether it answered this sample; the values below are `None` unless [`Health::Fresh`].
    pub health: Health,
    /// Memory in use, bytes (`memory.used`).
    pub mem_used: Option<u64>,
    /// Memory in all, bytes (`memory.total`).
    pub mem_total: Option<u64>,
    /// Are `mem_used` and `mem_total` the system's memory, which a
    /// unified-memory GPU shares (`memory.derived`)?
    pub mem_derived: bool,
    /// GPU utilization, percent (`utilization.gpu`).
    pub util_gpu: Option<f64>,
    /// Memory utilization, percent of time memory was read or written (`utilization.memory`).
    pub util_mem: Option<f64>,
    /// GPU temperature, °C.
    pub temp_c: Option<f64>,
    /// Power draw, watts.
    pub power_w: Option<f64>,
    /// Power limit, watts.
    pub power_limit_w: Option<f64>,
    /// SM clock, MHz.
    pub clock_sm_mhz: Option<f64>,
    /// Memory clock, MHz.
    pub clock_mem_mhz: Option<f64>,
    /// Fan speed, percent of its maximum.
    pub fan_pct: Option<f64>,
    /// PCIe traffic into the GPU, bytes per second.
    pub pcie_rx: Option<f64>,
    /// PCIe traffic out of the GPU, bytes per second.
    pub pcie_tx: Option<f64>,
    /// Its MIG devices; empty when MIG is off.
    pub mig: Vec<MigSnap>,
}

impl GpuSnap {
    /// A GPU with nothing known but who it is, in this state.
    pub fn unknown(index: u32, uuid: Arc<str>, name: Arc<str>, health: Health) -> Self {
        GpuSnap {
            host: Arc::default(),
            index,
            uuid,
            name,
            health,
            mem_used: None,
            mem_total: None,
            mem_derived: false,
            util_gpu: None,
            util_mem: None,
            temp_c: None,
            power_w: None,
            power_limit_w: None,
            clock_sm_mhz: None,
            clock_mem_mhz: None,
            fan_pct: None,
            pcie_rx: None,
            pcie_tx: None,
            mig: Vec::new(),
        }
    }

    /// What its curves are kept by: the UUID, with the node's name before
    /// it for another node's GPU (two nodes may report the same UUID).
    pub fn series_id(&self) -> Cow<'_, str> {
        series_id(&self.host, &self.uuid)
    }
}

/// A GPU's series id: `uuid`, or `host uuid` for another node's.
fn series_id<'a>(host: &str, uuid: &'a str) -> Cow<'a, str> {
    if host.is_empty() {
        Cow::Borrowed(uuid)
    } else {
        Cow::Owned(format!("{host} {uuid}"))
    }
}

/// One process on one GPU in one sample.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ProcSnap {
    /// The node it runs on (as [`GpuSnap::host`]); empty for this machine.
    pub host: Arc<str>,
    /// The NVML index of the GPU it runs on.
    pub gpu: u32,
    /// That GPU's UUID.
    pub gpu_uuid: Arc<str>,
    /// The process's PID.
    pub pid: u32,
    /// Start time (clock ticks since boot, `/proc/PID/stat` field 22; 0 when
    /// unknown): with the PID it tells a reused PID from the same process.
    pub start: u64,
    /// `C` compute, `G` graphics, `C+G`, `M` MPS.
    pub kind: &'static str,
    /// The name of the user it runs as, from `/proc`.
    pub user: Option<Arc<str>>,
    /// GPU memory it uses, bytes.
    pub gpu_mem: Option<u64>,
    /// SM utilization, percent (`pmon`'s `sm`).
    pub sm: Option<f64>,
    /// Video encoder utilization, percent (`pmon`'s `enc`).
    pub enc: Option<f64>,
    /// Video decoder utilization, percent (`pmon`'s `dec`).
    pub dec: Option<f64>,
    /// Host CPU, percent of one core, since the previous sample.
    pub cpu_pct: Option<f64>,
    /// Resident host memory, bytes.
    pub host_mem: Option<u64>,
    /// The container's id, shortened to 12 hex digits.
    pub container: Option<Arc<str>>,
    /// The command line (or NVML's process name when `/proc` does not show
    /// the process), as given: the view makes it printable.
    pub command: Arc<str>,
}

impl ProcSnap {
    /// Its GPU's [`GpuSnap::series_id`].
    pub fn gpu_series_id(&self) -> Cow<'_, str> {
        series_id(&self.host, &self.gpu_uuid)
    }
}

/// How a node of `--hosts` answered this sample.
#[derive(Clone, Debug, PartialEq)]
pub enum HostState {
    /// It answered before the sample's deadline.
    Reachable,
    /// It did not answer by the deadline; its GPUs are shown late.
    Late,
    /// It could not be read: why, as given (the view makes it printable).
    Failed(Arc<str>),
}

/// A node of `--hosts` in one sample.
#[derive(Clone, Debug, PartialEq)]
pub struct HostSnap {
    /// The node as `--hosts` names it.
    pub name: Arc<str>,
    /// How it answered.
    pub state: HostState,
    /// What its answer cannot hold, said beside its state: a node that runs
    /// dcgm-exporter lists no processes (`dcgm-exporter lists no processes`).
    pub lacks: Option<Arc<str>>,
}

/// One sample of every selected GPU.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TopSample {
    /// Seconds since the UNIX epoch.
    pub t: f64,
    /// The selected GPUs, in index order.
    pub gpus: Vec<GpuSnap>,
    /// Their processes.
    pub procs: Vec<ProcSnap>,
    /// With `--hosts`, the nodes in the order named (their GPUs come in
    /// the same order); empty for this machine's GPUs.
    pub hosts: Vec<HostSnap>,
}
