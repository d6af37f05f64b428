//! The tables inside a `[[device]]`: PCI, memory, clocks, ECC, MIG, processes, vGPU, topology
//! and the rest, as serde reads them.

use super::values::{Code, Series, Val};
use serde::Deserialize;
use std::collections::BTreeMap;

/// `bridge_chips = [{ type = "PLX", fw_version = 0x… }]`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct BridgeChip {
    /// "PLX" or "BR04".
    #[serde(rename = "type")]
    pub kind: String,
    pub fw_version: u32,
}

/// `[[device.vgpu_type]]`: a vGPU type (profile) of a vGPU host GPU
/// (`nvmlDeviceGetSupportedVgpus`, `nvmlVgpuType*`; see `src/vgpu.rs`).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct VgpuType {
    /// `nvmlVgpuTypeId_t`, unique on the machine.
    pub id: u32,
    /// e.g. "GRID P4-1Q", "NVIDIA A10-6Q".
    pub name: String,
    /// e.g. "Quadro", "NVS", "Compute".
    pub class: String,
    /// Bytes.
    pub framebuffer: u64,
    /// Most instances of this type on the GPU.
    pub max_instances: u32,
    pub max_instances_per_vm: Option<u32>,
    pub display_heads: Option<u32>,
    /// Maximum resolution of each display head: [x, y].
    pub resolution: Option<[u32; 2]>,
    /// Frames per second (0: no limit).
    pub frame_rate_limit: Option<u32>,
    /// e.g. "GRID-Virtual-PC,2.0;Quadro-Virtual-DWS,5.0".
    pub license: Option<String>,
    /// PCI device id and subsystem id the VM sees.
    pub device_id: Option<u64>,
    pub subsystem_id: Option<u64>,
    /// Whether `nvmlDeviceGetCreatableVgpus` lists it; absent: while
    /// instances of it remain and no active vGPU is of another type
    /// (unless `vgpu_heterogeneous_mode` is 1).
    pub creatable: Option<bool>,
}

/// `[[device.vgpu]]`: a running vGPU instance (`nvmlDeviceGetActiveVgpus`,
/// `nvmlVgpuInstance*`).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct VgpuInstance {
    /// `nvmlVgpuInstance_t`, unique on the machine and not 0.
    pub id: u32,
    /// Its `[[device.vgpu_type]]` id.
    pub type_id: u32,
    /// `nvmlVgpuInstanceGetVmID`.
    pub vm_id: Option<String>,
    /// `nvmlVgpuVmIdType_t`: 0 domain id, 1 UUID.
    pub vm_id_type: u32,
    pub uuid: Option<String>,
    pub mdev_uuid: Option<String>,
    pub vm_driver_version: Option<String>,
    /// Bytes of the framebuffer in use.
    pub fb_usage: Option<u64>,
    /// `nvmlVgpuInstanceGetLicenseStatus`: 1 licensed.
    pub license_status: Option<u32>,
    pub frame_rate_limit: Option<u32>,
    /// `nvmlVgpuInstanceGetLicenseInfo_v2`'s `currentState`
    /// (`NVML_GRID_LICENSE_STATE_*`: 0 unknown … 5 licensed).
    pub license_state: Option<u32>,
    /// Its expiry: year, month, day, hour, minute, second (UTC).
    pub license_expiry: Option<[u32; 6]>,
    /// `nvmlVgpuInstanceGetGpuInstanceId`; unset: not MIG-backed
    /// (NVML's `INVALID_GPU_INSTANCE_ID`).
    pub gpu_instance_id: Option<u32>,
    /// `nvmlVgpuInstanceGetGpuPciId`; unset: `00000000:00:00.0`, what NVML
    /// returns while the guest has not attached the vGPU.
    pub gpu_pci_id: Option<String>,
    /// `nvmlVgpuInstanceGetPlacementId` (a versioned struct; unset:
    /// NOT_SUPPORTED).
    pub placement_id: Option<u32>,
    /// `nvmlVgpuInstanceGetEccMode` / `GetAccountingMode`: 0 or 1.
    pub ecc_mode: Option<u32>,
    pub accounting_mode: Option<u32>,
    /// `nvmlVgpuInstanceGetEncoderStats`: sessions, average FPS, average latency.
    pub encoder_stats: Option<[u32; 3]>,
    /// `nvmlVgpuInstanceGetFBCStats`: sessions, average FPS, average latency.
    pub fbc_stats: Option<[u32; 3]>,
    /// Its sample in `nvmlDeviceGetVgpuUtilization`: sm, memory, encoder,
    /// decoder percent; unset: no sample for it.
    pub utilization: Option<[u32; 4]>,
}

