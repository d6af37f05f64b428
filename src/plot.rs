//! `nvq plot`: a log nvq wrote, drawn as charts over time (SVG or PNG bytes; no I/O).
//!
//! One panel per field (memory used and utilization by default), one line per GPU or process, each named at its
//! end, so that no legend has to be looked up. On each line its peak is marked with its value; the memory panels
//! draw each GPU's total as a dashed line; a series that is rising steadily (`model::trend`) gets its trend line
//! drawn on to the right edge, with its rate and time to full written beside it.
//!
//! A series with more points than the picture has room for is thinned to each pixel column's lowest and highest
//! point (peaks and troughs stay); a log that fits is drawn point for point.

use crate::model::history::{Point, Series};
use crate::model::log::{LogCell, LogHead};
use crate::model::trend::{self, TrendConfig};
use plotters::coord::Shift;
use plotters::prelude::*;
use std::collections::BTreeMap;

/// What to draw, and how.
#[derive(Clone, Debug)]
pub struct PlotSpec {
    /// The fields to draw; empty: memory used and utilization (or every numeric field, if the log has neither).
    pub fields: Vec<String>,
    pub trend: TrendConfig,
    pub kind: PictureKind,
    /// The picture's width in pixels; each panel is `width / 3` high.
    pub width: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PictureKind {
    Svg,
    Png,
}

/// The font text is drawn with: TrueType bytes, kept for the run.
pub fn use_font(bytes: &'static [u8]) -> Result<(), String> {
    plotters::style::register_font("sans-serif", FontStyle::Normal, bytes)
        .map_err(|_| "the font file is not a TrueType font nvq can read".to_string())
}

/// One line of a panel.
#[derive(Clone, Debug)]
pub struct Line {
    pub label: String,
    /// Base units.
    pub series: Series,
    /// The capacity this series fills (memory.total), base units.
    pub capacity: Option<f64>,
    pub trend: Option<(trend::Trend, (Point, Point))>,
}

/// One panel: a field over time.
#[derive(Clone, Debug)]
pub struct Panel {
    pub field: String,
    pub unit: Option<String>,
    /// One display unit in base units.
    pub scale: f64,
    pub lines: Vec<Line>,
}

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

/// The panels of a read log, and its time origin and first timestamp, for the axis.
pub struct Drawing {
    pub panels: Vec<Panel>,
    pub t0: f64,
    pub start: String,
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

/// The picture: SVG text or PNG bytes.
pub fn render(drawing: &Drawing, spec: &PlotSpec) -> Result<Vec<u8>, String> {
    let (panels, t0, start) = (&drawing.panels, drawing.t0, &drawing.start);
    let w = spec.width.clamp(400, 8000);
    let panel_h = (w / 3).max(200);
    let h = panel_h * u32::try_from(panels.len()).unwrap_or(1).max(1);
    let what = |e: &dyn std::fmt::Display| format!("drawing failed: {e}");
    match spec.kind {
        PictureKind::Svg => {
            let mut svg = String::new();
            {
                let root = SVGBackend::with_string(&mut svg, (w, h)).into_drawing_area();
                draw(&root, panels, t0, start, w)?;
                root.present().map_err(|e| what(&e))?;
            }
            Ok(svg.into_bytes())
        }
        PictureKind::Png => {
            let mut buf = vec![0u8; w as usize * h as usize * 3];
            {
                let root = BitMapBackend::with_buffer(&mut buf, (w, h)).into_drawing_area();
                draw(&root, panels, t0, start, w)?;
                root.present().map_err(|e| what(&e))?;
            }
            let mut png = Vec::new();
            image::ImageEncoder::write_image(
                image::codecs::png::PngEncoder::new(&mut png),
                &buf,
                w,
                h,
                image::ColorType::Rgb8,
            )
            .map_err(|e| what(&e))?;
            Ok(png)
        }
    }
}

const COLOURS: &[RGBColor] = &[
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(127, 127, 127),
    RGBColor(188, 189, 34),
    RGBColor(23, 190, 207),
    RGBColor(57, 59, 121),
];
const LEAK: RGBColor = RGBColor(214, 39, 40);

/// A value with its unit, as the log writes it (`20480 MiB`, `87 %`).
fn with_unit(v: f64, unit: &Option<String>) -> String {
    let n = if (v - v.round()).abs() < 1e-9 {
        format!("{v:.0}")
    } else {
        format!("{v:.2}")
    };
    match unit {
        Some(u) => format!("{n} {u}"),
        None => n,
    }
}

/// A rate per minute in a readable unit: sizes in the largest binary unit that keeps it above 1.
fn rate_text(per_s: f64, panel: &Panel) -> String {
    let per_min = per_s * 60.0;
    if panel.scale > 1.0 && panel.unit.as_deref().is_some_and(|u| u.ends_with('B')) {
        let units = [
            ("B", 1.0),
            ("KiB", 1024.0),
            ("MiB", 1048576.0),
            ("GiB", 1073741824.0),
            ("TiB", 1099511627776.0),
        ];
        let (u, s) = units
            .iter()
            .rev()
            .find(|(_, s)| per_min.abs() >= *s)
            .copied()
            .unwrap_or(units[0]);
        return format!("{:+.2} {u}/min", per_min / s);
    }
    format!(
        "{:+.2}{}/min",
        per_min / panel.scale,
        panel
            .unit
            .as_deref()
            .map_or(String::new(), |u| format!(" {u}"))
    )
}

fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    panels: &[Panel],
    t0: f64,
    start: &str,
    width: u32,
) -> Result<(), String>
where
    DB::ErrorType: 'static,
{
    let err = |e: DrawingAreaErrorKind<DB::ErrorType>| format!("drawing failed: {e}");
    root.fill(&WHITE).map_err(err)?;
    let areas = root.split_evenly((panels.len().max(1), 1));
    let t_end = panels
        .iter()
        .flat_map(|p| p.lines.iter().filter_map(|l| l.series.last()))
        .map(|p| p.t)
        .fold(t0, f64::max);
    let span = (t_end - t0).max(1e-3);
    // Room on the right for the names at the ends of the lines (about 8 pixels a character) and the trend lines.
    let longest = panels
        .iter()
        .flat_map(|p| p.lines.iter())
        .map(|l| l.label.chars().count() + 22)
        .max()
        .unwrap_or(0);
    let plot_px = f64::from(width.saturating_sub(120)).max(100.0);
    let label_px = (longest as f64 * 7.5).min(plot_px * 0.45);
    let x_max = span * (1.0 + (label_px / (plot_px - label_px)).max(0.1));
    let (tdiv, tunit) = if span > 7200.0 {
        (3600.0, "h")
    } else if span > 120.0 {
        (60.0, "min")
    } else {
        (1.0, "s")
    };
    for (panel, area) in panels.iter().zip(areas.iter()) {
        let s = panel.scale;
        let peak = panel
            .lines
            .iter()
            .flat_map(|l| l.series.points())
            .map(|p| p.v / s)
            .fold(0.0, f64::max);
        let cap = panel
            .lines
            .iter()
            .filter_map(|l| l.capacity)
            .map(|c| c / s)
            .fold(0.0, f64::max);
        let y_max = (peak.max(cap) * 1.08).max(1e-9);
        let caption = match &panel.unit {
            Some(u) => format!("{} [{u}]", panel.field),
            None => panel.field.clone(),
        };
        let mut chart = ChartBuilder::on(area)
            .caption(caption, ("sans-serif", 20))
            .margin(12)
            .x_label_area_size(36)
            .y_label_area_size(80)
            .build_cartesian_2d(0.0..x_max, 0.0..y_max)
            .map_err(err)?;
        let x_desc = format!("time since {start} ({tunit})");
        chart
            .configure_mesh()
            .x_desc(x_desc)
            .x_label_formatter(&|x| format!("{:.1}", x / tdiv))
            .y_label_formatter(&|y| with_unit(*y, &None))
            .label_style(("sans-serif", 13))
            .draw()
            .map_err(err)?;
        // Where text already is, in the chart's units, so that the peaks' labels go elsewhere.
        let (x_per_px, y_per_px) = (
            x_max / (plot_px - 24.0).max(50.0),
            y_max / (f64::from(area.dim_in_pixel().1) - 100.0).max(50.0),
        );
        let mut taken = Taken::default();
        // The totals, once per distinct value.
        let mut totals: Vec<f64> = panel.lines.iter().filter_map(|l| l.capacity).collect();
        totals.sort_by(f64::total_cmp);
        totals.dedup();
        for c in totals {
            let y = c / s;
            let style = RGBColor(90, 90, 90).stroke_width(1);
            chart
                .draw_series(DashedLineSeries::new([(0.0, y), (x_max, y)], 6, 4, style))
                .map_err(err)?;
            let label = format!("total {}", with_unit(y, &panel.unit));
            taken.add(
                span * 0.01,
                y,
                text_width(&label, 13.0) * x_per_px,
                16.0 * y_per_px,
            );
            chart
                .draw_series(std::iter::once(Text::new(
                    label,
                    (span * 0.01, y),
                    ("sans-serif", 13).into_font(),
                )))
                .map_err(err)?;
        }
        // The names at the ends of the lines, pushed apart where lines end close together.
        let gap = y_max * 0.055;
        let mut ends: Vec<(usize, f64)> = panel
            .lines
            .iter()
            .enumerate()
            .filter_map(|(i, l)| Some((i, l.series.last()?.v / s)))
            .collect();
        ends.sort_by(|a, b| a.1.total_cmp(&b.1));
        let mut label_y = vec![0.0; panel.lines.len()];
        let mut floor = f64::NEG_INFINITY;
        for (i, y) in ends {
            let y = y.max(floor + gap);
            label_y[i] = y;
            floor = y;
        }
        // The names at the lines' ends, and the leaks' words, top left, one line each.
        for (i, line) in panel.lines.iter().enumerate() {
            if let Some(last) = line.series.last() {
                let w = text_width(&line.label, 14.0) + 120.0;
                taken.add(
                    last.t - t0 + span * 0.01,
                    label_y[i] + gap * 0.4,
                    w * x_per_px,
                    17.0 * y_per_px,
                );
            }
            if line.trend.is_some_and(|(tr, _)| tr.rising) {
                let at = (span * 0.02, y_max * (0.97 - 0.06 * i as f64));
                taken.add(at.0, at.1, 60.0 * 8.0 * x_per_px, 18.0 * y_per_px);
            }
        }
        // The peaks' labels, drawn over every line.
        let mut peaks = Vec::new();
        for (i, line) in panel.lines.iter().enumerate() {
            let colour = COLOURS[i % COLOURS.len()];
            let pts = thin(&line.series, width as usize);
            let xy = pts.iter().map(|p| (p.t - t0, p.v / s));
            chart
                .draw_series(LineSeries::new(xy, colour.stroke_width(2)))
                .map_err(err)?;
            // The peak: the first point at the highest value.
            let top = line.series.points().fold(None::<Point>, |m, p| match m {
                Some(m) if m.v >= p.v => Some(m),
                _ => Some(p),
            });
            let (Some(top), Some(last)) = (top, line.series.last()) else {
                continue;
            };
            let at = (top.t - t0, top.v / s);
            chart
                .draw_series(std::iter::once(Circle::new(at, 4, colour.filled())))
                .map_err(err)?;
            let peak = format!("peak {}", with_unit(top.v / s, &panel.unit));
            let mut name = line.label.clone();
            if top.v - last.v <= (top.v.abs() * 0.01).max(1e-12) {
                // Still at its peak: the end's name says it.
                name.push_str(&format!(" ({peak})"));
            } else {
                let font = ("sans-serif", 12).into_font().color(&colour);
                let (w, h) = (text_width(&peak, 12.0) * x_per_px, 16.0 * y_per_px);
                let spot = taken.place(at, w, h, y_max);
                peaks.push((peak, spot, w, h, font));
            }
            let font = ("sans-serif", 14).into_font().color(&colour);
            let at = (last.t - t0 + span * 0.01, label_y[i] + gap * 0.4);
            chart
                .draw_series(std::iter::once(Text::new(name, at, font)))
                .map_err(err)?;
            if let Some((tr, (a, b))) = &line.trend {
                if !tr.rising {
                    continue;
                }
                // The fitted line, carried on to the right edge (or to where it meets the total).
                let mut end_t = t0 + x_max;
                if let (Some(c), true) = (line.capacity, tr.slope_per_s > 0.0) {
                    end_t = end_t.min(b.t + (c - b.v) / tr.slope_per_s);
                }
                let end = (end_t - t0, (b.v + tr.slope_per_s * (end_t - b.t)) / s);
                let pts = [(a.t - t0, a.v / s), (b.t - t0, b.v / s), end];
                chart
                    .draw_series(DashedLineSeries::new(pts, 8, 4, LEAK.stroke_width(3)))
                    .map_err(err)?;
                let mut label =
                    format!("{}: leak {}", line.label, rate_text(tr.slope_per_s, panel));
                if let Some(f) = tr.time_to_full_s {
                    label.push_str(&format!(", full in {}", trend::format_duration(f)));
                }
                let font = ("sans-serif", 15).into_font().color(&LEAK);
                let at = (span * 0.02, y_max * (0.97 - 0.06 * i as f64));
                chart
                    .draw_series(std::iter::once(Text::new(label, at, font)))
                    .map_err(err)?;
            }
        }
        for (peak, spot, w, h, font) in peaks {
            // On a light ground, so that it reads over the lines.
            let ground = Rectangle::new([spot, (spot.0 + w, spot.1 - h)], WHITE.mix(0.85).filled());
            chart.draw_series(std::iter::once(ground)).map_err(err)?;
            chart
                .draw_series(std::iter::once(Text::new(peak, spot, font)))
                .map_err(err)?;
        }
    }
    Ok(())
}

/// About how wide a text is at a font size, in pixels (DejaVu Sans averages under 0.6 of the size a character).
fn text_width(s: &str, size: f64) -> f64 {
    s.chars().count() as f64 * size * 0.62
}

/// The boxes text takes on a chart, in its units: (left, right, bottom, top). Text is drawn from its top left.
#[derive(Default)]
struct Taken(Vec<(f64, f64, f64, f64)>);

impl Taken {
    fn add(&mut self, x: f64, y: f64, w: f64, h: f64) {
        self.0.push((x, x + w, y - h, y));
    }

