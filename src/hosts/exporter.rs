//! Nodes that run another exporter: NVIDIA's dcgm-exporter or
//! utkuozdemir's nvidia_gpu_exporter. A `--hosts` entry whose path ends in
//! `/metrics` (`http://node1:9400/metrics`) is scraped, and the exposition
//! is read through the name tables of nvq's own `dcgm` and
//! `nvidia_gpu_exporter` profiles (`render::exporter`), in reverse: the
//! family that the profile writes for a fact is read back as that fact.
//! Which exporter it is, the scrape says (`DCGM_FI_*` or `nvidia_smi_*`
//! families).
//!
//! A fact the exporter does not give is `N/A` in every row, never a guess:
//!
//! - dcgm-exporter: the facts of [`dcgm::FAMILIES`] and the GPU's identity
//!   labels ([`dcgm::IDENTITY`]); no process list (a query of processes
//!   fails with [`Failure::NoProcesses`]); a MIG GPU instance's series are
//!   its own, not its GPU's;
//! - nvidia_gpu_exporter: every `--query-gpu` field nvidia-smi lists that
//!   nvidia-smi prints as a number (one with a unit, a temperature, the
//!   index and count; a word such as `P0` or `Enabled` becomes a number
//!   there that cannot be read back), the identity on
//!   `nvidia_smi_gpu_info`, and the processes with their name and memory
//!   (no user or command line).
//!
//! Numbers come back in the unit nvidia-smi prints (the profile's factor
//! undone) and as the cell kind nvidia-smi's text has: a size in MiB as a
//! size, watts with two decimals, otherwise an integer when the number is
//! one; a value that is not finite or beyond ±1e15 gives no fact.

use super::exposition::{self, Sample};
use super::fetch::Failure;
use nvq_core::model::{
    ColumnId, Fact, FieldInfo, FieldKind, GpuIdent, ListField, Quantity, Row, Value,
};
use nvq_core::render::exporter::{dcgm, nvidia_gpu_exporter as nge};
use nvq_core::source::QueryMode;
use std::sync::Arc;
use std::time::SystemTime;

/// The most GPUs read from one node.
pub const MAX_GPUS: usize = 1024;

/// The most processes read from one node.
pub const MAX_PROCS: usize = nvq_core::model::wire::MAX_ROWS;

/// Which exporter a node runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exporter {
    /// NVIDIA's dcgm-exporter (`DCGM_FI_*`), read through the `dcgm` profile.
    Dcgm,
    /// utkuozdemir's nvidia_gpu_exporter (`nvidia_smi_*`), read through
    /// the `nvidia_gpu_exporter` profile.
    NvidiaGpuExporter,
}

impl Exporter {
    /// Both, in the order the docs list them.
    pub const ALL: [Exporter; 2] = [Exporter::Dcgm, Exporter::NvidiaGpuExporter];

