//! The `nvidia_gpu_exporter` profile: the families, labels and values of
//! `utkuozdemir/nvidia_gpu_exporter`, so that its dashboards (Grafana 14574,
//! 25547) and alerts work on nvq unchanged.
//!
//! That exporter runs `nvidia-smi --query-gpu=<every field> --format=csv`
//! and turns each cell into a number; this profile applies the same rules
//! to the same text (a cell's [`Value`] prints as nvidia-smi prints it):
//!
//! - a family is `nvidia_smi_` + the field in snake_case + the suffix of
//!   the field's CSV unit ([`UNITS`], which also scales the value);
//! - a cell becomes a number by [`number`]: hex, the words of
//!   [`WORDS`], or the one decimal number the text holds; anything else
//!   (`[N/A]`, a version such as `590.48.01`) is left out;
//! - every per-GPU sample has one label, `uuid`, without `GPU-`; identity is
//!   on `nvidia_smi_gpu_info` ([`INFO_LABELS`]); processes are on
//!   `nvidia_smi_compute_app_*` (with `--collect.compute-apps-mig`, also
//!   their MIG instance ids, as that exporter's NVML backend labels them);
//! - the collection's status is the NVML backend's
//!   `nvidia_smi_nvml_return_code`, not the nvidia-smi backend's
//!   `nvidia_smi_command_exit_code` (that exporter's `docs/METRICS.md`);
//! - numbers are written as Go writes a float (`3.45e+08`), every family is
//!   a gauge except `nvidia_smi_failed_scrapes_total`.
//!
//! The HELP texts are nvq's own.

use super::{cell, Health, Scrape};
use crate::model::{Column, ColumnId, Fact, ListField, Row, Unit, Value};
use crate::render::prometheus::{
    snake_case, write_family, write_sample, write_samples, write_single,
};

/// CSV unit → family suffix; the factor to the suffix's unit is the
/// unit's size in its quantity's base unit ([`Unit::find`]).
pub const UNITS: &[(&str, &str)] = &[
    ("MiB", "_bytes"),
    ("MHz", "_clock_hz"),
    ("W", "_watts"),
    ("%", "_ratio"),
    ("us", "_seconds"),
    ("ms", "_seconds"),
];

/// Words that stand for numbers (compared in lower case).
pub const WORDS: &[(&str, f64)] = &[
    ("enabled", 1.0),
    ("yes", 1.0),
    ("active", 1.0),
    ("disabled", 0.0),
    ("no", 0.0),
    ("not active", 0.0),
    ("default", 0.0),
    ("exclusive_thread", 1.0),
    ("prohibited", 2.0),
    ("exclusive_process", 3.0),
];

/// Fields whose words that exporter reads as numbers of their own (NVML's
/// enumerations), compared in lower case.
pub const FIELD_WORDS: &[(Fact, &[(&str, f64)])] = &[
    (
        Fact::FabricState,
        &[
            ("not supported", 0.0),
            ("not started", 1.0),
            ("in progress", 2.0),
            ("completed", 3.0),
        ],
    ),
    (
        Fact::GpuRecoveryAction,
        &[
            ("none", 0.0),
            // nvidia-smi's words (`Reset`, `Reboot`), and NVML's older ones
            // that exporter also accepts.
            ("reset", 1.0),
            ("gpu reset", 1.0),
            ("reboot", 2.0),
            ("node reboot", 2.0),
            ("drain p2p", 3.0),
            ("drain and reset", 4.0),
        ],
    ),
];

/// `nvidia_smi_gpu_info`'s labels: label name → the field whose text it is.
pub const INFO_LABELS: &[(&str, Fact)] = &[
    ("uuid", Fact::Uuid),
    ("name", Fact::Name),
    ("driver_model_current", Fact::DriverModelCurrent),
    ("driver_model_pending", Fact::DriverModelPending),
    ("vbios_version", Fact::VbiosVersion),
    ("driver_version", Fact::DriverVersion),
    ("pci_bus_id", Fact::PciBusId),
    ("serial", Fact::Serial),
    ("compute_cap", Fact::ComputeCap),
    ("pci_sub_device_id", Fact::PciSubDeviceId),
    ("index", Fact::Index),
];

