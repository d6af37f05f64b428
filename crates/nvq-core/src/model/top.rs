#![allow(missing_docs)]
//! `nvq top`'s data: one sample of the GPUs and their processes, as the
//! collector reads it and the view draws it. Numbers are in base units
//! (bytes, percent, watts, MHz, bytes per second); `None` is a value NVML
//! does not give for this GPU (or a process `/proc` does not show).

use super::NvmlCode;

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
    pub profile: String,
    pub uuid: String,
    pub gpu_instance: Option<u32>,
    pub compute_instance: Option<u32>,
    pub mem_used: Option<u64>,
    pub mem_total: Option<u64>,
}

/// One GPU in one sample.
#[derive(Clone, Debug, PartialEq)]
pub struct GpuSnap {
    pub index: u32,
    pub uuid: String,
    pub name: String,
    pub health: Health,
    pub mem_used: Option<u64>,
    pub mem_total: Option<u64>,
    pub util_gpu: Option<f64>,
    pub util_mem: Option<f64>,
    pub temp_c: Option<f64>,
    pub power_w: Option<f64>,
    pub power_limit_w: Option<f64>,
    pub clock_sm_mhz: Option<f64>,
    pub clock_mem_mhz: Option<f64>,
    pub fan_pct: Option<f64>,
    /// PCIe traffic into and out of the GPU, bytes per second.
    pub pcie_rx: Option<f64>,
    pub pcie_tx: Option<f64>,
    pub mig: Vec<MigSnap>,
}

impl GpuSnap {
    /// A GPU with nothing known but who it is, in this state.
    pub fn unknown(index: u32, uuid: String, name: String, health: Health) -> Self {
        GpuSnap {
            index,
            uuid,
            name,
            health,
            mem_used: None,
            mem_total: None,
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
}

/// One process on one GPU in one sample.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ProcSnap {
    pub gpu: u32,
    pub gpu_uuid: String,
    pub pid: u32,
    /// Start time (clock ticks since boot, `/proc/PID/stat` field 22; 0 when
    /// unknown): with the PID it tells a reused PID from the same process.
    pub start: u64,
    /// `C` compute, `G` graphics, `C+G`, `M` MPS.
    pub kind: String,
    pub user: Option<String>,
    pub gpu_mem: Option<u64>,
    pub sm: Option<f64>,
    pub enc: Option<f64>,
    pub dec: Option<f64>,
    /// Host CPU, percent of one core, since the previous sample.
    pub cpu_pct: Option<f64>,
    /// Resident host memory, bytes.
    pub host_mem: Option<u64>,
    /// The container's id, shortened to 12 hex digits.
    pub container: Option<String>,
    /// The command line (or NVML's process name when `/proc` does not show
    /// the process), as given: the view makes it printable.
    pub command: String,
}

/// One sample of every selected GPU.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TopSample {
    /// Seconds since the UNIX epoch.
    pub t: f64,
    pub gpus: Vec<GpuSnap>,
    pub procs: Vec<ProcSnap>,
}
