//! The trend settings (`docs/trends.md`), one declaration for the loops' scripting flags, `nvq plot` and
//! `nvq serve`.

use std::time::Duration;

/// `--trend-window`, `--rising-for`, `--min-rise`, read by clap.
#[derive(clap::Args, Debug, Default, Clone)]
pub struct TrendArgs {
    /// nvq: measure rates and times to full over the last DURATION
    /// (default 10m; nvq run: all of the run after its warm-up).
    #[arg(long = "trend-window", value_name = "DURATION")]
    pub trend_window: Option<super::value::Span>,
    /// nvq: a value must have been rising for DURATION to count as rising steadily, a leak (default 5m).
    #[arg(long = "rising-for", value_name = "DURATION")]
    pub rising_for: Option<super::value::Span>,
    /// nvq: ... and have risen by at least SIZE over the window (default 256MiB).
    #[arg(long = "min-rise", value_name = "SIZE", value_parser = crate::script::run::min_rise)]
    pub min_rise: Option<f64>,
}

impl TrendArgs {
    /// The settings.
    pub fn config(&self) -> nvq_core::model::trend::TrendConfig {
        crate::script::run::trend_config(self.window(), self.rising(), self.min_rise)
    }

    /// `--trend-window`.
    pub fn window(&self) -> Option<Duration> {
        self.trend_window.as_ref().map(|s| s.duration)
    }

    /// `--rising-for`.
    pub fn rising(&self) -> Option<Duration> {
        self.rising_for.as_ref().map(|s| s.duration)
    }
}