/// The `--query-compute-apps` fields the process families read.
pub const APP_FIELDS: &[ListField] = &[
    ListField::GpuUuid,
    ListField::Pid,
    ListField::ProcessName,
    ListField::UsedGpuMemory,
];

/// The prefix of every family.
pub const PREFIX: &str = "nvidia_smi_";

/// The identity family (after [`PREFIX`]): [`INFO_LABELS`], value 1.
pub const GPU_INFO: &str = "gpu_info";

/// The process families (after [`PREFIX`]): one sample per process,
/// labelled by [`APP_LABELS`] (and, with `--collect.compute-apps-mig`,
/// the MIG instance ids): its identity (value 1) and its memory in bytes.
pub const APP_INFO: &str = "compute_app_info";
/// See [`APP_INFO`].
pub const APP_USED_MEMORY: &str = "compute_app_used_memory_bytes";

/// The process families' labels, each with the field it holds (`uuid`
/// without `GPU-`).
pub const APP_LABELS: &[(&str, ListField)] = &[
    ("pid", ListField::Pid),
    ("process_name", ListField::ProcessName),
    ("uuid", ListField::GpuUuid),
];

/// The family name and factor of a GPU field.
pub fn family(c: &Column) -> (String, f64) {
    let unit = c.unit.and_then(|u| UNITS.iter().find(|(n, _)| *n == u));
    let (suffix, factor) = unit.map_or(("", 1.0), |(n, s)| {
        (*s, Unit::find(n).map_or(1.0, |u| u.in_base))
    });
    (format!("{PREFIX}{}{suffix}", snake_case(c.name)), factor)
}

/// [`family`] read in reverse: the `--query-gpu` fact whose family is
/// `name`, and the factor its numbers were multiplied by. Only the fields
/// nvidia-smi lists (that exporter queries no others); when two facts
/// would share a family, the first in the catalogue's order, as
/// [`render`] writes only the first.
pub fn fact_of(name: &str) -> Option<(Fact, f64)> {
    static TABLE: std::sync::OnceLock<Vec<(String, Fact, f64)>> = std::sync::OnceLock::new();
    let table = TABLE.get_or_init(|| {
        let mut t: Vec<(String, Fact, f64)> = Vec::new();
        for f in Fact::ALL {
            let info = f.info();
            if info.internal || info.extension {
                continue;
            }
            let (name, factor) = family(&Column::new(f.into(), info, u32::MAX));
            if !t.iter().any(|(n, ..)| *n == name) {
                t.push((name, f, factor));
            }
        }
        t.sort_by(|a, b| a.0.cmp(&b.0));
        t
    });
    let i = table
        .binary_search_by(|(n, ..)| n.as_str().cmp(name))
        .ok()?;
    table.get(i).map(|(_, f, factor)| (*f, *factor))
}

/// A GPU's UUID as nvidia-smi prints it, from that exporter's `uuid`
/// label (which has no `GPU-`).
pub fn uuid_from_label(label: &str) -> String {
    if label.starts_with("GPU-") || label.starts_with("MIG-") {
        label.to_string()
    } else {
        format!("GPU-{label}")
    }
}

/// A cell of `field` as that exporter reads it: [`FIELD_WORDS`], else [`number`].
pub fn field_number(field: ColumnId, text: &str, factor: f64) -> Option<f64> {
    let lower = text.trim().to_lowercase();
    let words = FIELD_WORDS
        .iter()
        .find(|(f, _)| ColumnId::Fact(*f) == field)
        .map(|(_, w)| *w);
    match words.and_then(|w| w.iter().find(|(word, _)| *word == lower)) {
        Some((_, v)) => Some(*v),
        None => number(text, factor),
    }
}

