//! The top level of a scenario file: the machine (`Scenario`), its S-class units and host
//! interface cards, call latency and `[generate]`.

use super::device::Device;
use super::tables::{Fault, Process};
use super::values::{Code, Val};
use serde::Deserialize;
use std::collections::BTreeMap;

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
    /// Live processes: running programs declare the GPU memory of their own PID in a control
    /// directory (see the README's "Live processes").
    pub live: Option<Live>,
}

/// Names the live processes' control directory when the scenario's `[live]` has no `dir`.
pub const LIVE_DIR_ENV: &str = "NVML_SIM_LIVE_DIR";

/// `[live]`: where running programs declare the GPU memory of their own PID.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Live {
    /// The control directory (one file per PID); absent: `NVML_SIM_LIVE_DIR`.
    pub dir: Option<String>,
    /// The least time between two reads of the directory, in ms (default
    /// [`LIVE_EVERY_MS`]; 0: at every call that lists processes or memory).
    pub every_ms: Option<u64>,
    /// Added to every live PID that NVML gives (lists, accounting, utilization samples) and
    /// taken off the PIDs it is asked about: the PIDs of a driver in another PID namespace (the
    /// host's, seen from a container), which do not name the same processes here. Default 0.
    pub pid_offset: Option<u32>,
}

/// How often, at most, the live processes' directory is read by default: a sample's calls
/// share one read (reading 64 processes' files costs about a fifth of a millisecond).
pub const LIVE_EVERY_MS: u64 = 10;

impl Scenario {
    /// The live processes' control directory: the scenario's `[live] dir`, else
    /// `NVML_SIM_LIVE_DIR` (for any scenario, the built-in ones too); none: no live processes.
    pub fn live_dir(&self) -> Option<std::path::PathBuf> {
        let dir = self.live.as_ref().and_then(|l| l.dir.clone());
        let dir = dir.or_else(|| std::env::var(LIVE_DIR_ENV).ok())?;
        (!dir.is_empty()).then(|| dir.into())
    }

    /// `[live] pid_offset`, or 0.
    pub fn live_pid_offset(&self) -> u32 {
        self.live.as_ref().and_then(|l| l.pid_offset).unwrap_or(0)
    }

    /// `[live] every_ms`, or its default.
    pub fn live_every_ms(&self) -> u64 {
        self.live
            .as_ref()
            .and_then(|l| l.every_ms)
            .unwrap_or(LIVE_EVERY_MS)
    }
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