/// `[[device.xid]]`: an XID error `at_ms` milliseconds after `nvmlInit`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Xid {
    pub at_ms: u64,
    pub code: u64,
}

/// `[[device.fault]]` / `[[fault]]`: make a function fail (and/or be slow).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Fault {
    /// Exported symbol name, e.g. "nvmlDeviceGetPowerUsage".
    pub function: String,
    /// Code to return once active; none = answer normally (only the delay applies).
    pub code: Option<Code>,
    /// The first `after_calls` calls are unaffected; the fault is active from call N+1 on.
    pub after_calls: u64,
    /// Sleep this long (without holding the simulator lock) before answering, once active.
    pub delay_ms: u64,
}

/// Two-valued "current / pending" state (ECC mode, GPU operation mode, driver model, MIG mode).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct CurrentPending {
    pub current: Val<u32>,
    pub pending: Val<u32>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Pci {
    pub domain: Option<u32>,
    pub bus: Option<u32>,
    pub device: Option<u32>,
    /// Combined device/vendor id, e.g. 0x233010DE.
    pub device_id: Option<u32>,
    /// Combined subsystem id, e.g. 0x16C110DE.
    pub subsystem_id: Option<u32>,
    /// `nvmlDeviceGetPciInfoExt` only (absent: PciInfoExt is NOT_SUPPORTED).
    pub base_class: Option<u32>,
    pub sub_class: Option<u32>,
    /// Override of the derived bus id (`%08X:%02X:%02X.0`).
    pub bus_id: Option<String>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Pcie {
    pub link_gen_current: Val<u32>,
    pub link_gen_max: Val<u32>,
    pub link_gen_gpu_max: Val<u32>,
    pub link_width_current: Val<u32>,
    pub link_width_max: Val<u32>,
    /// KB/s, `nvmlDeviceGetPcieThroughput(TX_BYTES)`.
    pub tx_throughput: Val<u32>,
    /// KB/s, `nvmlDeviceGetPcieThroughput(RX_BYTES)`.
    pub rx_throughput: Val<u32>,
    pub replay_counter: Val<u32>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Inforom {
    pub image: Option<String>,
    pub oem: Option<String>,
    pub ecc: Option<String>,
    pub power: Option<String>,
    pub den: Option<String>,
    pub checksum: Val<u32>,
    /// `nvmlDeviceValidateInforom`: true = SUCCESS, false = CORRUPTED_INFOROM, absent = NOT_SUPPORTED.
    pub valid: Option<bool>,
    /// `nvmlDeviceGetLastBBXFlushTime`: the last flush's start (µs since the
    /// Unix epoch) and its duration (µs); both needed.
    pub bbx_flush_timestamp: Val<u64>,
    pub bbx_flush_duration_us: Val<u64>,
}

/// Memory in bytes. For `nvmlDeviceGetMemoryInfo` (v1) `used` is reported as `used + reserved`
/// (as the real driver does); `free` defaults to `total - reserved - used`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Memory {
    pub total: Val<u64>,
    pub reserved: Val<u64>,
    pub used: Val<u64>,
    pub free: Val<u64>,
    /// `used` as a function of the time since `nvmlInit` (replaces `used`): a leak, a sawtooth, a jump.
    pub used_timeline: Option<Timeline>,
}

/// A value that follows the clock: straight lines between `points` (`[seconds since nvmlInit, value]`, times
/// increasing), then the last line continued; with `repeat_s`, the pattern over `[0, repeat_s)` repeats instead.
/// Before the first point the first value holds.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Timeline {
    pub points: Vec<(f64, f64)>,
    pub repeat_s: Option<f64>,
}

