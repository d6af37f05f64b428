//! The typed values of the command line, read by clap (`value_parser`), so
//! that the plan and the runners get numbers and durations, never text to
//! read again. A bad value's message is nvq's (or nvidia-smi's), not clap's:
//! clap hands it back as the error's source, and `cli::clap_error` returns it
//! as it is, with its exit code.
//!
//! Two grammars, each read in one place:
//! - nvidia-smi's whole numbers: `-l SEC`, `-lms MS`, `--count N`, and a
//!   monitor's `-d SEC` and `-c N` ([`LoopSecs`], [`LoopMillis`], [`Count`],
//!   [`Delay`], [`MonitorCount`]);
//! - nvq's durations ([`parse_duration`]): `500ms`, `30s`, `5m`, `1h`, `1h30m`,
//!   `2.5s`, a bare number of seconds; every nvq option that takes a time
//!   (`--timeout`, `--trend-window`, `--rising-for`, `top --interval` and
//!   `--leak-after`, `nvq serve`'s intervals and timeouts).
//!
//! The duration grammar is nvq's own, not jiff's or humantime's: both refuse
//! a bare number (`--timeout 30`, `top -d 0.5`), humantime refuses fractions
//! (`2.5s`), and both take units and spellings nvq refuses with a message
//! naming the unit (`ns`, `us`, `d`, `w`, `hours`, `30 s`), so either would
//! change what is accepted and what a mistake prints.

use nvq_core::error::NvqError;
use std::marker::PhantomData;
use std::time::Duration;

/// The longest loop interval: one day.
pub const MAX_INTERVAL: Duration = Duration::from_secs(86_400);

/// The longest duration: 30 days.
pub const MAX_DURATION: Duration = Duration::from_secs(30 * 86_400);

/// A whole number greater than 0, or `flag`'s message.
fn positive(flag: &str, v: &str, unit: &str) -> Result<u64, NvqError> {
    match v.trim().parse::<u64>() {
        Ok(n) if n > 0 => Ok(n),
        _ => Err(NvqError::Usage(format!(
            "{flag} needs a whole number of {unit} greater than 0, not \"{v}\"."
        ))),
    }
}

/// At most a day.
fn bounded(flag: &str, d: Duration, v: &str) -> Result<Duration, NvqError> {
    if d > MAX_INTERVAL {
        return Err(NvqError::Usage(format!(
            "{flag} {v} is longer than the maximum of one day."
        )));
    }
    Ok(d)
}

/// `-l SEC` / `--loop=SEC`: whole seconds, at most a day.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LoopSecs(pub Duration);

impl LoopSecs {
    pub fn parse(v: &str) -> Result<Self, NvqError> {
        // `-l 0.5`: say how to write half a second.
        if let Ok(x) = v.trim().parse::<f64>() {
            if x > 0.0 && x.fract() != 0.0 && x < 86_400.0 {
                let ms = (x * 1000.0).round() as u64;
                return Err(NvqError::Usage(format!(
                    "-l/--loop needs a whole number of seconds, not \"{v}\"; for {v} s write -lms {ms}."
                )));
            }
        }
        let n = positive("-l/--loop", v, "seconds")?;
        bounded("-l/--loop", Duration::from_secs(n.min(u64::MAX / 2)), v).map(LoopSecs)
    }
}

/// `-lms MS` / `--loop-ms=MS`: whole milliseconds, at most a day.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LoopMillis(pub Duration);

impl LoopMillis {
    pub fn parse(v: &str) -> Result<Self, NvqError> {
        let n = positive("-lms/--loop-ms", v, "milliseconds")?;
        bounded("-lms/--loop-ms", Duration::from_millis(n), v).map(LoopMillis)
    }
}

/// `-l[SEC]` / `-lms MS`: the loop interval, if any (both at once is an
/// invalid combination).
pub fn loop_interval(
    sec: Option<LoopSecs>,
    ms: Option<LoopMillis>,
) -> Result<Option<Duration>, NvqError> {
    match (sec, ms) {
        (Some(_), Some(_)) => Err(NvqError::InvalidCombination),
        (Some(s), None) => Ok(Some(s.0)),
        (None, Some(ms)) => Ok(Some(ms.0)),
        (None, None) => Ok(None),
    }
}

/// `--count N`: samples, 1 or more.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Count(pub u64);

impl Count {
    pub fn parse(v: &str) -> Result<Self, NvqError> {
        positive("--count", v, "samples").map(Count)
    }
}

/// clap reads a field of a typed value with its `parse` (no
/// `value_parser =` needed on the field).
macro_rules! read_by_clap {
    ($($t:ident$(<$m:ident>)?),+) => {$(
        impl$(<$m: Monitor>)? clap::builder::ValueParserFactory for $t$(<$m>)? {
            type Parser = fn(&str) -> Result<Self, NvqError>;
            fn value_parser() -> Self::Parser {
                Self::parse
            }
        }
    )+};
}

read_by_clap!(LoopSecs, LoopMillis, Count, Delay<M>, MonitorCount<M>);

