//! Scenario files: the TOML description of the machine the simulator pretends to be.
//!
//! Every value is in NVML's own units (bytes, milliwatts, millijoules, MHz, °C, raw enum
//! numbers, bitmasks). A value that is absent makes the NVML function that reads it return
//! `NVML_ERROR_NOT_SUPPORTED`. Any numeric value written as a list is a *series*: the n-th call
//! of the function that reads it on that device gets element n (the last one repeats).
//! See `nvml-sim/README.md` for the full reference.

use serde::Deserialize;
use std::collections::BTreeMap;
use std::fmt;

/// The built-in scenario used when `NVML_SIM_SCENARIO` is not set.
pub const DEFAULT_SCENARIO_TOML: &str = include_str!("../scenarios/default.toml");

/// The example machines built into the simulator, by the name that
/// `NVML_SIM_SCENARIO` takes instead of a path, so that the documentation's
/// examples work from any installation (the Debian package, the wheel,
/// `cargo install`) without a checkout's `nvml-sim/scenarios/` folder.
pub const EXAMPLES: &[(&str, &str)] = &[
    ("default", DEFAULT_SCENARIO_TOML),
    (
        "dgx_h100_8gpu",
        include_str!("../scenarios/dgx_h100_8gpu.toml"),
    ),
    (
        "pcie_8gpu_2numa",
        include_str!("../scenarios/pcie_8gpu_2numa.toml"),
    ),
];

/// Name of the environment variable selecting the scenario file.
pub const SCENARIO_ENV: &str = "NVML_SIM_SCENARIO";

/// Most devices a scenario may describe (handles are carved from a fixed address range).
pub const MAX_DEVICES: usize = 16384;
/// Largest scenario file read, in bytes (16 MiB); big machines use `[generate]`.
pub const MAX_SCENARIO_BYTES: u64 = 16 << 20;
/// Most MIG instances per device.
pub const MAX_MIG_INSTANCES: usize = 63;
/// Most GPU instances per device.
pub const MAX_GPU_INSTANCES: usize = 8;
/// Most compute instances per GPU instance.
pub const MAX_COMPUTE_INSTANCES: usize = 8;

/// A value that may change over time: one value, or a list (element n answers call n).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(untagged)]
pub enum Series<T> {
    One(T),
    Many(Vec<T>),
}

impl<T: Copy> Series<T> {
    /// Value for the 0-based call index `i` (the last element repeats); `None` for an empty list.
    pub fn at(&self, i: usize) -> Option<T> {
        match self {
            Series::One(v) => Some(*v),
            Series::Many(v) => v.get(i).or_else(|| v.last()).copied(),
        }
    }
    /// The first value (what the first call returns).
    pub fn first(&self) -> Option<T> {
        self.at(0)
    }
}

impl<T> From<T> for Series<T> {
    fn from(v: T) -> Self {
        Series::One(v)
    }
}

/// Optional series, the type of nearly every scenario field.
pub type Val<T> = Option<Series<T>>;

/// An NVML return code, written as a name (`"NOT_SUPPORTED"`, `"NVML_ERROR_GPU_IS_LOST"`) or a number.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(untagged)]
pub enum Code {
    Num(u32),
    Name(String),
}

/// NVML return codes by name (without the `NVML_ERROR_` prefix).
pub const CODES: &[(&str, u32)] = &[
    ("SUCCESS", 0),
    ("UNINITIALIZED", 1),
    ("INVALID_ARGUMENT", 2),
    ("NOT_SUPPORTED", 3),
    ("NO_PERMISSION", 4),
    ("ALREADY_INITIALIZED", 5),
    ("NOT_FOUND", 6),
    ("INSUFFICIENT_SIZE", 7),
    ("INSUFFICIENT_POWER", 8),
    ("DRIVER_NOT_LOADED", 9),
    ("TIMEOUT", 10),
    ("IRQ_ISSUE", 11),
    ("LIBRARY_NOT_FOUND", 12),
    ("FUNCTION_NOT_FOUND", 13),
    ("CORRUPTED_INFOROM", 14),
    ("GPU_IS_LOST", 15),
    ("RESET_REQUIRED", 16),
    ("OPERATING_SYSTEM", 17),
    ("LIB_RM_VERSION_MISMATCH", 18),
    ("IN_USE", 19),
    ("MEMORY", 20),
    ("NO_DATA", 21),
    ("VGPU_ECC_NOT_SUPPORTED", 22),
    ("INSUFFICIENT_RESOURCES", 23),
    ("FREQ_NOT_SUPPORTED", 24),
    ("ARGUMENT_VERSION_MISMATCH", 25),
    ("DEPRECATED", 26),
    ("NOT_READY", 27),
    ("GPU_NOT_FOUND", 28),
    ("INVALID_STATE", 29),
    ("RESET_TYPE_NOT_SUPPORTED", 30),
    ("UNKNOWN", 999),
];

