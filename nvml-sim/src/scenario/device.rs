//! `[[device]]`: one GPU of the scenario.

use super::tables::*;
use super::values::{Series, Val};
use serde::Deserialize;
use std::collections::BTreeMap;

/// `[[device]]`: one GPU.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Device {
    pub name: Option<String>,
    pub uuid: Option<String>,
    pub serial: Option<String>,
    pub board_part_number: Option<String>,
    pub vbios_version: Option<String>,
    /// nvmlBrandType_t (e.g. 14 = NVIDIA, 2 = Tesla).
    pub brand: Val<u32>,
    /// nvmlDeviceArchitecture_t (e.g. 9 = Hopper).
    pub architecture: Val<u32>,
    pub minor_number: Val<u32>,
    pub board_id: Val<u32>,
    pub module_id: Val<u32>,
    /// 0/1
    pub multi_gpu_board: Val<u32>,
    /// `nvmlDeviceGetVirtualizationMode`: 0 none, 1 pass-through, 2 vGPU,
    /// 3 host vGPU, 4 host vSGA.
    pub virtualization_mode: Val<u32>,
    /// `nvmlDeviceGetHostVgpuMode`: 0 non-SR-IOV, 1 SR-IOV.
    pub host_vgpu_mode: Val<u32>,
    /// `nvmlDeviceGetVgpuHeterogeneousMode`: 0 disabled, 1 enabled.
    pub vgpu_heterogeneous_mode: Val<u32>,
    /// `nvmlDeviceGetBridgeChipInfo`: the bridge chips above the GPU (at
    /// most 128); absent = NOT_SUPPORTED, empty = none.
    pub bridge_chips: Option<Vec<BridgeChip>>,
    /// The vGPU types of a vGPU host GPU (`virtualization_mode = 3`); absent:
    /// `nvmlDeviceGetSupportedVgpus` is NOT_SUPPORTED.
    pub vgpu_type: Option<Vec<VgpuType>>,
    /// Its running vGPUs.
    pub vgpu: Vec<VgpuInstance>,
    pub pci: Pci,
    pub pcie: Pcie,
    /// 0/1 enable states.
    pub display_mode: Val<u32>,
    pub display_active: Val<u32>,
    pub persistence_mode: Val<u32>,
    /// nvmlDeviceAddressingModeType_t: 0 none, 1 HMM, 2 ATS.
    pub addressing_mode: Val<u32>,
    /// `nvmlDeviceGetPdi`: the per-device identifier, as hex text
    /// (`"0x737bb8d09327f7d9"`; TOML integers stop at 2^63).
    pub pdi: Option<String>,
    /// `nvmlDeviceGetRepairStatus`.
    pub repair_status: RepairStatus,
    /// `nvmlDeviceWorkloadPowerProfile*`: the workload power profiles;
    /// absent = NOT_SUPPORTED (drivers before 570, GPUs before Blackwell).
    pub power_profiles: Option<PowerProfiles>,
    /// `nvmlDeviceGetCapabilities`: the capability mask (bit 0: EGM).
    pub capabilities: Val<u32>,
    pub accounting_mode: Val<u32>,
    pub accounting_buffer_size: Val<u32>,
    /// nvmlDriverModel_t: 0 WDDM, 1 TCC/WDM, 2 MCDM (Windows only; leave absent for Linux).
    pub driver_model: CurrentPending,
    /// nvmlGpuOperationMode_t: 0 all on, 1 compute, 2 low double precision.
    pub gpu_operation_mode: CurrentPending,
    pub inforom: Inforom,
    /// Percent, one entry per fan (each entry may itself be a series).
    pub fans: Option<Vec<Series<u32>>>,
    /// nvmlPstates_t (0..15, 32 = unknown).
    pub performance_state: Val<u32>,
    pub power_state: Val<u32>,
    /// Bitmasks (served by both the ClocksEventReasons and ClocksThrottleReasons symbols).
    pub clocks_event_reasons_supported: Val<u64>,
    pub clocks_event_reasons: Val<u64>,
    pub memory: Memory,
    pub bar1: Bar1,
    pub violation: Violation,
    /// nvmlComputeMode_t: 0 default, 1 exclusive thread, 2 prohibited, 3 exclusive process.
    pub compute_mode: Val<u32>,
    pub cuda_compute_capability: ComputeCapability,
    pub utilization: Utilization,
    pub encoder_stats: EncoderStats,
    /// `nvmlDeviceGetFBCStats` (frame buffer capture), same keys.
    pub fbc_stats: EncoderStats,
    /// `nvmlDeviceGetSamples`: the driver's sample buffers.
    pub samples: Samples,
    /// `nvmlDeviceGetEncoderCapacity` (same value for every encoder type), percent.
    pub encoder_capacity: Val<u32>,
    /// 0/1 current/pending ECC mode.
    pub ecc_mode: CurrentPending,
    pub ecc_errors: EccErrors,
    pub sram_ecc_status: Option<SramEccStatus>,
    pub retired_pages: RetiredPages,
    pub remapped_rows: RemappedRows,
    pub row_remapper_histogram: RowRemapperHistogram,
    pub temperature: Temperature,
    pub power: Power,
    /// Current clocks (`nvmlDeviceGetClockInfo`, `nvmlDeviceGetClock(.., CURRENT)`).
    pub clocks: Clocks,
    /// `nvmlDeviceGetMaxClockInfo`.
    pub max_clocks: Clocks,
    /// `nvmlDeviceGetApplicationsClock`, `nvmlDeviceGetClock(.., APP_CLOCK_TARGET)`.
    pub applications_clocks: Clocks,
    /// `nvmlDeviceGetDefaultApplicationsClock`, `nvmlDeviceGetClock(.., APP_CLOCK_DEFAULT)`.
    pub default_applications_clocks: Clocks,
    /// `nvmlDeviceGetMaxCustomerBoostClock`, `nvmlDeviceGetClock(.., CUSTOMER_BOOST_MAX)`.
    pub max_customer_boost_clocks: Clocks,
    /// MHz lists.
    pub supported_memory_clocks: Option<Vec<u32>>,
    /// Same list for every memory clock...
    pub supported_graphics_clocks: Option<Vec<u32>>,
    /// ...unless this table has a list for that memory clock (key: the
    /// memory clock in MHz, as text: `"405" = [420, 405]`).
    pub supported_graphics_clocks_by_memory: BTreeMap<String, Vec<u32>>,
    pub mig: Mig,
    pub mig_instance: Vec<MigInstance>,
    /// `[[device.gpu_instance_profile]]`: the GPU instance profiles the GPU offers in MIG mode.
    pub gpu_instance_profile: Vec<InstanceProfile>,
    /// `[[device.gpu_instance]]`: the GPU instances that exist (with their compute instances).
    pub gpu_instance: Vec<Instance>,
    pub gsp: Gsp,
    pub conf_compute_protected_memory: ProtectedMemory,
    /// 0/1, `nvmlDeviceGetC2cModeInfoV`.
    pub c2c_mode: Val<u32>,
    /// 0/1 current/pending DRAM encryption, `nvmlDeviceGetDramEncryptionMode`.
    pub dram_encryption: CurrentPending,
    /// `nvmlDeviceGetHostname_v1` (absent: NOT_SUPPORTED).
    pub hostname: Option<String>,
    pub fabric: Option<Fabric>,
    pub platform: Option<Platform>,
    /// `nvmlDeviceGetFieldValues`: key = field id (decimal), or "id:scope".
    pub field_values: BTreeMap<String, FieldValue>,
    /// `nvmlGpmQueryDeviceSupport`; absent: supported from Hopper on (`architecture` >= 9).
    pub gpm_supported: Option<bool>,
    /// GPM metrics (`nvmlGpmMetricsGet`): key = `nvmlGpmMetricId_t` (decimal), value in the
    /// metric's unit (percent, MiB/s). A series steps per sample: the metrics between two
    /// samples are the element of the later sample (the n-th `nvmlGpmSampleGet` on the GPU
    /// carries element n-1). A metric left out is NOT_SUPPORTED in its slot.
    pub gpm: BTreeMap<String, Series<f64>>,
    pub accounting: Vec<AccountingStats>,
    /// Compute processes (`nvmlDeviceGetComputeRunningProcesses*`).
    pub process: Vec<Process>,
    /// Scripted XID errors, delivered by `nvmlEventSetWait(_v2)` to a set
    /// registered for `nvmlEventTypeXidCriticalError` on this GPU.
    pub xid: Vec<Xid>,
    /// Graphics processes (`nvmlDeviceGetGraphicsRunningProcesses*`).
    pub graphics_process: Vec<Process>,
    /// MPS compute processes (`nvmlDeviceGetMPSComputeRunningProcesses*`).
    pub mps_process: Vec<Process>,
    pub fault: Vec<Fault>,
    /// After this many calls with this device's handle, every call on it returns GPU_IS_LOST.
    pub lost_after_calls: Option<u64>,
    /// Where the GPU sits: PCI path, NUMA node, CPU sets, NVLink peers (absent: NOT_SUPPORTED).
    pub topology: Option<Topology>,
}

impl Device {
    /// The PCI bus id string NVML reports (`busId`), e.g. "00000000:18:00.0".
    pub fn bus_id(&self) -> Option<String> {
        if let Some(b) = &self.pci.bus_id {
            return Some(b.clone());
        }
        Some(format!(
            "{:08X}:{:02X}:{:02X}.0",
            self.pci.domain?, self.pci.bus?, self.pci.device?
        ))
    }
}
