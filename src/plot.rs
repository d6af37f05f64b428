//! `nvq plot`: a log nvq wrote, drawn as charts over time (SVG or PNG bytes; no I/O).
//!
//! One panel per field (memory used and utilization by default), one line per GPU or process, each named at its
//! end, so that no legend has to be looked up. On each line its peak is marked with its value; the memory panels
//! draw each GPU's total as a dashed line; a series that is rising steadily (`model::trend`) gets its trend line
//! drawn on to the right edge, with its rate and time to full written beside it.
//!
//! A log of `nvq run --log` is drawn as a run: per GPU the job's processes stacked, the job's sum over them with
//! its peak, the other processes apart, the job's start and end marked (`run`).
//!
//! A series with more points than the picture has room for is thinned to each pixel column's lowest and highest
//! point (peaks and troughs stay); a log that fits is drawn point for point.

mod collect;
mod draw;
mod merge;
mod panel;
mod read;
mod run;
mod thin;

pub use collect::{columns_needed, Collector, MAX_LINES, MAX_PANELS};
pub use draw::{render, use_font};
pub use merge::{Merged, STACKS};
pub use panel::{Band, Drawing, Ink, Line, Mark, Panel, PictureKind, PlotSpec};
pub use read::Reading;
pub use run::{is_run_log, RunCollector, MAX_BANDS};
