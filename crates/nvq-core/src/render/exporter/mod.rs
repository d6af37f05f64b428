//! `nvq serve`'s expositions: the metric profiles (one family naming per
//! exporter that dashboards already read), the collection-health series,
//! and OpenMetrics for scrapers that ask for it. Pure: rows in, bytes out.

pub mod dcgm;
pub mod nvidia_gpu_exporter;
pub mod pods;

use crate::error::NvqError;
use crate::model::{Column, ColumnId, ListField, Row, Value, XidCount};
use crate::render::prometheus::{
    write_family, write_sample, write_samples, write_single, Prometheus,
};
use crate::render::Formatter;
use std::time::Duration;

/// Which exporter's names, labels and units `nvq serve` writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Profile {
    /// nvq's own names, as `--format=prometheus`.
    Nvq,
    /// `utkuozdemir/nvidia_gpu_exporter`'s (see [`nvidia_gpu_exporter`]).
    NvidiaGpuExporter,
    /// NVIDIA dcgm-exporter's `DCGM_FI_*` (see [`dcgm`]).
    Dcgm,
}

/// What one scrape shows: the GPU rows, and the process rows of the
/// profiles that have process families.
pub struct Scrape<'a> {
    /// The GPU query's columns, one per field read.
    pub columns: &'a [Column],
    /// One row per GPU, cells in the order of `columns`.
    pub rows: &'a [Row],
    /// The process columns and one row per process and GPU; `None` when
    /// the processes were not read.
    pub apps: Option<(&'a [Column], &'a [Row])>,
    /// Label the process series with their MIG `gpu_instance_id` and
    /// `compute_instance_id` (nvidia_gpu_exporter's `--collect.compute-apps-mig`).
    pub app_mig_labels: bool,
    /// The CUDA version the driver supports (`13.1`), or empty.
    pub cuda_version: &'a str,
    /// The machine's host name, or empty.
    pub hostname: &'a str,
    /// Each GPU's energy counter in millijoules, where NVML gives it, in
    /// the order of `rows`' GPUs.
    pub energy_mj: &'a [Option<u64>],
    /// Each GPU's dcgm-profile reads (minor number, GPM, MIG instances),
    /// in the order of `rows`' GPUs; empty for the other profiles.
    pub extra: &'a [crate::model::gpm::GpuExtra],
    /// The XID errors counted so far (they outlive collections).
    pub xid: &'a [XidCount],
}