impl Timeline {
    /// The value `t` seconds after `nvmlInit` (never negative).
    pub fn at(&self, t: f64) -> f64 {
        let t = match self.repeat_s {
            Some(r) if r > 0.0 => t.rem_euclid(r),
            _ => t,
        };
        let v = match self.points.as_slice() {
            [] => 0.0,
            [only] => only.1,
            pts => {
                let i = pts
                    .iter()
                    .position(|p| p.0 > t)
                    .unwrap_or(pts.len())
                    .clamp(1, pts.len() - 1);
                let (a, b) = (pts[i - 1], pts[i]);
                if t <= pts[0].0 {
                    pts[0].1
                } else if b.0 > a.0 {
                    a.1 + (b.1 - a.1) * (t - a.0) / (b.0 - a.0)
                } else {
                    b.1
                }
            }
        };
        v.max(0.0)
    }
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Bar1 {
    pub total: Val<u64>,
    pub used: Val<u64>,
    /// Defaults to `total - used`.
    pub free: Val<u64>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Utilization {
    /// Percent; `nvmlDeviceGetUtilizationRates` needs both `gpu` and `memory`.
    pub gpu: Val<u32>,
    pub memory: Val<u32>,
    pub encoder: Val<u32>,
    pub decoder: Val<u32>,
    pub jpeg: Val<u32>,
    pub ofa: Val<u32>,
    /// Sampling period in µs reported with encoder/decoder/jpeg/ofa utilization (default 167000).
    pub sampling_period_us: Option<u32>,
}

/// The sample buffers of `nvmlDeviceGetSamples`, oldest first, one value
/// every `period_us` microseconds (default 20000). An absent buffer answers
/// NOT_SUPPORTED.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Samples {
    pub period_us: Option<u64>,
    /// Milliwatts.
    pub power: Option<Vec<u32>>,
    /// Percent.
    pub gpu_util: Option<Vec<u32>>,
    pub memory_util: Option<Vec<u32>>,
    pub encoder_util: Option<Vec<u32>>,
    pub decoder_util: Option<Vec<u32>>,
    /// MHz.
    pub processor_clock: Option<Vec<u32>>,
    pub memory_clock: Option<Vec<u32>>,
}

/// Pending repairs, 0/1 each; both are needed.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RepairStatus {
    pub channel_pending: Val<u32>,
    pub tpc_pending: Val<u32>,
    /// `nvmlDeviceGetUnrepairableMemoryFlag_v1` (0/1); absent = NOT_SUPPORTED.
    pub unrepairable: Val<u32>,
}

/// Workload power profiles by NVML profile id (`nvmlPowerProfileType_t`,
/// 0 MAX_P, 1 MAX_Q, 2 COMPUTE, ...; below 255): those the GPU offers, those
/// requested, those enforced after arbitration.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct PowerProfiles {
    pub supported: Vec<u32>,
    pub requested: Vec<u32>,
    pub enforced: Vec<u32>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct EncoderStats {
    pub session_count: Val<u32>,
    pub average_fps: Val<u32>,
    pub average_latency: Val<u32>,
}

/// One ECC counter set (`nvmlDeviceGetMemoryErrorCounter` per location, `nvmlDeviceGetTotalEccErrors` = `total`).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct EccCounts {
    pub total: Val<u64>,
    pub l1_cache: Val<u64>,
    pub l2_cache: Val<u64>,
    /// Location 2 (DEVICE_MEMORY == DRAM).
    #[serde(alias = "dram")]
    pub device_memory: Val<u64>,
    pub register_file: Val<u64>,
    pub texture_memory: Val<u64>,
    pub texture_shm: Val<u64>,
    pub cbu: Val<u64>,
    pub sram: Val<u64>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct EccErrors {
    pub corrected_volatile: EccCounts,
    pub corrected_aggregate: EccCounts,
    pub uncorrected_volatile: EccCounts,
    pub uncorrected_aggregate: EccCounts,
}

/// `nvmlDeviceGetSramEccErrorStatus` (fields default to 0 when the table is present).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SramEccStatus {
    pub aggregate_unc_parity: u64,
    pub aggregate_unc_sec_ded: u64,
    pub aggregate_cor: u64,
    pub volatile_unc_parity: u64,
    pub volatile_unc_sec_ded: u64,
    pub volatile_cor: u64,
    pub aggregate_unc_bucket_l2: u64,
    pub aggregate_unc_bucket_sm: u64,
    pub aggregate_unc_bucket_pcie: u64,
    pub aggregate_unc_bucket_mcu: u64,
    pub aggregate_unc_bucket_other: u64,
    pub threshold_exceeded: u32,
}

