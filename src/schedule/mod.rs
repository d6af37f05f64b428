//! Running a query once or in a loop (`-l`, `-lms`, `--count`).
//!
//! The loop only sees a `collect` closure and a [`Formatter`], so it works
//! for every query mode and every format. Its clock is steady: sample `k`
//! starts at `start + k × interval`; a sample that overruns makes the loop
//! skip the ticks it missed instead of bunching samples up. SIGINT and
//! SIGTERM end the loop after the current sample (exit 0, as nvidia-smi);
//! a reader that closes the pipe ends it at once, quietly.

pub mod deadline;
mod signals;

use self::signals::{StopSignals, Wake};
use crate::error::NvqError;
use crate::model::{Column, Row};
use crate::output::Sink;
use crate::render::Formatter;
use std::io::Write;
use std::time::{Duration, Instant};

/// Set this environment variable to make a loop print, for every sample,
/// when it started relative to its tick (for `benches/loop_bench.sh`):
/// `nvq-trace sample=<n> tick=<k> start_us=<since start> late_us=<lateness>`
/// on stderr.
pub const TRACE_ENV: &str = "NVQ_TRACE_SCHEDULE";

/// How often and how many times to sample.
#[derive(Debug, Clone, Copy, Default)]
pub struct Schedule {
    /// `None`: sample once.
    pub interval: Option<Duration>,
    /// Stop after this many samples.
    pub count: Option<u64>,
    /// No sample starts later than this after the first one (`--timeout`).
    pub deadline: Option<Duration>,
}

/// What the caller's `collect` says after a sample.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flow {
    Continue,
    /// Print this sample, then end the loop.
    Stop,
}

/// Why a loop ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum End {
    /// No loop: one sample was taken.
    Once,
    /// `--count` samples were taken.
    Count,
    /// `collect` returned [`Flow::Stop`].
    Stopped,
    /// The next sample would have started after [`Schedule::deadline`].
    Deadline,
    /// SIGINT or SIGTERM ended the loop after a whole sample.
    Interrupted,
    /// The reader closed the pipe: nothing more can be written.
    OutputClosed,
}

/// The tick of the next sample: the first tick strictly after `elapsed`
/// (time since the loop started), and at least `tick + 1`. Ticks missed by
/// an overrunning sample are skipped.
pub fn next_tick(elapsed: Duration, interval: Duration, tick: u64) -> u64 {
    let iv = interval.as_nanos().max(1);
    let after = u64::try_from(elapsed.as_nanos() / iv)
        .unwrap_or(u64::MAX)
        .saturating_add(1);
    after.max(tick.saturating_add(1))
}

/// When tick `k` is due: `start + k × interval` (`None` past the end of time).
pub fn tick_time(start: Instant, interval: Duration, k: u64) -> Option<Instant> {
    let ns = interval.as_nanos().checked_mul(u128::from(k))?;
    let d = Duration::from_nanos(u64::try_from(ns).ok()?);
    start.checked_add(d)
}

/// Sample with `collect`, format with `fmt`, write to `sink`, on `schedule`.
pub fn run(
    schedule: Schedule,
    columns: &[Column],
    fmt: &mut dyn Formatter,
    sink: &mut Sink,
    mut collect: impl FnMut() -> Result<Vec<Row>, NvqError>,
) -> Result<(), NvqError> {
    run_with(schedule, columns, fmt, sink, || {
        Ok((collect()?, Flow::Continue))
    })
    .map(|_| ())
}

/// [`run`], with a `collect` that can end the loop after its sample; says
/// why the loop ended.
pub fn run_with(
    schedule: Schedule,
    columns: &[Column],
    fmt: &mut dyn Formatter,
    sink: &mut Sink,
    collect: impl FnMut() -> Result<(Vec<Row>, Flow), NvqError>,
) -> Result<End, NvqError> {
    struct Rows<'a, C> {
        columns: &'a [Column],
        fmt: &'a mut dyn Formatter,
        collect: C,
        replace: bool,
        first: bool,
    }
    impl<C: FnMut() -> Result<(Vec<Row>, Flow), NvqError>> Samples for Rows<'_, C> {
        fn sample(&mut self, buf: &mut Vec<u8>) -> Result<Flow, NvqError> {
            let (rows, flow) = (self.collect)()?;
            // The header goes out with the first sample; a file replaced
            // per sample gets a complete document every time.
            if self.replace || self.first {
                self.fmt.begin(self.columns, buf);
            }
            self.fmt.sample(self.columns, &rows, buf);
            if self.replace {
                self.fmt.finish(self.columns, buf);
            }
            self.first = false;
            Ok(flow)
        }
        fn finish(&mut self, buf: &mut Vec<u8>) {
            if !self.replace {
                self.fmt.finish(self.columns, buf);
            }
        }
    }
    let replace = sink.replaces_each_sample();
    let mut rows = Rows {
        columns,
        fmt,
        collect,
        replace,
        first: true,
    };
    drive(schedule, sink, &mut rows)
}

