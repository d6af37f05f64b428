//! The panels of a log as its rows stream by: each series' points of the columns it may draw, the processes
//! placed once the sampling interval is known, then the panels and lines drawn (at most [`MAX_PANELS`] and
//! [`MAX_LINES`], the rest counted in notes).

use super::panel::{Drawing, Ink, Line, Panel, PlotSpec};
use super::thin::thin;
use nvq_core::model::history::{Point, Series};
use nvq_core::model::log::{quoted, LogCell, LogHead};
use nvq_core::model::{trend, ColumnId, Fact, ListField};
use nvq_core::render::report_xml::xml_chars;
use std::collections::HashMap;

/// The most panels a picture has (fields drawn); the others are named in a note under the panels.
pub const MAX_PANELS: usize = 8;
/// The most lines a panel has: the series with the highest peaks; the panel's title says of how many.
pub const MAX_LINES: usize = 20;

/// The columns that name a row's series, in the order they are tried.
const GPU_KEYS: &[ColumnId] = &[
    ColumnId::Fact(Fact::Uuid),
    ColumnId::List(ListField::GpuUuid),
    ColumnId::Fact(Fact::Index),
    ColumnId::Fact(Fact::PciBusId),
    ColumnId::List(ListField::GpuBusId),
    ColumnId::List(ListField::GpuSerial),
    ColumnId::List(ListField::GpuName),
];
/// Columns that are never drawn by default.
const NOT_DRAWN: &[ColumnId] = &[
    ColumnId::Fact(Fact::Index),
    ColumnId::List(ListField::Pid),
    ColumnId::Fact(Fact::Count),
    ColumnId::List(ListField::GpuIndex),
    ColumnId::Fact(Fact::MinorNumber),
];
/// What the picture says under its panels when a row's memory is the system's.
const DERIVED_NOTE: &str =
    "memory.* of a unified-memory GPU (memory.derived Yes): the system's memory, \
     used MemTotal - MemAvailable of MemTotal";

/// The default fields: memory, then utilization.
const DEFAULTS: &[ColumnId] = &[
    ColumnId::Fact(Fact::MemoryUsed),
    ColumnId::List(ListField::UsedGpuMemory),
    // `used_gpu_memory`'s other spelling, as a log written with it names it.
    ColumnId::Text("used_memory"),
    ColumnId::Fact(Fact::UtilizationGpu),
    ColumnId::Fact(Fact::UtilizationMemory),
];

/// Is the log column `name` one of `ids`?
fn named(ids: &[ColumnId], name: &str) -> bool {
    ids.iter().any(|id| id.name() == name)
}

/// A cell as a key part, cheap to compare: a number's bits, a text's number, or nothing.
pub(super) type Part = (u8, u64);

pub(super) fn part(cells: &[LogCell], k: Option<usize>) -> Part {
    match k.and_then(|k| cells.get(k)) {
        Some(LogCell::Num(v)) => (1, v.to_bits()),
        Some(LogCell::Text(id)) => (2, u64::from(*id)),
        _ => (0, 0),
    }
}

/// A GPU's series key: its host's and its own.
type GpuKey = (Part, Part);

/// The columns that tell series apart.
struct KeyColumns {
    /// The node a log written under `--hosts` names in each row.
    host: Option<usize>,
    gpu: Option<usize>,
    index: Option<usize>,
    pid: Option<usize>,
    name: Option<usize>,
}

impl KeyColumns {
    fn of(head: &LogHead) -> Self {
        let pid = head.column("pid");
        KeyColumns {
            host: head.column("host"),
            gpu: GPU_KEYS.iter().find_map(|c| head.column(c.name())),
            index: head.column("index").or_else(|| head.column("gpu_index")),
            pid,
            name: head
                .column("process_name")
                .or_else(|| head.column("name"))
                .filter(|_| pid.is_some()),
        }
    }
}