/// Retired pages (addresses); `nvmlDeviceGetRetiredPages` / `_v2` / `…PendingStatus`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RetiredPages {
    pub single_bit: Option<Vec<u64>>,
    pub double_bit: Option<Vec<u64>>,
    /// Timestamps for `_v2` (default 0 for each page).
    pub single_bit_timestamps: Vec<u64>,
    pub double_bit_timestamps: Vec<u64>,
    /// 0/1, `nvmlDeviceGetRetiredPagesPendingStatus`.
    pub pending: Val<u32>,
}

/// `nvmlDeviceGetRemappedRows` (all four needed); `nvmlDeviceGetRemappedRows_v2` also needs
/// the two inactive counts.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RemappedRows {
    pub correctable: Val<u32>,
    pub uncorrectable: Val<u32>,
    pub pending: Val<u32>,
    pub failure: Val<u32>,
    pub correctable_inactive: Val<u32>,
    pub uncorrectable_inactive: Val<u32>,
}

/// `nvmlDeviceGetRowRemapperHistogram` (all five needed).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RowRemapperHistogram {
    pub max: Val<u32>,
    pub high: Val<u32>,
    pub partial: Val<u32>,
    pub low: Val<u32>,
    pub none: Val<u32>,
}

/// Temperatures in °C.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Temperature {
    /// `nvmlDeviceGetTemperature(NVML_TEMPERATURE_GPU)`.
    pub gpu: Val<u32>,
    /// `nvmlDeviceGetMarginTemperature`.
    pub margin: Val<i32>,
    /// `nvmlDeviceGetTemperatureThreshold` by threshold type 0..7. The
    /// first four may be negative: drivers that report a T.Limit margin give
    /// these thresholds relative to it (the C `unsigned int` then holds the
    /// two's complement).
    pub shutdown: Val<i32>,
    pub slowdown: Val<i32>,
    pub mem_max: Val<i32>,
    pub gpu_max: Val<i32>,
    pub acoustic_min: Val<u32>,
    pub acoustic_curr: Val<u32>,
    pub acoustic_max: Val<u32>,
    pub gps_curr: Val<u32>,
}

/// Power in milliwatts, energy in millijoules.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Power {
    pub usage: Val<u32>,
    pub limit: Val<u32>,
    pub default_limit: Val<u32>,
    /// `nvmlDeviceGetPowerManagementLimitConstraints` needs both.
    pub min_limit: Val<u32>,
    pub max_limit: Val<u32>,
    pub enforced_limit: Val<u32>,
    /// 0/1, `nvmlDeviceGetPowerManagementMode`.
    pub management_mode: Val<u32>,
    pub total_energy: Val<u64>,
}

/// Clock set in MHz (by `nvmlClockType_t`).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Clocks {
    pub graphics: Val<u32>,
    pub sm: Val<u32>,
    pub memory: Val<u32>,
    pub video: Val<u32>,
}

impl Clocks {
    /// The field for an `nvmlClockType_t`.
    pub fn by_type(&self, t: u32) -> Option<&Val<u32>> {
        match t {
            0 => Some(&self.graphics),
            1 => Some(&self.sm),
            2 => Some(&self.memory),
            3 => Some(&self.video),
            _ => None,
        }
    }
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ComputeCapability {
    pub major: Option<i32>,
    pub minor: Option<i32>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Mig {
    /// 0/1 current and pending MIG mode (`nvmlDeviceGetMigMode` needs both).
    pub current: Val<u32>,
    pub pending: Val<u32>,
    /// `nvmlDeviceGetMaxMigDeviceCount`.
    pub max_devices: Val<u32>,
}

/// `[[device.mig_instance]]`: a MIG device (its own handle via `nvmlDeviceGetMigDeviceHandleByIndex`).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct MigInstance {
    /// Device name of the MIG handle, e.g. "NVIDIA H100 80GB HBM3 MIG 1g.10gb".
    pub name: Option<String>,
    /// e.g. "MIG-5c89852c-d268-5f2d-a8e6-6e4d5d5c1a3b".
    pub uuid: Option<String>,
    /// Profile name, informational (e.g. "1g.10gb").
    pub profile: Option<String>,
    pub gpu_instance_id: Option<u32>,
    pub compute_instance_id: Option<u32>,
    pub memory: Memory,
    /// GPM metrics of this MIG device's GPU instance (`nvmlGpmMigSampleGet` with its
    /// `gpu_instance_id`): key = `nvmlGpmMetricId_t` (decimal), value = series (see `Device::gpm`).
    pub gpm: BTreeMap<String, Series<f64>>,
    /// `nvmlDeviceGetAttributes_v2` on the MIG handle; absent = NOT_SUPPORTED.
    pub attributes: Option<MigAttributes>,
    /// `nvmlDeviceGetBAR1MemoryInfo` on the MIG handle.
    pub bar1: Bar1,
    /// `nvmlDeviceGetTotalEccErrors(UNCORRECTED, VOLATILE)` on the MIG
    /// handle (the other counters are NOT_SUPPORTED there).
    pub ecc_uncorrected_volatile: Option<u64>,
}

/// `attributes = { … }` of a MIG instance: `nvmlDeviceAttributes_t`.
#[derive(Debug, Clone, Copy, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct MigAttributes {
    pub multiprocessor_count: u32,
    pub shared_copy_engine_count: u32,
    pub shared_decoder_count: u32,
    pub shared_encoder_count: u32,
    pub shared_jpeg_count: u32,
    pub shared_ofa_count: u32,
    pub gpu_instance_slice_count: u32,
    pub compute_instance_slice_count: u32,
    pub memory_size_mb: u64,
}

