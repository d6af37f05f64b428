//! The scripting flags put together: what happens to each sample's rows
//! between collection and printing.
//!
//! For every sample, in this order:
//! 1. `--until`/`--until-all` is evaluated on all rows read (before
//!    `--where`), and says whether the loop stops after this sample;
//! 2. `--where` drops the rows that do not satisfy it;
//! 3. `--assert` checks the rows kept; failures are reported (the loop
//!    stops after this sample and nvq exits 20);
//! 4. the rows are cut back to the queried columns (expressions may read
//!    fields that are not printed);
//! 5. `--summary` adds the rows kept to its statistics.

use super::eval::{cell_number, Capacity, Derived, Func};
use super::lives::Lives;
use super::{read_list, Expr, Stats};
use nvq_core::error::NvqError;
use nvq_core::model::history::{History, Point, SeriesKey};
use nvq_core::model::trend::{self, TrendConfig};
use nvq_core::model::{ColumnId, FieldInfo, FieldKind, ListField, Row, Value};
use nvq_core::source::QueryMode;
use std::collections::BTreeMap;
use std::time::Duration;

/// The default loop interval of `--until` when no `-l`/`-lms` is given.
pub const UNTIL_DEFAULT_INTERVAL: Duration = Duration::from_secs(1);

/// Which rows `--until` needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Quantifier {
    /// `--until`: at least one row.
    Any,
    /// `--until-all`: every row; vacuously true when there are none.
    All,
}

/// What a sample means for the loop.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    Continue,
    /// `--until` holds: stop after printing this sample.
    UntilMet,
    /// `--assert` failed: stop after printing this sample, then exit 20
    /// with this message.
    AssertFailed(String),
}

/// The scripting flags as given on the command line.
#[derive(Debug, Clone, Copy, Default)]
pub struct Flags<'a> {
    pub where_: Option<&'a str>,
    pub assert: Option<&'a str>,
    pub until: Option<&'a str>,
    pub until_all: Option<&'a str>,
    pub timeout: Option<Duration>,
    pub summary: bool,
    /// `--history N`: the points kept per series (None: [`History::DEFAULT_CAP`]).
    pub history: Option<usize>,
    /// `--trend-window`, `--rising-for`, `--min-rise`.
    pub trend_window: Option<Duration>,
    pub rising_for: Option<Duration>,
    /// In bytes.
    pub min_rise: Option<f64>,
}

impl Flags<'_> {
    /// Is any flag given?
    pub fn any(&self) -> bool {
        self.where_.is_some()
            || self.assert.is_some()
            || self.until.is_some()
            || self.until_all.is_some()
            || self.timeout.is_some()
            || self.summary
    }
}

/// The scripting flags of one query, compiled.
#[derive(Debug, Clone)]
pub struct Script {
    pub where_: Option<Expr>,
    pub assert: Option<Expr>,
    pub until: Option<(Expr, Quantifier)>,
    pub timeout: Option<Duration>,
    pub summary: Option<Stats>,
    /// The fields expressions name (a mode's fields, or a monitor's columns).
    infos: Vec<FieldInfo>,
    /// Each field's id (`ids[i]` names `infos[i]`): what the history is keyed by.
    ids: Vec<ColumnId>,
    key: RowKey,
    read: Vec<usize>,
    shown: usize,
    /// What `rate()`, `time_to_full()` and `--summary`'s trends read: kept when one of them is used.
    history: Option<History>,
    trend: TrendConfig,
    /// The functions of a field's history all expressions use, each a cell after the fields read.
    derived: Vec<Derived>,
    /// Per read cell: the field's id and the base value of its unit, for the history (None: not recorded).
    recorded: Vec<Option<(ColumnId, f64)>>,
    /// Per row of a sample and read cell, the last text recorded there and the number it reads as: a text cell
    /// seldom changes, so it is read as a number once until it does.
    text_numbers: Vec<Option<(String, Option<f64>)>>,
    /// One row's points, gathered before they are pushed (kept to reuse its memory).
    points: Vec<(ColumnId, Point)>,
    /// The series of each GPU seen (by NVML index).
    series: BTreeMap<u32, SeriesKey>,
    /// The UUID of each GPU (by NVML index), for rows that do not carry their GPU (dmon, pmon).
    uuids: BTreeMap<u32, String>,
    /// Each GPU's memory, in bytes: the capacity of a field whose capacity (`memory.total`) the rows lack.
    gpu_memory: BTreeMap<u32, f64>,
    /// Which process each (GPU, PID) is: a reused PID is a new series.
    lives: Lives,
    /// The newest series of each `--summary` key (GPU, sub) whose rows are processes.
    sub_series: BTreeMap<(u32, u32), SeriesKey>,
    /// In the read cells: the PID's and the command name's, when rows are processes.
    pid_cell: Option<usize>,
    name_cell: Option<usize>,
    /// [`RowKey::Labels`]: a number for each row's labels, in order seen.
    label_keys: LabelKeys,
}

