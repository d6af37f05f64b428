//! Several logs on one time axis (one per node or rank): each log's drawing, its series named by their host and
//! GPU, merged as it comes into one picture of bounded size. Panels of one field are one panel; a run's log gives
//! its job's memory per GPU as a line of one panel ("job memory"), and its stacked panels are kept for the GPUs of
//! the highest job peaks ([`STACKS`]). The lines kept are each panel's [`MAX_LINES`] highest peaks, each thinned to
//! the picture's width as it comes, so that a hundred logs cost what a few do.

use super::panel::{Drawing, Ink, Line, Mark, Panel};
use super::thin::thin;
use super::{MAX_LINES, MAX_PANELS};
use nvq_core::model::history::Series;

/// The most stacked panels of runs' GPUs drawn beside the panel of every job's memory.
pub const STACKS: usize = 3;

/// The most notes under the panels; the others are counted.
const NOTES: usize = 12;

/// The field of the panel that holds each run's job memory per GPU.
const JOB_PANEL: &str = "job memory";

/// The logs merged so far.
pub struct Merged {
    width: usize,
    panels: Vec<Panel>,
    /// Runs' GPU panels, with their job's peak: the [`STACKS`] highest kept.
    stacks: Vec<(f64, Panel)>,
    stacks_seen: usize,
    t0: f64,
    start: String,
    notes: Vec<String>,
    more_notes: usize,
    /// The first start and the last end of the runs, and each end's status by log.
    first_start: Option<f64>,
    last_end: Option<Mark>,
    exits: Vec<(String, String)>,
}

impl Merged {
    /// Nothing merged yet, for a picture `width` pixels wide.
    pub fn new(width: u32) -> Self {
        Merged {
            width: width as usize,
            panels: Vec::new(),
            stacks: Vec::new(),
            stacks_seen: 0,
            t0: f64::INFINITY,
            start: String::new(),
            notes: Vec::new(),
            more_notes: 0,
            first_start: None,
            last_end: None,
            exits: Vec::new(),
        }
    }

    /// The drawing of the log named `name` (its series already carry the name where their rows name no host).
    pub fn add(&mut self, name: &str, d: Drawing) {
        if d.t0 < self.t0 {
            self.t0 = d.t0;
            self.start = d.start;
        }
        for n in d.notes {
            self.note(format!("{name}: {n}"));
        }
        for m in d.marks {
            if m.label == "start" {
                self.first_start = Some(self.first_start.map_or(m.t, |s| s.min(m.t)));
            } else if let Some(exit) = m.label.strip_prefix("end: exit ") {
                self.exits.push((name.to_string(), exit.to_string()));
                if self.last_end.as_ref().map_or(true, |e| m.t >= e.t) {
                    self.last_end = Some(m);
                }
            }
        }
        for mut p in d.panels {
            for l in &mut p.lines {
                l.series = thinned(&l.series, self.width);
            }
            for b in &mut p.bands {
                b.top = thinned(&b.top, self.width);
            }
            if p.bands.is_empty() && !p.lines.iter().any(|l| l.ink == Ink::Job) {
                self.merge_panel(p);
                continue;
            }
            // A run's GPU: its job line joins the panel of every job's memory, named by its GPU.
            let gpu = p
                .field
                .strip_suffix(" memory")
                .unwrap_or(&p.field)
                .to_string();
            let job = p.lines.iter().find(|l| l.ink == Ink::Job).map(|l| Line {
                label: gpu,
                series: l.series.clone(),
                capacity: l.capacity,
                trend: None,
                ink: Ink::Series,
            });
            let peak = job.as_ref().map_or(0.0, |l| peak(&l.series));
            if let Some(job) = job {
                self.merge_panel(Panel {
                    field: JOB_PANEL.into(),
                    unit: p.unit.clone(),
                    scale: p.scale,
                    lines: vec![job],
                    series: 1,
                    bands: Vec::new(),
                });
            }
            self.stacks_seen += 1;
            self.stacks.push((peak, p));
            if self.stacks.len() > STACKS {
                self.stacks.sort_by(|a, b| b.0.total_cmp(&a.0));
                self.stacks.truncate(STACKS);
            }
        }
    }