/// A GPU or compute instance profile (`[[device.gpu_instance_profile]]`, and
/// `[[device.gpu_instance_profile.compute_instance_profile]]` inside one).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct InstanceProfile {
    /// The profile's index (`NVML_GPU_INSTANCE_PROFILE_*` or
    /// `NVML_COMPUTE_INSTANCE_PROFILE_*`), the argument of the profile info call.
    pub index: u32,
    /// The profile id that instances carry.
    pub id: u32,
    /// e.g. "MIG 1g.10gb" or "MIG 1c.3g.40gb".
    pub name: String,
    pub slices: u32,
    /// Most instances of this profile.
    pub instances: u32,
    /// Remaining capacity; left out: `instances` less those that exist.
    pub free: Option<u32>,
    /// GPU instance profiles only.
    pub memory_mib: u64,
    /// GPU instance profiles only.
    pub p2p: bool,
    pub sm: u32,
    pub ce: u32,
    pub dec: u32,
    pub enc: u32,
    pub jpeg: u32,
    pub ofa: u32,
    /// GPU instance profiles only: the compute instance profiles a GPU
    /// instance of this profile offers.
    pub compute_instance_profile: Vec<InstanceProfile>,
    /// Where an instance may start (first slice of each possible
    /// placement); left out: the placement calls answer NOT_SUPPORTED.
    pub placements: Option<Vec<u32>>,
    /// How many slices a placement spans; left out: `slices`.
    pub placement_size: Option<u32>,
}

/// An instance: `[[device.gpu_instance]]`, or
/// `[[device.gpu_instance.compute_instance]]` inside one.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Instance {
    pub id: u32,
    pub profile_id: u32,
    /// Placement: the first slice and the number of slices.
    pub start: u32,
    pub size: u32,
    /// GPU instances only: their compute instances.
    pub compute_instance: Vec<Instance>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Gsp {
    /// 0/1 (`nvmlDeviceGetGspFirmwareMode` needs both).
    pub enabled: Val<u32>,
    pub default_enabled: Val<u32>,
    /// `nvmlDeviceGetGspFirmwareVersion` (< 64 bytes).
    pub version: Option<String>,
}

/// `nvmlDeviceGetConfComputeProtectedMemoryUsage` (bytes; `free` defaults to total - used).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ProtectedMemory {
    pub total: Val<u64>,
    pub used: Val<u64>,
    pub free: Val<u64>,
}

/// `nvmlDeviceGetGpuFabricInfo(V)` (present table = supported; fields default to 0).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Fabric {
    /// UUID text (hex digits, dashes ignored), 16 bytes.
    pub cluster_uuid: Option<String>,
    /// NVML return code of the fabric probe (name or number; default SUCCESS).
    pub status: Option<Code>,
    pub clique_id: u32,
    /// nvmlGpuFabricState_t: 0 not supported, 1 not started, 2 in progress, 3 completed.
    pub state: u8,
    pub health_mask: u32,
    pub health_summary: u8,
}

