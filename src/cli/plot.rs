//! `nvq plot`'s options.

use super::sub::{Own, Refusals, SubCommand};
use nvq_core::error::NvqError;

/// `nvq plot LOG -o OUT`: a log nvq wrote, drawn over time.
#[derive(clap::Args, Debug, Clone, Default)]
#[command(
    about = "nvq: draw a log nvq wrote (-f, CSV or NDJSON, or nvq run --log) as SVG or PNG: memory and utilization \
             over time per GPU and process, peaks, totals, leaks with their time to full; a run's job stacked by \
             process; several logs on one time axis.",
    after_help = "Example: nvq --query-gpu=timestamp,index,memory.used,memory.total,utilization.gpu --format=csv \
                  -l 1 -f run.csv; then nvq plot run.csv -o run.svg"
)]
pub struct PlotArgs {
    /// The log: CSV (with or without units; its header and a timestamp column needed) or NDJSON, as `-f` or
    /// `nvq run --log` wrote it. Several logs (one per node or rank) are drawn on one time axis, each series named
    /// by its host (the log's `host` key, else the file's name) and GPU.
    #[arg(value_name = "LOG", required = true, num_args = 1..)]
    pub logs: Vec<std::path::PathBuf>,
    /// The picture to write, .svg or .png (replaced whole; default: the first LOG with .svg).
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: Option<std::path::PathBuf>,
    /// A field to draw (repeat it or give a comma list); default: memory used and utilization.
    #[arg(long = "field", value_name = "FIELD", value_delimiter = ',')]
    pub fields: Vec<String>,
    /// The picture's width in pixels (400 to 8000).
    #[arg(long, value_name = "PIXELS", default_value_t = 1200)]
    pub width: u32,
    #[command(flatten)]
    pub trend: super::trend::TrendArgs,
}

impl SubCommand for PlotArgs {
    /// A log in, a picture out: no GPU, no loop, no format.
    fn own(&self) -> Result<Own<'_>, NvqError> {
        Ok(Own::default())
    }

    fn refusals() -> Option<Refusals> {
        Some(Refusals::default())
    }
}
