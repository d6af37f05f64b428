//! Reading a scenario: the built-in examples, the file (with its size cap), serde's errors
//! with a "did you mean", and `[generate]`'s expansion.

use super::machine::Scenario;
use super::tables::{Process, ProcessUtilization, UsedMemory};
use super::values::{Series, MAX_DEVICES, MAX_SCENARIO_BYTES};
use std::fmt;

/// The built-in scenario used when `NVML_SIM_SCENARIO` is not set.
pub const DEFAULT_SCENARIO_TOML: &str = include_str!("../../scenarios/default.toml");

/// The example machines built into the simulator, by the name that
/// `NVML_SIM_SCENARIO` takes instead of a path, so that the documentation's
/// examples work from any installation (the Debian package, the wheel,
/// `cargo install`) without a checkout's `nvml-sim/scenarios/` folder.
pub const EXAMPLES: &[(&str, &str)] = &[
    ("default", DEFAULT_SCENARIO_TOML),
    (
        "dgx_h100_8gpu",
        include_str!("../../scenarios/dgx_h100_8gpu.toml"),
    ),
    (
        "pcie_8gpu_2numa",
        include_str!("../../scenarios/pcie_8gpu_2numa.toml"),
    ),
];

/// Name of the environment variable selecting the scenario file.
pub const SCENARIO_ENV: &str = "NVML_SIM_SCENARIO";

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
}