impl Code {
    /// The numeric NVML code, or a description of what is wrong with the name.
    pub fn value(&self) -> Result<u32, String> {
        match self {
            Code::Num(n) => Ok(*n),
            Code::Name(s) => {
                let up = s.trim().to_ascii_uppercase();
                let bare = up
                    .strip_prefix("NVML_ERROR_")
                    .or_else(|| up.strip_prefix("NVML_"))
                    .unwrap_or(&up);
                CODES
                    .iter()
                    .find(|(n, _)| *n == bare)
                    .map(|(_, v)| *v)
                    .ok_or_else(|| format!("unknown NVML return code name {s:?}"))
            }
        }
    }
}

/// Name of an NVML return code (`"NOT_SUPPORTED"`), if known.
pub fn code_name(code: u32) -> Option<&'static str> {
    CODES.iter().find(|(_, v)| *v == code).map(|(n, _)| *n)
}

/// Top level of a scenario file.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Scenario {
    /// `nvmlSystemGetDriverVersion`, e.g. "580.82.07".
    pub driver_version: Option<String>,
    /// `nvmlSystemGetNVMLVersion`, e.g. "13.580.82.07".
    pub nvml_version: Option<String>,
    /// `nvmlSystemGetCudaDriverVersion(_v2)`, e.g. 13000 (= 13.0).
    pub cuda_driver_version: Val<i32>,
    /// Make every init call fail with this code (e.g. "DRIVER_NOT_LOADED").
    pub init_fault: Option<Code>,
    /// Functions that return `NVML_ERROR_FUNCTION_NOT_FOUND` (emulates an older driver).
    pub absent_functions: Vec<String>,
    /// Faults on functions that take no device handle (`nvmlSystemGet*`, counts, handle lookups).
    pub fault: Vec<Fault>,
    /// Extra entries for `nvmlSystemGetProcessName` (processes not on any GPU list).
    pub process: Vec<Process>,
    /// Generate many devices/processes from a template.
    pub generate: Option<Generate>,
    /// The GPUs, in index order.
    pub device: Vec<Device>,
    /// How long calls take (off by default: every call answers at once).
    pub latency: Latency,
    /// S-class units (`nvmlUnit*`): none by default, as on every machine
    /// that is not an S-class enclosure.
    pub unit: Vec<Unit>,
    /// Host interface cards (`nvmlSystemGetHicVersion`): none by default.
    pub hic: Vec<Hic>,
}

/// `[[hic]]`: a host interface card of an S-class system.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Hic {
    pub id: u32,
    /// At most 31 bytes (`nvmlHwbcEntry_t`).
    pub firmware: String,
}

/// Most units a scenario may declare.
pub const MAX_UNITS: usize = 64;

