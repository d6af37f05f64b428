//! `nvq top`'s checked options: the refresh interval, `--once` and
//! `--leak-after`.

use crate::cli::top::bad_interval;
use crate::cli::top::TopArgs;
use crate::tui::state::{MAX_INTERVAL_MS, MIN_INTERVAL_MS};
use nvq_core::error::NvqError;
use nvq_core::model::trend::TrendConfig;
use std::time::Duration;

/// `top`'s checked options.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct Plan {
    pub(super) interval_ms: u64,
    pub(super) once: bool,
    /// `--leak-after`, in seconds.
    pub(super) leak_after_s: Option<f64>,
}

impl Plan {
    pub(super) fn trend(&self) -> TrendConfig {
        let mut trend = TrendConfig::default();
        if let Some(secs) = self.leak_after_s {
            trend.min_duration_s = secs;
            trend.window_s = secs * 2.0;
        }
        trend
    }
}

pub(super) fn plan(a: &TopArgs, interval: Option<Duration>) -> Result<Plan, NvqError> {
    let interval_ms = match interval {
        None => 1000,
        Some(d) => {
            let ms = u64::try_from(d.as_millis()).unwrap_or(u64::MAX);
            if !(MIN_INTERVAL_MS..=MAX_INTERVAL_MS).contains(&ms) {
                return Err(bad_interval(
                    a.interval
                        .as_ref()
                        .map_or(&format!("{}", d.as_secs_f64()), |i| &i.given),
                ));
            }
            ms
        }
    };
    // Read by clap, from 1 s to a day (`cli::top`).
    let leak_after_s = a.leak_after.as_ref().map(|s| s.duration.as_secs_f64());
    Ok(Plan {
        interval_ms,
        once: a.once,
        leak_after_s,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::OsString;

    #[test]
    fn intervals_and_durations() {
        let bad = |s: &str| {
            let argv = ["top", "-d", s].map(OsString::from).to_vec();
            match crate::cli::parse(argv) {
                Ok(crate::cli::Parsed::Run(args)) => match &args.command {
                    Some(crate::cli::Command::Top(a)) => {
                        plan(a, a.interval.as_ref().map(|i| i.duration)).is_err()
                    }
                    _ => false,
                },
                _ => true,
            }
        };
        assert!(bad("0.05") && bad("11") && bad("x") && bad("-1") && bad("nan"));
        assert!(!bad("0.1") && !bad("10") && !bad("0.5") && !bad("500ms") && !bad("2s"));
    }
}
