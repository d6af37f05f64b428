//! The panels of a log as its rows stream by: each series' points of the columns it may draw, the processes
//! placed once the sampling interval is known.

use super::panel::{Drawing, Line, Panel, PlotSpec};
use crate::model::history::{Point, Series};
use crate::model::log::{LogCell, LogHead};
use crate::model::trend;
use std::collections::BTreeMap;

/// The columns that name a row's series, in the order they are tried.
const GPU_KEYS: &[&str] = &[
    "uuid",
    "gpu_uuid",
    "index",
    "pci.bus_id",
    "gpu_bus_id",
    "gpu_serial",
    "gpu_name",
];
/// Columns that are never drawn by default.
const NOT_DRAWN: &[&str] = &["index", "pid", "count", "gpu_index", "minor_number"];
/// The default fields: memory, then utilization.
const DEFAULTS: &[&str] = &[
    "memory.used",
    "used_gpu_memory",
    "used_memory",
    "utilization.gpu",
    "utilization.memory",
];

/// A cell as a key part, cheap to compare: a number's bits, a text's number, or nothing.
type Part = (u8, u64);

fn part(cells: &[LogCell], k: Option<usize>) -> Part {
    match k.and_then(|k| cells.get(k)) {
        Some(LogCell::Num(v)) => (1, v.to_bits()),
        Some(LogCell::Text(id)) => (2, u64::from(*id)),
        _ => (0, 0),
    }
}

/// The columns that tell series apart.
struct KeyColumns {
    gpu: Option<usize>,
    index: Option<usize>,
    pid: Option<usize>,
    name: Option<usize>,
}

impl KeyColumns {
    fn of(head: &LogHead) -> Self {
        let pid = head.column("pid");
        KeyColumns {
            gpu: GPU_KEYS.iter().find_map(|c| head.column(c)),
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
        DEFAULTS.iter().copied().filter(|d| has(d)).collect()
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
    ];
    names
        .iter()
        .map(|n| {
            let n = n.as_str();
            fields.contains(&n)
                || fields.iter().any(|f| trend::capacity_field(f) == Some(n))
                || GPU_KEYS.contains(&n)
                || keys.contains(&n)
        })
        .collect()
}

/// One series as it is read: its first row (for its label and its place), its points per collected column,
/// and the capacity each fills (the last one read).
struct Gathered {
    first_row: usize,
    /// The first row's index, GPU, PID and command name cells.
    first: [LogCell; 4],
    generation: u32,
    points: Vec<Series>,
    capacity: Vec<Option<f64>>,
}

/// A process's row, kept until the end: which process a PID is depends on the log's sampling interval
/// (a PID gone for more than three samples and back is a new process).
struct ProcessRow {
    row: usize,
    t: f64,
    gpu: Part,
    pid: Part,
    name: Part,
    first: [LogCell; 4],
    /// Per collected column: its number (NaN: none), then its capacity's.
    values: Vec<f64>,
}

/// What a plot collects as the log's rows stream by (see [`source::log::read`]): each series' points of the
/// columns it may draw, as numbers; the rest of a row is forgotten once read. Then [`Self::finish`] makes the
/// panels.
///
/// The series of a GPU are built as the rows come; a process's rows wait for the end of the log.
pub struct Collector<'s> {
    spec: &'s PlotSpec,
    setup: Option<Setup>,
    series: Vec<Gathered>,
    /// The GPU series seen, by key part (a few: a list).
    gpus: Vec<(Part, usize)>,
    processes: Vec<ProcessRow>,
    rows: usize,
    t0: f64,
    /// The gaps between distinct timestamps, for the sampling interval.
    gaps: Vec<f64>,
    last_t: Option<f64>,
    first_gpu: Option<Part>,
    many_gpus: bool,
    /// Which columns have held a number.
    numeric: Vec<bool>,
}

