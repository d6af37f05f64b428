//! The `dcgm` profile: NVIDIA dcgm-exporter's `DCGM_FI_*` names, units and
//! labels for the fields NVML gives nvq, so that dashboards built on it
//! (Grafana 12239) work. DCGM's units are nvidia-smi's (MHz, °C, W, %,
//! MiB), so a value is the number nvidia-smi prints.
//!
//! Labels, on every sample, in dcgm-exporter's order: `gpu` (index),
//! `UUID`, `pci_bus_id`, `device` (`nvidia<minor number>`), `modelName`,
//! for a MIG GPU instance `GPU_I_PROFILE` and `GPU_I_ID`, then `Hostname`,
//! `DCGM_FI_DRIVER_VERSION`. A value NVML cannot give is left out; no
//! sentinel number is ever written (dcgm-exporter writes DCGM's "blank"
//! values as huge numbers).
//!
//! The profiling families (`DCGM_FI_PROF_*`, [`PROF`]) come from NVML's GPM
//! metrics between this collection's sample and the previous one, on GPUs
//! with GPM (Hopper and later); elsewhere, and on the first collection after
//! start (no previous sample yet), they are left out. In MIG mode each GPU
//! instance also has its own `DCGM_FI_DEV_FB_USED`/`FB_FREE` (from its MIG
//! device) and `DCGM_FI_PROF_*` (from `nvmlGpmMigSampleGet`) series, with
//! `GPU_I_PROFILE` and `GPU_I_ID`, in place of the GPU's own (as
//! dcgm-exporter serves them, so that `sum(DCGM_FI_DEV_FB_USED)` counts
//! memory once); the GPU's other series keep no instance labels. The
//! `DCGM_FI_PROF_*` families come from GPM only: a pre-Hopper GPU (an
//! A100, where DCGM's own profiling module serves them) has none.
//!
//! `DCGM_FI_DEV_PCIE_REPLAY_COUNTER` is NVML's PCIe replay counter, read
//! beside the fields. `DCGM_FI_DEV_XID_ERRORS` (the last XID code) comes
//! from NVML's events.
//! `DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION` (mJ) comes from the energy counter
//! the collection reads beside the fields.

use super::Scrape;
use crate::model::gpm::{about, id, GpuExtra, InstanceRead};
use crate::model::{Column, Fact, FieldKind, Row, Value};
use crate::render::prometheus::{write_sample, write_samples};

/// How a family's value is written: DCGM's integers plainly, its doubles
/// with six decimals, yes/no words as 1/0.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// An integer, written plainly (a float reading is rounded).
    Int,
    /// A double, written with six decimals.
    Double,
    /// A yes/no reading, written as 1 (yes) or 0 (no).
    YesNo,
}

/// One family: DCGM's name, the nvq field it is read from, the value's
/// kind, and its HELP text (nvq's words). Whether it is a counter is the
/// field's (`FieldInfo::kind`), as in every profile.
pub struct Family {
    /// DCGM's metric name (`DCGM_FI_DEV_...`).
    pub name: &'static str,
    /// The nvq field whose cell gives the value.
    pub field: Fact,
    /// How the value is written.
    pub kind: Kind,
    /// The family's `# HELP` text.
    pub help: &'static str,
}

const fn f(name: &'static str, field: Fact, kind: Kind, help: &'static str) -> Family {
    Family {
        name,
        field,
        kind,
        help,
    }
}

