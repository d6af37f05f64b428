//! `nvq top`'s options.

use super::sub::{Own, Shared, SubCommand};

use super::value::{parse_duration, Span};
use nvq_core::error::NvqError;
use std::time::Duration;

/// The values are read by clap (`cli::value`'s duration grammar); `app::top`
/// checks the interval's range, which `-l` before the name shares.
#[derive(clap::Args, Debug, Clone, Default)]
#[command(
    about = "nvq: an interactive view of the GPUs and their processes, with memory and utilization curves.",
    after_help = "Keys: h or ? help, q quit, s/< > sort, r reverse, / filter, up/down select a GPU, \
Enter its processes only, +/- or F2 refresh interval, p pause, z/Z zoom the curves. \
nvq top only reads: it never changes GPU state or signals processes."
)]
pub struct TopArgs {
    #[command(flatten)]
    pub gpus: super::shared::Gpus,
    /// Seconds between samples, 0.1 to 10 (default 1; 500ms is also accepted).
    #[arg(short = 'd', long = "interval", value_name = "SEC", value_parser = interval)]
    pub interval: Option<Span>,
    /// Print one frame as plain text and exit (for bug reports and scripts).
    #[arg(long)]
    pub once: bool,
    /// Mark a process whose memory has been rising steadily this long, in seconds (default 300).
    #[arg(long = "leak-after", value_name = "SEC", value_parser = leak_after)]
    pub leak_after: Option<Span>,
}

/// `top --interval`: a duration, to the millisecond (its range, 0.1 s to
/// 10 s, is `app::top`'s to check).
fn interval(s: &str) -> Result<Span, NvqError> {
    let secs = parse_duration("--interval", s)
        .map_err(|_| bad_interval(s))?
        .as_secs_f64();
    Ok(Span {
        duration: Duration::from_millis((secs * 1000.0).round() as u64),
        given: s.to_string(),
    })
}

/// `top --interval`'s message for a value it does not take.
pub fn bad_interval(s: &str) -> NvqError {
    NvqError::Usage(format!(
        "top: invalid interval \"{s}\" for --interval; give seconds from 0.1 to 10 (e.g. 0.5, 2, 500ms)."
    ))
}

/// The seconds `--leak-after` takes.
pub const LEAK_AFTER_S: std::ops::RangeInclusive<f64> = 1.0..=86400.0;

/// `top --leak-after`: a duration from 1 s to a day.
fn leak_after(s: &str) -> Result<Span, NvqError> {
    parse_duration("--leak-after", s)
        .ok()
        .filter(|d| LEAK_AFTER_S.contains(&d.as_secs_f64()))
        .map(|duration| Span {
            duration,
            given: s.to_string(),
        })
        .ok_or_else(|| {
            NvqError::Usage(format!(
                "top: invalid duration \"{s}\" for --leak-after; give seconds from 1 to 86400 (e.g. 300, 90s)."
            ))
        })
}

impl SubCommand for TopArgs {
    fn own(&self) -> Result<Own<'_>, NvqError> {
        Ok(Own {
            nvq_only: true,
            interval: self.interval.as_ref().map(|i| i.duration),
            ..Own::with_id(&[Shared::Id, Shared::Interval], &self.gpus.id)
        })
    }
}