/// The columns a plot of `spec` reads, of a log whose header names `names`: the fields it draws, their
/// capacities and the columns that tell series apart (every column when it draws every numeric one).
pub fn columns_needed(spec: &PlotSpec, names: &[String]) -> Vec<bool> {
    let has = |n: &str| names.iter().any(|x| x == n);
    let fields: Vec<&str> = if spec.fields.is_empty() {
        DEFAULTS
            .iter()
            .map(|d| d.name())
            .filter(|d| has(d))
            .collect()
    } else {
        spec.fields.iter().map(String::as_str).collect()
    };
    if fields.is_empty() {
        return vec![true; names.len()];
    }
    let keys = [
        "index",
        "gpu_index",
        "pid",
        "process_name",
        "name",
        "timestamp",
        "host",
    ];
    names
        .iter()
        .map(|n| {
            let n = n.as_str();
            fields.contains(&n)
                || fields.iter().any(|f| trend::capacity_field(f) == Some(n))
                || named(GPU_KEYS, n)
                || keys.contains(&n)
                || n == Fact::MemoryDerived.info().name
        })
        .collect()
}

/// One series as it is read: its first row (for its label and its place), its points per field slot (each with
/// the epoch of the slot it was gathered for), and the capacity each fills (the last one read).
struct Gathered {
    first_row: usize,
    /// The first row's index, GPU, PID, command name and host cells.
    first: [LogCell; 5],
    generation: u32,
    slots: Vec<Slot>,
}

/// How many gaps between timestamps make the sampling interval (their median).
const GAPS: usize = 64;

/// A series' points of one field, and its capacity: valid while `epoch` is the field's.
#[derive(Default)]
pub(super) struct Slot {
    epoch: u32,
    pub(super) points: Vec<Point>,
    pub(super) capacity: Option<f64>,
    /// How many points it may hold before its old ones are thinned again.
    next: usize,
}

/// What a series keeps of a field: every point of the trend window, and of the older ones each of
/// `4 × columns` slices' lowest and highest (a pixel column of the picture is at least two slices wide, so
/// its lowest and highest point are kept).
pub(super) struct Keep {
    /// The picture's width in pixels.
    columns: usize,
    window_s: f64,
}

impl Keep {
    pub(super) fn of(spec: &PlotSpec) -> Self {
        Keep {
            columns: spec.width as usize,
            window_s: spec.trend.window_s,
        }
    }
}

/// A process's row, kept until the end: which process a PID is depends on the log's sampling interval
/// (a PID gone for more than three samples and back is a new process).
struct ProcessRow {
    row: usize,
    t: f64,
    gpu: GpuKey,
    pid: Part,
    name: Part,
    first: [LogCell; 5],
    /// The epoch the row was read in (a field's slot reused since then holds another column).
    epoch: u32,
    /// Per field slot: its number and its capacity's (NaN: none).
    values: Vec<(f64, f64)>,
}

/// Why a column is collected.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Role {
    /// A `--field`, by its place in the list.
    Chosen(usize),
    /// A default field, by its place in [`DEFAULTS`].
    Default(usize),
    /// Any other numeric column, drawn when no default one holds a number (in column order).
    StandIn,
}

/// A collected column: its slot in each series.
struct Field {
    column: usize,
    capacity: Option<usize>,
    role: Role,
    /// Whether its points are being collected (a stand-in no longer among the first [`MAX_PANELS`] is not, and
    /// its slot is given to another).
    live: bool,
    /// The epoch from which the slot holds this column.
    since: u32,
}

/// What a plot collects as the log's rows stream by (see [`source::log::read`]): each series' points of the
/// columns it may draw, as numbers; the rest of a row is forgotten once read. Then [`Self::finish`] makes the
/// panels.
///
/// The series of a GPU are built as the rows come; a process's rows wait for the end of the log. Every look-up
/// a row makes is hashed or over the few collected fields: a row costs the same with 8 GPUs or 200,000.
pub struct Collector<'s> {
    spec: &'s PlotSpec,
    /// The columns known so far (an NDJSON log may add some in later rows).
    known: usize,
    keys: Option<KeyColumns>,
    fields: Vec<Field>,
    /// Counts the slots given to stand-ins, so that what was gathered for a slot's earlier column is left out.
    epoch: u32,
    /// While no default field has held a number: the stand-ins are collected.
    stand_ins_wanted: bool,
    series: Vec<Gathered>,
    /// The GPU series seen, by key part.
    gpus: HashMap<GpuKey, usize>,
    /// The processes' rows until the sampling interval is known.
    processes: Vec<ProcessRow>,
    rows: usize,
    t0: f64,
    /// The first gaps between distinct timestamps, for the sampling interval.
    gaps: Vec<f64>,
    /// The sampling interval, once known (see [`Self::interval`]).
    interval: Option<f64>,
    /// The processes placed: (GPU, PID) -> (series, last seen, name, generation).
    seen: HashMap<(GpuKey, Part), (usize, f64, Part, u32)>,
    /// How many points a series keeps of each field.
    keep: Keep,
    last_t: Option<f64>,
    first_gpu: Option<GpuKey>,
    many_gpus: bool,
    /// Which columns have held a number.
    numeric: Vec<bool>,
    /// The host a series is named by where its row names none (the log's file, when several logs are drawn).
    source: Option<String>,
    /// The `memory.derived` column, if the log has one, and whether a row
    /// said `Yes` there: memory that is the system's (a unified-memory GPU).
    derived: (Option<usize>, bool),
}

