//! A log `nvq run --log` wrote, drawn as a run: a panel per GPU the job held memory on, with the job's processes
//! stacked (a band each, bottom first in the order they first held memory there; after [`MAX_BANDS`]` - 1` the
//! later ones share the top band), the job's sum over them with its peak marked, the other processes apart (their
//! sum, dashed grey), the GPU's used memory and its total; the job's start and end marked on every panel.
//!
//! The stack is summed as the rows stream by (a sample's rows share its time), so that each band sits exactly on
//! the one below it whatever the log's length; each band's top is then kept as the other series are (every point
//! of a picture's width, each pixel column's lowest and highest beyond).

use super::collect::{part, Keep, Part, Slot};
use super::panel::{Band, Drawing, Ink, Line, Mark, Panel, PlotSpec};
use super::MAX_PANELS;
use nvq_core::model::history::{Point, Series};
use nvq_core::model::log::{LogCell, LogHead};
use nvq_core::model::Fact;
use nvq_core::render::report_xml::xml_chars;
use std::collections::{HashMap, HashSet};

/// The most bands a GPU's stack has: the job's first processes there each get one, the later ones share the last.
pub const MAX_BANDS: usize = 10;

/// The most characters of a text of the log a label holds (the picture cuts it further to fit).
const LABEL_CHARS: usize = 200;

/// The other processes named in the label of their line.
const OTHERS_NAMED: usize = 3;

/// Is this the log of `nvq run --log`? Its rows say whether each process is the job's, or it has a run's start.
pub fn is_run_log(head: &LogHead) -> bool {
    head.column("job").is_some() || head.column("event").is_some()
}

/// Where a run log's keys are (an NDJSON log adds them as they first come).
#[derive(Default)]
struct Columns {
    host: Option<usize>,
    gpu: Option<usize>,
    pid: Option<usize>,
    job: Option<usize>,
    bytes: Option<usize>,
    used: Option<usize>,
    total: Option<usize>,
    event: Option<usize>,
    command: Option<usize>,
    exit: Option<usize>,
    rank: Option<usize>,
    name: Option<usize>,
    user: Option<usize>,
}

impl Columns {
    fn of(head: &LogHead) -> Self {
        let c = |n: &str| head.column(n);
        Columns {
            host: c("host"),
            gpu: c("gpu_index").or_else(|| c("index")),
            pid: c("pid"),
            job: c("job"),
            bytes: c("used_memory").or_else(|| c("used_gpu_memory")),
            used: c(Fact::MemoryUsed.name()),
            total: c(Fact::MemoryTotal.name()),
            event: c("event"),
            command: c("command"),
            exit: c("exit"),
            rank: c("rank"),
            name: c("process_name").or_else(|| c("name")),
            user: c("user"),
        }
    }
}

/// One sample of one GPU, as its rows come.
struct Sample {
    t: f64,
    /// The job's bytes in each band.
    bands: Vec<f64>,
    others: f64,
    used: Option<f64>,
    total: Option<f64>,
}

/// What is gathered of one GPU.
struct Gpu {
    /// Its host and index as the label names them.
    name: String,
    first_row: usize,
    /// The processes with a band of their own, in the order they came: their PID and label.
    procs: Vec<(Part, String)>,
    /// The processes that share the last band, and the first one's label.
    shared: HashSet<Part>,
    shared_first: String,
    /// Each band's top, and its label's place.
    tops: Vec<Slot>,
    label_at: Vec<Point>,
    job: Slot,
    used: Slot,
    others: Slot,
    /// The other processes seen, and the first few's labels.
    other_pids: HashSet<Part>,
    other_names: Vec<String>,
    peak: f64,
    sample: Option<Sample>,
}