/// dcgm-exporter's default counters that NVML gives nvq.
pub const FAMILIES: &[Family] = &[
    f(
        "DCGM_FI_DEV_SM_CLOCK",
        Fact::ClocksCurrentSm,
        Kind::Int,
        "SM clock, in MHz.",
    ),
    f(
        "DCGM_FI_DEV_MEM_CLOCK",
        Fact::ClocksCurrentMemory,
        Kind::Int,
        "Memory clock, in MHz.",
    ),
    f(
        "DCGM_FI_DEV_GPU_TEMP",
        Fact::TemperatureGpu,
        Kind::Int,
        "GPU temperature, in degrees Celsius.",
    ),
    f(
        "DCGM_FI_DEV_MEMORY_TEMP",
        Fact::TemperatureMemory,
        Kind::Int,
        "Memory temperature, in degrees Celsius.",
    ),
    f(
        "DCGM_FI_DEV_POWER_USAGE",
        Fact::PowerDraw,
        Kind::Double,
        "Power draw, in watts.",
    ),
    f(
        "DCGM_FI_DEV_GPU_UTIL",
        Fact::UtilizationGpu,
        Kind::Int,
        "Time the GPU was busy, in percent.",
    ),
    f(
        "DCGM_FI_DEV_MEM_COPY_UTIL",
        Fact::UtilizationMemory,
        Kind::Int,
        "Time memory was read or written, in percent.",
    ),
    f(
        "DCGM_FI_DEV_ENC_UTIL",
        Fact::UtilizationEncoder,
        Kind::Int,
        "Time the video encoder was busy, in percent.",
    ),
    f(
        "DCGM_FI_DEV_DEC_UTIL",
        Fact::UtilizationDecoder,
        Kind::Int,
        "Time the video decoder was busy, in percent.",
    ),
    f(
        "DCGM_FI_DEV_FB_FREE",
        Fact::MemoryFree,
        Kind::Int,
        "Framebuffer memory free, in MiB.",
    ),
    f(
        "DCGM_FI_DEV_FB_USED",
        Fact::MemoryUsed,
        Kind::Int,
        "Framebuffer memory used, in MiB.",
    ),
    f(
        "DCGM_FI_DEV_FB_RESERVED",
        Fact::MemoryReserved,
        Kind::Int,
        "Framebuffer memory reserved by the driver, in MiB.",
    ),
    f(
        "DCGM_FI_DEV_CORRECTABLE_REMAPPED_ROWS",
        Fact::RemappedRowsCorrectable,
        Kind::Int,
        "Memory rows remapped after correctable errors.",
    ),
    f(
        "DCGM_FI_DEV_UNCORRECTABLE_REMAPPED_ROWS",
        Fact::RemappedRowsUncorrectable,
        Kind::Int,
        "Memory rows remapped after uncorrectable errors.",
    ),
    f(
        "DCGM_FI_DEV_ROW_REMAP_FAILURE",
        Fact::RemappedRowsFailure,
        Kind::YesNo,
        "1 if a row remapping has failed, else 0.",
    ),
];

/// A profiling family: DCGM's name, the GPM metric it is read from, the
/// factor from NVML's unit to DCGM's, whether DCGM writes it as an integer
/// (the byte rates), and what it measures (nvq's words, shared with dmon).
/// All are gauges, as in dcgm-exporter.
pub struct Prof {
    /// DCGM's metric name (`DCGM_FI_PROF_...`).
    pub name: &'static str,
    /// The NVML GPM metric id it is read from (`nvmlGpmMetricId_t`, see `model::gpm::id`).
    pub gpm: u32,
    /// Factor from NVML's unit to DCGM's (percent to a 0..1 ratio, or MiB/s to bytes per second).
    pub scale: f64,
    /// DCGM writes it as an integer rather than a double (the byte rates).
    pub integer: bool,
    /// What it measures, as dmon says it ([`about`]); [`Prof::help`] adds the unit.
    pub about: &'static str,
}

impl Prof {
    /// The family's `# HELP` text: what it measures, in DCGM's unit.
    pub fn help(&self) -> String {
        let unit = if self.integer {
            "in bytes per second"
        } else {
            "0 to 1"
        };
        format!("{}, {unit}.", self.about.trim_end_matches('.'))
    }
}

/// Percent (NVML) to a ratio 0..1 (DCGM).
const RATIO: f64 = 0.01;
/// MiB/s (NVML) to bytes per second (DCGM).
const MIB_S: f64 = 1048576.0;

const fn p(name: &'static str, gpm: u32, scale: f64) -> Prof {
    Prof {
        name,
        gpm,
        scale,
        integer: scale > 1.0,
        about: match about(gpm) {
            Some(about) => about,
            None => "",
        },
    }
}

/// dcgm-exporter's profiling families (`etc/default-counters.csv`,
/// `etc/dcp-metrics-included.csv`) that NVML's GPM metrics give, with the
/// `nvmlGpmMetricId_t` each is read from.
#[rustfmt::skip]
pub const PROF: &[Prof] = &[
    p("DCGM_FI_PROF_GR_ENGINE_ACTIVE", id::GRAPHICS_UTIL, RATIO),
    p("DCGM_FI_PROF_SM_ACTIVE", id::SM_UTIL, RATIO),
    p("DCGM_FI_PROF_SM_OCCUPANCY", id::SM_OCCUPANCY, RATIO),
    p("DCGM_FI_PROF_PIPE_TENSOR_ACTIVE", id::ANY_TENSOR_UTIL, RATIO),
    p("DCGM_FI_PROF_DRAM_ACTIVE", id::DRAM_BW_UTIL, RATIO),
    p("DCGM_FI_PROF_PIPE_FP64_ACTIVE", id::FP64_UTIL, RATIO),
    p("DCGM_FI_PROF_PIPE_FP32_ACTIVE", id::FP32_UTIL, RATIO),
    p("DCGM_FI_PROF_PIPE_FP16_ACTIVE", id::FP16_UTIL, RATIO),
    p("DCGM_FI_PROF_PCIE_TX_BYTES", id::PCIE_TX_PER_SEC, MIB_S),
    p("DCGM_FI_PROF_PCIE_RX_BYTES", id::PCIE_RX_PER_SEC, MIB_S),
    p("DCGM_FI_PROF_NVLINK_TX_BYTES", id::NVLINK_TOTAL_TX_PER_SEC, MIB_S),
    p("DCGM_FI_PROF_NVLINK_RX_BYTES", id::NVLINK_TOTAL_RX_PER_SEC, MIB_S),
];

