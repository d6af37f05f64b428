//! What `nvq plot` draws: the spec (fields, trend, kind, width) and the panels a log's rows make.

use nvq_core::model::history::{Point, Series};
use nvq_core::model::trend::{self, TrendConfig};

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

/// One line of a panel.
#[derive(Clone, Debug)]
pub struct Line {
    pub label: String,
    /// Base units.
    pub series: Series,
    /// The capacity this series fills (memory.total), base units.
    pub capacity: Option<f64>,
    pub trend: Option<(trend::Trend, (Point, Point))>,
    pub ink: Ink,
}

/// How a line is drawn.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Ink {
    /// In the palette's next colour, its peak marked: a GPU's or a process's series.
    #[default]
    Series,
    /// A run's job on one GPU (the top of its processes' bands): black, its peak marked.
    Job,
    /// The GPU's used memory, by anyone: thin grey, no peak marked.
    Used,
    /// The other processes on the GPU, apart from the job: dashed grey, its peak marked.
    Others,
}

/// One band of a stack: a process (or several) of a run's job on one GPU, drawn from the band below it to `top`.
#[derive(Clone, Debug)]
pub struct Band {
    pub label: String,
    /// The top of the band (the sum of this band and those below it), base units.
    pub top: Series,
    /// Where the name is written: the band's middle at the last time it held memory.
    pub label_at: Point,
}

/// A moment marked on every panel with a vertical line: a run's start or end.
#[derive(Clone, Debug)]
pub struct Mark {
    pub t: f64,
    pub label: String,
}

/// One panel: a field over time.
#[derive(Clone, Debug)]
pub struct Panel {
    pub field: String,
    pub unit: Option<String>,
    /// One display unit in base units.
    pub scale: f64,
    /// The lines drawn: at most [`super::MAX_LINES`], those with the highest peaks.
    pub lines: Vec<Line>,
    /// How many series the log has for this field (more than `lines` when some are left out).
    pub series: usize,
    /// A run's job processes on one GPU, stacked, bottom first (none for other logs).
    pub bands: Vec<Band>,
}

/// The panels of a read log, and its time origin and first timestamp, for the axis.
pub struct Drawing {
    pub panels: Vec<Panel>,
    pub t0: f64,
    pub start: String,
    /// What the picture says under its panels: the fields it left out, the numbers it could not draw.
    pub notes: Vec<String>,
    /// Moments marked on every panel (a run's start and end).
    pub marks: Vec<Mark>,
}