/// A cell's text as that exporter reads it: hex, a word of [`WORDS`], or
/// the one decimal number in the text times `factor`; `None` for any
/// other text (none, or two numbers).
pub fn number(text: &str, factor: f64) -> Option<f64> {
    let t = text.trim();
    if let Some(hex) = t.strip_prefix("0x") {
        return u64::from_str_radix(hex, 16).ok().map(|v| v as f64);
    }
    let lower = t.to_lowercase();
    if let Some((_, v)) = WORDS.iter().find(|(w, _)| *w == lower) {
        return Some(*v);
    }
    let mut found = decimals(&lower);
    let first = found.next()?;
    if found.next().is_some() {
        return None;
    }
    first.parse::<f64>().ok().map(|v| v * factor)
}

/// The decimal numbers in `s`, left to right, as the regular expression
/// `[+-]?([0-9]*[.])?[0-9]+` finds them.
fn decimals(s: &str) -> impl Iterator<Item = &str> {
    let b = s.as_bytes();
    let digits = move |mut i: usize| {
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        i
    };
    let at = move |i: usize| -> Option<usize> {
        let j = if matches!(b.get(i), Some(b'+' | b'-')) {
            i + 1
        } else {
            i
        };
        let k = digits(j);
        if b.get(k) == Some(&b'.') {
            let m = digits(k + 1);
            if m > k + 1 {
                return Some(m);
            }
        }
        (k > j).then_some(k)
    };
    let mut i = 0;
    std::iter::from_fn(move || {
        while i < b.len() {
            if let Some(end) = at(i) {
                let start = i;
                i = end;
                return s.get(start..end);
            }
            i += 1;
        }
        None
    })
}

