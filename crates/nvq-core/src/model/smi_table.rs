#![allow(missing_docs)]
//! The data behind plain `nvq` / `nvidia-smi`: nvidia-smi's default table,
//! one sample of it. `source::smi_table` fills it, `render::smi_table`
//! prints it. Every reading keeps its NVML result, so the renderer can print
//! `N/A` (or `Not Supported`) exactly where nvidia-smi does.

use super::NvmlCode;

/// One NVML reading: the value, or the code the call failed with.
pub type Reading<T> = Result<T, NvmlCode>;

/// Everything the summary table shows, for one sample.
#[derive(Debug, Clone, PartialEq)]
pub struct SmiTable {
    /// The first line: local time as `Fri Jul  3 22:11:09 2026`.
    pub date: String,
    /// `nvmlSystemGetDriverVersion`.
    pub driver_version: Reading<String>,
    /// `nvmlSystemGetCudaDriverVersion`: 13010 means 13.1.
    pub cuda_version: Reading<i32>,
    /// The selected GPUs, in enumeration order.
    pub gpus: Vec<TableGpu>,
    /// MIG devices of the selected GPUs that have MIG mode on.
    pub mig_devices: Vec<TableMig>,
    /// Processes on the selected GPUs, by GPU and then PID.
    pub processes: Vec<TableProcess>,
}

impl SmiTable {
    /// The driver's major version (590 for "590.48.01"); 0 when unknown.
    pub fn driver_major(&self) -> u32 {
        self.driver_version
            .as_deref()
            .map_or(0, super::listing::driver_major)
    }

    /// Does any selected GPU have MIG mode on? Then the table has a MIG section.
    pub fn any_mig(&self) -> bool {
        self.gpus.iter().any(|g| g.mig_mode == Ok(true))
    }

    /// Windows reports a driver model (WDDM/TCC/MCDM); the table then shows
    /// it in place of persistence mode.
    pub fn has_driver_model(&self) -> bool {
        self.gpus.iter().any(|g| g.driver_model.is_ok())
    }
}

/// Windows driver models (`nvmlDriverModel_t`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DriverModel {
    Wddm,
    /// `NVML_DRIVER_WDM`, which nvidia-smi calls TCC.
    Tcc,
    Mcdm,
}

/// Compute modes (`nvmlComputeMode_t`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ComputeMode {
    Default,
    ExclusiveThread,
    Prohibited,
    ExclusiveProcess,
}

/// The ECC state and count the `Volatile Uncorr. ECC` cell reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ecc {
    /// The GPU has no ECC mode (GeForce): `N/A`.
    NotAvailable,
    /// ECC is supported but off: `Off`.
    Disabled,
    /// ECC is on: the volatile uncorrected count, or `None` when the count
    /// cannot be read (MIG mode), which prints as `On`.
    Enabled(Option<u64>),
}

/// Memory in bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct MemoryUse {
    pub used: u64,
    pub total: u64,
}

/// One GPU's box.
#[derive(Debug, Clone, PartialEq)]
pub struct TableGpu {
    pub index: u32,
    pub name: Reading<String>,
    pub persistence_mode: Reading<bool>,
    pub driver_model: Reading<DriverModel>,
    pub bus_id: Reading<String>,
    pub display_active: Reading<bool>,
    pub ecc: Ecc,
    /// Percent, fan 0.
    pub fan: Reading<u32>,
    /// Degrees Celsius.
    pub temperature: Reading<u32>,
    /// 0..=15; `NVML_PSTATE_UNKNOWN` is an error here.
    pub performance_state: Reading<u32>,
    /// Milliwatts.
    pub power_draw: Reading<u32>,
    /// Milliwatts.
    pub power_limit: Reading<u32>,
    pub memory: Reading<MemoryUse>,
    /// Percent.
    pub gpu_util: Reading<u32>,
    pub compute_mode: Reading<ComputeMode>,
    /// MIG mode, current.
    pub mig_mode: Reading<bool>,
}

impl TableGpu {
    /// A GPU whose every reading failed with `code` (for tests and for a GPU
    /// whose handle cannot be had).
    pub fn unavailable(index: u32, code: NvmlCode) -> Self {
        TableGpu {
            index,
            name: Err(code),
            persistence_mode: Err(code),
            driver_model: Err(code),
            bus_id: Err(code),
            display_active: Err(code),
            ecc: Ecc::NotAvailable,
            fan: Err(code),
            temperature: Err(code),
            performance_state: Err(code),
            power_draw: Err(code),
            power_limit: Err(code),
            memory: Err(code),
            gpu_util: Err(code),
            compute_mode: Err(code),
            mig_mode: Err(code),
        }
    }
}

/// The engines a MIG device shares (`nvmlDeviceAttributes_t`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct MigAttributes {
    pub multiprocessors: u32,
    pub copy_engines: u32,
    pub encoders: u32,
    pub decoders: u32,
    pub ofas: u32,
    pub jpegs: u32,
}

/// One row pair of the MIG devices section.
#[derive(Debug, Clone, PartialEq)]
pub struct TableMig {
    /// The parent GPU's index.
    pub gpu: u32,
    pub gpu_instance: Reading<u32>,
    pub compute_instance: Reading<u32>,
    /// The MIG device's index on its parent.
    pub index: u32,
    pub memory: Reading<MemoryUse>,
    pub bar1: Reading<MemoryUse>,
    pub attributes: Reading<MigAttributes>,
    /// Volatile uncorrected ECC errors.
    pub ecc: Reading<u64>,
}

/// How a process uses the GPU: the `Type` column.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ProcessKind {
    pub compute: bool,
    pub graphics: bool,
    /// An MPS client (listed by `nvmlDeviceGetMPSComputeRunningProcesses`).
    pub mps: bool,
}

impl ProcessKind {
    /// nvidia-smi's type letters: `C`, `G`, `C+G`, `M`, `M+G`.
    pub fn letters(&self) -> &'static str {
        match (self.compute, self.graphics, self.mps) {
            (_, true, true) => "M+G",
            (_, false, true) => "M",
            (true, true, false) => "C+G",
            (false, true, false) => "G",
            _ => "C",
        }
    }
}

/// One row of the Processes section.
#[derive(Debug, Clone, PartialEq)]
pub struct TableProcess {
    pub gpu: u32,
    pub gpu_instance: Option<u32>,
    pub compute_instance: Option<u32>,
    pub pid: u32,
    pub kind: ProcessKind,
    pub name: Reading<String>,
    /// Bytes; `None` when NVML cannot say (WDDM).
    pub used_memory: Option<u64>,
}