impl Profile {
    /// Every profile with the `--profile` name that selects it.
    pub const ALL: &'static [(Profile, &'static str)] = &[
        (Profile::Nvq, "nvq"),
        (Profile::NvidiaGpuExporter, "nvidia_gpu_exporter"),
        (Profile::Dcgm, "dcgm"),
    ];

    /// The profile named `s` (exactly one of [`Self::ALL`]'s names); a usage error listing the valid
    /// names otherwise.
    pub fn parse(s: &str) -> Result<Self, NvqError> {
        Profile::ALL
            .iter()
            .find(|(_, n)| *n == s)
            .map(|(p, _)| *p)
            .ok_or_else(|| {
                let names: Vec<&str> = Profile::ALL.iter().map(|(_, n)| *n).collect();
                NvqError::Usage(format!(
                    "--profile \"{s}\" is not a profile nvq knows; use one of: {}.",
                    names.join(", ")
                ))
            })
    }

    /// The exposition of one collection (without the health series).
    pub fn render(self, s: &Scrape<'_>) -> Vec<u8> {
        let mut out = Vec::new();
        match self {
            Profile::Nvq => {
                Prometheus::new().sample(s.columns, s.rows, &mut out);
                render_energy(s, &mut out);
                render_xid(s, &mut out);
                if let Some((columns, apps)) = s.apps {
                    render_processes(columns, apps, &mut out);
                }
            }
            Profile::NvidiaGpuExporter => nvidia_gpu_exporter::render(s, &mut out),
            Profile::Dcgm => dcgm::render(s, &mut out),
        }
        out
    }

    /// Does the profile serve the GPUs' energy counter and XID errors?
    pub fn reads_energy_and_xid(self) -> bool {
        // nvidia_gpu_exporter: the families of its NVML backend.
        matches!(
            self,
            Profile::Nvq | Profile::Dcgm | Profile::NvidiaGpuExporter
        )
    }

    /// The GPM metric ids (`nvmlGpmMetricId_t`) the profile serves; none
    /// for a profile without profiling families.
    pub fn gpm_metrics(self) -> &'static [u32] {
        match self {
            Profile::Dcgm => dcgm::GPM_IDS,
            Profile::NvidiaGpuExporter => nvidia_gpu_exporter::MIG_GPM_IDS,
            Profile::Nvq => &[],
        }
    }

    /// Does the profile serve the GPU's own GPM metrics (not only its MIG
    /// instances')?
    pub fn gpu_gpm(self) -> bool {
        matches!(self, Profile::Dcgm)
    }

    /// Does the profile read the GPUs' minor numbers, GPM metrics and MIG
    /// GPU instances (`model::gpm::GpuExtra`)?
    pub fn reads_extra(self) -> bool {
        matches!(self, Profile::Dcgm | Profile::NvidiaGpuExporter)
    }

    /// The `--query-gpu` fields the profile reads when none are given;
    /// `None`: every field.
    pub fn default_fields(self) -> Option<String> {
        match self {
            Profile::Nvq | Profile::NvidiaGpuExporter => None,
            Profile::Dcgm => Some(dcgm::fields()),
        }
    }

    /// The `--query-compute-apps` fields this profile's process families
    /// need, if it has any; `processes`: `--collect.processes` (the nvq
    /// profile's opt-in per-process series).
    pub fn app_fields(self, processes: bool) -> Result<Option<&'static [ListField]>, NvqError> {
        match (self, processes) {
            (Profile::Nvq, true) => Ok(Some(PROCESS_FIELDS)),
            (Profile::Nvq | Profile::Dcgm, false) => Ok(None),
            (Profile::NvidiaGpuExporter, false) => Ok(Some(nvidia_gpu_exporter::APP_FIELDS)),
            (_, true) => Err(NvqError::Usage(
                "--collect.processes adds process series to the nvq profile only (nvidia_gpu_exporter has its \
                 own, dcgm has none)."
                    .into(),
            )),
        }
    }
}

/// The `--query-compute-apps` fields of the nvq profile's process series.
pub const PROCESS_FIELDS: &[ListField] = &[
    ListField::GpuUuid,
    ListField::Pid,
    ListField::ProcessName,
    ListField::UsedGpuMemory,
    ListField::User,
    ListField::ContainerId,
    ListField::PodUid,
];

/// The value of `field` in `row`, if the row has that column.
pub(super) fn cell<'a>(
    columns: &[Column],
    row: &'a Row,
    field: impl Into<ColumnId>,
) -> Option<&'a Value> {
    row.get(columns, field)
}

/// The labels of the nvq profile's GPU series (a label whose value is
/// unknown is left out).
fn gpu_labels(g: &crate::model::GpuIdent) -> Vec<(String, String)> {
    [
        ("gpu", g.index.to_string()),
        ("uuid", g.uuid.clone()),
        ("name", g.name.clone()),
        ("pci_bus_id", g.pci_bus_id.clone()),
    ]
    .into_iter()
    .filter(|(_, v)| !v.is_empty())
    .map(|(k, v)| (k.to_string(), v))
    .collect()
}

/// `labels` and then the pod attribution's labels of the row
/// (`model::pods::LABELS` among `Row::labels`) that it lacks.
pub(super) fn with_pod_labels(
    mut labels: Vec<(String, String)>,
    row: &Row,
) -> Vec<(String, String)> {
    for (k, v) in &row.labels {
        if crate::model::pods::LABELS.contains(k) && !labels.iter().any(|(n, _)| n == k) {
            labels.push(((*k).to_string(), v.clone()));
        }
    }
    labels
}