/// A float as Go's `strconv.FormatFloat(v, 'g', -1, 64)` writes it (the
/// Prometheus Go client's text): the shortest digits, with an exponent
/// (`e+08`) below 1e-4 and from 1e6 on.
pub fn go_float(v: f64) -> String {
    if v.is_nan() {
        return "NaN".into();
    }
    if v.is_infinite() {
        return if v > 0.0 { "+Inf" } else { "-Inf" }.into();
    }
    if v == 0.0 {
        return "0".into();
    }
    let e = format!("{v:e}");
    let (mantissa, exp) = e.split_once('e').unwrap_or((e.as_str(), "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    if (-4..6).contains(&exp) {
        format!("{v}")
    } else {
        let sign = if exp < 0 { '-' } else { '+' };
        format!("{mantissa}e{sign}{:02}", exp.unsigned_abs())
    }
}

fn strip_gpu(uuid: &str) -> &str {
    uuid.strip_prefix("GPU-").unwrap_or(uuid)
}

fn uuid_label(row: &Row) -> Vec<(String, String)> {
    row.gpu
        .as_ref()
        .map(|g| vec![("uuid".to_string(), strip_gpu(&g.uuid).to_string())])
        .unwrap_or_default()
}

const INFO_HELP: &str =
    "Identity of the GPU as labels (nvidia_gpu_exporter's set); the value is always 1.";

/// The exposition of one scrape (without the health series).
pub fn render(s: &Scrape<'_>, out: &mut Vec<u8>) {
    let mut text = String::new();
    let mut info = String::new();
    for row in s.rows {
        let mut labels = Vec::new();
        for (label, field) in INFO_LABELS {
            if let Some(v) = cell(s.columns, row, *field) {
                let t = v.to_string();
                let t = if *label == "uuid" {
                    strip_gpu(&t).to_string()
                } else {
                    t
                };
                labels.push((label.to_string(), t));
            }
        }
        if !s.cuda_version.is_empty() {
            labels.push(("cuda_version".into(), s.cuda_version.to_string()));
        }
        if !labels.is_empty() {
            write_sample(&format!("{PREFIX}{GPU_INFO}"), &labels, "1", &mut info);
        }
    }
    if !info.is_empty() {
        write_family(&format!("{PREFIX}{GPU_INFO}"), INFO_HELP, false, &mut text);
        text.push_str(&info);
    }
    let labels: Vec<_> = s.rows.iter().map(uuid_label).collect();
    let mut done: Vec<String> = Vec::new();
    for (i, col) in s.columns.iter().enumerate() {
        let (name, factor) = family(col);
        if done.contains(&name) {
            continue;
        }
        let mut samples = String::new();
        for (row, l) in s.rows.iter().zip(&labels) {
            let v = row
                .cells
                .get(i)
                .and_then(|v| field_number(col.id, &v.to_string(), factor));
            if let Some(v) = v {
                write_sample(&name, l, &go_float(v), &mut samples);
            }
        }
        write_samples(&name, col.help, false, &samples, &mut text);
        done.push(name);
    }
    if let Some((columns, apps)) = s.apps {
        render_apps(s.rows, columns, apps, s.app_mig_labels, &mut text);
    }
    render_nvml_only(s, &labels, &mut text);
    out.extend_from_slice(text.as_bytes());
}

/// The GPM metrics of a MIG GPU instance that exporter serves, with each
/// family's name and the factor from NVML's unit (percent, MiB/s) to its
/// own (a ratio, bytes per second).
const MIG_GPM: &[(u32, &str, f64, &str)] = &[
    (
        1,
        "mig_graphics_activity_ratio",
        0.01,
        "Share of the interval the GPU instance's graphics or compute engine was busy, 0 to 1.",
    ),
    (
        2,
        "mig_sm_activity_ratio",
        0.01,
        "Share of the GPU instance's SM cycles with a warp resident, 0 to 1.",
    ),
    (
        3,
        "mig_sm_occupancy_ratio",
        0.01,
        "Resident warps as a share of what the GPU instance's SMs can hold, 0 to 1.",
    ),
    (
        5,
        "mig_tensor_activity_ratio",
        0.01,
        "Share of cycles the GPU instance's tensor pipes were busy, 0 to 1.",
    ),
    (
        20,
        "mig_pcie_throughput_tx_bytes_per_second",
        1_048_576.0,
        "PCIe traffic the GPU instance sent, in bytes per second.",
    ),
    (
        21,
        "mig_pcie_throughput_rx_bytes_per_second",
        1_048_576.0,
        "PCIe traffic the GPU instance received, in bytes per second.",
    ),
];

/// The GPM metric ids of `MIG_GPM`, in its order.
pub const MIG_GPM_IDS: &[u32] = &[1, 2, 3, 5, 20, 21];

/// One family from per-GPU-instance samples: (labels, value) each.
fn family_of(name: &str, help: &str, samples: &[(Vec<(String, String)>, f64)], text: &mut String) {
    if samples.is_empty() {
        return;
    }
    let name = format!("{PREFIX}{name}");
    write_family(&name, help, false, text);
    for (l, v) in samples {
        write_sample(&name, l, &go_float(*v), text);
    }
}

/// That exporter's MIG families: each MIG device's identity, each GPU
/// instance's memory (shared by its compute instances) and GPM activity.
fn render_mig(s: &Scrape<'_>, labels: &[Vec<(String, String)>], text: &mut String) {
    let mut info = Vec::new();
    let mut memory: [Vec<_>; 4] = Default::default();
    let mut gpm: Vec<Vec<_>> = MIG_GPM.iter().map(|_| Vec::new()).collect();
    for (k, l) in labels.iter().enumerate() {
        let Some(x) = s.extra.get(k).filter(|_| !l.is_empty()) else {
            continue;
        };
        for i in &x.instances {
            let gi = i.gpu_instance_id.to_string();
            let mut il = l.clone();
            il.push(("gpu_instance_id".to_string(), gi.clone()));
            for d in &i.devices {
                let mut dl = l.clone();
                dl.push(("mig_uuid".to_string(), d.uuid.clone()));
                dl.push(("gpu_instance_id".to_string(), gi.clone()));
                let ci = d
                    .compute_instance_id
                    .map(|c| c.to_string())
                    .unwrap_or_default();
                dl.push(("compute_instance_id".to_string(), ci));
                dl.push(("profile".to_string(), i.profile.clone()));
                info.push((dl, 1.0));
            }
            let bytes = [
                i.fb_total_bytes,
                i.fb_used_bytes,
                i.fb_free_bytes,
                i.fb_reserved_bytes,
            ];
            for (m, b) in memory.iter_mut().zip(bytes) {
                if let Some(b) = b {
                    m.push((il.clone(), b as f64));
                }
            }
            for (g, (id, _, factor, _)) in gpm.iter_mut().zip(MIG_GPM) {
                if let Some((_, v)) = i.gpm.iter().find(|(m, _)| m == id) {
                    if v.is_finite() && *v >= 0.0 {
                        g.push((il.clone(), v * factor));
                    }
                }
            }
        }
    }
    let info_help = "Identity of a MIG device as labels (parent GPU uuid, MIG uuid, instance ids, profile); always 1.";
    family_of("mig_info", info_help, &info, text);
    for (kind, m) in ["total", "used", "free", "reserved"].iter().zip(&memory) {
        let help = format!(
            "The GPU instance's memory ({kind}), shared by its compute instances, in bytes."
        );
        family_of(&format!("mig_memory_{kind}_bytes"), &help, m, text);
    }
    for (g, (_, name, _, help)) in gpm.iter().zip(MIG_GPM) {
        family_of(name, help, g, text);
    }
}

/// The families that exporter's NVML backend serves beside the query
/// fields' (its `docs/METRICS.md`, "NVML-only metrics"): the energy counter
/// and the XID errors, per GPU `uuid`.
fn render_nvml_only(s: &Scrape<'_>, labels: &[Vec<(String, String)>], text: &mut String) {
    let mut energy = String::new();
    let name = format!("{PREFIX}energy_joules_total");
    for (l, mj) in labels.iter().zip(s.energy_mj) {
        if let (Some(mj), false) = (mj, l.is_empty()) {
            write_sample(&name, l, &go_float(*mj as f64 / 1000.0), &mut energy);
        }
    }
    let help = "Energy the GPU has used since the driver loaded, in joules.";
    write_samples(&name, help, true, &energy, text);
    render_mig(s, labels, text);
    // PCIe throughput, opt-in: KB/s as NVML gives it, times 1000 as there.
    for (dir, name) in [(0, "tx"), (1, "rx")] {
        let family = format!("{PREFIX}pcie_throughput_{name}_bytes_per_second");
        let mut samples = String::new();
        for (k, l) in labels.iter().enumerate() {
            let kb = s.extra.get(k).and_then(|x| x.pcie_kb_per_s);
            if let (Some((tx, rx)), false) = (kb, l.is_empty()) {
                let v = if dir == 0 { tx } else { rx };
                write_sample(&family, l, &go_float(f64::from(v) * 1000.0), &mut samples);
            }
        }
        let help = if dir == 0 {
            "PCIe traffic the GPU sent, in bytes per second (one 20 ms sample)."
        } else {
            "PCIe traffic the GPU received, in bytes per second (one 20 ms sample)."
        };
        write_samples(&family, help, false, &samples, text);
    }
    // An XID error of a GPU no row names (never read whole) has no uuid
    // to carry: it waits for the GPU's first row.
    let uuid_of = |gpu: u32| {
        s.rows
            .iter()
            .zip(labels)
            .find(|(r, l)| r.gpu.as_ref().is_some_and(|g| g.index == gpu) && !l.is_empty())
            .map(|(_, l)| l.clone())
    };
    let mut counts = String::new();
    let mut stamps = String::new();
    let (total, at) = (
        format!("{PREFIX}xid_errors_total"),
        format!("{PREFIX}xid_last_timestamp_seconds"),
    );
    for x in s.xid {
        let Some(mut l) = uuid_of(x.gpu) else {
            continue;
        };
        l.push(("xid".to_string(), x.code.to_string()));
        write_sample(&total, &l, &go_float(x.count as f64), &mut counts);
        let secs = x.last_unix_ms as f64 / 1000.0;
        write_sample(&at, &l, &go_float(secs), &mut stamps);
    }
    let help = "XID errors seen since nvq started, by code.";
    write_samples(&total, help, true, &counts, text);
    let help = "When nvq last received an XID error of this code, in seconds since the Unix epoch.";
    write_samples(&at, help, false, &stamps, text);
}

fn render_apps(gpus: &[Row], columns: &[Column], apps: &[Row], mig: bool, text: &mut String) {
    let mut info = String::new();
    let mut used = String::new();
    let mut counts: Vec<(String, usize)> = gpus
        .iter()
        .filter_map(|r| r.gpu.as_ref().map(|g| (strip_gpu(&g.uuid).to_string(), 0)))
        .collect();
    for app in apps {
        let field = |f: ListField| {
            cell(columns, app, f)
                .map(Value::to_string)
                .unwrap_or_default()
        };
        let uuid = field(ListField::GpuUuid);
        let uuid = strip_gpu(&uuid).to_string();
        if let Some((_, n)) = counts.iter_mut().find(|(u, _)| *u == uuid) {
            *n += 1;
        }
        let mut labels = Vec::new();
        if mig {
            // Sorted by name, as that exporter writes them; empty off MIG.
            for key in ["compute_instance_id", "gpu_instance_id"] {
                let id = app.labels.iter().find(|(k, _)| *k == key);
                labels.push((
                    key.to_string(),
                    id.map(|(_, v)| v.clone()).unwrap_or_default(),
                ));
            }
        }
        for &(label, f) in APP_LABELS {
            let v = if f == ListField::GpuUuid {
                uuid.clone()
            } else {
                field(f)
            };
            labels.push((label.to_string(), v));
        }
        write_sample(&format!("{PREFIX}{APP_INFO}"), &labels, "1", &mut info);
        if let Some(v) = number(&field(ListField::UsedGpuMemory), 1_048_576.0) {
            write_sample(
                &format!("{PREFIX}{APP_USED_MEMORY}"),
                &labels,
                &go_float(v),
                &mut used,
            );
        }
    }
    let families = [
        (
            APP_INFO,
            "A process with a compute context on a GPU, as labels; the value is always 1.",
            info,
        ),
        (
            APP_USED_MEMORY,
            "GPU memory the process holds, in bytes.",
            used,
        ),
    ];
    for (name, help, samples) in families {
        write_samples(&format!("{PREFIX}{name}"), help, false, &samples, text);
    }
    if !counts.is_empty() {
        let name = format!("{PREFIX}compute_apps");
        write_family(
            &name,
            "Processes with a compute context on the GPU.",
            false,
            text,
        );
        for (uuid, n) in counts {
            write_sample(&name, &[("uuid".to_string(), uuid)], &n.to_string(), text);
        }
    }
}

/// The collection's status as that exporter's NVML backend reports it:
/// an NVML code, or -1 where the collection produced none (a GPU that
/// missed the deadline, a scrape that got no collection).
fn return_code(h: &Health, served: bool) -> i64 {
    if !served || h.late_gpus > 0 {
        -1
    } else if h.lost_gpus > 0 {
        15
    } else {
        0
    }
}

/// That exporter's collection-health families.
pub fn render_health(h: &Health, served: bool, out: &mut Vec<u8>) {
    let ok = u8::from(served && h.late_gpus == 0 && h.lost_gpus == 0).to_string();
    let families = [
        (
            "last_collect_success",
            "1 if every GPU was read in time for this scrape, else 0.",
            false,
            &ok,
        ),
        (
            "compute_apps_last_collect_success",
            "1 if the processes were read in time for this scrape, else 0.",
            false,
            &ok,
        ),
        (
            "nvml_return_code",
            "NVML's return code of the last collection: 0 when every GPU was read, 15 when NVML \
             lost a GPU, -1 when a GPU missed the deadline.",
            false,
            &return_code(h, served).to_string(),
        ),
        (
            "failed_scrapes_total",
            "Collections in which at least one GPU missed the deadline.",
            true,
            &h.failures.to_string(),
        ),
    ];
    // The two wall-clock families that exporter always serves (its
    // dashboards' stale and slow alerts read them): left out until a
    // collection has succeeded, as there.
    let success = h.last_success_unix.map(go_float);
    let duration = h.last_duration.map(|d| go_float(d.as_secs_f64()));
    let clock = [
        (
            "last_collect_success_timestamp_seconds",
            "When a collection last read every GPU in time, in seconds since the Unix epoch.",
            success,
        ),
        (
            "last_collect_duration_seconds",
            "How long the last collection took, in seconds.",
            duration,
        ),
    ];
    let mut text = String::new();
    for (name, help, counter, value) in families {
        write_single(&format!("{PREFIX}{name}"), help, counter, value, &mut text);
    }
    for (name, help, value) in clock {
        if let Some(v) = value {
            write_single(&format!("{PREFIX}{name}"), help, false, &v, &mut text);
        }
    }
    out.extend_from_slice(text.as_bytes());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_as_that_exporter_reads_them() {
        assert_eq!(number("NVIDIA H200", 1.0), Some(200.0));
        assert_eq!(number("P0", 1.0), Some(0.0));
        assert_eq!(number("0x00000000000001FF", 1.0), Some(511.0));
        assert_eq!(number("Not Active", 1.0), Some(0.0));
        assert_eq!(number("Enabled", 1.0), Some(1.0));
        assert_eq!(number("590.48.01", 1.0), None);
        assert_eq!(number("96.00.A5.00.03", 1.0), None);
        assert_eq!(number("[N/A]", 1.0), None);
        assert_eq!(number("9.0", 1.0), Some(9.0));
        assert_eq!(number("35", 0.01), Some(35.0 * 0.01));
        assert_eq!(number("-12.5", 1.0), Some(-12.5));
        assert_eq!(number(".5", 1.0), Some(0.5));
        assert_eq!(
            field_number(Fact::FabricState.into(), "Completed", 1.0),
            Some(3.0)
        );
        assert_eq!(
            field_number(Fact::GpuRecoveryAction.into(), "None", 1.0),
            Some(0.0)
        );
        assert_eq!(
            field_number(Fact::GpuRecoveryAction.into(), "Reset", 1.0),
            Some(1.0)
        );
        assert_eq!(
            field_number(Fact::GpuRecoveryAction.into(), "Reboot", 1.0),
            Some(2.0)
        );
        assert_eq!(
            field_number(Fact::GpuRecoveryAction.into(), "Drain and Reset", 1.0),
            Some(4.0)
        );
        assert_eq!(field_number(Fact::AddressingMode.into(), "None", 1.0), None);
        let found: Vec<&str> = decimals("gpu-00000000-0000").collect();
        assert_eq!(found, ["-00000000", "-0000"]);
    }

    #[test]
    fn floats_as_go_writes_them() {
        assert_eq!(go_float(345e6), "3.45e+08");
        assert_eq!(go_float(150_112_043_008.0), "1.50112043008e+11");
        assert_eq!(go_float(4000.0), "4000");
        assert_eq!(go_float(999_999.0), "999999");
        assert_eq!(go_float(1e6), "1e+06");
        assert_eq!(go_float(77.71), "77.71");
        assert_eq!(go_float(0.0), "0");
        assert_eq!(go_float(35.0 * 0.01), "0.35000000000000003");
        assert_eq!(go_float(15_820_333_506.0 * 0.000_001), "15820.333505999999");
        assert_eq!(go_float(0.0001), "0.0001");
        assert_eq!(go_float(0.00001), "1e-05");
        assert_eq!(go_float(-2.5e-7), "-2.5e-07");
    }
}
