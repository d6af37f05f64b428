//! The `dcgm` profile: NVIDIA dcgm-exporter's `DCGM_FI_*` names, units and
//! labels for the fields NVML gives nvq, so that dashboards built on it
//! (Grafana 12239) work. DCGM's units are nvidia-smi's (MHz, °C, W, %,
//! MiB), so a value is the number nvidia-smi prints.
//!
//! Labels, on every sample: `gpu` (index), `UUID`, `pci_bus_id`,
//! `modelName`, `Hostname`, `DCGM_FI_DRIVER_VERSION`. A value NVML cannot
//! give is left out; no sentinel number is ever written (dcgm-exporter
//! writes DCGM's "blank" values as huge numbers).
//!
//! Not served (nvq has no source for them yet): the profiling families
//! (`DCGM_FI_PROF_*`, from NVML's GPM interface),
//! `DCGM_FI_DEV_PCIE_REPLAY_COUNTER`, and the `device` label (the GPU's
//! minor number). `DCGM_FI_DEV_XID_ERRORS` (the last XID code) comes from
//! NVML's events. `DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION` (mJ) comes from
//! the energy counter the collection reads beside the fields.

use super::exporter::Scrape;
use super::prometheus::{write_family, write_sample};
use crate::model::{Column, Row, Value};

/// How a family's value is written: DCGM's integers plainly, its doubles
/// with six decimals, yes/no words as 1/0.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Int,
    Double,
    YesNo,
}

/// One family: DCGM's name, the nvq field it is read from, the value's
/// kind, whether it is a counter, and its HELP text (nvq's words).
pub struct Family {
    pub name: &'static str,
    pub field: &'static str,
    pub kind: Kind,
    pub counter: bool,
    pub help: &'static str,
}

const fn f(
    name: &'static str,
    field: &'static str,
    kind: Kind,
    counter: bool,
    help: &'static str,
) -> Family {
    Family {
        name,
        field,
        kind,
        counter,
        help,
    }
}

/// dcgm-exporter's default counters that NVML gives nvq.
pub const FAMILIES: &[Family] = &[
    f(
        "DCGM_FI_DEV_SM_CLOCK",
        "clocks.current.sm",
        Kind::Int,
        false,
        "SM clock, in MHz.",
    ),
    f(
        "DCGM_FI_DEV_MEM_CLOCK",
        "clocks.current.memory",
        Kind::Int,
        false,
        "Memory clock, in MHz.",
    ),
    f(
        "DCGM_FI_DEV_GPU_TEMP",
        "temperature.gpu",
        Kind::Int,
        false,
        "GPU temperature, in degrees Celsius.",
    ),
    f(
        "DCGM_FI_DEV_MEMORY_TEMP",
        "temperature.memory",
        Kind::Int,
        false,
        "Memory temperature, in degrees Celsius.",
    ),
    f(
        "DCGM_FI_DEV_POWER_USAGE",
        "power.draw",
        Kind::Double,
        false,
        "Power draw, in watts.",
    ),
    f(
        "DCGM_FI_DEV_GPU_UTIL",
        "utilization.gpu",
        Kind::Int,
        false,
        "Time the GPU was busy, in percent.",
    ),
    f(
        "DCGM_FI_DEV_MEM_COPY_UTIL",
        "utilization.memory",
        Kind::Int,
        false,
        "Time memory was read or written, in percent.",
    ),
    f(
        "DCGM_FI_DEV_ENC_UTIL",
        "utilization.encoder",
        Kind::Int,
        false,
        "Time the video encoder was busy, in percent.",
    ),
    f(
        "DCGM_FI_DEV_DEC_UTIL",
        "utilization.decoder",
        Kind::Int,
        false,
        "Time the video decoder was busy, in percent.",
    ),
    f(
        "DCGM_FI_DEV_FB_FREE",
        "memory.free",
        Kind::Int,
        false,
        "Framebuffer memory free, in MiB.",
    ),
    f(
        "DCGM_FI_DEV_FB_USED",
        "memory.used",
        Kind::Int,
        false,
        "Framebuffer memory used, in MiB.",
    ),
    f(
        "DCGM_FI_DEV_FB_RESERVED",
        "memory.reserved",
        Kind::Int,
        false,
        "Framebuffer memory reserved by the driver, in MiB.",
    ),
    f(
        "DCGM_FI_DEV_CORRECTABLE_REMAPPED_ROWS",
        "remapped_rows.correctable",
        Kind::Int,
        true,
        "Memory rows remapped after correctable errors.",
    ),
    f(
        "DCGM_FI_DEV_UNCORRECTABLE_REMAPPED_ROWS",
        "remapped_rows.uncorrectable",
        Kind::Int,
        true,
        "Memory rows remapped after uncorrectable errors.",
    ),
    f(
        "DCGM_FI_DEV_ROW_REMAP_FAILURE",
        "remapped_rows.failure",
        Kind::YesNo,
        false,
        "1 if a row remapping has failed, else 0.",
    ),
];