/// `[[unit]]`: an S-class enclosure (`nvmlUnitGetUnitInfo` and friends).
/// An absent value means NOT_SUPPORTED.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Unit {
    /// `nvmlUnitGetUnitInfo`: all four or NOT_SUPPORTED.
    pub name: Option<String>,
    pub id: Option<String>,
    pub serial: Option<String>,
    pub firmware_version: Option<String>,
    /// `nvmlUnitGetLedState`: "GREEN" or "AMBER", with its cause.
    pub led_color: Option<String>,
    pub led_cause: Option<String>,
    /// `nvmlUnitGetTemperature`, degrees C: type 0, 1, 2.
    pub temperature_intake: Option<u32>,
    pub temperature_exhaust: Option<u32>,
    pub temperature_board: Option<u32>,
    /// `nvmlUnitGetPsuInfo`: state text, volts, amperes, watts.
    pub psu_state: Option<String>,
    pub psu_voltage: Option<u32>,
    pub psu_current: Option<u32>,
    pub psu_power: Option<u32>,
    /// `nvmlUnitGetFanSpeedInfo`: one entry a fan.
    pub fan: Vec<UnitFan>,
    /// `nvmlUnitGetDevices`: the indices of the scenario's GPUs in the unit.
    pub devices: Vec<u32>,
}

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

/// `[[unit.fan]]`: speed in RPM; `failed` for NVML_FAN_FAILED.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct UnitFan {
    pub speed: u32,
    pub failed: bool,
}

/// `[latency]`: time each call of a function takes, slept on the caller's
/// thread without holding the simulator's lock (so calls on different
/// threads overlap, as real NVML's do).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Latency {
    /// Use [`REALISTIC_LATENCY_MS`] for the functions `functions` leaves out.
    pub realistic: bool,
    /// Milliseconds per call, by exported symbol name.
    pub functions: BTreeMap<String, f64>,
}

/// What real drivers are known or estimated to take, in milliseconds:
/// `nvmlDeviceGetPcieThroughput` samples the link for about 20 ms (one
/// exporter measured about 40 ms a GPU for both directions); the sample
/// buffers and power readings take about a millisecond. Every other call is
/// taken as instant.
pub const REALISTIC_LATENCY_MS: &[(&str, f64)] = &[
    ("nvmlDeviceGetPcieThroughput", 20.0),
    ("nvmlDeviceGetSamples", 1.0),
    ("nvmlDeviceGetPowerUsage", 1.0),
    ("nvmlDeviceGetTotalEnergyConsumption", 1.0),
    ("nvmlDeviceGetFieldValues", 1.0),
];

impl Latency {
    /// The time one call of `sym` takes.
    pub fn of(&self, sym: &str) -> std::time::Duration {
        if !self.realistic && self.functions.is_empty() {
            return std::time::Duration::ZERO;
        }
        let ms = self.functions.get(sym).copied().or_else(|| {
            self.realistic
                .then(|| {
                    REALISTIC_LATENCY_MS
                        .iter()
                        .find(|(f, _)| *f == sym)
                        .map(|(_, ms)| *ms)
                })
                .flatten()
        });
        std::time::Duration::from_secs_f64(ms.unwrap_or(0.0).clamp(0.0, 60_000.0) / 1000.0)
    }
}