    fn free(&self, x: f64, y: f64, w: f64, h: f64) -> bool {
        self.0
            .iter()
            .all(|&(l, r, b, t)| x + w <= l || x >= r || y <= b || y - h >= t)
    }

    /// Where a label of `w` by `h` for the point `at` goes: just above it if that is free, else the nearest
    /// free place above or below it (steps of one line, then a little to the right), inside the chart; taken.
    fn place(&mut self, at: (f64, f64), w: f64, h: f64, y_max: f64) -> (f64, f64) {
        let (x, y0) = (at.0, at.1 + h * 1.2);
        let fits = |y: f64| y <= y_max && y - h >= 0.0;
        let mut spot = (x, y0.min(y_max));
        // Side by side first (peaks of one height in a row), then a line further up or down.
        'search: for step in 0..40 {
            for shift in 0..6 {
                let x = x + shift as f64 * w * 1.05;
                for y in [y0 + step as f64 * h, at.1 - h * 0.2 - step as f64 * h] {
                    if fits(y) && self.free(x, y, w, h) {
                        spot = (x, y);
                        break 'search;
                    }
                }
            }
        }
        self.add(spot.0, spot.1, w, h);
        spot
    }
}

/// At most about `width` pixel columns' worth of points: each column's lowest and highest, in time order. A series
/// that fits is returned whole.
fn thin(series: &Series, width: usize) -> Vec<Point> {
    let n = series.len();
    let columns = width.max(10);
    if n <= 2 * columns {
        return series.points().collect();
    }
    let (Some(first), Some(last)) = (series.first(), series.last()) else {
        return Vec::new();
    };
    let span = (last.t - first.t).max(1e-9);
    let mut out = Vec::with_capacity(2 * columns + 2);
    let mut bucket: Option<(usize, Point, Point)> = None;
    for p in series.points() {
        let b = (((p.t - first.t) / span) * columns as f64) as usize;
        match &mut bucket {
            Some((k, lo, hi)) if *k == b => {
                if p.v < lo.v {
                    *lo = p;
                }
                if p.v > hi.v {
                    *hi = p;
                }
            }
            _ => {
                if let Some((_, lo, hi)) = bucket.take() {
                    push_pair(&mut out, lo, hi);
                }
                bucket = Some((b, p, p));
            }
        }
    }
    if let Some((_, lo, hi)) = bucket {
        push_pair(&mut out, lo, hi);
    }
    out
}