impl<'s> Collector<'s> {
    /// A collector for `spec`; `source` names the log's host where its rows name none (its file, when several
    /// logs are drawn on one time axis).
    pub fn new(spec: &'s PlotSpec, source: Option<String>) -> Self {
        Collector {
            source,
            spec,
            known: 0,
            keys: None,
            fields: Vec::new(),
            epoch: 0,
            stand_ins_wanted: spec.fields.is_empty(),
            series: Vec::new(),
            gpus: HashMap::new(),
            processes: Vec::new(),
            rows: 0,
            derived: (None, false),
            t0: f64::INFINITY,
            gaps: Vec::new(),
            interval: None,
            seen: HashMap::new(),
            keep: Keep::of(spec),
            last_t: None,
            first_gpu: None,
            many_gpus: false,
            numeric: Vec::new(),
        }
    }

    /// The role of a column by its name, if it may be drawn.
    fn role(&self, name: &str) -> Option<Role> {
        if !self.spec.fields.is_empty() {
            // The first MAX_PANELS fields asked for are drawn; the others are named in a note.
            return self
                .spec
                .fields
                .iter()
                .position(|f| f == name)
                .filter(|&i| i < MAX_PANELS)
                .map(Role::Chosen);
        }
        if let Some(i) = DEFAULTS.iter().position(|d| d.name() == name) {
            return Some(Role::Default(i));
        }
        (!named(NOT_DRAWN, name) && !named(GPU_KEYS, name)).then_some(Role::StandIn)
    }

    /// Columns the head has that were not known: their fields (a stand-in gets its slot when it first holds a
    /// number), and every field's capacity column again.
    fn grow(&mut self, head: &LogHead) {
        for (k, c) in head.columns.iter().enumerate().skip(self.known) {
            if let Some(role @ (Role::Chosen(_) | Role::Default(_))) = self.role(&c.name) {
                self.fields.push(Field {
                    column: k,
                    capacity: None,
                    role,
                    live: true,
                    since: 0,
                });
            }
        }
        self.known = head.columns.len();
        self.numeric.resize(self.known, false);
        self.derived.0 = head.column(Fact::MemoryDerived.info().name);
        for f in &mut self.fields {
            let name = head.columns.get(f.column).map_or("", |c| c.name.as_str());
            f.capacity = trend::capacity_field(name).and_then(|c| head.column(c));
        }
        if self.keys.is_none() {
            self.keys = Some(KeyColumns::of(head));
        }
    }

    /// Column `k` holds its first number.
    fn first_number(&mut self, head: &LogHead, k: usize) {
        let name = head.columns.get(k).map_or("", |c| c.name.as_str());
        match self.role(name) {
            Some(Role::Default(_)) if self.stand_ins_wanted => {
                // A default field is drawn: the stand-ins are not needed, forgotten.
                self.stand_ins_wanted = false;
                let mut gone = Vec::new();
                for (i, f) in self.fields.iter_mut().enumerate() {
                    if f.role == Role::StandIn {
                        f.live = false;
                        gone.push(i);
                    }
                }
                for g in &mut self.series {
                    for &i in &gone {
                        if let Some(s) = g.slots.get_mut(i) {
                            *s = Slot::default();
                        }
                    }
                }
            }
            Some(Role::StandIn) if self.stand_ins_wanted => self.stand_in(head, k),
            _ => {}
        }
    }