/// A monitor (`dmon`, `pmon`), as its options' messages name it.
pub trait Monitor: Clone + std::fmt::Debug + Default + Send + Sync + 'static {
    /// The sub-command's name.
    const NAME: &'static str;
    /// The longest interval, in seconds (`None`: a day, as the loops).
    const MAX_DELAY: Option<u64>;
    /// Run as `nvidia-smi`, is `--format csv` nvidia-smi's own CSV (dmon)?
    const SMI_CSV: bool;
}

/// A monitor's `-d SEC`: whole seconds from 1 to the monitor's maximum.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Delay<M>(pub Duration, PhantomData<M>);

impl<M: Monitor> Delay<M> {
    pub fn parse(d: &str) -> Result<Self, NvqError> {
        let max = M::MAX_DELAY.unwrap_or(u64::MAX);
        match d.trim().parse::<u64>() {
            Ok(n) if (1..=max).contains(&n) => Ok(Delay(Duration::from_secs(n), PhantomData)),
            _ => {
                let range = match M::MAX_DELAY {
                    Some(m) => format!("a whole number of seconds from 1 to {m}"),
                    None => "a whole number of seconds, 1 or more".to_string(),
                };
                Err(NvqError::Usage(format!(
                    "{}: invalid delay \"{d}\" for -d; give {range}.",
                    M::NAME
                )))
            }
        }
    }
}

/// A monitor's `-c N`/`--count N`: samples, 1 or more.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MonitorCount<M>(pub u64, PhantomData<M>);

impl<M: Monitor> MonitorCount<M> {
    pub fn parse(c: &str) -> Result<Self, NvqError> {
        match c.trim().parse::<u64>() {
            Ok(n) if n >= 1 => Ok(MonitorCount(n, PhantomData)),
            _ => Err(NvqError::Usage(format!(
                "{}: invalid count \"{c}\" for -c; give a whole number of samples, 1 or more.",
                M::NAME
            ))),
        }
    }
}

/// A duration as read, and as typed (for messages that quote it).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Span {
    pub duration: Duration,
    pub given: String,
}

/// A duration option's value: `flag` names it in a message.
fn span(flag: &str, s: &str) -> Result<Span, NvqError> {
    parse_duration(flag, s).map(|duration| Span {
        duration,
        given: s.to_string(),
    })
}

/// clap reads a [`Span`] field with [`parse_duration`], its messages naming
/// the option's long name (no `value_parser =` needed on the field).
#[derive(Debug, Clone, Copy)]
pub struct SpanParser;

impl clap::builder::TypedValueParser for SpanParser {
    type Value = Span;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &std::ffi::OsStr,
    ) -> Result<Span, clap::Error> {
        let flag = arg
            .and_then(clap::Arg::get_long)
            .map(|l| format!("--{l}"))
            .unwrap_or_default();
        (move |s: &str| span(&flag, s)).parse_ref(cmd, arg, value)
    }
}

impl clap::builder::ValueParserFactory for Span {
    type Parser = SpanParser;
    fn value_parser() -> SpanParser {
        SpanParser
    }
}

/// The value parser of a duration option that also takes 0 (`0` or `0s`:
/// none).
pub fn duration_or_zero(flag: &'static str) -> impl Fn(&str) -> Result<Duration, NvqError> + Clone {
    move |s| match s.trim() {
        "0" | "0s" => Ok(Duration::ZERO),
        v => parse_duration(flag, v),
    }
}

/// nvq's durations: `500ms`, `30s`, `5m`, `1h`, `1h30m`, `2.5s`; a bare
/// number is seconds; greater than 0, at most [`MAX_DURATION`].
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
    if total > MAX_DURATION.as_secs_f64() {
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
    fn intervals() {
        assert_eq!(LoopSecs::parse("5").unwrap().0, Duration::from_secs(5));
        assert_eq!(
            LoopMillis::parse("100").unwrap().0,
            Duration::from_millis(100)
        );
        for bad in [
            "0",
            "-1",
            "x",
            "",
            "1.5",
            "99999999999999999999999",
            "86401",
        ] {
            assert!(LoopSecs::parse(bad).is_err(), "{bad}");
        }
        assert!(LoopMillis::parse("0").is_err());
        assert_eq!(Count::parse("3").unwrap().0, 3);
        assert!(Count::parse("0").is_err());
    }

    #[derive(Debug, Clone, Default)]
    struct Mon;
    impl Monitor for Mon {
        const NAME: &'static str = "mon";
        const MAX_DELAY: Option<u64> = Some(10);
        const SMI_CSV: bool = false;
    }

    #[test]
    fn monitor_values_name_their_monitor() {
        assert_eq!(
            Delay::<Mon>::parse("10").unwrap().0,
            Duration::from_secs(10)
        );
        let e = Delay::<Mon>::parse("11").unwrap_err().to_string();
        assert!(
            e.contains(
                "mon: invalid delay \"11\" for -d; give a whole number of seconds from 1 to 10."
            ),
            "{e}"
        );
        let e = MonitorCount::<Mon>::parse("0").unwrap_err().to_string();
        assert!(e.contains("mon: invalid count \"0\""), "{e}");
    }

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
        assert_eq!(duration_or_zero("--x")(" 0s").ok(), Some(Duration::ZERO));
    }
}