    fn note(&mut self, n: String) {
        if self.notes.len() < NOTES {
            self.notes.push(n);
        } else {
            self.more_notes += 1;
        }
    }

    /// A panel into the one of its field (a new one while there is room), keeping its highest peaks.
    fn merge_panel(&mut self, p: Panel) {
        let at = self.panels.iter().position(|q| q.field == p.field);
        let q = match at {
            Some(at) => match self.panels.get_mut(at) {
                Some(q) => q,
                None => return,
            },
            None if self.panels.len() < MAX_PANELS => {
                self.panels.push(Panel {
                    field: p.field.clone(),
                    unit: p.unit.clone(),
                    scale: p.scale,
                    lines: Vec::new(),
                    series: 0,
                    bands: Vec::new(),
                });
                match self.panels.last_mut() {
                    Some(q) => q,
                    None => return,
                }
            }
            None => {
                let field = p.field.clone();
                self.note(format!(
                    "the field {field} not drawn (at most {MAX_PANELS} panels)"
                ));
                return;
            }
        };
        q.series += p.series;
        q.lines.extend(p.lines);
        if q.lines.len() > MAX_LINES {
            // The highest peaks, in the order they came.
            let mut order: Vec<(usize, f64)> = q
                .lines
                .iter()
                .enumerate()
                .map(|(i, l)| (i, peak(&l.series)))
                .collect();
            order.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
            let mut keep: Vec<usize> = order.iter().take(MAX_LINES).map(|o| o.0).collect();
            keep.sort_unstable();
            let mut lines = std::mem::take(&mut q.lines);
            let mut i = 0;
            lines.retain(|_| {
                let kept = keep.binary_search(&i).is_ok();
                i += 1;
                kept
            });
            q.lines = lines;
        }
    }

    /// The picture of every log merged.
    pub fn finish(mut self) -> Drawing {
        // The job panel first, then the runs' stacks by their job peak, then the other fields.
        let job = self.panels.iter().position(|p| p.field == JOB_PANEL);
        let mut panels = Vec::new();
        if let Some(at) = job {
            panels.push(self.panels.remove(at));
        }
        if self.stacks_seen > self.stacks.len() {
            let (kept, of) = (self.stacks.len(), self.stacks_seen);
            self.note(format!(
                "processes stacked for the {kept} GPUs of the highest job peaks of {of}"
            ));
        }
        self.stacks.sort_by(|a, b| b.0.total_cmp(&a.0));
        panels.extend(self.stacks.into_iter().map(|s| s.1));
        panels.extend(self.panels);
        panels.truncate(MAX_PANELS);
        let mut marks = Vec::new();
        if let Some(t) = self.first_start {
            marks.push(Mark {
                t,
                label: "start".into(),
            });
        }
        if let Some(mut end) = self.last_end {
            let mut statuses: Vec<&str> = self.exits.iter().map(|e| e.1.as_str()).collect();
            statuses.sort_unstable();
            statuses.dedup();
            if statuses.len() > 1 {
                end.label = "last end".into();
                let failed: Vec<String> = self
                    .exits
                    .iter()
                    .filter(|e| e.1 != "0")
                    .map(|e| format!("{} exit {}", e.0, e.1))
                    .collect();
                self.notes
                    .insert(0, format!("runs that failed: {}", failed.join(", ")));
            }
            marks.push(end);
        }
        if self.more_notes > 0 {
            self.notes
                .push(format!("and {} more notes", self.more_notes));
        }
        Drawing {
            panels,
            t0: self.t0,
            start: self.start,
            notes: self.notes,
            marks,
        }
    }
}

fn peak(s: &Series) -> f64 {
    s.points().map(|p| p.v).fold(f64::NEG_INFINITY, f64::max)
}

/// A series thinned to what `width` pixel columns show (each one's lowest and highest point).
fn thinned(s: &Series, width: usize) -> Series {
    let pts = thin(&s.points().collect::<Vec<_>>(), width);
    let mut out = Series::with_cap(pts.len());
    for p in pts {
        out.push(p);
    }
    out
}