    /// A stand-in column's first number: collected when it is among the first [`MAX_PANELS`] numeric stand-ins
    /// (in column order; a later one never will be), in the slot of the one it pushes out, if any.
    fn stand_in(&mut self, head: &LogHead, k: usize) {
        let live = |f: &&mut Field| f.role == Role::StandIn && f.live;
        let before = self
            .fields
            .iter_mut()
            .filter(live)
            .filter(|f| f.column < k)
            .count();
        if before >= MAX_PANELS {
            return;
        }
        self.epoch += 1;
        let since = self.epoch;
        let capacity = head
            .columns
            .get(k)
            .and_then(|c| trend::capacity_field(&c.name))
            .and_then(|c| head.column(c));
        let count = self.fields.iter_mut().filter(live).count();
        let last = self.fields.iter_mut().filter(live).max_by_key(|f| f.column);
        match last {
            Some(f) if count >= MAX_PANELS => {
                // The last of MAX_PANELS is pushed out: its slot is this column's from now on.
                f.column = k;
                f.capacity = capacity;
                f.since = since;
            }
            _ => self.fields.push(Field {
                column: k,
                capacity,
                role: Role::StandIn,
                live: true,
                since,
            }),
        }
    }

    /// One row of the log.
    pub fn row(&mut self, head: &LogHead, t: f64, cells: &[LogCell]) {
        if head.columns.len() > self.known || self.keys.is_none() {
            self.grow(head);
        }
        let row = self.rows;
        self.rows += 1;
        self.t0 = self.t0.min(t);
        if let Some(last) = self.last_t {
            if t != last && t - last > 0.0 && self.interval.is_none() {
                self.gaps.push(t - last);
            }
        }
        self.last_t = Some(t);
        if let (Some(k), false) = self.derived {
            self.derived.1 =
                matches!(cells.get(k), Some(LogCell::Text(id)) if head.text(*id) == "Yes");
        }
        for (k, c) in cells.iter().enumerate() {
            if matches!(c, LogCell::Num(_)) && self.numeric.get(k) == Some(&false) {
                if let Some(seen) = self.numeric.get_mut(k) {
                    *seen = true;
                }
                self.first_number(head, k);
            }
        }
        let Some(cols) = self.keys.as_ref() else {
            return;
        };
        let gpu = (part(cells, cols.host), part(cells, cols.gpu));
        match self.first_gpu {
            None => self.first_gpu = Some(gpu),
            Some(g) => self.many_gpus |= g != gpu,
        }
        let first = [cols.index, cols.gpu, cols.pid, cols.name, cols.host].map(|k| {
            k.and_then(|k| cells.get(k))
                .cloned()
                .unwrap_or(LogCell::Missing)
        });
        let num = |k: Option<usize>| match k.and_then(|k| cells.get(k)) {
            Some(LogCell::Num(v)) => Some(*v),
            _ => None,
        };
        let pid = part(cells, cols.pid);
        if pid.0 != 0 {
            let values = self
                .fields
                .iter()
                .map(|f| match f.live {
                    true => (
                        num(Some(f.column)).unwrap_or(f64::NAN),
                        num(f.capacity).unwrap_or(f64::NAN),
                    ),
                    false => (f64::NAN, f64::NAN),
                })
                .collect();
            let p = ProcessRow {
                row,
                t,
                gpu,
                pid,
                name: part(cells, cols.name),
                first,
                epoch: self.epoch,
                values,
            };
            match self.interval(false) {
                Some(interval) => self.place(p, interval),
                None => self.processes.push(p),
            }
            return;
        }
        let id = match self.gpus.get(&gpu) {
            Some(&id) => id,
            None => {
                self.gpus.insert(gpu, self.series.len());
                self.series.push(gathered(row, first, 1));
                self.series.len() - 1
            }
        };
        let Some(g) = self.series.get_mut(id) else {
            return;
        };
        for (i, f) in self.fields.iter().enumerate().filter(|(_, f)| f.live) {
            let (v, c) = (num(Some(f.column)), num(f.capacity));
            if v.is_some() || c.is_some() {
                if let Some(s) = slot(g, i, f.since) {
                    s.add(t, v, c, &self.keep);
                }
            }
        }
    }

    /// The sampling interval: the median of the first [`GAPS`] gaps between timestamps (or of those the log
    /// has); once known, the processes' rows held until then are placed and the next are placed as they come.
    fn interval(&mut self, end: bool) -> Option<f64> {
        if self.interval.is_none() && (end || self.gaps.len() >= GAPS) {
            let mut gaps = std::mem::take(&mut self.gaps);
            gaps.sort_by(f64::total_cmp);
            let interval = gaps.get(gaps.len() / 2).copied().unwrap_or(1.0);
            self.interval = Some(interval);
            for p in std::mem::take(&mut self.processes) {
                self.place(p, interval);
            }
        }
        self.interval
    }

