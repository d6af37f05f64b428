//! Durations for `--timeout`: `500ms`, `30s`, `5m`, `1h`, `1h30m`, `2.5s`;
//! a bare number is seconds.

use crate::error::NvqError;
use std::time::Duration;

/// The longest duration accepted: 30 days.
pub const MAX: Duration = Duration::from_secs(30 * 86_400);

pub fn parse_duration(flag: &str, s: &str) -> Result<Duration, NvqError> {
    let bad = || {
        NvqError::Usage(format!(
            "{flag} needs a duration greater than 0 such as 500ms, 30s, 5m, 1h or 1h30m, not \
             \"{s}\"."
        ))
    };
    let bad_unit = |unit: &str| {
        NvqError::Usage(format!(
            "{flag} \"{s}\": \"{unit}\" is not a unit nvq knows; use ms, s, m or h, as in 500ms \
             or 1h30m."
        ))
    };
    let t = s.trim();
    if t.is_empty() {
        return Err(bad());
    }
    let mut total = 0.0f64;
    let mut rest = t;
    while !rest.is_empty() {
        let n = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(rest.len());
        if n == 0 {
            return Err(bad());
        }
        let value: f64 = rest[..n].parse().map_err(|_| bad())?;
        rest = &rest[n..];
        let u = rest
            .find(|c: char| c.is_ascii_digit() || c == '.')
            .unwrap_or(rest.len());
        let secs = match &rest[..u] {
            "" if n == t.len() => 1.0,
            "ms" => 1e-3,
            "s" | "sec" => 1.0,
            "m" | "min" => 60.0,
            "h" => 3600.0,
            "" => return Err(bad()),
            unit if unit.chars().all(|c| c.is_ascii_alphabetic()) => return Err(bad_unit(unit)),
            _ => return Err(bad()),
        };
        rest = &rest[u..];
        total += value * secs;
    }
    if total.is_nan() {
        return Err(bad());
    }
    if total <= 0.0 {
        return Err(NvqError::Usage(format!(
            "{flag} needs a duration greater than 0, not \"{s}\"."
        )));
    }
    if total > MAX.as_secs_f64() {
        return Err(NvqError::Usage(format!(
            "{flag} \"{s}\" is longer than the maximum of 30 days."
        )));
    }
    Ok(Duration::from_secs_f64(total))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations() {
        let d = |s| parse_duration("--timeout", s).unwrap();
        assert_eq!(d("500ms"), Duration::from_millis(500));
        assert_eq!(d("30s"), Duration::from_secs(30));
        assert_eq!(d("30"), Duration::from_secs(30));
        assert_eq!(d("5m"), Duration::from_secs(300));
        assert_eq!(d("1h30m"), Duration::from_secs(5400));
        assert_eq!(d("2.5s"), Duration::from_millis(2500));
        for bad in [
            "", "0", "0s", "-1s", "5x", "s", "1.2.3s", "30 s", "100d", "999999h", "1h30",
        ] {
            assert!(parse_duration("--timeout", bad).is_err(), "{bad}");
        }
        let msg = |s| match parse_duration("--timeout", s) {
            Err(NvqError::Usage(m)) => m,
            other => panic!("{other:?}"),
        };
        assert!(msg("1ns").contains("\"ns\" is not a unit"));
        assert!(msg("100d").contains("\"d\" is not a unit"));
        assert!(msg("0s").contains("greater than 0"));
        assert!(msg("999999h").contains("maximum of 30 days"));
    }
}