fn push_pair(out: &mut Vec<Point>, a: Point, b: Point) {
    let (x, y) = if a.t <= b.t { (a, b) } else { (b, a) };
    out.push(x);
    if y.t != x.t || y.v != x.v {
        out.push(y);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thinning_keeps_every_columns_extremes() {
        let mut s = Series::with_cap(100_000);
        for i in 0..100_000 {
            let v = if i == 54_321 { 1e9 } else { (i % 7) as f64 };
            s.push(Point { t: i as f64, v });
        }
        let t = thin(&s, 1000);
        assert!(t.len() <= 2002, "{}", t.len());
        assert!(t.iter().any(|p| p.v == 1e9));
        assert!(t.windows(2).all(|w| w[0].t <= w[1].t));
        let small = thin(&s, 100_000);
        assert_eq!(small.len(), 100_000);
    }

    #[test]
    fn peak_labels_at_one_place_do_not_overlap_and_stay_inside() {
        // Eight lines peaking at the same moment at the top of the panel, beside a total's label.
        let mut taken = Taken::default();
        taken.add(0.0, 95.0, 30.0, 4.0);
        let boxes: Vec<(f64, f64)> = (0..8)
            .map(|_| taken.place((1.0, 89.0), 20.0, 5.0, 96.0))
            .collect();
        for (i, a) in boxes.iter().enumerate() {
            assert!(a.1 <= 96.0 && a.1 - 5.0 >= 0.0, "{a:?}");
            for b in &boxes[i + 1..] {
                let apart =
                    a.0 + 20.0 <= b.0 || b.0 + 20.0 <= a.0 || a.1 - 5.0 >= b.1 || b.1 - 5.0 >= a.1;
                assert!(apart, "{a:?} and {b:?} overlap");
            }
            assert!(
                a.0 >= 30.0 || a.1 <= 91.0 || a.1 - 5.0 >= 95.0,
                "{a:?} is on the total's label"
            );
        }
    }

    #[test]
    fn rates_read_in_a_size_unit() {
        let cases = [
            (
                "memory.used",
                "MiB",
                1048576.0,
                1073741824.0,
                "+1.00 GiB/min",
            ),
            ("utilization.gpu", "%", 0.01, 0.01, "+1.00 %/min"),
        ];
        for (field, unit, scale, per_minute, want) in cases {
            let p = Panel {
                field: field.into(),
                unit: Some(unit.into()),
                scale,
                lines: vec![],
            };
            assert_eq!(rate_text(per_minute / 60.0, &p), want, "{field}");
        }
    }
}