    /// A process's row in its series: a PID that comes back after more than three sampling intervals, or under
    /// another name, is a new process.
    fn place(&mut self, p: ProcessRow, interval: f64) {
        let key = (p.gpu, p.pid);
        let id = match self.seen.get(&key) {
            Some(&(id, last, name, g)) if p.t - last <= 3.0 * interval + 1e-9 && name == p.name => {
                self.seen.insert(key, (id, p.t, name, g));
                id
            }
            old => {
                let generation = old.map_or(1, |o| o.3 + 1);
                self.series.push(gathered(p.row, p.first, generation));
                let id = self.series.len() - 1;
                self.seen.insert(key, (id, p.t, p.name, generation));
                id
            }
        };
        let Some(g) = self.series.get_mut(id) else {
            return;
        };
        for (i, (f, &(v, c))) in self.fields.iter().zip(&p.values).enumerate() {
            if p.epoch < f.since || !f.live {
                continue;
            }
            let (v, c) = ((!v.is_nan()).then_some(v), (!c.is_nan()).then_some(c));
            if v.is_some() || c.is_some() {
                if let Some(s) = slot(g, i, f.since) {
                    s.add(p.t, v, c, &self.keep);
                }
            }
        }
    }

    /// The panels, once every row is read; an error says why nothing can be drawn.
    pub fn finish(mut self, head: &LogHead) -> Result<Drawing, String> {
        if self.rows == 0 {
            return Err("the log has no rows: there is nothing to draw".into());
        }
        let names = || -> String {
            let mut list: Vec<&str> = head.columns.iter().map(|c| c.name.as_str()).collect();
            cut_list(&mut list, 20)
        };
        if let Some(name) = self.spec.fields.iter().find(|f| head.column(f).is_none()) {
            return Err(format!(
                "the log has no column {}; it has: {}",
                quoted(name),
                names()
            ));
        }
        self.interval(true);
        let numeric = |k: usize| self.numeric.get(k) == Some(&true);
        // The fields drawn, in the order they are drawn: --field's, else the defaults, else the stand-ins.
        let mut drawn: Vec<usize> = (0..self.fields.len())
            .filter(|&i| {
                self.fields
                    .get(i)
                    .is_some_and(|f| f.live && numeric(f.column))
            })
            .collect();
        let order = |i: &usize| match self.fields.get(*i).map(|f| (f.role, f.column)) {
            Some((Role::Chosen(o) | Role::Default(o), _)) => (0, o),
            Some((Role::StandIn, c)) => (1, c),
            None => (2, 0),
        };
        drawn.sort_by_key(order);
        let mut notes = Vec::new();
        if !self.spec.fields.is_empty() {
            for f in self.spec.fields.iter().take(MAX_PANELS) {
                if !head.column(f).is_some_and(numeric) {
                    return Err(format!("the column {} holds no numbers to draw", quoted(f)));
                }
            }
            let rest = self.spec.fields.iter().skip(MAX_PANELS).map(String::as_str);
            notes.extend(not_drawn(rest.collect()));
        } else {
            if drawn
                .iter()
                .any(|&i| matches!(self.fields.get(i).map(|f| f.role), Some(Role::Default(_))))
            {
                drawn.retain(|&i| {
                    !matches!(self.fields.get(i).map(|f| f.role), Some(Role::StandIn))
                });
            }
            if drawn.is_empty() {
                return Err(
                    "the log has no numeric column to draw (only text, or no values at all)".into(),
                );
            }
            // Only stand-ins can be too many.
            if self.stand_ins_wanted && drawn.len() >= MAX_PANELS {
                let shown: Vec<usize> = drawn
                    .iter()
                    .filter_map(|&i| self.fields.get(i).map(|f| f.column))
                    .collect();
                let rest = head
                    .columns
                    .iter()
                    .enumerate()
                    .filter(|&(k, c)| {
                        numeric(k)
                            && !shown.contains(&k)
                            && self.role(&c.name) == Some(Role::StandIn)
                    })
                    .map(|(_, c)| c.name.as_str());
                notes.extend(not_drawn(rest.collect()));
            }
        }
        if self.derived.1 {
            notes.push(DERIVED_NOTE.to_string());
        }
        if head.beyond > 0 {
            notes.push(format!(
                "{} numbers beyond ±10^15 not drawn (nvq writes none so large)",
                head.beyond
            ));
        }
        let text = |c: &LogCell| -> Option<String> {
            match c {
                LogCell::Num(v) => Some(format!("{v}")),
                LogCell::Text(id) => Some(xml_chars(head.text(*id)).into_owned()),
                LogCell::Missing => None,
            }
        };
        let mut series = std::mem::take(&mut self.series);
        series.sort_by_key(|g| g.first_row);
        let mut panels = Vec::with_capacity(drawn.len());
        for i in drawn {
            let Some(f) = self.fields.get(i) else {
                continue;
            };
            let Some(col) = head.columns.get(f.column) else {
                continue;
            };
            // The series with points in this field, the MAX_LINES highest peaks drawn, in their order.
            let mut with: Vec<(usize, f64)> = series
                .iter()
                .enumerate()
                .filter_map(|(at, g)| {
                    let s = g.slots.get(i).filter(|s| s.epoch == f.since)?;
                    let peak = s
                        .points
                        .iter()
                        .map(|p| p.v)
                        .fold(f64::NEG_INFINITY, f64::max);
                    (!s.points.is_empty()).then_some((at, peak))
                })
                .collect();
            let total = with.len();
            if total > MAX_LINES {
                with.select_nth_unstable_by(MAX_LINES - 1, |a, b| {
                    b.1.total_cmp(&a.1).then(a.0.cmp(&b.0))
                });
                with.truncate(MAX_LINES);
                with.sort_by_key(|w| w.0);
            }
            let mut lines = Vec::with_capacity(with.len());
            for (at, _) in with {
                let Some(g) = series.get_mut(at) else {
                    continue;
                };
                let label = label(
                    &g.first,
                    g.generation,
                    self.many_gpus,
                    self.source.as_deref(),
                    &text,
                );
                let Some(s) = g.slots.get_mut(i) else {
                    continue;
                };
                let mut points = Series::with_cap(s.points.len());
                for p in std::mem::take(&mut s.points) {
                    points.push(p);
                }
                let capacity = s.capacity;
                let trend = trend::trend_with_line(&points, capacity, &self.spec.trend);
                lines.push(Line {
                    label,
                    series: points,
                    capacity,
                    trend,
                    ink: Ink::Series,
                });
            }
            panels.push(Panel {
                field: xml_chars(&col.name).into_owned(),
                unit: col.unit.as_deref().map(|u| xml_chars(u).into_owned()),
                scale: col.scale,
                lines,
                series: total,
                bands: Vec::new(),
            });
        }
        Ok(Drawing {
            panels,
            t0: self.t0,
            start: xml_chars(&head.start).into_owned(),
            notes,
            marks: Vec::new(),
        })
    }
}