/// The GPM metric ids of [`PROF`], in its order.
pub const GPM_IDS: &[u32] = &{
    let mut ids = [0; PROF.len()];
    let mut i = 0;
    while i < PROF.len() {
        ids[i] = PROF[i].gpm;
        i += 1;
    }
    ids
};

/// A profiling value as DCGM writes it; `None` for a value nothing sane
/// can be made of.
fn prof_value(p: &Prof, v: f64) -> Option<String> {
    let x = v * p.scale;
    if !x.is_finite() || x < 0.0 {
        return None;
    }
    Some(if p.integer {
        format!("{}", x.round())
    } else {
        format!("{x:.6}")
    })
}

/// The value of GPM metric `id` in `list`.
fn gpm(list: &[(u32, f64)], id: u32) -> Option<f64> {
    list.iter().find(|(i, _)| *i == id).map(|(_, v)| *v)
}

/// A GPU's labels with a GPU instance's two added after `modelName`.
fn instance_labels(base: &[(String, String)], i: &InstanceRead) -> Vec<(String, String)> {
    let mut l = base.to_vec();
    let at = l
        .iter()
        .position(|(k, _)| k == "modelName")
        .map_or(l.len(), |p| p + 1);
    let mut add = Vec::new();
    if !i.profile.is_empty() {
        add.push(("GPU_I_PROFILE".to_string(), i.profile.clone()));
    }
    add.push((INSTANCE_LABEL.to_string(), i.gpu_instance_id.to_string()));
    l.splice(at..at, add);
    l
}

/// The FB families, which a GPU in MIG mode serves per GPU instance.
fn is_fb(name: &str) -> bool {
    matches!(name, "DCGM_FI_DEV_FB_USED" | "DCGM_FI_DEV_FB_FREE")
}

/// A GPU instance's value of an FB family, in MiB.
fn instance_fb(name: &str, i: &InstanceRead) -> Option<String> {
    let bytes = match name {
        "DCGM_FI_DEV_FB_USED" => i.fb_used_bytes,
        "DCGM_FI_DEV_FB_FREE" => i.fb_free_bytes,
        _ => None,
    };
    bytes.map(|b| (b >> 20).to_string())
}

/// The last XID error, from NVML's events.
pub const XID: &str = "DCGM_FI_DEV_XID_ERRORS";

/// The PCIe replay counter, read beside the fields (not a `--query-gpu`
/// field; the reader `dmon`'s `pci` column and `-q` use).
pub const PCIE_REPLAY: &str = "DCGM_FI_DEV_PCIE_REPLAY_COUNTER";

/// The energy family, read beside the fields (not a `--query-gpu` field).
pub const ENERGY: &str = "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION";

/// The `--query-gpu` fields this profile reads: the families' and the labels'.
pub fn fields() -> String {
    let mut list: Vec<&str> = vec!["name", "driver_version"];
    list.extend(FAMILIES.iter().map(|f| f.field.name()));
    list.join(",")
}

/// The number DCGM would give for a cell, as text; `None` without a value.
fn value(kind: Kind, v: &Value) -> Option<String> {
    match (kind, v) {
        (Kind::Int, Value::Int(i)) => Some(i.to_string()),
        (Kind::Int, Value::Bytes(_)) => Some(v.to_string()),
        (Kind::Int | Kind::Double, Value::Float { value, .. }) if value.is_finite() => {
            Some(if kind == Kind::Int {
                format!("{}", value.round())
            } else {
                format!("{value:.6}")
            })
        }
        (Kind::Double, Value::Int(i)) => Some(format!("{:.6}", *i as f64)),
        (Kind::YesNo, Value::Text(t)) => match t.as_str() {
            "Yes" => Some("1".into()),
            "No" => Some("0".into()),
            _ => None,
        },
        _ => None,
    }
}