/// `nvq_xid_errors_total{gpu,...,xid}`: XID errors per GPU and code.
fn render_xid(s: &Scrape<'_>, out: &mut Vec<u8>) {
    let name = "nvq_xid_errors_total";
    let mut text = String::new();
    for x in s.xid {
        let row = s
            .rows
            .iter()
            .find(|r| r.gpu.as_deref().is_some_and(|g| g.index == x.gpu));
        let mut labels = row
            .and_then(|r| Some(with_pod_labels(gpu_labels(r.gpu.as_deref()?), r)))
            .unwrap_or_else(|| vec![("gpu".into(), x.gpu.to_string())]);
        labels.push(("xid".into(), x.code.to_string()));
        write_sample(name, &labels, &x.count.to_string(), &mut text);
    }
    let mut family = String::new();
    let help = "XID errors NVML reported, per GPU and XID code, since nvq started.";
    write_samples(name, help, true, &text, &mut family);
    out.extend_from_slice(family.as_bytes());
}

/// The energy counter in joules, labelled as the nvq profile's GPU series.
fn render_energy(s: &Scrape<'_>, out: &mut Vec<u8>) {
    let name = "nvq_energy_consumption_joules_total";
    let mut text = String::new();
    for (row, mj) in s.rows.iter().zip(s.energy_mj) {
        let (Some(g), Some(mj)) = (&row.gpu, mj) else {
            continue;
        };
        let labels = with_pod_labels(gpu_labels(g), row);
        write_sample(
            name,
            &labels,
            &format!("{}", *mj as f64 / 1000.0),
            &mut text,
        );
    }
    let mut family = String::new();
    let help = "Energy the GPU has used since the driver loaded, in joules.";
    write_samples(name, help, true, &text, &mut family);
    out.extend_from_slice(family.as_bytes());
}

/// `--collect.processes`: one `nvq_process_info{...} 1` per process and
/// GPU, and its GPU memory in bytes where the driver tells it. Labels:
/// `gpu`, `uuid`, `pid`, `process_name`, `user`, `container_id`, `pod_uid`
/// and the row's own labels (a label without a value is left out).
fn render_processes(columns: &[Column], apps: &[Row], out: &mut Vec<u8>) {
    let (mut info, mut used) = (String::new(), String::new());
    for app in apps {
        let mut labels = Vec::new();
        if let Some(g) = &app.gpu {
            labels.push(("gpu".to_string(), g.index.to_string()));
        }
        for (label, field) in [
            ("uuid", ListField::GpuUuid),
            ("pid", ListField::Pid),
            ("process_name", ListField::ProcessName),
            ("user", ListField::User),
            ("container_id", ListField::ContainerId),
            ("pod_uid", ListField::PodUid),
        ] {
            if let Some(v @ (Value::Int(_) | Value::Text(_))) = cell(columns, app, field) {
                let v = v.to_string();
                if !v.is_empty() {
                    labels.push((label.to_string(), v));
                }
            }
        }
        let labels = with_pod_labels(labels, app);
        write_sample("nvq_process_info", &labels, "1", &mut info);
        if let Some(Value::Bytes(b)) = cell(columns, app, ListField::UsedGpuMemory) {
            write_sample(
                "nvq_process_used_memory_bytes",
                &labels,
                &b.to_string(),
                &mut used,
            );
        }
    }
    let mut text = String::new();
    for (name, help, samples) in [
        (
            "nvq_process_info",
            "A process with a compute context on a GPU, as labels; the value is always 1.",
            info,
        ),
        (
            "nvq_process_used_memory_bytes",
            "GPU memory the process holds, in bytes.",
            used,
        ),
    ] {
        write_samples(name, help, false, &samples, &mut text);
    }
    out.extend_from_slice(text.as_bytes());
}

/// How collections have gone since the server started.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Health {
    /// Collections run since the server started, failed ones included.
    pub collections: u64,
    /// Collections in which at least one GPU missed the deadline.
    pub failures: u64,
    /// Scrapes that gave up waiting for a collection.
    pub scrape_timeouts: u64,
    /// When a collection last read every GPU in time (Unix seconds).
    pub last_success_unix: Option<f64>,
    /// How long the last collection took; `None` before the first one.
    pub last_duration: Option<Duration>,
    /// GPUs that missed the deadline in the last collection.
    pub late_gpus: usize,
    /// GPUs NVML said were lost in the last collection.
    pub lost_gpus: usize,
}