/// A series' slot `i` for a field whose slot holds it since `since`: emptied first if it holds an older column's.
fn slot(g: &mut Gathered, i: usize, since: u32) -> Option<&mut Slot> {
    if g.slots.len() <= i {
        g.slots.resize_with(i + 1, Slot::default);
    }
    let s = g.slots.get_mut(i)?;
    if s.epoch != since {
        *s = Slot {
            epoch: since,
            ..Slot::default()
        };
    }
    Some(s)
}

impl Slot {
    pub(super) fn add(&mut self, t: f64, v: Option<f64>, capacity: Option<f64>, keep: &Keep) {
        if let Some(v) = v {
            self.points.push(Point { t, v });
            if self.points.len() >= self.next.max(16 * keep.columns) {
                self.thin_old(keep);
            }
        }
        if capacity.is_some() {
            self.capacity = capacity;
        }
    }

    /// The points older than the trend window (before the newest one's time less the window), in the order they
    /// came, thinned to their lowest and highest of each of `4 × columns` slices of their time; the newest of
    /// them is kept (the trend reads one point older than its window). Held again only once the series has
    /// doubled: a row costs the same whatever the log's length.
    fn thin_old(&mut self, keep: &Keep) {
        let Some(last) = self.points.last().copied() else {
            return;
        };
        let before = last.t - keep.window_s.max(0.0);
        let old = self.points.iter().take_while(|p| p.t < before).count();
        if old > 8 * keep.columns {
            let newest = self.points.get(old - 1).copied();
            let mut thinned = thin(self.points.get(..old).unwrap_or(&[]), 4 * keep.columns);
            if let Some(p) = newest {
                if thinned.last().map_or(true, |l| l.t != p.t || l.v != p.v) {
                    thinned.push(p);
                }
            }
            self.points.splice(..old, thinned);
        }
        self.next = 2 * self.points.len();
    }
}