    /// The exporter's name, as its users call it.
    pub fn name(self) -> &'static str {
        match self {
            Exporter::Dcgm => "dcgm-exporter",
            Exporter::NvidiaGpuExporter => "nvidia_gpu_exporter",
        }
    }

    /// Does the exporter list processes?
    pub fn lists_processes(self) -> bool {
        self == Exporter::NvidiaGpuExporter
    }

    /// Does the exporter give field `id` of `mode` (when its node has a
    /// value for it)? The facts of a GPU's identity and those known
    /// without the driver (the index, the count, the time) always.
    pub fn gives(self, mode: QueryMode, id: ColumnId) -> bool {
        if mode == QueryMode::COMPUTE_APPS && !self.lists_processes() {
            return false;
        }
        let kind = mode
            .position(id)
            .and_then(|i| mode.fields().get(i).map(|f| f.kind));
        if matches!(
            kind,
            Some(FieldKind::Timestamp | FieldKind::GpuIndex | FieldKind::GpuCount)
        ) {
            return true;
        }
        match id {
            ColumnId::Fact(f) if mode == QueryMode::GPU => self.gives_fact(f),
            ColumnId::List(l) if mode == QueryMode::COMPUTE_APPS => {
                self.lists_processes()
                    && (nge::APP_LABELS.iter().any(|(_, f)| *f == l)
                        || matches!(
                            l,
                            ListField::UsedGpuMemory
                                | ListField::GpuName
                                | ListField::GpuBusId
                                | ListField::GpuSerial
                                | ListField::GpuIndex
                        ))
            }
            _ => false,
        }
    }

    fn gives_fact(self, f: Fact) -> bool {
        if matches!(f, Fact::Index | Fact::Uuid | Fact::Name | Fact::PciBusId) {
            return true;
        }
        match self {
            Exporter::Dcgm => {
                dcgm::IDENTITY.iter().any(|(_, g)| *g == f)
                    || dcgm::FAMILIES.iter().any(|fam| fam.field == f)
            }
            Exporter::NvidiaGpuExporter => {
                (f == Fact::ComputeAppsCount && self.lists_processes())
                    || nge::INFO_LABELS.iter().any(|(_, g)| *g == f)
                    || {
                        let info = f.info();
                        let name =
                            nge::family(&nvq_core::model::Column::new(f.into(), info, u32::MAX)).0;
                        reads_as_number(info) && nge::fact_of(&name).is_some_and(|(g, _)| g == f)
                    }
            }
        }
    }

    /// The exporter whose families `e` holds.
    fn of(e: &exposition::Exposition) -> Option<Exporter> {
        let prefix = |p: &str| e.samples.iter().any(|s| s.name.starts_with(p));
        if prefix("DCGM_FI_") {
            Some(Exporter::Dcgm)
        } else if prefix(nge::PREFIX) {
            Some(Exporter::NvidiaGpuExporter)
        } else {
            None
        }
    }
}

/// Does nvidia-smi print field `info` as a number (so that an exporter's
/// number is its value)? A field with a unit, a temperature, the index
/// and the count. Not a field without a unit, whose text may be a word
/// that exporter turned into a number (`Yes`, `P0`, `Enabled`: even a
/// counter's, `ecc.errors.uncorrected.aggregate.sram.thresholdExceeded`
/// prints `No`).
fn reads_as_number(info: &FieldInfo) -> bool {
    info.unit.is_some()
        || info.quantity == Some(Quantity::Temperature)
        || matches!(info.kind, FieldKind::GpuIndex | FieldKind::GpuCount)
}

/// The cell nvidia-smi's text of fact `f` has for the number `x` in the
/// field's own unit; `None` for a number out of range. The cell's kind is
/// the fact's reader's where it says (a field value's format: watts and
/// some percentages with two decimals, integers), else the unit's: a size
/// for MiB, two decimals for watts, an integer for a whole number.
fn number_value(f: Fact, x: f64) -> Option<Value> {
    use nvq_core::source::gpu::{fact_def, FvFmt, Get};
    if !x.is_finite() || x.abs() > exposition::MAX_VALUE {
        return None;
    }
    let two = Some(Value::Float {
        value: x,
        decimals: 2,
    });
    let fmt = match fact_def(f).get {
        Get::Field { fmt, .. } => Some(fmt),
        Get::Fn(_) => None,
    };
    match (fmt, f.info().unit) {
        (_, Some("MiB")) => mib(x),
        (Some(FvFmt::Watts | FvFmt::Percent2), _) | (_, Some("W")) => two,
        _ if integral(x) => Some(Value::Int(x.round() as i64)),
        (Some(FvFmt::Number), _) => two,
        (Some(_), _) => None,
        (None, _) => Some(Value::Float {
            value: x,
            decimals: decimals(x),
        }),
    }
}

/// Is `x` a whole number, but for a float's rounding?
fn integral(x: f64) -> bool {
    (x - x.round()).abs() <= 1e-6 * x.abs().max(1.0)
}

/// A size of `x` MiB (nvidia-smi prints sizes in whole MiB), if it is one.
fn mib(x: f64) -> Option<Value> {
    (x.is_finite() && (0.0..=exposition::MAX_VALUE).contains(&x) && integral(x))
        .then(|| Value::Bytes((x.round() as u64) << 20))
}