/// How one GPU did in a scrape.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GpuState {
    /// Read in time.
    Ok,
    /// Not read by the scrape's deadline (a slow or hung call).
    Late,
    /// NVML answered that the GPU is lost (fallen off the bus).
    Lost,
}

impl GpuState {
    /// Every state, in the order the per-GPU state series lists them.
    pub const ALL: [GpuState; 3] = [GpuState::Ok, GpuState::Late, GpuState::Lost];

    /// The state's `state` label value: `ok`, `late` or `lost`.
    pub fn name(self) -> &'static str {
        match self {
            GpuState::Ok => "ok",
            GpuState::Late => "late",
            GpuState::Lost => "lost",
        }
    }
}

/// One GPU of a scrape: which it is (its index and, once known, its UUID)
/// and its state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GpuHealth {
    /// The GPU's NVML index, for the `gpu` label.
    pub index: u32,
    /// The GPU's UUID, for the `uuid` label; empty while it is not known (never read yet).
    pub uuid: String,
    /// How the GPU did in this scrape.
    pub state: GpuState,
}

/// The collection-health series. `served`: whether this scrape got a
/// collection; `gpus`: each GPU's state in it.
pub fn render_health(
    profile: Profile,
    h: &Health,
    served: bool,
    gpus: &[GpuHealth],
    out: &mut Vec<u8>,
) {
    if profile == Profile::NvidiaGpuExporter {
        return nvidia_gpu_exporter::render_health(h, served, out);
    }
    let p = "nvq";
    let mut text = String::new();
    let mut one = |name: &str, help: &str, counter: bool, value: String| {
        write_single(&format!("{p}_{name}"), help, counter, &value, &mut text);
    };
    one(
        "collection_success",
        "1 if every GPU answered this scrape in time and none is lost, else 0.",
        false,
        u8::from(served && h.late_gpus == 0 && h.lost_gpus == 0).to_string(),
    );
    one(
        "collection_late_gpus",
        "GPUs that missed the deadline of the last collection (their series are left out).",
        false,
        h.late_gpus.to_string(),
    );
    one(
        "collection_lost_gpus",
        "GPUs that NVML says are lost (their series are left out).",
        false,
        h.lost_gpus.to_string(),
    );
    if let Some(t) = h.last_success_unix {
        one(
            "collection_last_success_timestamp_seconds",
            "When a collection last read every GPU in time, in seconds since the Unix epoch.",
            false,
            format!("{t:.3}"),
        );
    }
    if let Some(d) = h.last_duration {
        one(
            "collection_duration_seconds",
            "How long the last collection took.",
            false,
            format!("{}", d.as_secs_f64()),
        );
    }
    one(
        "collections_total",
        "Collections since the server started.",
        true,
        h.collections.to_string(),
    );
    one(
        "collection_failures_total",
        "Collections in which at least one GPU missed the deadline.",
        true,
        h.failures.to_string(),
    );
    one(
        "scrape_timeouts_total",
        "Scrapes answered at their time limit with a GPU's reads still missing.",
        true,
        h.scrape_timeouts.to_string(),
    );
    if !gpus.is_empty() {
        let name = format!("{p}_collection_gpu_state");
        write_family(
            &name,
            "Each GPU's state in this scrape: ok (read in time), late (missed the deadline) or lost; 1 for the \
             state it is in.",
            false,
            &mut text,
        );
        for g in gpus {
            for state in GpuState::ALL {
                let labels = [
                    ("gpu".to_string(), g.index.to_string()),
                    ("uuid".to_string(), g.uuid.clone()),
                    ("state".to_string(), state.name().to_string()),
                ];
                write_sample(
                    &name,
                    &labels,
                    if g.state == state { "1" } else { "0" },
                    &mut text,
                );
            }
        }
    }
    out.extend_from_slice(text.as_bytes());
}

/// The content type of the Prometheus text format.
pub const TEXT_TYPE: &str = "text/plain; version=0.0.4; charset=utf-8";
/// The content type of OpenMetrics text.
pub const OPENMETRICS_TYPE: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";

/// Does a `# TYPE` line's rest (`name type`) name a family ending in `_total`?
fn names_total(rest: &[u8]) -> bool {
    rest.split(|&b| b == b' ')
        .next()
        .is_some_and(|name| name.ends_with(b"_total"))
}