/// The note naming the fields not drawn, if any.
fn not_drawn(mut rest: Vec<&str>) -> Option<String> {
    let n = rest.len();
    (n > 0).then(|| {
        format!(
            "{n} more fields not drawn (at most {MAX_PANELS}): {}",
            cut_list(&mut rest, 12)
        )
    })
}

/// The first `most` names, then how many more.
fn cut_list(names: &mut Vec<&str>, most: usize) -> String {
    let n = names.len();
    names.truncate(most);
    let mut s: String = names
        .iter()
        .map(|n| quoted(n))
        .collect::<Vec<_>>()
        .join(", ");
    if n > most {
        s.push_str(&format!(" and {} more", n - most));
    }
    s
}

fn gathered(first_row: usize, first: [LogCell; 5], generation: u32) -> Gathered {
    Gathered {
        first_row,
        first,
        generation,
        slots: Vec::new(),
    }
}

/// A series' label from its first row's index, GPU, PID, name and host cells: `GPU 0`, `node1 GPU 0`, or
/// `PID 4242 train (#2) on GPU 1`. The host is the row's, else `source` (the log's file, when several are drawn).
fn label(
    first: &[LogCell; 5],
    generation: u32,
    many_gpus: bool,
    source: Option<&str>,
    text: &dyn Fn(&LogCell) -> Option<String>,
) -> String {
    let [index, gpu, pid, name, host] = first;
    let mut gpu_label = match (text(index), text(gpu)) {
        (Some(i), _) => format!("GPU {i}"),
        (None, Some(g)) => format!("GPU {}", g.chars().take(12).collect::<String>()),
        (None, None) => "GPU".to_string(),
    };
    let host = text(host).or_else(|| source.map(str::to_string));
    let many_gpus = many_gpus || host.is_some();
    if let Some(h) = host {
        gpu_label = format!("{h} {gpu_label}");
    }
    let Some(p) = text(pid) else {
        return gpu_label;
    };
    let mut l = format!("PID {p}");
    if let Some(n) = text(name) {
        l.push_str(&format!(" {n}"));
    }
    if generation > 1 {
        l.push_str(&format!(" (#{generation})"));
    }
    if many_gpus {
        l.push_str(&format!(" on {gpu_label}"));
    }
    l
}

#[cfg(test)]
mod tests {
    use super::*;
    use nvq_core::model::log::{LogColumn, LogFormat};
    use nvq_core::model::trend::TrendConfig;
    use LogCell::{Num, Text};

    /// What a plot of `fields` draws of rows read from a log whose columns are `names` (an NDJSON log may add
    /// columns: a row's names are those known when it is read); each row a time and its cells.
    fn drawing(rows: &[(&[&str], f64, Vec<LogCell>)], fields: &[&str]) -> Result<Drawing, String> {
        let spec = PlotSpec {
            fields: fields.iter().map(|f| f.to_string()).collect(),
            trend: TrendConfig::default(),
            kind: super::super::PictureKind::Svg,
            width: 1200,
        };
        let mut c = Collector::new(&spec, None);
        let mut head = LogHead {
            format: LogFormat::Ndjson,
            columns: Vec::new(),
            start: String::new(),
            texts: vec!["x".into()],
            beyond: 0,
        };
        for (names, t, cells) in rows {
            head.columns = names
                .iter()
                .map(|n| LogColumn {
                    name: n.to_string(),
                    unit: None,
                    scale: 1.0,
                })
                .collect();
            c.row(&head, *t, cells);
        }
        c.finish(&head)
    }

    /// `timestamp`, `index`, then `names`.
    fn with_keys(names: &[String]) -> Vec<&str> {
        ["timestamp", "index"]
            .into_iter()
            .chain(names.iter().map(String::as_str))
            .collect()
    }

    fn points(d: &Drawing, field: &str) -> Vec<usize> {
        let p = d.panels.iter().find(|p| p.field == field).unwrap();
        p.lines.iter().map(|l| l.series.len()).collect()
    }