impl Gpu {
    fn new(name: String, first_row: usize) -> Self {
        Gpu {
            name,
            first_row,
            procs: Vec::new(),
            shared: HashSet::new(),
            shared_first: String::new(),
            tops: Vec::new(),
            label_at: Vec::new(),
            job: Slot::default(),
            used: Slot::default(),
            others: Slot::default(),
            other_pids: HashSet::new(),
            other_names: Vec::new(),
            peak: 0.0,
            sample: None,
        }
    }

    /// The band of a job's process: its own while there is room, else the shared last one.
    fn band(&mut self, pid: Part, label: impl FnOnce() -> String) -> usize {
        if let Some(k) = self.procs.iter().position(|(p, _)| *p == pid) {
            return k;
        }
        if self.procs.len() < MAX_BANDS - 1 {
            self.procs.push((pid, label()));
            return self.procs.len() - 1;
        }
        if self.shared.is_empty() {
            self.shared_first = label();
        }
        self.shared.insert(pid);
        MAX_BANDS - 1
    }

    /// The sample under way, summed: each band's top, the job, the others, the GPU's used memory.
    fn flush(&mut self, keep: &Keep) {
        let Some(s) = self.sample.take() else {
            return;
        };
        let bands = s.bands.len().max(self.tops.len());
        if self.tops.len() < bands {
            self.tops.resize_with(bands, Slot::default);
            self.label_at.resize(bands, Point { t: s.t, v: 0.0 });
        }
        let mut sum = 0.0;
        for (k, top) in self.tops.iter_mut().enumerate() {
            let v = s.bands.get(k).copied().unwrap_or(0.0);
            sum += v;
            // A band not begun yet (the shared one before any process shares it) is not drawn from zero.
            if v > 0.0 || !top.points.is_empty() {
                top.add(s.t, Some(sum), None, keep);
            }
            if v > 0.0 {
                if let Some(at) = self.label_at.get_mut(k) {
                    *at = Point {
                        t: s.t,
                        v: sum - v / 2.0,
                    };
                }
            }
        }
        self.peak = self.peak.max(sum);
        self.job.add(s.t, Some(sum), s.total, keep);
        self.others.add(s.t, Some(s.others), s.total, keep);
        self.used.add(s.t, s.used, s.total, keep);
    }
}

/// What a plot of a run log collects as its rows stream by; then [`Self::finish`] makes the panels.
pub struct RunCollector {
    /// The name of the log's host where its rows name none (another log's file name, when several are drawn).
    source: Option<String>,
    known: usize,
    cols: Columns,
    gpus: Vec<Gpu>,
    by_key: HashMap<(Part, Part), usize>,
    rows: usize,
    t0: f64,
    keep: Keep,
    /// The run's start (its time and command) and end (its time and status), as the log says them.
    start: Option<(f64, String)>,
    end: Option<(f64, String)>,
}

impl RunCollector {
    /// A collector for `spec`; `source` names the log's host where its rows name none (its file, when several
    /// logs are drawn on one time axis).
    pub fn new(spec: &PlotSpec, source: Option<String>) -> Self {
        RunCollector {
            source,
            known: 0,
            cols: Columns::default(),
            gpus: Vec::new(),
            by_key: HashMap::new(),
            rows: 0,
            t0: f64::INFINITY,
            keep: Keep::of(spec),
            start: None,
            end: None,
        }
    }