/// The fewest decimals (at most 6) that write `x` exactly enough.
fn decimals(x: f64) -> u8 {
    (0..6u8)
        .find(|&d| {
            let s = 10f64.powi(i32::from(d));
            ((x * s).round() - x * s).abs() <= 1e-6 * s
        })
        .unwrap_or(6)
}

/// One GPU as the scrape gives it.
#[derive(Debug, Clone, Default)]
struct Gpu {
    ident: GpuIdent,
    /// The exporter's key for it: dcgm's `gpu` label, nvidia_gpu_exporter's `uuid`.
    key: String,
    facts: Vec<(Fact, Value)>,
}

impl Gpu {
    fn set(&mut self, f: Fact, v: Value) {
        if !self.facts.iter().any(|(g, _)| *g == f) {
            self.facts.push((f, v));
        }
    }
}

/// One process as nvidia_gpu_exporter lists it.
#[derive(Debug, Clone)]
struct Proc {
    /// Index into the node's GPUs.
    gpu: usize,
    pid: u32,
    name: String,
    /// Its labels, to match its memory sample.
    labels: Vec<(String, String)>,
    used: Option<Value>,
}

/// What one scrape of a node said.
#[derive(Debug, Clone)]
pub struct Scraped {
    /// Which exporter it runs.
    pub exporter: Exporter,
    gpus: Vec<Gpu>,
    procs: Vec<Proc>,
    when: SystemTime,
}

/// Read a node's `/metrics` answer, received at `when`.
pub fn read(body: &[u8], when: SystemTime) -> Result<Scraped, Failure> {
    let e = exposition::parse(body, |n| {
        n.starts_with("DCGM_FI_DEV_") || n.starts_with(nge::PREFIX)
    });
    let exporter = Exporter::of(&e).ok_or_else(|| {
        Failure::Broken(if e.lines == 0 {
            "not a Prometheus exposition".to_string()
        } else {
            "neither dcgm-exporter's nor nvidia_gpu_exporter's metrics".to_string()
        })
    })?;
    let mut node = Scraped {
        exporter,
        gpus: Vec::new(),
        procs: Vec::new(),
        when,
    };
    match exporter {
        Exporter::Dcgm => node.read_dcgm(&e.samples),
        Exporter::NvidiaGpuExporter => node.read_nge(&e.samples),
    }
    node.gpus.sort_by_key(|g| g.ident.index);
    Ok(node)
}

impl Scraped {
    /// The GPU the exporter keys `key`, added (as `ident`) if new.
    fn gpu(&mut self, key: &str, ident: impl FnOnce() -> Option<GpuIdent>) -> Option<usize> {
        if let Some(i) = self.gpus.iter().position(|g| g.key == key) {
            return Some(i);
        }
        if self.gpus.len() >= MAX_GPUS {
            return None;
        }
        let ident = ident()?;
        if self.gpus.iter().any(|g| g.ident.index == ident.index) {
            return None;
        }
        self.gpus.push(Gpu {
            ident,
            key: key.to_string(),
            facts: Vec::new(),
        });
        Some(self.gpus.len() - 1)
    }

    fn read_dcgm(&mut self, samples: &[Sample]) {
        for s in samples {
            // A MIG GPU instance's series is the instance's.
            if s.label(dcgm::INSTANCE_LABEL).is_some() {
                continue;
            }
            let label = |fact: Fact| s.label_for(dcgm::IDENTITY, fact);
            let text = |fact: Fact| label(fact).unwrap_or("").to_string();
            let Some(key) = label(Fact::Index) else {
                continue;
            };
            let Some(g) = self.gpu(key, || {
                Some(GpuIdent {
                    index: key
                        .parse()
                        .ok()
                        .filter(|&i: &u32| (i as usize) < MAX_GPUS)?,
                    uuid: text(Fact::Uuid),
                    name: text(Fact::Name),
                    pci_bus_id: text(Fact::PciBusId),
                })
            }) else {
                continue;
            };
            let Some(fam) = dcgm::family(&s.name) else {
                continue;
            };
            let v = match fam.kind {
                dcgm::Kind::YesNo if s.value == 1.0 => Some(Value::yes_no(true)),
                dcgm::Kind::YesNo if s.value == 0.0 => Some(Value::yes_no(false)),
                dcgm::Kind::YesNo => None,
                dcgm::Kind::Int | dcgm::Kind::Double => number_value(fam.field, s.value),
            };
            let gpu = &mut self.gpus[g];
            let driver = text(Fact::DriverVersion);
            if !driver.is_empty() {
                gpu.set(Fact::DriverVersion, Value::text(driver));
            }
            if let Some(v) = v {
                gpu.set(fam.field, v);
            }
        }
    }