/// The last XID error, from NVML's events.
pub const XID: &str = "DCGM_FI_DEV_XID_ERRORS";

/// The energy family, read beside the fields (not a `--query-gpu` field).
pub const ENERGY: &str = "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION";

/// The `--query-gpu` fields this profile reads: the families' and the labels'.
pub fn fields() -> String {
    let mut list: Vec<&str> = vec!["name", "driver_version"];
    list.extend(FAMILIES.iter().map(|f| f.field));
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

fn labels(columns: &[Column], row: &Row, hostname: &str) -> Vec<(String, String)> {
    let text = |field: &str| {
        columns
            .iter()
            .position(|c| c.name == field)
            .and_then(|i| row.cells.get(i))
            .filter(|v| matches!(v, Value::Text(_)))
            .map(Value::to_string)
    };
    let mut l = Vec::new();
    if let Some(g) = &row.gpu {
        l.push(("gpu".to_string(), g.index.to_string()));
        l.push(("UUID".to_string(), g.uuid.clone()));
        l.push(("pci_bus_id".to_string(), g.pci_bus_id.clone()));
        l.push(("modelName".to_string(), g.name.clone()));
    }
    if !hostname.is_empty() {
        l.push(("Hostname".to_string(), hostname.to_string()));
    }
    if let Some(v) = text("driver_version") {
        l.push(("DCGM_FI_DRIVER_VERSION".to_string(), v));
    }
    // A label whose value is unknown (a lost GPU) is left out.
    l.retain(|(_, v)| !v.is_empty());
    l
}

/// The exposition of one scrape (without the health series).
pub fn render(s: &Scrape<'_>, out: &mut Vec<u8>) {
    let labels: Vec<_> = s
        .rows
        .iter()
        .map(|r| labels(s.columns, r, s.hostname))
        .collect();
    let mut text = String::new();
    for fam in FAMILIES {
        let Some(i) = s.columns.iter().position(|c| c.name == fam.field) else {
            continue;
        };
        let mut samples = String::new();
        for (row, l) in s.rows.iter().zip(&labels) {
            if let Some(v) = row.cells.get(i).and_then(|v| value(fam.kind, v)) {
                write_sample(fam.name, l, &v, &mut samples);
            }
        }
        if !samples.is_empty() {
            write_family(fam.name, fam.help, fam.counter, &mut text);
            text.push_str(&samples);
        }
    }
    let mut energy = String::new();
    for ((_, l), mj) in s.rows.iter().zip(&labels).zip(s.energy_mj) {
        if let Some(mj) = mj {
            write_sample(ENERGY, l, &mj.to_string(), &mut energy);
        }
    }
    if !energy.is_empty() {
        let help = "Energy the GPU has used since the driver loaded, in millijoules.";
        write_family(ENERGY, help, true, &mut text);
        text.push_str(&energy);
    }
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
    if !xid.is_empty() {
        write_family(
            XID,
            "The GPU's most recent XID error code (none before the first).",
            false,
            &mut text,
        );
        text.push_str(&xid);
    }
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
}