/// `[generate]`: replace the device list with `devices` copies of a template.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Generate {
    /// Number of GPUs to generate.
    pub devices: usize,
    /// Compute processes per generated GPU.
    pub processes_per_device: usize,
    /// Index into `[[device]]` of the template (default 0; built-in H100 when there is none).
    pub template: Option<usize>,
    /// First PID of generated processes (default 100000); PIDs are consecutive.
    pub first_pid: Option<u32>,
    /// Used memory of each generated process in bytes (default 256 MiB).
    pub process_memory: Option<u64>,
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

    fn check(&self, ctx: &str) -> Result<(), String> {
        if self.points.is_empty() {
            return Err(format!("{ctx}: used_timeline needs at least one point"));
        }
        if self.points.windows(2).any(|w| w[1].0 < w[0].0) {
            return Err(format!("{ctx}: used_timeline's times must not go back"));
        }
        Ok(())
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

/// Every instance has a declared profile, and no profile more instances
/// than its `instances` (NVML fills a buffer of that size with handles).
fn check_instances(
    profiles: &[InstanceProfile],
    items: &[Instance],
    ctx: &str,
) -> Result<(), String> {
    for p in profiles {
        let n = items.iter().filter(|i| i.profile_id == p.id).count();
        if n > p.instances as usize {
            return Err(format!(
                "{ctx}: {n} instances of profile {} exceed its instances = {}",
                p.id, p.instances
            ));
        }
    }
    match items
        .iter()
        .find(|i| !profiles.iter().any(|p| p.id == i.profile_id))
    {
        Some(i) => Err(format!(
            "{ctx}: instance {} has undeclared profile {}",
            i.id, i.profile_id
        )),
        None => Ok(()),
    }
}

/// GPM keys are metric ids (1..=210) and no series is an empty list.
fn check_gpm(gpm: &BTreeMap<String, Series<f64>>, ctx: &str) -> Result<(), String> {
    for (k, v) in gpm {
        if !k
            .trim()
            .parse::<u32>()
            .is_ok_and(|id| (1..=210).contains(&id))
        {
            return Err(format!(
                "{ctx}: gpm key {k:?} is not a GPM metric id (1 to 210)"
            ));
        }
        if matches!(v, Series::Many(l) if l.is_empty()) {
            return Err(format!("{ctx}: gpm.{k} is an empty list"));
        }
    }
    Ok(())
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

/// Why a scenario could not be loaded (one line, suitable for stderr).
#[derive(Debug, Clone, PartialEq)]
pub struct ScenarioError(pub String);

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ScenarioError {}

/// serde's "unknown field `memroy`, expected one of `name`, ... (90 keys)"
/// cut down to the keys nearest the typo: "unknown field `memroy`; did you
/// mean `memory`?" (or a pointer to the README's key table).
fn nearest_key(msg: &str) -> String {
    let Some((head, list)) = msg.split_once(", expected one of ") else {
        return msg.to_string();
    };
    let Some(typo) = head.split('`').nth(1) else {
        return msg.to_string();
    };
    let keys: Vec<&str> = list
        .split(", ")
        .map(|k| k.trim().trim_matches('`'))
        .collect();
    let mut scored: Vec<(usize, &str)> = keys
        .iter()
        .map(|k| {
            (
                strsim::damerau_levenshtein(&typo.to_lowercase(), &k.to_lowercase()),
                *k,
            )
        })
        .filter(|(d, _)| *d <= 2.max(typo.len() / 4))
        .collect();
    scored.sort();
    let best: Vec<String> = scored
        .iter()
        .take(3)
        .map(|(_, k)| format!("`{k}`"))
        .collect();
    if best.is_empty() {
        format!("{head}; nvml-sim/README.md lists the keys of each table")
    } else {
        format!("{head}; did you mean {}?", best.join(" or "))
    }
}

impl Scenario {
    /// Parse and validate scenario text, then expand `[generate]`.
    /// `origin` names the source in error messages.
    pub fn parse(text: &str, origin: &str) -> Result<Scenario, ScenarioError> {
        let mut sc: Scenario = toml::from_str(text).map_err(|e| {
            let msg = nearest_key(&e.message().replace('\n', " "));
            match e.span() {
                Some(span) => {
                    let before = &text[..span.start.min(text.len())];
                    let line = before.matches('\n').count() + 1;
                    let col = before.len() - before.rfind('\n').map(|i| i + 1).unwrap_or(0) + 1;
                    ScenarioError(format!(
                        "{origin}: line {line}, column {col}: {}",
                        msg.trim()
                    ))
                }
                None => ScenarioError(format!("{origin}: {}", msg.trim())),
            }
        })?;
        sc.expand()?;
        sc.validate()
            .map_err(|m| ScenarioError(format!("{origin}: {m}")))?;
        Ok(sc)
    }

    /// Read and parse a scenario file.
    pub fn from_file(path: &std::path::Path) -> Result<Scenario, ScenarioError> {
        use std::io::Read;
        let origin = path.display().to_string();
        let cannot = |e: std::io::Error| {
            let names: Vec<&str> = EXAMPLES.iter().map(|(n, _)| *n).collect();
            let hint = match e.kind() {
                std::io::ErrorKind::NotFound => {
                    format!(" (built-in scenarios by name: {})", names.join(", "))
                }
                _ => String::new(),
            };
            ScenarioError(format!("{origin}: cannot read file: {e}{hint}"))
        };
        // Read at most one byte past the cap, so an endless file (/dev/zero, a
        // FIFO that never closes its data) ends with an error, not a hang.
        let mut bytes = Vec::new();
        std::fs::File::open(path)
            .map_err(cannot)?
            .take(MAX_SCENARIO_BYTES + 1)
            .read_to_end(&mut bytes)
            .map_err(cannot)?;
        if bytes.len() as u64 > MAX_SCENARIO_BYTES {
            return Err(ScenarioError(format!(
                "{origin}: larger than {} MiB, the most a scenario may be (use [generate] for big machines)",
                MAX_SCENARIO_BYTES >> 20
            )));
        }
        let text = String::from_utf8(bytes).map_err(|_| {
            ScenarioError(format!(
                "{origin}: cannot read file: stream did not contain valid UTF-8"
            ))
        })?;
        Scenario::parse(&text, &origin)
    }

    /// The built-in default scenario (two H100 GPUs).
    pub fn builtin() -> Result<Scenario, ScenarioError> {
        Scenario::parse(DEFAULT_SCENARIO_TOML, "built-in default scenario")
    }

    /// The scenario selected by `NVML_SIM_SCENARIO`, or the built-in default.
    pub fn from_env() -> Result<Scenario, ScenarioError> {
        match std::env::var_os(SCENARIO_ENV) {
            Some(p) if !p.is_empty() => match Scenario::example(&p) {
                Some(text) => {
                    Scenario::parse(text, &format!("built-in scenario {}", p.to_string_lossy()))
                }
                None => Scenario::from_file(std::path::Path::new(&p)),
            },
            _ => Scenario::builtin(),
        }
    }

    /// The text of the built-in example named `name` (a bare name such as
    /// `dgx_h100_8gpu`; anything with a `/` or a `.toml` is a path).
    pub fn example(name: &std::ffi::OsStr) -> Option<&'static str> {
        EXAMPLES
            .iter()
            .find(|(n, _)| std::ffi::OsStr::new(n) == name)
            .map(|(_, t)| *t)
    }

    fn expand(&mut self) -> Result<(), ScenarioError> {
        let Some(g) = self.generate.clone() else {
            return Ok(());
        };
        if g.devices > MAX_DEVICES {
            return Err(ScenarioError(format!(
                "[generate] devices = {} exceeds the maximum of {MAX_DEVICES}",
                g.devices
            )));
        }
        let template = if self.device.is_empty() {
            let b = Scenario::builtin()?;
            b.device.into_iter().next().unwrap_or_default()
        } else {
            let t = g.template.unwrap_or(0);
            self.device.get(t).cloned().ok_or_else(|| {
                ScenarioError(format!(
                    "[generate] template = {t} but there are only {} [[device]] entries",
                    self.device.len()
                ))
            })?
        };
        let first_pid = g.first_pid.unwrap_or(100_000);
        let pmem = g.process_memory.unwrap_or(256 << 20);
        let base = template.name.clone().unwrap_or_else(|| "GPU".into());
        let mut devs = Vec::with_capacity(g.devices);
        let mut pid = first_pid;
        for i in 0..g.devices {
            let mut d = template.clone();
            d.uuid = Some(format!(
                "GPU-{:08x}-{:04x}-{:04x}-{:04x}-{:012x}",
                0x5e00_0000_u32 + i as u32,
                i & 0xffff,
                0x4000 | (i & 0xfff),
                0x8000 | (i & 0xfff),
                0x1d_0000_0000u64 + i as u64
            ));
            d.serial = Some(format!("{:013}", 1_650_000_000_000u64 + i as u64));
            d.pci.domain = Some((i / 256) as u32);
            d.pci.bus = Some((i % 256) as u32);
            d.pci.device = Some(0);
            d.pci.bus_id = None;
            d.minor_number = Some(Series::One(i as u32));
            d.module_id = Some(Series::One(i as u32 + 1));
            d.name = Some(base.clone());
            d.process = (0..g.processes_per_device)
                .map(|j| {
                    let p = Process {
                        pid,
                        name: Some(format!("sim-worker-{i}-{j}")),
                        name_error: None,
                        names: Vec::new(),
                        used_memory: Some(UsedMemory::Bytes(Series::One(
                            pmem + ((j as u64) << 20),
                        ))),
                        cc_protected_memory: None,
                        gpu_instance_id: None,
                        compute_instance_id: None,
                        alive: None,
                        // A steady load, different per process, so that
                        // per-process monitors have samples to show.
                        utilization: ProcessUtilization {
                            sm: Some(Series::One((j % 100) as i64)),
                            mem: Some(Series::One((j % 50) as i64)),
                            ..ProcessUtilization::default()
                        },
                    };
                    pid = pid.wrapping_add(1);
                    p
                })
                .collect();
            d.graphics_process.clear();
            d.mps_process.clear();
            devs.push(d);
        }
        self.device = devs;
        Ok(())
    }

    fn validate(&self) -> Result<(), String> {
        for (i, d) in self.device.iter().enumerate() {
            if let Some(tl) = &d.memory.used_timeline {
                tl.check(&format!("device {i}"))?;
            }
            crate::vgpu::validate(i, d)?;
            let chips = d.bridge_chips.as_deref().unwrap_or_default();
            if chips.len() > 128 {
                return Err(format!(
                    "device {i}: {} bridge chips exceed NVML's 128",
                    chips.len()
                ));
            }
            if let Some(b) = chips.iter().find(|b| b.kind != "PLX" && b.kind != "BR04") {
                return Err(format!(
                    "device {i}: bridge chip type {:?} is neither PLX nor BR04",
                    b.kind
                ));
            }
        }
        if self.unit.len() > MAX_UNITS {
            return Err(format!(
                "{} units exceed the maximum of {MAX_UNITS}",
                self.unit.len()
            ));
        }
        for (i, u) in self.unit.iter().enumerate() {
            if u.fan.len() > 24 {
                return Err(format!("unit {i}: {} fans exceed NVML's 24", u.fan.len()));
            }
            if let Some(d) = u.devices.iter().find(|&&d| d as usize >= self.device.len()) {
                return Err(format!("unit {i}: device {d} is not in the scenario"));
            }
            if let Some(c) = u
                .led_color
                .as_deref()
                .filter(|c| *c != "GREEN" && *c != "AMBER")
            {
                return Err(format!(
                    "unit {i}: led_color {c:?} is neither GREEN nor AMBER"
                ));
            }
        }
        if self.device.len() > MAX_DEVICES {
            return Err(format!(
                "{} devices exceed the maximum of {MAX_DEVICES}",
                self.device.len()
            ));
        }
        if let Some(c) = &self.init_fault {
            c.value().map_err(|e| format!("init_fault: {e}"))?;
        }
        let known =
            |f: &str| crate::generated::SYMBOLS.contains(&f) || crate::EXTRA_SYMBOLS.contains(&f);
        for f in &self.absent_functions {
            if !known(f) {
                return Err(format!("absent_functions: unknown NVML function {f:?}"));
            }
        }
        for (f, ms) in &self.latency.functions {
            if !known(f) {
                return Err(format!("latency: unknown NVML function {f:?}"));
            }
            if !ms.is_finite() || *ms < 0.0 {
                return Err(format!(
                    "latency: {f}: {ms} is not a number of milliseconds"
                ));
            }
        }
        let check_faults = |faults: &[Fault], ctx: &str| -> Result<(), String> {
            for f in faults {
                if !known(&f.function) {
                    return Err(format!(
                        "{ctx} fault: unknown NVML function {:?}",
                        f.function
                    ));
                }
                if let Some(c) = &f.code {
                    c.value()
                        .map_err(|e| format!("{ctx} fault on {}: {e}", f.function))?;
                }
            }
            Ok(())
        };
        check_faults(&self.fault, "top-level")?;
        for (i, d) in self.device.iter().enumerate() {
            let Some(t) = &d.topology else { continue };
            for (what, list) in [
                ("cpu_affinity", &t.cpu_affinity),
                ("memory_affinity", &t.memory_affinity),
            ] {
                if list.as_deref().is_some_and(|l| parse_id_list(l).is_none()) {
                    return Err(format!(
                        "device {i} topology.{what}: not a list like \"0-23,48\""
                    ));
                }
            }
            for b in t.nvlink.iter().flatten() {
                if b.remote_links
                    .as_ref()
                    .is_some_and(|r| r.len() != b.links as usize)
                {
                    return Err(format!(
                        "device {i} topology.nvlink: remote_links needs one number per link"
                    ));
                }
                match (b.peer, &b.switch) {
                    (Some(p), None)
                        if !b.inactive && (p as usize) < self.device.len() && p as usize != i => {}
                    (None, Some(bus)) if !b.inactive && parse_bus_id(bus).is_some() => {}
                    (None, None) if b.inactive && b.remote_links.is_none() => {}
                    _ => {
                        return Err(format!(
                            "device {i} topology.nvlink: each bond needs another device's index as peer, \
                             or an NVSwitch's PCI bus id as switch, or inactive = true alone"
                        ))
                    }
                }
            }
        }
        let check_procs = |ps: &[Process], ctx: &str| -> Result<(), String> {
            for p in ps {
                if let Some(c) = &p.name_error {
                    c.value()
                        .map_err(|e| format!("{ctx} pid {}: name_error: {e}", p.pid))?;
                }
                for (key, m) in [
                    ("used_memory", &p.used_memory),
                    ("cc_protected_memory", &p.cc_protected_memory),
                ] {
                    if let Some(UsedMemory::Text(t)) = m {
                        if !t.eq_ignore_ascii_case("unavailable") && !t.eq_ignore_ascii_case("n/a")
                        {
                            return Err(format!(
                                "{ctx} pid {}: {key} must be a number of bytes or \"unavailable\", got {t:?}",
                                p.pid
                            ));
                        }
                    }
                }
            }
            Ok(())
        };
        check_procs(&self.process, "[[process]]")?;
        for (i, d) in self.device.iter().enumerate() {
            let ctx = format!("device {i}");
            check_faults(&d.fault, &ctx)?;
            check_procs(&d.process, &ctx)?;
            check_procs(&d.graphics_process, &ctx)?;
            check_procs(&d.mps_process, &ctx)?;
            if d.gpu_instance.len() > MAX_GPU_INSTANCES
                || d.gpu_instance
                    .iter()
                    .any(|g| g.compute_instance.len() > MAX_COMPUTE_INSTANCES)
            {
                return Err(format!(
                    "{ctx}: at most {MAX_GPU_INSTANCES} GPU instances of at most \
                     {MAX_COMPUTE_INSTANCES} compute instances each"
                ));
            }
            check_instances(&d.gpu_instance_profile, &d.gpu_instance, &ctx)?;
            for g in &d.gpu_instance {
                let profiles = d
                    .gpu_instance_profile
                    .iter()
                    .find(|p| p.id == g.profile_id)
                    .map_or(&[][..], |p| &p.compute_instance_profile);
                let ctx = format!("{ctx} GPU instance {}", g.id);
                check_instances(profiles, &g.compute_instance, &ctx)?;
            }
            if d.mig_instance.len() > MAX_MIG_INSTANCES {
                return Err(format!(
                    "{ctx}: {} MIG instances exceed the maximum of {MAX_MIG_INSTANCES}",
                    d.mig_instance.len()
                ));
            }
            check_gpm(&d.gpm, &ctx)?;
            for m in &d.mig_instance {
                check_gpm(&m.gpm, &ctx)?;
            }
            for (k, v) in &d.field_values {
                let id = k.split(':').next().unwrap_or("");
                if id.trim().parse::<u32>().is_err() {
                    return Err(format!("{ctx}: field_values key {k:?} is not a field id"));
                }
                if let Series::Many(l) = v {
                    if l.is_empty() {
                        return Err(format!("{ctx}: field_values.{k} is an empty list"));
                    }
                }
            }
            if let Some(fab) = &d.fabric {
                if let Some(c) = &fab.status {
                    c.value()
                        .map_err(|e| format!("{ctx}: fabric.status: {e}"))?;
                }
            }
        }
        Ok(())
    }
}