/// The labels that name a GPU's facts on every sample, in dcgm-exporter's
/// order, each with the fact it holds (`device`, the minor number, and
/// `Hostname` are no `--query-gpu` field; `device` goes after `pci_bus_id`,
/// `Hostname` before the driver's version).
pub const IDENTITY: &[(&str, Fact)] = &[
    ("gpu", Fact::Index),
    ("UUID", Fact::Uuid),
    ("pci_bus_id", Fact::PciBusId),
    ("modelName", Fact::Name),
    ("DCGM_FI_DRIVER_VERSION", Fact::DriverVersion),
];

/// The label of a GPU instance's series (a MIG GPU instance id): such a
/// series is the instance's, not its GPU's.
pub const INSTANCE_LABEL: &str = "GPU_I_ID";

/// The family named `name` (one of [`FAMILIES`]).
pub fn family(name: &str) -> Option<&'static Family> {
    FAMILIES.iter().find(|f| f.name == name)
}

fn labels(
    columns: &[Column],
    row: &Row,
    hostname: &str,
    minor: Option<u32>,
) -> Vec<(String, String)> {
    let text = |field: Fact| {
        columns
            .iter()
            .position(|c| c.id == field.into())
            .and_then(|i| row.cells.get(i))
            .filter(|v| matches!(v, Value::Text(_)))
            .map(Value::to_string)
    };
    let mut l = Vec::new();
    for &(label, fact) in IDENTITY {
        let value = match (&row.gpu, fact) {
            (Some(g), Fact::Index) => Some(g.index.to_string()),
            (Some(g), Fact::Uuid) => Some(g.uuid.clone()),
            (Some(g), Fact::PciBusId) => Some(g.pci_bus_id.clone()),
            (Some(g), Fact::Name) => Some(g.name.clone()),
            (None, Fact::Index | Fact::Uuid | Fact::PciBusId | Fact::Name) => None,
            (_, fact) => text(fact),
        };
        if fact == Fact::DriverVersion && !hostname.is_empty() {
            l.push(("Hostname".to_string(), hostname.to_string()));
        }
        if let Some(v) = value {
            l.push((label.to_string(), v));
        }
        if fact == Fact::PciBusId {
            if let (Some(m), Some(_)) = (minor, &row.gpu) {
                l.push(("device".to_string(), format!("nvidia{m}")));
            }
        }
    }
    // A label whose value is unknown (a lost GPU) is left out.
    l.retain(|(_, v)| !v.is_empty());
    super::with_pod_labels(l, row)
}