/// `nvmlDeviceGetPlatformInfo` (v2 struct; present table = supported).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Platform {
    /// 16 bytes as hex digits.
    pub ib_guid: Option<String>,
    /// Up to 16 bytes of text.
    pub chassis_serial_number: Option<String>,
    pub slot_number: u8,
    pub tray_index: u8,
    pub host_id: u8,
    pub peer_type: u8,
    pub module_id: u8,
}

/// One element of a field value: integer (unsigned long long, or signed long long when
/// negative), float (double), or an error code name/number written as a string ("NOT_SUPPORTED", "3").
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(untagged)]
pub enum FieldScalar {
    Int(i64),
    Float(f64),
    Error(String),
}

/// A field value, possibly a series.
pub type FieldValue = Series<FieldScalar>;

impl Series<FieldScalar> {
    /// Like [`Series::at`] for non-`Copy` field scalars.
    pub fn at_field(&self, i: usize) -> Option<FieldScalar> {
        match self {
            Series::One(v) => Some(v.clone()),
            Series::Many(v) => v.get(i).or_else(|| v.last()).cloned(),
        }
    }
}

/// Used GPU memory of a process: bytes, or `"unavailable"` (NVML_VALUE_NOT_AVAILABLE).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(untagged)]
pub enum UsedMemory {
    Bytes(Series<u64>),
    Text(String),
}

/// A process on a GPU (`[[device.process]]`, `[[device.graphics_process]]`,
/// `[[device.mps_process]]`) or in the top-level `[[process]]` name table.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Process {
    pub pid: u32,
    /// `nvmlSystemGetProcessName`; absent = NOT_FOUND (a process that has vanished).
    pub name: Option<String>,
    /// Make `nvmlSystemGetProcessName` fail with this code (e.g. "NO_PERMISSION", "NOT_FOUND").
    pub name_error: Option<Code>,
    /// Names in turn: the k-th `nvmlSystemGetProcessName` call for this PID answers the k-th,
    /// the last one repeating (a PID reused by another program); empty = `name`.
    pub names: Vec<String>,
    /// Bytes or "unavailable"; absent = unavailable.
    pub used_memory: Option<UsedMemory>,
    /// Confidential-computing protected memory the process holds
    /// (`nvmlDeviceGetRunningProcessDetailList`'s `usedGpuCcProtectedMemory`): bytes (series)
    /// or "unavailable"; absent = 0, as NVML reports it with confidential computing off.
    pub cc_protected_memory: Option<UsedMemory>,
    /// absent = unavailable (0xFFFFFFFF).
    pub gpu_instance_id: Option<u32>,
    pub compute_instance_id: Option<u32>,
    /// Listed by the n-th call of a process-list function when element n is not 0 (series);
    /// absent = always listed. A process that starts or exits mid-run.
    pub alive: Val<u32>,
    /// `nvmlDeviceGetProcessUtilization`: this process's sample per call (series).
    pub utilization: ProcessUtilization,
}

/// `utilization` of a process: percent per call of `nvmlDeviceGetProcessUtilization`; a
/// negative element means the process has no sample in that call's window.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ProcessUtilization {
    pub sm: Val<i64>,
    pub mem: Val<i64>,
    pub enc: Val<i64>,
    pub dec: Val<i64>,
    /// Only `nvmlDeviceGetProcessesUtilizationInfo` reports these two.
    pub jpg: Val<i64>,
    pub ofa: Val<i64>,
}

/// `violation`: cumulative throttled time in ns per policy (`nvmlDeviceGetViolationStatus`).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Violation {
    pub power: Val<u64>,
    pub thermal: Val<u64>,
}

/// `[[device.accounting]]`: one `nvmlDeviceGetAccountingStats` record.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct AccountingStats {
    pub pid: u32,
    pub gpu_utilization: u32,
    pub memory_utilization: u32,
    pub max_memory_usage: u64,
    /// ms
    pub time: u64,
    /// µs since epoch
    pub start_time: u64,
    pub is_running: u32,
}