/// Numbers for the label sets of a list mode's rows (a PID, a clock pair).
#[derive(Debug, Clone, Default)]
struct LabelKeys(Vec<Vec<(&'static str, String)>>);

impl LabelKeys {
    fn key(&mut self, labels: &[(&'static str, String)]) -> u32 {
        let at = match self.0.iter().position(|l| l.as_slice() == labels) {
            Some(at) => at,
            None => {
                self.0.push(labels.to_vec());
                self.0.len() - 1
            }
        };
        u32::try_from(at).unwrap_or(u32::MAX)
    }
}

/// What tells rows apart for `--summary` and `--assert` messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RowKey {
    /// One row per GPU, named by the caller (`--query-gpu`).
    Gpu,
    /// The GPU index and maybe a second number (a PID) in these cells:
    /// `pmon` keeps one summary per process, `dmon` one per GPU.
    Cells { gpu: usize, sub: Option<usize> },
    /// A list mode's rows (`--query-compute-apps`): each row's GPU
    /// ([`Row::gpu`]) and labels (its PID, ...), whether or not queried.
    Labels,
}

impl Script {
    /// Compile the flags for `mode`, whose queried fields are `queried`.
    /// Everything is checked here, before NVML is touched.
    pub fn new(mode: QueryMode, queried: &[usize], flags: Flags) -> Result<Self, NvqError> {
        let key = if mode.row_per_gpu() {
            RowKey::Gpu
        } else {
            RowKey::Labels
        };
        let infos = mode.fields().into_iter().copied().collect();
        let script = Self::with_fields(infos, mode.ids(), queried, flags, key)?;
        let processes = mode.position(ListField::Pid).is_some();
        if !script.derived.is_empty() && !mode.row_per_gpu() && !processes {
            return Err(NvqError::Usage(format!(
                "rate( ) and time_to_full( ) follow a GPU or a process over time: they work with --query-gpu \
                 and --query-compute-apps, not --{}.",
                mode.option()
            )));
        }
        Ok(script)
    }

    /// Compile the flags against any field table (a monitor's columns):
    /// expressions name `infos` by name or alias, the history keys them by
    /// their `ids`; rows are told apart by `key`.
    pub fn with_fields(
        infos: Vec<FieldInfo>,
        ids: Vec<ColumnId>,
        queried: &[usize],
        flags: Flags,
        key: RowKey,
    ) -> Result<Self, NvqError> {
        let refs: Vec<&FieldInfo> = infos.iter().collect();
        let lookup = |name: &str| refs.iter().position(|f| f.matches(name));
        let compile = |flag: &'static str, src: &str| {
            Expr::compile_with(flag, src, &refs, &lookup)
                .map_err(|e| NvqError::Usage(e.render(flag, src)))
        };
        let Flags {
            where_,
            assert,
            until,
            until_all,
            timeout,
            summary,
            history,
            trend_window,
            rising_for,
            min_rise,
        } = flags;
        let where_ = where_.map(|s| compile("--where", s)).transpose()?;
        let assert = assert.map(|s| compile("--assert", s)).transpose()?;
        let until = match (until, until_all) {
            (Some(_), Some(_)) => {
                return Err(NvqError::Usage(
                    "--until and --until-all cannot be used together; choose one.".into(),
                ))
            }
            (Some(s), None) => Some((compile("--until", s)?, Quantifier::Any)),
            (None, Some(s)) => Some((compile("--until-all", s)?, Quantifier::All)),
            (None, None) => None,
        };
        let timeout = match timeout {
            Some(_) if until.is_none() => {
                return Err(NvqError::Usage(
                    "--timeout bounds the wait of --until or --until-all; give one of them.".into(),
                ))
            }
            t => t,
        };
        let trend = trend_config(trend_window, rising_for, min_rise);
        if history == Some(0) {
            return Err(NvqError::Usage(
                "--history needs at least 1 point per series (the default is 3600).".into(),
            ));
        }
        let mut script = Script {
            where_,
            assert,
            until,
            timeout,
            summary: summary.then(|| {
                use nvq_core::model::FieldKind;
                let keys = queried
                    .iter()
                    .map(|&f| {
                        infos.get(f).is_some_and(|i| {
                            matches!(
                                i.kind,
                                FieldKind::GpuIndex | FieldKind::RowLabel | FieldKind::GpuCount
                            )
                        })
                    })
                    .collect();
                Stats::with_keys(keys)
            }),
            infos,
            ids,
            key,
            read: Vec::new(),
            shown: queried.len(),
            history: None,
            trend,
            derived: Vec::new(),
            recorded: Vec::new(),
            text_numbers: Vec::new(),
            points: Vec::new(),
            series: BTreeMap::new(),
            uuids: BTreeMap::new(),
            gpu_memory: BTreeMap::new(),
            lives: Lives::default(),
            sub_series: BTreeMap::new(),
            pid_cell: None,
            name_cell: None,
            label_keys: LabelKeys::default(),
        };
        let mut derived: Vec<Derived> = Vec::new();
        for e in script.exprs_mut() {
            for d in e.derived() {
                if !derived.contains(d) {
                    derived.push(*d);
                }
            }
        }
        script.derived = derived;
        script.read = read_list(
            queried,
            script
                .where_
                .iter()
                .chain(script.assert.iter())
                .chain(script.until.iter().map(|(e, _)| e)),
        );
        // --summary's time to full reads each filling field's capacity (memory.total for memory.used).
        if script.summary.is_some() {
            let ids = &script.ids;
            let extra: Vec<usize> = queried
                .iter()
                .filter_map(|&q| trend::capacity(*ids.get(q)?))
                .filter_map(|c| ids.iter().position(|&i| i == ColumnId::Fact(c)))
                .collect();
            for c in extra {
                if !script.read.contains(&c) {
                    script.read.push(c);
                }
            }
        }
        // Rows of processes: their PID and command name, read for the history's keys.
        let named = |name: &str| script.infos.iter().position(|f| f.name == name);
        let (pid, command) = match key {
            RowKey::Cells { sub: Some(sub), .. } => (
                Some(sub).filter(|&s| script.infos.get(s).is_some_and(|f| f.name == "pid")),
                named("command"),
            ),
            RowKey::Labels => (named("pid"), named("process_name")),
            _ => (None, None),
        };
        if !script.derived.is_empty() || script.summary.is_some() {
            for f in [pid, command].into_iter().flatten() {
                if !script.read.contains(&f) {
                    script.read.push(f);
                }
            }
        }
        let read = script.read.clone();
        let (base, all) = (read.len(), script.derived.clone());
        for e in script.exprs_mut() {
            e.bind(&read);
            e.bind_derived(base, &all);
        }
        script.pid_cell = pid.and_then(|p| read.iter().position(|&r| r == p));
        script.name_cell = command.and_then(|c| read.iter().position(|&r| r == c));
        if !script.derived.is_empty() || script.summary.is_some() {
            let mut kept = History::new(history.unwrap_or(History::DEFAULT_CAP));
            // rate() and time_to_full() read their fields' trends every sample.
            for d in &script.derived {
                if let Some(&id) = script.ids.get(d.field) {
                    kept.keep_minima_of(id);
                }
            }
            script.history = Some(kept);
            // --summary's trend rows read every numeric column's series; rate() and time_to_full() only their
            // own fields' (a capacity comes from the row), so without --summary only those are recorded.
            let all = script.summary.is_some();
            script.recorded = read
                .iter()
                .map(|&f| {
                    let (info, &id) = (script.infos.get(f)?, script.ids.get(f)?);
                    let numeric = matches!(info.kind, FieldKind::Gauge | FieldKind::Counter);
                    let wanted = all || script.derived.iter().any(|d| d.field == f);
                    (numeric && wanted).then(|| (id, super::units::field_unit(info).1))
                })
                .collect();
        }
        Ok(script)
    }

    /// Does the run keep a history (for `rate()`, `time_to_full()` or `--summary`)? Its rows must then name
    /// their GPU (`Row::gpu`), so that each GPU's series is keyed by its UUID.
    pub fn needs_history(&self) -> bool {
        self.history.is_some()
    }

    /// The history kept so far.
    pub fn history(&self) -> Option<&History> {
        self.history.as_ref()
    }

    fn exprs_mut(&mut self) -> impl Iterator<Item = &mut Expr> {
        self.where_
            .iter_mut()
            .chain(self.assert.iter_mut())
            .chain(self.until.iter_mut().map(|(e, _)| e))
    }

    /// The fields to read for each row: the queried ones, then those only
    /// the expressions need.
    pub fn read(&self) -> &[usize] {
        &self.read
    }

    /// How many cells [`Self::sample_at`] appends to each row after the read ones (`rate()`, `time_to_full()`).
    pub fn derived_count(&self) -> usize {
        if self.history.is_some() {
            self.derived.len()
        } else {
            0
        }
    }

    /// Does any flag need the loop to run? `--until` loops even without
    /// `-l`, every [`UNTIL_DEFAULT_INTERVAL`].
    pub fn needs_loop(&self) -> bool {
        self.until.is_some()
    }

    /// Process one sample's rows (cells in [`Self::read`] order). `gpus`
    /// names each row's GPU (NVML index) in `--query-gpu`; `None` in modes
    /// whose rows are not GPUs. Returns the rows to print.
    pub fn sample(&mut self, rows: Vec<Row>, gpus: Option<&[u32]>) -> (Vec<Row>, Verdict) {
        self.sample_at(f64::NAN, rows, gpus)
    }

    /// [`Self::sample`] for rows read at `t` (seconds since the UNIX epoch): with a history, each row's numeric
    /// cells are added to its GPU's series first, and the functions of the history are computed for it.
    pub fn sample_at(
        &mut self,
        t: f64,
        mut rows: Vec<Row>,
        gpus: Option<&[u32]>,
    ) -> (Vec<Row>, Verdict) {
        if self.history.is_some() {
            self.lives.next_sample();
            for (i, r) in rows.iter_mut().enumerate() {
                let gpu = gpus.and_then(|g| g.get(i)).copied().unwrap_or(i as u32);
                self.record(t, gpu, i, r);
            }
        }
        let until_met = self.until.as_ref().is_some_and(|(e, q)| match q {
            Quantifier::Any => rows.iter().any(|r| e.holds(&r.cells)),
            // Over no rows (a GPU without processes) it holds: "until every
            // process uses less than 1 GiB" is met once there is none.
            Quantifier::All => rows.iter().all(|r| e.holds(&r.cells)),
        });
        // The rows --where keeps, in place, and where each of them was among the rows read (without --where:
        // where it is).
        let mut kept = rows;
        let mut read_at: Vec<usize> = Vec::new();
        if let Some(e) = &self.where_ {
            let mut i = 0;
            kept.retain(|r| {
                let keep = e.holds(&r.cells);
                if keep {
                    read_at.push(i);
                }
                i += 1;
                keep
            });
        }
        let read_at = |j: usize| read_at.get(j).copied().unwrap_or(j);
        let mut failures = Vec::new();
        if let Some(e) = &self.assert {
            for (j, r) in kept.iter().enumerate() {
                if !e.holds(&r.cells) {
                    let infos: Vec<&FieldInfo> = self.infos.iter().collect();
                    failures.push(format!(
                        "  {}: {}",
                        self.who(read_at(j), &r.cells, gpus),
                        e.explain(&r.cells, &self.read, &infos)
                    ));
                }
            }
        }
        for r in &mut kept {
            r.cells.truncate(self.shown);
        }
        if let Some(s) = &mut self.summary {
            for (j, r) in kept.iter().enumerate() {
                match self.key {
                    RowKey::Gpu => {
                        let i = read_at(j);
                        let gpu = gpus.and_then(|g| g.get(i)).copied().unwrap_or(i as u32);
                        s.add(gpu, &r.cells);
                    }
                    RowKey::Cells { gpu, sub } => {
                        let sub = sub.map_or(0, |k| cell_u32(&r.cells, k));
                        s.add_keyed(cell_u32(&r.cells, gpu), sub, &r.cells)
                    }
                    RowKey::Labels => {
                        let gpu = r.gpu.as_ref().map_or(0, |g| g.index);
                        let sub = self.label_keys.key(&r.labels);
                        s.add_keyed(gpu, sub, &r.cells)
                    }
                }
            }
            s.sample_done();
        }
        let verdict = if !failures.is_empty() {
            let e = self.assert.as_ref().map_or("", |e| e.source.as_str());
            Verdict::AssertFailed(format!(
                "nvq: --assert '{e}' failed for {} row{}:\n{}",
                failures.len(),
                if failures.len() == 1 { "" } else { "s" },
                failures.join("\n")
            ))
        } else if until_met {
            Verdict::UntilMet
        } else {
            Verdict::Continue
        };
        (kept, verdict)
    }

    /// The message of a run whose `--until` never held.
    pub fn until_missed(&self, why: &str) -> NvqError {
        let (flag, src) = self
            .until
            .as_ref()
            .map_or(("--until", ""), |(e, _)| (e.flag, e.source.as_str()));
        NvqError::Timeout(format!("nvq: {flag} '{src}' did not hold {why}."))
    }
}

impl Script {
    /// The series `row` belongs to: its GPU's, or its process's (by GPU, PID and start time, see
    /// [`super::lives`]); `None` for a row that is neither (a GPU without processes in pmon, a MIG instance
    /// row of dmon). `gpu` is the row's GPU where the rows are GPUs. Also notes the process's series as
    /// the newest of its `--summary` key.
    fn series_of(&mut self, gpu: u32, row: &Row) -> Option<(u32, Option<SeriesKey>)> {
        let int = |k: usize| match row.cells.get(k) {
            Some(Value::Int(v)) => u32::try_from(*v).ok(),
            _ => None,
        };
        let (gpu, pid, sub) = match self.key {
            RowKey::Gpu => (gpu, None, 0),
            RowKey::Cells { gpu: g, sub } => {
                let gpu = int(g)?;
                match (self.pid_cell, sub) {
                    (Some(p), _) => {
                        let pid = int(p)?;
                        (gpu, Some(pid), pid)
                    }
                    (None, Some(s)) if int(s).is_some() => return None,
                    _ => (gpu, None, 0),
                }
            }
            RowKey::Labels => {
                let gpu = row.gpu.as_ref().map_or(0, |g| g.index);
                let pid = self.pid_cell.and_then(int).or_else(|| {
                    row.labels
                        .iter()
                        .find(|(k, _)| *k == "pid")
                        .and_then(|(_, v)| v.parse().ok())
                })?;
                (gpu, Some(pid), self.label_keys.key(&row.labels))
            }
        };
        let known = self
            .series
            .get(&gpu)
            .is_some_and(|k| row.gpu.as_ref().map_or(true, |g| g.uuid == k.gpu_uuid()));
        if !known {
            {
                // Rows name their GPU when a history is kept, else the app named the GPUs; without either
                // (a test), the index stands in.
                let uuid = match (&row.gpu, self.uuids.get(&gpu)) {
                    (Some(g), _) => g.uuid.clone(),
                    (None, Some(u)) => u.clone(),
                    (None, None) => format!("GPU index {gpu}"),
                };
                self.series.insert(gpu, SeriesKey::Gpu { uuid });
            }
        }
        let Some(pid) = pid else {
            // The GPU's own series, in `self.series`.
            return Some((gpu, None));
        };
        let gpu_uuid = self.series.get(&gpu).map_or("", |k| k.gpu_uuid());
        let name = self.name_cell.and_then(|c| match row.cells.get(c) {
            Some(Value::Text(s)) => Some(s.as_str()),
            _ => None,
        });
        let key = self.lives.key(gpu, gpu_uuid, pid, name).clone();
        if self.sub_series.get(&(gpu, sub)) != Some(&key) {
            self.sub_series.insert((gpu, sub), key.clone());
        }
        Some((gpu, Some(key)))
    }

    /// Add a row's numeric cells to its series, then append the derived values (`rate`, `time_to_full`).
    fn record(&mut self, t: f64, gpu: u32, slot: usize, row: &mut Row) {
        if self.history.is_none() {
            return;
        }
        let found = self.series_of(gpu, row);
        let Some(history) = self.history.as_mut() else {
            return;
        };
        let series: Option<(u32, &SeriesKey)> = match &found {
            Some((gpu, Some(k))) => Some((*gpu, k)),
            Some((gpu, None)) => self.series.get(gpu).map(|k| (*gpu, k)),
            None => None,
        };
        if let Some((_, key)) = series {
            let width = self.recorded.len();
            let points = &mut self.points;
            points.clear();
            for (k, (cell, rec)) in row.cells.iter().zip(&self.recorded).enumerate() {
                let Some((id, scale)) = *rec else {
                    continue;
                };
                // A number as is (cheap, and not rounded as printed); text only when it reads as one.
                let number = match cell {
                    Value::Text(s) => {
                        text_number(&mut self.text_numbers, slot * width + k, s, cell)
                    }
                    other => other.as_f64(),
                };
                if let Some(v) = number {
                    points.push((id, Point { t, v: v * scale }));
                }
            }
            history.push_row(key, points.iter().copied());
        }
        row.cells.reserve(self.derived.len());
        for d in &self.derived {
            let id = self.ids.get(d.field).copied();
            let found = series
                .as_ref()
                .zip(id)
                .and_then(|((_, key), id)| history.series(*key, id));
            // Until a series has enough points for a trend, it is not rising: a rate of 0, never full.
            let young = found.map_or(true, |s| s.len() < 3);
            let value = match d.func {
                Func::Rate { .. } if young => Some(0.0),
                Func::TimeToFull(_) if young => Some(f64::INFINITY),
                Func::Rate { per_s } => found
                    .and_then(|s| trend::trend(s, None, &self.trend))
                    .map(|tr| tr.slope_per_s * per_s),
                Func::TimeToFull(cap) => {
                    let cap = match cap {
                        Capacity::Const(c) => Some(c),
                        Capacity::Field(f, scale) => {
                            let k = self.read.iter().position(|&r| r == f);
                            k.and_then(|k| row.cells.get(k))
                                .and_then(cell_number)
                                .map(|v| v * scale)
                        }
                        Capacity::GpuMemory => series
                            .as_ref()
                            .and_then(|(gpu, _)| self.gpu_memory.get(gpu))
                            .copied(),
                    };
                    match (found, cap) {
                        (Some(s), Some(c)) => trend::time_to_full(s, Some(c), &self.trend)
                            .map(|full| full.unwrap_or(f64::INFINITY)),
                        _ => None,
                    }
                }
            };
            row.cells
                .push(value.map_or(Value::NotAvailable, |value| Value::Float {
                    value,
                    decimals: 3,
                }));
        }
    }

    /// Name the GPUs (NVML index, UUID) for rows that do not carry their GPU (dmon, pmon), so that their series
    /// are keyed by UUID as everywhere else.
    pub fn name_gpus(&mut self, gpus: impl IntoIterator<Item = (u32, String)>) {
        self.uuids.extend(gpus);
    }

    /// Each GPU's memory (NVML index, bytes): what `time_to_full()` and `--summary` measure a process's memory
    /// (`used_memory`, pmon's `fb`) and dmon's `fb` against, as the rows have no `memory.total`.
    pub fn set_gpu_memory(&mut self, gpus: impl IntoIterator<Item = (u32, f64)>) {
        self.gpu_memory.extend(gpus);
    }

    /// Does a time to full need [`Self::set_gpu_memory`]?
    pub fn needs_gpu_memory(&self) -> bool {
        let derived = self
            .derived
            .iter()
            .any(|d| d.func == Func::TimeToFull(Capacity::GpuMemory));
        let summary = self.summary.is_some()
            && self.recorded.iter().flatten().any(|&(id, _)| {
                trend::capacity(id).is_some_and(|c| !self.ids.contains(&ColumnId::Fact(c)))
            });
        derived || summary
    }

    /// The summary table's rows: per GPU its `min`, `max`, `mean`, then (with a history) its `rate/min` (each numeric
    /// column's growth per minute, in the column's unit) and `time_to_full` (of the columns that fill a capacity:
    /// a duration when rising steadily, `not rising` otherwise).
    pub fn summary_rows(&self) -> Vec<Row> {
        let Some(stats) = &self.summary else {
            return Vec::new();
        };
        stats.rows_with(&|gpu, sub| self.trend_rows(gpu, sub))
    }

    fn trend_rows(&self, gpu: u32, sub: u32) -> Vec<Row> {
        let key = match self.pid_cell {
            Some(_) => self.sub_series.get(&(gpu, sub)),
            None => self.series.get(&gpu),
        };
        let (Some(history), Some(key)) = (&self.history, key) else {
            return Vec::new();
        };
        let mut rate = vec![Value::Int(i64::from(gpu)), Value::text("rate/min")];
        let mut full = vec![Value::Int(i64::from(gpu)), Value::text("time_to_full")];
        for k in 0..self.shown {
            let rec = self.recorded.get(k).copied().flatten();
            let series = rec.and_then(|(id, _)| history.series(key, id));
            let capacity_field = rec.and_then(|(id, _)| trend::capacity(id));
            // The capacity's own series (memory.total beside memory.used), else the GPU's memory.
            let capacity = capacity_field.and_then(|c| {
                history
                    .series(
                        &SeriesKey::Gpu {
                            uuid: key.gpu_uuid().to_string(),
                        },
                        c,
                    )
                    .and_then(|s| s.last())
                    .map(|p| p.v)
                    .or_else(|| self.gpu_memory.get(&gpu).copied())
            });
            let tr = series.and_then(|s| trend::trend(s, capacity, &self.trend));
            rate.push(match (tr, rec) {
                (Some(tr), Some((_, scale))) => Value::Float {
                    value: tr.slope_per_s * 60.0 / scale,
                    decimals: 2,
                },
                _ => Value::NotAvailable,
            });
            full.push(match (tr, capacity) {
                (Some(tr), Some(_)) => match tr.time_to_full_s {
                    Some(s) => Value::text(trend::format_duration(s)),
                    None => Value::text("not rising"),
                },
                _ => Value::NotAvailable,
            });
        }
        vec![Row::new(rate), Row::new(full)]
    }

    /// How an `--assert` message names a row.
    fn who(&self, i: usize, cells: &[Value], gpus: Option<&[u32]>) -> String {
        if let RowKey::Cells { gpu, sub } = self.key {
            let name = |k: usize| self.infos.get(k).map_or("", |f| f.name);
            return match sub {
                Some(sub) => format!(
                    "GPU {} {} {}",
                    cell_u32(cells, gpu),
                    name(sub),
                    cell_u32(cells, sub)
                ),
                None => format!("GPU {}", cell_u32(cells, gpu)),
            };
        }
        match gpus.and_then(|g| g.get(i)) {
            Some(g) => format!("GPU {g}"),
            None => format!("row {}", i + 1),
        }
    }
}

/// The trend settings from `--trend-window`, `--rising-for` and `--min-rise`.
pub fn trend_config(
    window: Option<Duration>,
    rising_for: Option<Duration>,
    min_rise: Option<f64>,
) -> TrendConfig {
    let mut cfg = TrendConfig::default();
    if let Some(w) = window {
        cfg.window_s = w.as_secs_f64();
    }
    if let Some(r) = rising_for {
        cfg.min_duration_s = r.as_secs_f64();
    }
    if let Some(m) = min_rise {
        cfg.min_rise = m;
    }
    cfg
}

/// `--min-rise`'s value parser: a size, in bytes.
pub fn min_rise(m: &str) -> Result<f64, NvqError> {
    parse_size(m).ok_or_else(|| {
        NvqError::Usage(format!(
            "--min-rise needs a size such as 256MiB or 1GiB, not \"{m}\"."
        ))
    })
}

/// A size with its unit (`256MiB`, `1.5GiB`, `0B`; a bare number is MiB), in bytes.
fn parse_size(s: &str) -> Option<f64> {
    let s = s.trim();
    let n = s
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(s.len());
    let value: f64 = s.get(..n)?.parse().ok()?;
    let unit = s.get(n..)?.trim();
    let scale = if unit.is_empty() {
        1024.0 * 1024.0
    } else {
        match super::units::literal_unit(unit) {
            Some((nvq_core::model::Quantity::Size, scale)) => scale,
            _ => return None,
        }
    };
    Some(value * scale).filter(|v| v.is_finite())
}

/// A cell's integer (a GPU index, a PID), 0 when it has none.
fn cell_u32(cells: &[Value], k: usize) -> u32 {
    match cells.get(k) {
        Some(Value::Int(v)) => u32::try_from(*v).unwrap_or(0),
        _ => 0,
    }
}

/// The number text cell `cell` (`text`) reads as, from `cache[at]` when that place held the same text before.
fn text_number(
    cache: &mut Vec<Option<(String, Option<f64>)>>,
    at: usize,
    text: &str,
    cell: &Value,
) -> Option<f64> {
    if let Some(Some((last, x))) = cache.get(at) {
        if last == text {
            return *x;
        }
    }
    let x = cell_number(cell);
    if cache.len() <= at {
        cache.resize(at + 1, None);
    }
    if let Some(place) = cache.get_mut(at) {
        *place = Some((text.to_string(), x));
    }
    x
}
