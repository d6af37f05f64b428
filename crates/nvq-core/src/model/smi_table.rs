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
    /// Processes on the selected GPUs, by GPU, then GPU and compute
    /// instance (MIG), then PID.
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
    /// `NVML_DRIVER_WDDM`: the display driver model (`WDDM`).
    Wddm,
    /// `NVML_DRIVER_WDM`, which nvidia-smi calls TCC.
    Tcc,
    /// `NVML_DRIVER_MCDM`: the compute-only driver model (`MCDM`).
    Mcdm,
}

/// Compute modes (`nvmlComputeMode_t`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ComputeMode {
    /// `NVML_COMPUTEMODE_DEFAULT`: any number of processes may use the GPU (`Default`).
    Default,
    /// `NVML_COMPUTEMODE_EXCLUSIVE_THREAD`: one context, one thread (deprecated by NVIDIA).
    ExclusiveThread,
    /// `NVML_COMPUTEMODE_PROHIBITED`: no compute context may be made (`Prohibited`).
    Prohibited,
    /// `NVML_COMPUTEMODE_EXCLUSIVE_PROCESS`: one process at a time (`E. Process`).
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
    /// Bytes in use.
    pub used: u64,
    /// Bytes in all.
    pub total: u64,
}

/// One GPU's box.
#[derive(Debug, Clone, PartialEq)]
pub struct TableGpu {
    /// The GPU's NVML index.
    pub index: u32,
    /// Its product name (`nvmlDeviceGetName`).
    pub name: Reading<String>,
    /// Whether persistence mode is on (`Persistence-M`, Linux).
    pub persistence_mode: Reading<bool>,
    /// The Windows driver model in use; an error on Linux.
    pub driver_model: Reading<DriverModel>,
    /// Its PCI bus id as the table prints it (`00000000:01:00.0`).
    pub bus_id: Reading<String>,
    /// Whether a display is driven by the GPU (`Disp.A`, `nvmlDeviceGetDisplayActive`).
    pub display_active: Reading<bool>,
    /// What the `Volatile Uncorr. ECC` cell shows.
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
    /// Framebuffer memory used and in all (`Memory-Usage`).
    pub memory: Reading<MemoryUse>,
    /// Percent.
    pub gpu_util: Reading<u32>,
    /// The compute mode (`Compute M.`).
    pub compute_mode: Reading<ComputeMode>,
    /// MIG mode, current.
    pub mig_mode: Reading<bool>,
    /// MIG mode, pending (after the next reset); `None` when not read.
    pub mig_pending: Option<bool>,
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
            mig_pending: None,
        }
    }
}

/// The engines a MIG device shares (`nvmlDeviceAttributes_t`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct MigAttributes {
    /// Streaming multiprocessors (`SM`).
    pub multiprocessors: u32,
    /// Copy engines (`CE`).
    pub copy_engines: u32,
    /// Video encoders (`ENC`).
    pub encoders: u32,
    /// Video decoders (`DEC`).
    pub decoders: u32,
    /// Optical flow accelerators (`OFA`).
    pub ofas: u32,
    /// JPEG decoders (`JPG`).
    pub jpegs: u32,
}

/// One row pair of the MIG devices section.
#[derive(Debug, Clone, PartialEq)]
pub struct TableMig {
    /// The parent GPU's index.
    pub gpu: u32,
    /// Its GPU instance id (`GI ID`).
    pub gpu_instance: Reading<u32>,
    /// Its compute instance id within the GPU instance (`CI ID`).
    pub compute_instance: Reading<u32>,
    /// The MIG device's index on its parent.
    pub index: u32,
    /// Its framebuffer memory used and in all (`Memory-Usage`).
    pub memory: Reading<MemoryUse>,
    /// Its BAR1 memory used and in all (`BAR1-Usage`).
    pub bar1: Reading<MemoryUse>,
    /// The engines it has (`nvmlDeviceGetAttributes`).
    pub attributes: Reading<MigAttributes>,
    /// Volatile uncorrected ECC errors.
    pub ecc: Reading<u64>,
}

/// How a process uses the GPU: the `Type` column.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ProcessKind {
    /// Listed by `nvmlDeviceGetComputeRunningProcesses` (`C`).
    pub compute: bool,
    /// Listed by `nvmlDeviceGetGraphicsRunningProcesses` (`G`).
    pub graphics: bool,
    /// An MPS client (listed by `nvmlDeviceGetMPSComputeRunningProcesses`).
    pub mps: bool,
}

impl ProcessKind {
    /// nvidia-smi's type letters: `C`, `G`, `C+G`, `M`, `M+C` (an MPS
    /// client, in the compute list too), `M+G`.
    pub fn letters(&self) -> &'static str {
        match (self.compute, self.graphics, self.mps) {
            (_, true, true) => "M+G",
            (true, false, true) => "M+C",
            (false, false, true) => "M",
            (true, true, false) => "C+G",
            (false, true, false) => "G",
            _ => "C",
        }
    }
}

/// One row of the Processes section.
#[derive(Debug, Clone, PartialEq)]
pub struct TableProcess {
    /// The NVML index of the GPU it runs on.
    pub gpu: u32,
    /// Its GPU instance id (`GI ID`); `None` outside MIG mode, printed `N/A`.
    pub gpu_instance: Option<u32>,
    /// Its compute instance id (`CI ID`); `None` outside MIG mode, printed `N/A`.
    pub compute_instance: Option<u32>,
    /// The process's PID.
    pub pid: u32,
    /// How it uses the GPU (the `Type` column).
    pub kind: ProcessKind,
    /// Its name (`nvmlSystemGetProcessName`: the executable's path), or the code it failed with.
    pub name: Reading<String>,
    /// Bytes; `None` when NVML cannot say (WDDM).
    pub used_memory: Option<u64>,
}