/// The exposition of one scrape (without the health series).
pub fn render(s: &Scrape<'_>, out: &mut Vec<u8>) {
    let none = GpuExtra::default();
    let extra = |i: usize| s.extra.get(i).unwrap_or(&none);
    let labels: Vec<_> = s
        .rows
        .iter()
        .enumerate()
        .map(|(i, r)| labels(s.columns, r, s.hostname, extra(i).minor))
        .collect();
    let mut text = String::new();
    for fam in FAMILIES {
        let Some(i) = s.columns.iter().position(|c| c.id == fam.field.into()) else {
            continue;
        };
        let mut samples = String::new();
        for (k, (row, l)) in s.rows.iter().zip(&labels).enumerate() {
            // In MIG mode dcgm-exporter serves the GPU instances' memory in
            // place of the GPU's, so that a sum over series counts it once.
            let by_instance = is_fb(fam.name) && !extra(k).instances.is_empty();
            if let Some(v) = row.cells.get(i).and_then(|v| value(fam.kind, v)) {
                if !by_instance {
                    write_sample(fam.name, l, &v, &mut samples);
                }
            }
            for inst in &extra(k).instances {
                if let Some(v) = instance_fb(fam.name, inst) {
                    write_sample(fam.name, &instance_labels(l, inst), &v, &mut samples);
                }
            }
        }
        let counter = s.columns[i].kind == FieldKind::Counter;
        write_samples(fam.name, fam.help, counter, &samples, &mut text);
    }
    for prof in PROF {
        let mut samples = String::new();
        for (k, l) in labels.iter().enumerate() {
            let x = extra(k);
            // The GPU's own series only off MIG: in MIG mode each GPU
            // instance has its own (as dcgm-exporter).
            let own = gpm(&x.gpm, prof.gpm).filter(|_| x.instances.is_empty());
            if let Some(v) = own.and_then(|v| prof_value(prof, v)) {
                write_sample(prof.name, l, &v, &mut samples);
            }
            for inst in &x.instances {
                if let Some(v) = gpm(&inst.gpm, prof.gpm).and_then(|v| prof_value(prof, v)) {
                    write_sample(prof.name, &instance_labels(l, inst), &v, &mut samples);
                }
            }
        }
        write_samples(prof.name, &prof.help(), false, &samples, &mut text);
    }
    let mut replays = String::new();
    for (k, l) in labels.iter().enumerate() {
        if let Some(n) = extra(k).pcie_replays {
            write_sample(PCIE_REPLAY, l, &n.to_string(), &mut replays);
        }
    }
    let help = "PCIe replays (retransmitted packets) since the driver loaded.";
    write_samples(PCIE_REPLAY, help, true, &replays, &mut text);
    let mut energy = String::new();
    for ((_, l), mj) in s.rows.iter().zip(&labels).zip(s.energy_mj) {
        if let Some(mj) = mj {
            write_sample(ENERGY, l, &mj.to_string(), &mut energy);
        }
    }
    let help = "Energy the GPU has used since the driver loaded, in millijoules.";
    write_samples(ENERGY, help, true, &energy, &mut text);
    let mut xid = String::new();
    for x in s.xid.iter().filter(|x| x.last) {
        // A GPU never read whole (hung since the start) is named by index.
        let row = s
            .rows
            .iter()
            .position(|r| r.gpu.as_ref().is_some_and(|g| g.index == x.gpu));
        let l = match row.and_then(|i| labels.get(i)) {
            Some(l) => l.clone(),
            None => vec![("gpu".to_string(), x.gpu.to_string())],
        };
        write_sample(XID, &l, &x.code.to_string(), &mut xid);
    }
    let help = "The GPU's most recent XID error code (none before the first).";
    write_samples(XID, help, false, &xid, &mut text);
    out.extend_from_slice(text.as_bytes());
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::NvmlCode;

    #[test]
    fn values_as_dcgm_writes_them() {
        assert_eq!(value(Kind::Int, &Value::Int(1410)), Some("1410".into()));
        assert_eq!(value(Kind::Int, &Value::Bytes(3 << 20)), Some("3".into()));
        assert_eq!(
            value(Kind::Double, &Value::watts_from_mw(77710)),
            Some("77.710000".into())
        );
        assert_eq!(value(Kind::YesNo, &Value::text("No")), Some("0".into()));
        assert_eq!(value(Kind::Int, &Value::err(NvmlCode::NOT_SUPPORTED)), None);
        assert_eq!(value(Kind::Int, &Value::NotAvailable), None);
        assert!(FAMILIES.iter().all(|f| f.name.starts_with("DCGM_FI_DEV_")));
        assert!(fields().starts_with("name,driver_version,clocks.current.sm"));
    }

    #[test]
    fn profiling_values_and_instance_labels() {
        assert_eq!(GPM_IDS[..4], [1, 2, 3, 5]);
        let tensor = &PROF[3];
        assert_eq!(prof_value(tensor, 37.5), Some("0.375000".into()));
        assert_eq!(prof_value(tensor, f64::NAN), None);
        let pcie = &PROF[8];
        assert_eq!(prof_value(pcie, 100.0), Some("104857600".into()));
        // dmon's words for the metric, in DCGM's unit.
        assert_eq!(
            tensor.help(),
            "Share of cycles any tensor core pipe was busy, 0 to 1."
        );
        assert_eq!(
            pcie.help(),
            "PCIe traffic sent by the GPU, headers included, in bytes per second."
        );
        let base = vec![
            ("gpu".to_string(), "0".to_string()),
            ("modelName".to_string(), "H100".to_string()),
            ("Hostname".to_string(), "h".to_string()),
        ];
        let inst = InstanceRead {
            gpu_instance_id: 3,
            profile: "1g.10gb".into(),
            ..Default::default()
        };
        let keys: Vec<String> = instance_labels(&base, &inst)
            .into_iter()
            .map(|(k, _)| k)
            .collect();
        assert_eq!(
            keys,
            ["gpu", "modelName", "GPU_I_PROFILE", "GPU_I_ID", "Hostname"]
        );
    }

    /// Every profiling family's `# HELP` says what it measures: each GPM
    /// metric of [`PROF`] has its shared sentence ([`about`]).
    #[test]
    fn every_profiling_family_says_what_it_measures() {
        for p in PROF {
            assert!(!p.about.is_empty(), "{} has no help", p.name);
        }
    }
}