    fn read_nge(&mut self, samples: &[Sample]) {
        let info = format!("{}{}", nge::PREFIX, nge::GPU_INFO);
        // Identity first: the other series name their GPU by uuid only.
        for s in samples.iter().filter(|s| s.name == info) {
            let Some(key) = s.label("uuid") else { continue };
            let label = |fact: Fact| s.label_for(nge::INFO_LABELS, fact).unwrap_or("");
            let Some(g) = self.gpu(key, || {
                Some(GpuIdent {
                    index: label(Fact::Index)
                        .parse()
                        .ok()
                        .filter(|&i: &u32| (i as usize) < MAX_GPUS)?,
                    uuid: nge::uuid_from_label(key),
                    name: label(Fact::Name).to_string(),
                    pci_bus_id: label(Fact::PciBusId).to_string(),
                })
            }) else {
                continue;
            };
            for &(l, f) in nge::INFO_LABELS {
                let Some(text) = s.label(l) else { continue };
                // nvidia-smi's tokens ([N/A], [Not Supported]) are no value.
                if text.is_empty() || text.starts_with('[') || f == Fact::Uuid {
                    continue;
                }
                if !reads_as_number(f.info()) {
                    self.gpus[g].set(f, Value::text(text));
                }
            }
        }
        let (app, used) = (
            format!("{}{}", nge::PREFIX, nge::APP_INFO),
            format!("{}{}", nge::PREFIX, nge::APP_USED_MEMORY),
        );
        for s in samples {
            let Some(g) = s
                .label("uuid")
                .and_then(|u| self.gpus.iter().position(|g| g.key == u))
            else {
                continue;
            };
            if s.name == app {
                self.add_process(g, s);
            } else if s.name == used {
                let bytes = mib(s.value / 1_048_576.0);
                if let Some(p) = self.procs.iter_mut().find(|p| p.labels == s.labels) {
                    p.used = bytes;
                }
            } else if let Some((f, factor)) = nge::fact_of(&s.name) {
                let info = f.info();
                if reads_as_number(info) && info.kind != FieldKind::GpuIndex {
                    if let Some(v) = number_value(f, s.value / factor) {
                        self.gpus[g].set(f, v);
                    }
                }
            }
        }
        // The rows --query-compute-apps would list for each GPU.
        for (i, gpu) in self.gpus.iter_mut().enumerate() {
            let n = self.procs.iter().filter(|p| p.gpu == i).count();
            gpu.set(Fact::ComputeAppsCount, Value::count(n as u64));
        }
    }

    fn add_process(&mut self, gpu: usize, s: &Sample) {
        if self.procs.len() >= MAX_PROCS || self.procs.iter().any(|p| p.labels == s.labels) {
            return;
        }
        let label = |f: ListField| s.label_for(nge::APP_LABELS, f);
        let Some(pid) = label(ListField::Pid).and_then(|p| p.parse::<u32>().ok()) else {
            return;
        };
        self.procs.push(Proc {
            gpu,
            pid,
            name: label(ListField::ProcessName).unwrap_or("").to_string(),
            labels: s.labels.clone(),
            used: None,
        });
    }

