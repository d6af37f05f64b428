//! Loop intervals and counts.

use crate::error::NvqError;
use std::time::Duration;

/// The longest interval accepted: one day.
pub const MAX_INTERVAL: Duration = Duration::from_secs(86_400);

fn parse_positive(flag: &str, v: &str, unit: &str) -> Result<u64, NvqError> {
    let n: u64 = v.trim().parse().map_err(|_| {
        NvqError::Usage(format!(
            "{flag} needs a whole number of {unit} greater than 0, not \"{v}\"."
        ))
    })?;
    if n == 0 {
        return Err(NvqError::Usage(format!(
            "{flag} needs a whole number of {unit} greater than 0, not \"{v}\"."
        )));
    }
    Ok(n)
}

fn bounded(flag: &str, d: Duration, v: &str) -> Result<Duration, NvqError> {
    if d > MAX_INTERVAL {
        return Err(NvqError::Usage(format!(
            "{flag} {v} is longer than the maximum of one day."
        )));
    }
    Ok(d)
}

/// `-l SEC` / `--loop=SEC`.
pub fn parse_loop_sec(v: &str) -> Result<Duration, NvqError> {
    // `-l 0.5`: say how to write half a second.
    if let Ok(x) = v.trim().parse::<f64>() {
        if x > 0.0 && x.fract() != 0.0 && x < 86_400.0 {
            let ms = (x * 1000.0).round() as u64;
            return Err(NvqError::Usage(format!(
                "-l/--loop needs a whole number of seconds, not \"{v}\"; for {v} s write -lms {ms}."
            )));
        }
    }
    let n = parse_positive("-l/--loop", v, "seconds")?;
    bounded("-l/--loop", Duration::from_secs(n.min(u64::MAX / 2)), v)
}

/// `-lms MS` / `--loop-ms=MS`.
pub fn parse_loop_ms(v: &str) -> Result<Duration, NvqError> {
    let n = parse_positive("-lms/--loop-ms", v, "milliseconds")?;
    bounded("-lms/--loop-ms", Duration::from_millis(n), v)
}

/// `-l[SEC]` / `-lms MS`: the loop interval, if any (both at once is an
/// invalid combination).
pub fn loop_interval(sec: Option<&str>, ms: Option<&str>) -> Result<Option<Duration>, NvqError> {
    match (sec, ms) {
        (Some(_), Some(_)) => Err(NvqError::InvalidCombination),
        (Some(s), None) => parse_loop_sec(s).map(Some),
        (None, Some(ms)) => parse_loop_ms(ms).map(Some),
        (None, None) => Ok(None),
    }
}

/// `--count N`.
pub fn parse_count(v: &str) -> Result<u64, NvqError> {
    parse_positive("--count", v, "samples")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn intervals() {
        assert_eq!(parse_loop_sec("5").unwrap(), Duration::from_secs(5));
        assert_eq!(parse_loop_ms("100").unwrap(), Duration::from_millis(100));
        for bad in [
            "0",
            "-1",
            "x",
            "",
            "1.5",
            "99999999999999999999999",
            "86401",
        ] {
            assert!(parse_loop_sec(bad).is_err(), "{bad}");
        }
        assert!(parse_loop_ms("0").is_err());
        assert_eq!(parse_count("3").unwrap(), 3);
        assert!(parse_count("0").is_err());
    }
}