/// What the log's columns say, once its head is known.
struct Setup {
    cols: KeyColumns,
    /// The columns whose points are collected: those the plot draws, and while none of the default ones has
    /// held a number, the others it would draw instead.
    collected: Vec<usize>,
    /// Per collected column: its capacity's column.
    caps: Vec<Option<usize>>,
    /// Per collected column: is it a stand-in (drawn only if no default column holds a number)?
    stand_in: Vec<bool>,
    /// Whether stand-ins are still collected.
    stand_ins_wanted: bool,
    /// A `--field` the log lacks, said at the end (after the log proved readable).
    missing: Option<String>,
}

impl<'s> Collector<'s> {
    pub fn new(spec: &'s PlotSpec) -> Self {
        Collector {
            spec,
            setup: None,
            series: Vec::new(),
            gpus: Vec::new(),
            processes: Vec::new(),
            rows: 0,
            t0: f64::INFINITY,
            gaps: Vec::new(),
            last_t: None,
            first_gpu: None,
            many_gpus: false,
            numeric: Vec::new(),
        }
    }

    fn setup(&self, head: &LogHead) -> Setup {
        let spec = self.spec;
        let mut missing = None;
        let (collected, stand_in): (Vec<usize>, Vec<bool>) = if !spec.fields.is_empty() {
            let mut f = Vec::new();
            for name in &spec.fields {
                match head.column(name) {
                    Some(k) => f.push(k),
                    None if missing.is_none() => {
                        let names: Vec<&str> =
                            head.columns.iter().map(|c| c.name.as_str()).collect();
                        missing = Some(format!(
                            "the log has no column \"{name}\"; it has: {}",
                            names.join(", ")
                        ));
                    }
                    None => {}
                }
            }
            let n = f.len();
            (f, vec![false; n])
        } else {
            let mut f: Vec<usize> = DEFAULTS.iter().filter_map(|d| head.column(d)).collect();
            f.dedup();
            let n = f.len();
            let mut stand_in = vec![false; n];
            for (k, c) in head.columns.iter().enumerate() {
                let name = c.name.as_str();
                if !f.contains(&k) && !NOT_DRAWN.contains(&name) && !GPU_KEYS.contains(&name) {
                    f.push(k);
                    stand_in.push(true);
                }
            }
            (f, stand_in)
        };
        let caps = collected
            .iter()
            .map(|&k| {
                let name = head.columns.get(k).map_or("", |c| c.name.as_str());
                trend::capacity_field(name).and_then(|c| head.column(c))
            })
            .collect();
        Setup {
            cols: KeyColumns::of(head),
            stand_ins_wanted: stand_in.contains(&true),
            collected,
            caps,
            stand_in,
            missing,
        }
    }