    /// One row of the log.
    pub fn row(&mut self, head: &LogHead, t: f64, cells: &[LogCell]) {
        if head.columns.len() != self.known {
            self.known = head.columns.len();
            self.cols = Columns::of(head);
        }
        let row = self.rows;
        self.rows += 1;
        self.t0 = self.t0.min(t);
        let text = |k: Option<usize>| -> Option<String> {
            match k.and_then(|k| cells.get(k))? {
                LogCell::Num(v) => Some(format!("{v}")),
                LogCell::Text(id) => Some(label_text(head.text(*id))),
                LogCell::Missing => None,
            }
        };
        let num = |k: Option<usize>| match k.and_then(|k| cells.get(k)) {
            Some(LogCell::Num(v)) => Some(*v),
            _ => None,
        };
        match text(self.cols.event).as_deref() {
            Some("start") => {
                self.start = Some((t, text(self.cols.command).unwrap_or_default()));
                return;
            }
            Some("end") => {
                let exit = text(self.cols.exit).unwrap_or_else(|| "?".into());
                self.end = Some((t, exit));
                return;
            }
            Some(_) => return,
            None => {}
        }
        let key = (part(cells, self.cols.host), part(cells, self.cols.gpu));
        if key.1 .0 == 0 {
            // No GPU: not a sample.
            return;
        }
        let at = match self.by_key.get(&key) {
            Some(&at) => at,
            None => {
                let host = text(self.cols.host).or_else(|| self.source.clone());
                let gpu = text(self.cols.gpu).unwrap_or_default();
                let name = match host {
                    Some(h) => format!("{h} GPU {gpu}"),
                    None => format!("GPU {gpu}"),
                };
                self.gpus.push(Gpu::new(name, row));
                self.by_key.insert(key, self.gpus.len() - 1);
                self.gpus.len() - 1
            }
        };
        let Some(g) = self.gpus.get_mut(at) else {
            return;
        };
        if g.sample.as_ref().is_some_and(|s| s.t != t) {
            g.flush(&self.keep);
        }
        let s = g.sample.get_or_insert(Sample {
            t,
            bands: Vec::new(),
            others: 0.0,
            used: None,
            total: None,
        });
        s.used = num(self.cols.used).or(s.used);
        s.total = num(self.cols.total).or(s.total);
        let pid = part(cells, self.cols.pid);
        if pid.0 == 0 {
            return;
        }
        let bytes = num(self.cols.bytes).unwrap_or(0.0).max(0.0);
        let label = || {
            let mut l = format!("PID {}", text(self.cols.pid).unwrap_or_default());
            if let Some(n) = text(self.cols.name) {
                l.push_str(&format!(" {n}"));
            }
            if let Some(u) = text(self.cols.user) {
                l.push_str(&format!(" ({u})"));
            }
            if let Some(r) = text(self.cols.rank) {
                l.push_str(&format!(" rank {r}"));
            }
            l
        };
        if text(self.cols.job).as_deref() == Some("true") {
            if bytes > 0.0 {
                let k = g.band(pid, label);
                if let Some(s) = g.sample.as_mut() {
                    if s.bands.len() <= k {
                        s.bands.resize(k + 1, 0.0);
                    }
                    if let Some(b) = s.bands.get_mut(k) {
                        *b += bytes;
                    }
                }
            }
        } else {
            if g.other_pids.insert(pid) && g.other_names.len() < OTHERS_NAMED {
                g.other_names.push(label());
            }
            if let Some(s) = g.sample.as_mut() {
                s.others += bytes;
            }
        }
    }

