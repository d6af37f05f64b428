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
}

/// The panels of a read log, and its time origin and first timestamp, for the axis.
pub struct Drawing {
    pub panels: Vec<Panel>,
    pub t0: f64,
    pub start: String,
    /// What the picture says under its panels: the fields it left out, the numbers it could not draw.
    pub notes: Vec<String>,
}