    /// One row of the log.
    pub fn row(&mut self, head: &LogHead, t: f64, cells: &[LogCell]) {
        if self.setup.is_none() {
            self.setup = Some(self.setup(head));
            self.numeric = vec![false; head.columns.len()];
        }
        let Some(setup) = self.setup.as_mut() else {
            return;
        };
        let row = self.rows;
        self.rows += 1;
        self.t0 = self.t0.min(t);
        if let Some(last) = self.last_t {
            if t != last && t - last > 0.0 {
                self.gaps.push(t - last);
            }
        }
        self.last_t = Some(t);
        for (seen, c) in self.numeric.iter_mut().zip(cells) {
            *seen |= matches!(c, LogCell::Num(_));
        }
        // Once a default column holds a number, the stand-ins are not needed: forgotten.
        if setup.stand_ins_wanted
            && setup
                .collected
                .iter()
                .zip(&setup.stand_in)
                .any(|(&k, &s)| !s && self.numeric.get(k) == Some(&true))
        {
            setup.stand_ins_wanted = false;
            for g in &mut self.series {
                for ((s, c), &stand_in) in g
                    .points
                    .iter_mut()
                    .zip(&mut g.capacity)
                    .zip(&setup.stand_in)
                {
                    if stand_in {
                        *s = Series::with_cap(1);
                        *c = None;
                    }
                }
            }
        }
        let cols = &setup.cols;
        let gpu = part(cells, cols.gpu);
        match self.first_gpu {
            None => self.first_gpu = Some(gpu),
            Some(g) => self.many_gpus |= g != gpu,
        }
        let first = [cols.index, cols.gpu, cols.pid, cols.name].map(|k| {
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
            let mut values = Vec::with_capacity(2 * setup.collected.len());
            let wanted = setup.stand_ins_wanted;
            values.extend(
                setup
                    .collected
                    .iter()
                    .zip(&setup.stand_in)
                    .map(|(&k, &stand_in)| match stand_in && !wanted {
                        true => f64::NAN,
                        false => num(Some(k)).unwrap_or(f64::NAN),
                    }),
            );
            values.extend(setup.caps.iter().map(|&c| num(c).unwrap_or(f64::NAN)));
            self.processes.push(ProcessRow {
                row,
                t,
                gpu,
                pid,
                name: part(cells, cols.name),
                first,
                values,
            });
            return;
        }
        let id = match self.gpus.iter().find(|(p, _)| *p == gpu) {
            Some(&(_, id)) => id,
            None => {
                self.gpus.push((gpu, self.series.len()));
                self.series
                    .push(gathered(row, first, 1, setup.collected.len()));
                self.series.len() - 1
            }
        };
        let Some(g) = self.series.get_mut(id) else {
            return;
        };
        let wanted = setup.stand_ins_wanted;
        for (i, (&k, &cap)) in setup.collected.iter().zip(&setup.caps).enumerate() {
            if setup.stand_in.get(i) == Some(&true) && !wanted {
                continue;
            }
            if let (Some(v), Some(s)) = (num(Some(k)), g.points.get_mut(i)) {
                s.push(Point { t, v });
            }
            if let (Some(c), Some(slot)) = (num(cap), g.capacity.get_mut(i)) {
                *slot = Some(c);
            }
        }
    }

    /// The processes' series: a PID that comes back after more than three sampling intervals, or under another
    /// name, is a new process.
    fn place_processes(&mut self, setup: &Setup) {
        let mut gaps = std::mem::take(&mut self.gaps);
        gaps.sort_by(f64::total_cmp);
        let interval = gaps.get(gaps.len() / 2).copied().unwrap_or(1.0);
        let n = setup.collected.len();
        // (GPU, PID) -> (series, last seen, name, generation)
        let mut seen: BTreeMap<(Part, Part), (usize, f64, Part, u32)> = BTreeMap::new();
        for p in std::mem::take(&mut self.processes) {
            let key = (p.gpu, p.pid);
            let id = match seen.get(&key) {
                Some(&(id, last, name, g))
                    if p.t - last <= 3.0 * interval + 1e-9 && name == p.name =>
                {
                    seen.insert(key, (id, p.t, name, g));
                    id
                }
                old => {
                    let generation = old.map_or(1, |o| o.3 + 1);
                    self.series.push(gathered(p.row, p.first, generation, n));
                    let id = self.series.len() - 1;
                    seen.insert(key, (id, p.t, p.name, generation));
                    id
                }
            };
            let Some(g) = self.series.get_mut(id) else {
                continue;
            };
            for i in 0..n {
                let (v, c) = (p.values.get(i), p.values.get(n + i));
                if let (Some(&v), Some(s)) = (v, g.points.get_mut(i)) {
                    if !v.is_nan() {
                        s.push(Point { t: p.t, v });
                    }
                }
                if let (Some(&c), Some(slot)) = (c, g.capacity.get_mut(i)) {
                    if !c.is_nan() {
                        *slot = Some(c);
                    }
                }
            }
        }
    }

    /// The panels, once every row is read; an error says why nothing can be drawn.
    pub fn finish(mut self, head: &LogHead) -> Result<Drawing, String> {
        let Some(setup) = self.setup.take() else {
            return Err("the log has no rows: there is nothing to draw".into());
        };
        if let Some(m) = setup.missing {
            return Err(m);
        }
        self.place_processes(&setup);
        let numeric = |k: usize| self.numeric.get(k) == Some(&true);
        // Which collected columns are drawn, in the order they are drawn.
        let drawn: Vec<usize> = if !self.spec.fields.is_empty() {
            for &k in &setup.collected {
                if !numeric(k) {
                    let name = head.columns.get(k).map_or("", |c| c.name.as_str());
                    return Err(format!("the column \"{name}\" holds no numbers to draw"));
                }
            }
            (0..setup.collected.len()).collect()
        } else {
            let pick = |stand_in: bool| -> Vec<usize> {
                let mut at: Vec<usize> = (0..setup.collected.len())
                    .filter(|&i| setup.stand_in.get(i) == Some(&stand_in))
                    .filter(|&i| setup.collected.get(i).is_some_and(|&k| numeric(k)))
                    .collect();
                // The stand-ins in column order, as the log has them.
                if stand_in {
                    at.sort_by_key(|&i| setup.collected.get(i).copied());
                }
                at
            };
            let defaults = pick(false);
            let drawn = if defaults.is_empty() {
                pick(true)
            } else {
                defaults
            };
            if drawn.is_empty() {
                return Err(
                    "the log has no numeric column to draw (only text, or no values at all)".into(),
                );
            }
            drawn
        };
        let text = |c: &LogCell| -> Option<String> {
            match c {
                LogCell::Num(v) => Some(format!("{v}")),
                LogCell::Text(id) => Some(head.text(*id).to_string()),
                LogCell::Missing => None,
            }
        };
        let mut series = std::mem::take(&mut self.series);
        series.sort_by_key(|g| g.first_row);
        let labels: Vec<String> = series
            .iter()
            .map(|g| label(&g.first, g.generation, self.many_gpus, &text))
            .collect();
        let mut panels = Vec::with_capacity(drawn.len());
        for i in drawn {
            let Some(col) = setup.collected.get(i).and_then(|&k| head.columns.get(k)) else {
                continue;
            };
            let mut lines = Vec::new();
            for (g, label) in series.iter_mut().zip(&labels) {
                let Some(s) = g.points.get_mut(i) else {
                    continue;
                };
                if s.is_empty() {
                    continue;
                }
                let series = std::mem::replace(s, Series::with_cap(1));
                let capacity = g.capacity.get(i).copied().flatten();
                let trend = trend::trend_with_line(&series, capacity, &self.spec.trend);
                lines.push(Line {
                    label: label.clone(),
                    series,
                    capacity,
                    trend,
                });
            }
            panels.push(Panel {
                field: col.name.clone(),
                unit: col.unit.clone(),
                scale: col.scale,
                lines,
            });
        }
        Ok(Drawing {
            panels,
            t0: self.t0,
            start: head.start.clone(),
        })
    }
}

fn gathered(first_row: usize, first: [LogCell; 4], generation: u32, columns: usize) -> Gathered {
    Gathered {
        first_row,
        first,
        generation,
        points: (0..columns).map(|_| Series::with_cap(usize::MAX)).collect(),
        capacity: vec![None; columns],
    }
}

/// A series' label from its first row's index, GPU, PID and name cells: `GPU 0`, or
/// `PID 4242 train (#2) on GPU 1`.
fn label(
    first: &[LogCell; 4],
    generation: u32,
    many_gpus: bool,
    text: &dyn Fn(&LogCell) -> Option<String>,
) -> String {
    let [index, gpu, pid, name] = first;
    let gpu_label = match (text(index), text(gpu)) {
        (Some(i), _) => format!("GPU {i}"),
        (None, Some(g)) => format!("GPU {}", g.chars().take(12).collect::<String>()),
        (None, None) => "GPU".to_string(),
    };
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