/// A GPU's place in the machine (`[device.topology]`).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Topology {
    /// The PCI path from the top: NUMA node, host bridge, then each PCIe switch (bridge) above the
    /// GPU, by name, e.g. `["numa0", "hb1", "sw1", "sw1a"]`. Two GPUs' common ancestor follows
    /// from the longest shared prefix (see the README).
    pub pci_path: Vec<String>,
    /// `nvmlDeviceGetNumaNodeId` (absent: NOT_SUPPORTED).
    pub numa_node: Option<u32>,
    /// CPU list (`"0-23,48-71"`) for `nvmlDeviceGetCpuAffinity*` (absent: NOT_SUPPORTED).
    pub cpu_affinity: Option<String>,
    /// NUMA node list (`"0"`) for `nvmlDeviceGetMemoryAffinity` (absent: NOT_SUPPORTED).
    pub memory_affinity: Option<String>,
    /// NVLinks: each entry bonds `links` links to the device of index `peer`; links are numbered
    /// in order. Absent: the NVLink calls answer NOT_SUPPORTED.
    pub nvlink: Option<Vec<NvLinkBond>>,
    /// Inactive links after the bonded ones.
    pub nvlink_inactive: u32,
    /// `nvmlDeviceGetNvLinkCapability`, the same on every link: bit `k` set means capability
    /// `k` (0 P2P, 1 system memory access, 2 P2P atomics, 3 system memory atomics, 4 SLI,
    /// 5 valid link). Absent: NOT_SUPPORTED.
    pub nvlink_capabilities: Option<u32>,
    /// `nvmlDeviceGetP2PStatus` towards every other GPU, indexed by capability (0 read, 1 write,
    /// 2 NVLink, 3 atomics, 4 PCIe); values are `nvmlGpuP2PStatus_t` (0 OK, 1 chipset not
    /// supported, 2 GPU not supported, 3 topology not supported, 4 disabled by regkey, 5 not
    /// supported, 6 unknown). A missing index or an absent list: NOT_SUPPORTED.
    pub p2p_status: Option<Vec<u32>>,
    /// `nvmlDeviceGetNvLinkErrorCounter` on every active link, indexed by counter (0 replay,
    /// 1 recovery, 2 CRC flit, 3 CRC data). Absent: NOT_SUPPORTED.
    pub nvlink_errors: Option<Vec<u64>>,
    /// KiB counted on every active link, `[data_tx, data_rx, raw_tx, raw_rx]` (fields
    /// `NVML_FI_DEV_NVLINK_THROUGHPUT_*` 138-141 scoped to the link). Absent: NOT_SUPPORTED.
    pub nvlink_throughput: Option<Vec<u64>>,
    /// CRC errors per lane on every active link, lane 0 first (fields
    /// `NVML_FI_DEV_NVLINK_CRC_DATA_ERROR_COUNT_L0` + lane scoped to the link). Absent:
    /// NOT_SUPPORTED.
    pub nvlink_lane_crc: Option<Vec<u64>>,
}

/// `links` NVLinks from this GPU to the GPU of index `peer`, or to an NVSwitch of PCI bus id
/// `switch` (`"00000000:07:00.0"`); exactly one of the two. Or, with `inactive = true` and
/// neither, `links` inactive links at this place in the link order.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NvLinkBond {
    pub peer: Option<u32>,
    pub switch: Option<String>,
    pub links: u32,
    #[serde(default)]
    pub inactive: bool,
    /// The far end's own number of each of these links, in order (field
    /// `NVML_FI_DEV_NVLINK_REMOTE_NVLINK_ID` scoped to the link). Absent: NOT_SUPPORTED.
    pub remote_links: Option<Vec<u32>>,
}

/// A PCI bus id `DDDDDDDD:BB:DD.F` as (domain, bus, device).
pub fn parse_bus_id(s: &str) -> Option<(u32, u32, u32)> {
    let mut it = s.split(':');
    let (d, b, rest) = (it.next()?, it.next()?, it.next()?);
    let dev = rest.split('.').next()?;
    Some((
        u32::from_str_radix(d, 16).ok()?,
        u32::from_str_radix(b, 16).ok()?,
        u32::from_str_radix(dev, 16).ok()?,
    ))
}

/// Parse a Linux CPU or node list (`"0-23,48-71"`, `""`) into its members.
pub fn parse_id_list(s: &str) -> Option<Vec<u32>> {
    let mut out = Vec::new();
    for part in s.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        match part.split_once('-') {
            Some((a, b)) => {
                let (a, b): (u32, u32) = (a.trim().parse().ok()?, b.trim().parse().ok()?);
                if b < a || b - a > 1 << 16 {
                    return None;
                }
                out.extend(a..=b);
            }
            None => out.push(part.parse().ok()?),
        }
    }
    Some(out)
}
