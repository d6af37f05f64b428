//! The trend settings (`docs/trends.md`), one declaration for the loops' scripting flags, `nvq plot` and
//! `nvq serve`.

/// `--trend-window`, `--rising-for`, `--min-rise`.
#[derive(clap::Args, Debug, Default, Clone)]
pub struct TrendArgs {
    /// nvq: measure rates and times to full over the last DURATION (default 10m).
    #[arg(long = "trend-window", value_name = "DURATION")]
    pub trend_window: Option<String>,
    /// nvq: a value must have been rising for DURATION to count as rising steadily, a leak (default 5m).
    #[arg(long = "rising-for", value_name = "DURATION")]
    pub rising_for: Option<String>,
    /// nvq: ... and have risen by at least SIZE over the window (default 256MiB).
    #[arg(long = "min-rise", value_name = "SIZE")]
    pub min_rise: Option<String>,
}

impl TrendArgs {
    /// The settings, checked.
    pub fn config(&self) -> Result<crate::model::trend::TrendConfig, crate::error::NvqError> {
        crate::script::run::trend_config(
            self.trend_window.as_deref(),
            self.rising_for.as_deref(),
            self.min_rise.as_deref(),
        )
    }
}