    /// The first MAX_PANELS numeric stand-ins in column order are drawn, whatever order they first hold a number
    /// in; the ones pushed out keep no points.
    #[test]
    fn the_first_stand_ins_in_column_order_are_drawn() {
        let names: Vec<String> = (0..10).map(|c| format!("c{c}")).collect();
        let all = with_keys(&names);
        // Row 1: c0 and c1 are text; row 2: every column a number.
        let row = |first: LogCell, v: f64| -> Vec<LogCell> {
            let mut cells = vec![Text(0), Num(0.0)];
            cells.extend((0..10).map(|c| if c < 2 { first.clone() } else { Num(v) }));
            cells
        };
        let rows = [
            (&all[..], 0.0, row(Text(0), 5.0)),
            (&all[..], 1.0, row(Num(6.0), 6.0)),
        ];
        let d = drawing(&rows, &[]).unwrap();
        let fields: Vec<&str> = d.panels.iter().map(|p| p.field.as_str()).collect();
        assert_eq!(fields, &names[..MAX_PANELS]);
        assert_eq!(points(&d, "c0"), [1]);
        assert_eq!(points(&d, "c2"), [2]);
        assert_eq!(d.notes.len(), 1);
        assert!(
            d.notes[0].starts_with("2 more fields not drawn"),
            "{:?}",
            d.notes
        );
    }

    /// An NDJSON log whose default field first comes in a later object: the stand-ins collected until then are
    /// dropped, the default field drawn from where it began.
    #[test]
    fn a_default_field_coming_later_replaces_the_stand_ins() {
        let three: &[&str] = &["timestamp", "index", "temperature.gpu"];
        let four: &[&str] = &["timestamp", "index", "temperature.gpu", "memory.used"];
        let rows = [
            (three, 0.0, vec![Text(0), Num(0.0), Num(40.0)]),
            (four, 1.0, vec![Text(0), Num(0.0), Num(41.0), Num(10.0)]),
            (four, 2.0, vec![Text(0), Num(0.0), Num(42.0), Num(11.0)]),
        ];
        let d = drawing(&rows, &[]).unwrap();
        let fields: Vec<&str> = d.panels.iter().map(|p| p.field.as_str()).collect();
        assert_eq!(fields, ["memory.used"]);
        assert_eq!(points(&d, "memory.used"), [2]);
    }

    /// A long series keeps every point of its trend window and, before it, about a pixel column's lowest and
    /// highest: memory follows the picture, not the log.
    #[test]
    fn a_long_series_keeps_what_the_picture_shows() {
        let cols: &[&str] = &["timestamp", "index", "memory.used"];
        let n = 200_000;
        let rows: Vec<(&[&str], f64, Vec<LogCell>)> = (0..n)
            .map(|i| {
                let v = if i == 54_321 { 1e9 } else { (i % 7) as f64 };
                (cols, i as f64, vec![Text(0), Num(0.0), Num(v)])
            })
            .collect();
        let d = drawing(&rows, &[]).unwrap();
        let s = &d.panels[0].lines[0].series;
        // 1200 pixels: 19,200 points at most before thinning, twice what is left after it.
        assert!(s.len() < 40_000, "{} points kept", s.len());
        assert!(s.points().any(|p| p.v == 1e9), "the spike is kept");
        assert!(s.points().all(|p| p.v >= 0.0 && p.v <= 1e9));
        // The last ten minutes whole, in order.
        let tail: Vec<f64> = s.points().rev().take(601).map(|p| p.t).collect();
        let want: Vec<f64> = (n - 601..n).rev().map(|i| i as f64).collect();
        assert_eq!(tail, want);
        assert!(s.points().zip(s.points().skip(1)).all(|(a, b)| a.t <= b.t));
    }

    /// `--field` beyond MAX_PANELS: the first are drawn, the rest named in a note; one the log lacks is refused
    /// with its name quoted.
    #[test]
    fn fields_beyond_the_cap_are_noted() {
        let names: Vec<String> = (0..10).map(|c| format!("c{c}")).collect();
        let all = with_keys(&names);
        let mut cells = vec![Text(0), Num(0.0)];
        cells.extend((0..10).map(|_| Num(1.0)));
        let rows = [(&all[..], 0.0, cells)];
        let asked: Vec<&str> = names.iter().rev().map(String::as_str).collect();
        let d = drawing(&rows, &asked).unwrap();
        let fields: Vec<&str> = d.panels.iter().map(|p| p.field.as_str()).collect();
        assert_eq!(fields, &asked[..MAX_PANELS]);
        assert!(d.notes[0].contains("\"c1\", \"c0\""), "{:?}", d.notes);
        let err = drawing(&rows, &["nope"]).err().unwrap();
        assert!(err.starts_with("the log has no column \"nope\""), "{err}");
    }
}
