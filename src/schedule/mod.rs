//! Running a query once or in a loop (`-l`, `-lms`, `--count`).
//!
//! The loop only sees a `collect` closure and a [`Formatter`], so it works
//! for every query mode and every format. Its clock is steady: sample `k`
//! starts at `start + k × interval`; a sample that overruns makes the loop
//! skip the ticks it missed instead of bunching samples up. Every sample
//! gets a [`Tick`]: when it was due and its deadline (see [`deadline`]),
//! by which its rows must be out whatever the GPUs do. SIGINT, SIGTERM and
//! SIGHUP end the loop after the current sample (exit 0, as nvidia-smi),
//! also while a write waits for a reader that does not read; a reader that
//! closes the pipe ends it at once, quietly.

pub mod alarm;
pub mod deadline;
pub mod signals;

use self::signals::{StopSignals, Wake};
use crate::output::Sink;
use crate::output::Watch;
use nvq_core::error::NvqError;
use nvq_core::model::{Column, Row};
use nvq_core::render::Formatter;
use std::io::Write;
use std::time::{Duration, Instant, SystemTime};

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
    /// No sample starts later than this after the first one, and the loop
    /// ends within [`LAST_SAMPLE_GRACE`] of it (`--timeout`).
    pub deadline: Option<Duration>,
}

/// How far past [`Schedule::deadline`] the sample due at that moment may
/// wait for its GPUs.
pub const LAST_SAMPLE_GRACE: Duration = Duration::from_millis(50);

/// One sample's times.
#[derive(Debug, Clone, Copy)]
pub struct Tick {
    /// When the sample was due (its tick).
    pub due: Instant,
    /// By when its rows must be out: a GPU that has not answered by then is
    /// printed late (see [`deadline`]).
    pub deadline: Instant,
}

impl Tick {
    /// A sample taken now, with no deadline worth the name (one-shot).
    pub fn now() -> Self {
        let now = Instant::now();
        Tick {
            due: now,
            deadline: now + Duration::from_secs(86_400),
        }
    }

    /// The wall-clock time of [`Tick::due`] (the timestamp of a row that
    /// could not be read in this sample).
    pub fn due_wall(&self) -> SystemTime {
        let ago = Instant::now().saturating_duration_since(self.due);
        SystemTime::now()
            .checked_sub(ago)
            .unwrap_or_else(SystemTime::now)
    }
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
    /// SIGINT, SIGTERM or SIGHUP ended the loop after a whole sample.
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
    mut collect: impl FnMut(&Tick) -> Result<Vec<Row>, NvqError>,
) -> Result<(), NvqError> {
    run_with(schedule, columns, fmt, sink, |tick| {
        Ok((collect(tick)?, Flow::Continue))
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
    collect: impl FnMut(&Tick) -> Result<(Vec<Row>, Flow), NvqError>,
) -> Result<End, NvqError> {
    struct Rows<'a, C> {
        columns: &'a [Column],
        fmt: &'a mut dyn Formatter,
        collect: C,
        replace: bool,
        first: bool,
    }
    impl<C: FnMut(&Tick) -> Result<(Vec<Row>, Flow), NvqError>> Samples for Rows<'_, C> {
        fn sample(&mut self, tick: &Tick, buf: &mut Vec<u8>) -> Result<Flow, NvqError> {
            let (rows, flow) = (self.collect)(tick)?;
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
    /// Append one sample's bytes to `buf` (whole lines), read by
    /// `tick.deadline` (in a loop).
    fn sample(&mut self, tick: &Tick, buf: &mut Vec<u8>) -> Result<Flow, NvqError>;
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
    let limit = schedule.interval.map(deadline::limit_for);
    if let (Some(s), Some(patience)) = (&signals, limit) {
        // A write that waits for a reader also waits for a stop signal,
        // and after one it waits at most one deadline for the reader.
        sink.set_watch(Some(Watch {
            wake: s.wake_fd(),
            stopping: signals::stop_requested,
            patience,
        }));
    }
    let mut buf = Vec::with_capacity(4096);
    let start = Instant::now();
    let end_by = schedule
        .deadline
        .and_then(|d| start.checked_add(d))
        .and_then(|t| t.checked_add(LAST_SAMPLE_GRACE));
    let mut tick: u64 = 0;
    let mut taken: u64 = 0;
    let end = loop {
        if trace {
            trace_start(start, schedule.interval, taken, tick);
        }
        buf.clear();
        let this = match (schedule.interval, limit) {
            (Some(iv), Some(limit)) => {
                let due = tick_time(start, iv, tick).unwrap_or(start);
                let mut deadline = due.checked_add(limit).unwrap_or(due);
                if let Some(end_by) = end_by {
                    deadline = deadline.min(end_by);
                }
                Tick { due, deadline }
            }
            _ => Tick::now(),
        };
        let flow = samples.sample(&this, &mut buf)?;
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
            Wake::OutputClosed => {
                sink.set_watch(None);
                return Ok(End::OutputClosed);
            }
        }
    };
    // The signal pipe closes with `signals`; what is written after the
    // loop (its end, a summary) still gives up on a reader that does not
    // read for one deadline once a stop was asked.
    sink.set_watch(limit.map(|patience| Watch {
        wake: None,
        stopping: signals::stop_requested,
        patience,
    }));
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