/// Does this `Accept` header ask for OpenMetrics?
pub fn wants_openmetrics(accept: &str) -> bool {
    accept
        .split(',')
        .any(|part| part.trim().starts_with("application/openmetrics-text"))
}

/// Prometheus text → OpenMetrics text: a counter family is named without
/// its `_total` suffix in `# HELP` and `# TYPE` (its samples keep it); a
/// counter whose samples lack `_total` (a profile's imposed name, such as
/// DCGM's) is typed `unknown`, which OpenMetrics allows for any name; the
/// exposition ends with `# EOF`.
pub fn openmetrics(text: &[u8]) -> Vec<u8> {
    let mut counters: Vec<&[u8]> = Vec::new();
    for line in text.split(|&b| b == b'\n') {
        if let Some(rest) = line.strip_prefix(b"# TYPE ") {
            if let Some(name) = rest.strip_suffix(b"_total counter") {
                counters.push(name);
            }
        }
    }
    let mut out = Vec::with_capacity(text.len() + 8);
    for line in text.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
        let family = [b"# HELP ".as_slice(), b"# TYPE ".as_slice()]
            .into_iter()
            .find_map(|p| line.strip_prefix(p).map(|rest| (p, rest)));
        match family {
            Some((p, rest)) if rest.ends_with(b" counter") && !names_total(rest) => {
                out.extend_from_slice(p);
                out.extend_from_slice(&rest[..rest.len() - b"counter".len()]);
                out.extend_from_slice(b"unknown");
            }
            Some((p, rest)) => {
                let name = rest.split(|&b| b == b' ').next().unwrap_or_default();
                let stem = name
                    .strip_suffix(b"_total")
                    .filter(|s| counters.contains(s));
                out.extend_from_slice(p);
                match stem {
                    Some(stem) => {
                        out.extend_from_slice(stem);
                        out.extend_from_slice(&rest[name.len()..]);
                    }
                    None => out.extend_from_slice(rest),
                }
            }
            None => out.extend_from_slice(line),
        }
        out.push(b'\n');
    }
    out.extend_from_slice(b"# EOF\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn openmetrics_names_counter_families_without_total() {
        let text = b"# HELP a_total Things.\n# TYPE a_total counter\na_total 3\n\
                     # HELP b_bytes Size.\n# TYPE b_bytes gauge\nb_bytes{gpu=\"0\"} 1\n";
        let om = String::from_utf8(openmetrics(text)).unwrap();
        assert_eq!(
            om,
            "# HELP a Things.\n# TYPE a counter\na_total 3\n\
             # HELP b_bytes Size.\n# TYPE b_bytes gauge\nb_bytes{gpu=\"0\"} 1\n# EOF\n"
        );
        let om = openmetrics(b"# HELP C Rows.\n# TYPE C counter\nC 2\n");
        assert_eq!(om, b"# HELP C Rows.\n# TYPE C unknown\nC 2\n# EOF\n");
        assert!(wants_openmetrics(
            "application/openmetrics-text;version=1.0.0;q=0.5,text/plain;q=0.4"
        ));
        assert!(!wants_openmetrics("text/plain;version=0.0.4"));
    }

    #[test]
    fn health_series() {
        let h = Health {
            collections: 3,
            failures: 1,
            late_gpus: 1,
            last_success_unix: Some(12.5),
            ..Health::default()
        };
        let text = crate::render::written(|out| render_health(Profile::Nvq, &h, true, &[], out));
        assert!(text.contains("\nnvq_collection_success 0\n"), "{text}");
        assert!(text.contains("\nnvq_collection_late_gpus 1\n"));
        assert!(text.contains("\nnvq_collections_total 3\n"));
        assert!(text.contains("\nnvq_collection_failures_total 1\n"));
        assert!(text.contains("\nnvq_collection_last_success_timestamp_seconds 12.500\n"));
        assert!(!text.contains("collection_duration_seconds"));
        assert!(Profile::parse("dcgm-exporter").is_err());
        assert_eq!(Profile::parse("nvq").unwrap(), Profile::Nvq);
    }
}