    /// The rows of `fields` (canonical names) of `mode`, as the node's own
    /// nvq would give them, with `N/A` where the exporter gives nothing.
    pub fn rows(&self, mode: QueryMode, fields: &[&'static str]) -> Result<Vec<Row>, Failure> {
        let (infos, ids) = (mode.fields(), mode.ids());
        let columns: Vec<(FieldKind, ColumnId)> = fields
            .iter()
            .map(|n| {
                mode.lookup(n)
                    .and_then(|i| Some((infos.get(i)?.kind, *ids.get(i)?)))
                    .unwrap_or((FieldKind::Gauge, ColumnId::Text("")))
            })
            .collect();
        let count = u32::try_from(self.gpus.len()).unwrap_or(u32::MAX);
        let timestamp = nvq_core::source::time::format_timestamp(self.when);
        let row = |gpu: &Gpu, cells: Vec<Value>| {
            let mut r = Row::new(cells);
            r.gpu = Some(Arc::new(gpu.ident.clone()));
            r.timestamp = Some(timestamp.clone());
            r.time = Some(self.when);
            r
        };
        let known = |gpu: &Gpu, kind, id| {
            nvq_core::source::time::known_cell(kind, id, self.when, gpu.ident.index, count)
        };
        if mode == QueryMode::GPU {
            return Ok(self
                .gpus
                .iter()
                .map(|g| {
                    let cells = columns
                        .iter()
                        .map(|&(kind, id)| {
                            known(g, kind, id)
                                .or_else(|| fact_cell(g, id))
                                .unwrap_or(Value::NotAvailable)
                        })
                        .collect();
                    row(g, cells)
                })
                .collect());
        }
        if mode != QueryMode::COMPUTE_APPS {
            return Err(Failure::Broken(format!(
                "{} gives no --{}",
                self.exporter.name(),
                mode.option()
            )));
        }
        if !self.exporter.lists_processes() {
            return Err(Failure::NoProcesses(self.exporter.name()));
        }
        let mut rows = Vec::with_capacity(self.procs.len());
        for (i, g) in self.gpus.iter().enumerate() {
            for p in self.procs.iter().filter(|p| p.gpu == i) {
                let cells = columns
                    .iter()
                    .map(|&(kind, id)| {
                        known(g, kind, id)
                            .or_else(|| process_cell(g, p, id))
                            .unwrap_or(Value::NotAvailable)
                    })
                    .collect();
                let mut r = row(g, cells);
                if let Some(pid) = fields.iter().find(|f| **f == "pid") {
                    r.labels = vec![(*pid, p.pid.to_string())];
                }
                rows.push(r);
            }
        }
        Ok(rows)
    }
}

/// A GPU row's cell of field `id`, if the scrape gave it.
fn fact_cell(g: &Gpu, id: ColumnId) -> Option<Value> {
    let ColumnId::Fact(f) = id else { return None };
    let text = |s: &str| (!s.is_empty()).then(|| Value::text(s));
    match f {
        Fact::Uuid => text(&g.ident.uuid),
        Fact::Name => text(&g.ident.name),
        Fact::PciBusId => text(&g.ident.pci_bus_id),
        f => g
            .facts
            .iter()
            .find(|(h, _)| *h == f)
            .map(|(_, v)| v.clone()),
    }
}

/// A process row's cell of field `id`.
fn process_cell(g: &Gpu, p: &Proc, id: ColumnId) -> Option<Value> {
    let ColumnId::List(l) = id else { return None };
    match l {
        ListField::Pid => Some(Value::Int(i64::from(p.pid))),
        ListField::ProcessName => Some(Value::text(p.name.clone())),
        ListField::UsedGpuMemory => p.used.clone(),
        ListField::GpuUuid => fact_cell(g, Fact::Uuid.into()),
        ListField::GpuName => fact_cell(g, Fact::Name.into()),
        ListField::GpuBusId => fact_cell(g, Fact::PciBusId.into()),
        ListField::GpuSerial => fact_cell(g, Fact::Serial.into()),
        ListField::GpuIndex => Some(Value::Int(i64::from(g.ident.index))),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows(body: &str, mode: QueryMode, fields: &[&'static str]) -> Vec<Vec<String>> {
        read(body.as_bytes(), SystemTime::UNIX_EPOCH)
            .unwrap()
            .rows(mode, fields)
            .unwrap()
            .iter()
            .map(|r| r.cells.iter().map(Value::to_string).collect())
            .collect()
    }

    #[test]
    fn numbers_come_back_as_nvidia_smi_prints_them() {
        let cell = |f: Fact, x: f64| number_value(f, x).map(|v| v.to_string());
        assert_eq!(cell(Fact::MemoryUsed, 19818.0).as_deref(), Some("19818"));
        assert_eq!(cell(Fact::MemoryUsed, 1.5), None);
        assert_eq!(cell(Fact::MemoryUsed, -1.0), None);
        assert_eq!(cell(Fact::PowerDraw, 77.71).as_deref(), Some("77.71"));
        assert_eq!(cell(Fact::PowerDraw, 700.0).as_deref(), Some("700.00"));
        assert_eq!(cell(Fact::EdppMultiplier, 100.0).as_deref(), Some("100.00"));
        assert_eq!(
            cell(Fact::UtilizationGpu, 0.35000000000000003 / 0.01).as_deref(),
            Some("35")
        );
        assert_eq!(cell(Fact::TemperatureGpu, f64::NAN), None);
        assert_eq!(cell(Fact::TemperatureGpu, 1e300), None);
        assert!(reads_as_number(Fact::TemperatureGpu.info()));
        assert!(!reads_as_number(Fact::Pstate.info()));
    }

    #[test]
    fn a_dcgm_scrape_reads_its_families_and_skips_instances() {
        let body = "\
DCGM_FI_DEV_FB_USED{gpu=\"1\",UUID=\"GPU-b\",pci_bus_id=\"00:02\",device=\"nvidia1\",modelName=\"H100\",Hostname=\"n\",DCGM_FI_DRIVER_VERSION=\"590.48.01\"} 2048
DCGM_FI_DEV_FB_USED{gpu=\"0\",UUID=\"GPU-a\",pci_bus_id=\"00:01\",modelName=\"H100\",GPU_I_PROFILE=\"1g.10gb\",GPU_I_ID=\"3\"} 99
DCGM_FI_DEV_GPU_TEMP{gpu=\"0\",UUID=\"GPU-a\",pci_bus_id=\"00:01\",modelName=\"H100\"} 54
DCGM_FI_DEV_POWER_USAGE{gpu=\"0\",UUID=\"GPU-a\",pci_bus_id=\"00:01\",modelName=\"H100\"} 412.345000
DCGM_FI_DEV_ROW_REMAP_FAILURE{gpu=\"0\",UUID=\"GPU-a\",pci_bus_id=\"00:01\",modelName=\"H100\"} 0
";
        let fields = [
            "index",
            "uuid",
            "driver_version",
            "memory.used",
            "temperature.gpu",
            "power.draw",
            "remapped_rows.failure",
            "memory.total",
        ];
        let got = rows(body, QueryMode::GPU, &fields);
        assert_eq!(
            got,
            [
                ["0", "GPU-a", "N/A", "N/A", "54", "412.35", "No", "N/A"],
                [
                    "1",
                    "GPU-b",
                    "590.48.01",
                    "2048",
                    "N/A",
                    "N/A",
                    "N/A",
                    "N/A"
                ],
            ]
        );
        let node = read(body.as_bytes(), SystemTime::UNIX_EPOCH).unwrap();
        assert_eq!(node.exporter, Exporter::Dcgm);
        assert_eq!(
            node.rows(QueryMode::COMPUTE_APPS, &["pid"]).unwrap_err(),
            Failure::NoProcesses("dcgm-exporter")
        );
    }

    #[test]
    fn what_each_exporter_gives_follows_its_tables() {
        let gpu = |e: Exporter, f: Fact| e.gives(QueryMode::GPU, f.into());
        for e in Exporter::ALL {
            assert!(gpu(e, Fact::MemoryUsed) && gpu(e, Fact::Index) && gpu(e, Fact::Name));
            assert!(!gpu(e, Fact::MemoryUsedPercent) && !gpu(e, Fact::Pstate));
        }
        assert!(!gpu(Exporter::Dcgm, Fact::MemoryTotal));
        assert!(gpu(Exporter::NvidiaGpuExporter, Fact::MemoryTotal));
        let app = |e: Exporter, l: ListField| e.gives(QueryMode::COMPUTE_APPS, l.into());
        assert!(!app(Exporter::Dcgm, ListField::Pid));
        assert!(app(Exporter::NvidiaGpuExporter, ListField::Pid));
        assert!(!app(Exporter::NvidiaGpuExporter, ListField::User));
    }
}