    /// The panels, once every row is read; an error says why nothing can be drawn.
    pub fn finish(mut self, head: &LogHead) -> Result<Drawing, String> {
        for g in &mut self.gpus {
            g.flush(&self.keep);
        }
        if self.gpus.is_empty() {
            return Err(match &self.start {
                Some(_) => "the run's log has no sample of a GPU (nvq run could not watch the job: see its report)"
                    .into(),
                None => "the log has no rows: there is nothing to draw".into(),
            });
        }
        let (unit, scale) = head
            .column(Fact::MemoryUsed.name())
            .and_then(|k| head.columns.get(k))
            .map_or((Some("MiB".to_string()), f64::from(1u32 << 20)), |c| {
                (c.unit.clone(), c.scale)
            });
        // The GPUs the job held memory on (every GPU if it held none), the highest peaks first when too many.
        let mut shown: Vec<usize> = (0..self.gpus.len())
            .filter(|&i| self.gpus.get(i).is_some_and(|g| g.peak > 0.0))
            .collect();
        let mut notes = Vec::new();
        if shown.is_empty() {
            shown = (0..self.gpus.len()).collect();
            notes.push("the job held no GPU memory in any sample".to_string());
        }
        let watched = shown.len();
        if shown.len() > MAX_PANELS {
            shown.sort_by(|a, b| {
                let peak = |i: &usize| self.gpus.get(*i).map_or(0.0, |g| g.peak);
                peak(b).total_cmp(&peak(a)).then(a.cmp(b))
            });
            shown.truncate(MAX_PANELS);
            notes.push(format!(
                "the {MAX_PANELS} GPUs with the job's highest peaks of {watched} drawn"
            ));
        }
        shown.sort_by_key(|&i| self.gpus.get(i).map_or(0, |g| g.first_row));
        let mut gpus: Vec<Option<Gpu>> = self.gpus.into_iter().map(Some).collect();
        let mut panels = Vec::with_capacity(shown.len());
        for i in shown {
            let Some(g) = gpus.get_mut(i).and_then(Option::take) else {
                continue;
            };
            panels.push(panel(g, unit.clone(), scale));
        }
        let mut marks = Vec::new();
        let mut t0 = self.t0;
        if let Some((t, command)) = &self.start {
            marks.push(Mark {
                t: *t,
                label: "start".into(),
            });
            t0 = t0.min(*t);
            notes.insert(0, format!("job: {command}"));
        }
        match &self.end {
            Some((t, exit)) => marks.push(Mark {
                t: *t,
                label: format!("end: exit {exit}"),
            }),
            None => notes.push(
                "the log has no end: nvq run was stopped before the command ended, or is still running".into(),
            ),
        }
        Ok(Drawing {
            panels,
            t0,
            start: xml_chars(&head.start).into_owned(),
            notes,
            marks,
        })
    }
}

/// A text of the log in a label: characters XML allows, at most [`LABEL_CHARS`].
fn label_text(s: &str) -> String {
    let cut: String = s.chars().take(LABEL_CHARS).collect();
    xml_chars(&cut).into_owned()
}

fn series(slot: Slot) -> Series {
    let mut s = Series::with_cap(slot.points.len());
    for p in slot.points {
        s.push(p);
    }
    s
}

/// A GPU's panel: its bands, the job over them, the others and the GPU's used memory.
fn panel(g: Gpu, unit: Option<String>, scale: f64) -> Panel {
    let capacity = g.job.capacity.or(g.used.capacity);
    let mut labels: Vec<String> = g.procs.iter().map(|(_, l)| l.clone()).collect();
    if !g.shared.is_empty() {
        labels.push(match g.shared.len() {
            1 => g.shared_first.clone(),
            n => format!("{n} more processes of the job"),
        });
    }
    let bands: Vec<Band> = g
        .tops
        .into_iter()
        .zip(g.label_at)
        .zip(labels)
        .filter(|((top, _), _)| !top.points.is_empty())
        .map(|((top, label_at), label)| Band {
            label,
            top: series(top),
            label_at,
        })
        .collect();
    let others_peak = g.others.points.iter().map(|p| p.v).fold(0.0, f64::max);
    let mut lines = vec![Line {
        label: "job".into(),
        series: series(g.job),
        capacity,
        trend: None,
        ink: Ink::Job,
    }];
    if others_peak > 0.0 {
        let mut label = format!("other processes: {}", g.other_names.join(", "));
        if g.other_pids.len() > g.other_names.len() {
            label.push_str(&format!(
                " and {} more",
                g.other_pids.len() - g.other_names.len()
            ));
        }
        lines.push(Line {
            label,
            series: series(g.others),
            capacity,
            trend: None,
            ink: Ink::Others,
        });
    }
    if !g.used.points.is_empty() {
        lines.push(Line {
            label: "GPU used".into(),
            series: series(g.used),
            capacity,
            trend: None,
            ink: Ink::Used,
        });
    }
    Panel {
        field: format!("{} memory", g.name),
        unit,
        scale,
        series: lines.len(),
        lines,
        bands,
    }
}