/// What a loop repeats: the bytes of one sample, and the bytes after the
/// last (a JSON array's end, say).
pub trait Samples {
    /// Append one sample's bytes to `buf` (whole lines).
    fn sample(&mut self, buf: &mut Vec<u8>) -> Result<Flow, NvqError>;
    /// Append what follows the last sample.
    fn finish(&mut self, _buf: &mut Vec<u8>) {}
}

/// The loop itself, for anything that produces whole samples of bytes:
/// query rows through a formatter ([`run_with`]) or the summary table.
pub fn drive(
    schedule: Schedule,
    sink: &mut Sink,
    samples: &mut dyn Samples,
) -> Result<End, NvqError> {
    let signals = schedule.interval.map(|_| StopSignals::install());
    let trace = schedule.interval.is_some() && std::env::var_os(TRACE_ENV).is_some();
    let watch = sink.watch_fd();
    let mut buf = Vec::with_capacity(4096);
    let start = Instant::now();
    let mut tick: u64 = 0;
    let mut taken: u64 = 0;
    let end = loop {
        if trace {
            trace_start(start, schedule.interval, taken, tick);
        }
        buf.clear();
        let flow = samples.sample(&mut buf)?;
        sink.write(&buf)?;
        taken += 1;
        if flow == Flow::Stop {
            break End::Stopped;
        }
        let (Some(interval), Some(signals)) = (schedule.interval, signals.as_ref()) else {
            break End::Once;
        };
        if schedule.count.is_some_and(|n| taken >= n) {
            break End::Count;
        }
        if signals.stop_requested() {
            break End::Interrupted;
        }
        tick = next_tick(start.elapsed(), interval, tick);
        let Some(due) = tick_time(start, interval, tick) else {
            break End::Count;
        };
        if schedule
            .deadline
            .is_some_and(|d| start.checked_add(d).is_some_and(|limit| due > limit))
        {
            break End::Deadline;
        }
        match signals.sleep_until(due, watch) {
            Wake::Deadline => {}
            Wake::Signal => break End::Interrupted,
            // The reader is gone: nothing more can be written; end quietly.
            Wake::OutputClosed => return Ok(End::OutputClosed),
        }
    };
    buf.clear();
    samples.finish(&mut buf);
    sink.write(&buf)?;
    Ok(end)
}

fn trace_start(start: Instant, interval: Option<Duration>, n: u64, tick: u64) {
    let now = Instant::now();
    let due = interval.and_then(|iv| tick_time(start, iv, tick));
    let late = due.map_or(Duration::ZERO, |d| now.saturating_duration_since(d));
    let _ = writeln!(
        std::io::stderr(),
        "nvq-trace sample={n} tick={tick} start_us={} late_us={}",
        now.duration_since(start).as_micros(),
        late.as_micros()
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Duration = Duration::from_millis(1);

    #[test]
    fn ticks_follow_the_clock_and_skip_missed_ones() {
        let iv = 10 * MS;
        // On time: the next tick.
        assert_eq!(next_tick(3 * MS, iv, 0), 1);
        assert_eq!(next_tick(13 * MS, iv, 1), 2);
        // A sample that ran to 35 ms skips ticks 2 and 3.
        assert_eq!(next_tick(35 * MS, iv, 1), 4);
        // Exactly on a tick: that tick is now, so the next one.
        assert_eq!(next_tick(20 * MS, iv, 1), 3);
        // Never backwards, never the same tick twice.
        assert_eq!(next_tick(Duration::ZERO, iv, 7), 8);
    }

    #[test]
    fn tick_times_do_not_accumulate_error() {
        let start = Instant::now();
        let iv = Duration::from_nanos(3_333_333);
        let t = tick_time(start, iv, 999).unwrap();
        assert_eq!(t - start, Duration::from_nanos(3_333_333 * 999));
        assert!(tick_time(start, Duration::from_secs(86_400), u64::MAX).is_none());
    }
}
