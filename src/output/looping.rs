//! Running a query once or in a loop.

use super::Sink;
use crate::error::NvqError;
use crate::format::{Column, Formatter, Row};
use std::time::{Duration, Instant};

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

/// [`run`], with a `collect` that can end the loop after its sample.
pub fn run_with(
    schedule: Schedule,
    columns: &[Column],
    fmt: &mut dyn Formatter,
    sink: &mut Sink,
    mut collect: impl FnMut() -> Result<(Vec<Row>, Flow), NvqError>,
) -> Result<End, NvqError> {
    let mut buf = Vec::with_capacity(4096);
    fmt.begin(columns, &mut buf);
    let start = Instant::now();
    let mut taken: u64 = 0;
    let mut tick: u32 = 0;
    let end = loop {
        let (rows, flow) = collect()?;
        fmt.sample(columns, &rows, &mut buf);
        sink.write(&buf)?;
        buf.clear();
        taken += 1;
        if flow == Flow::Stop {
            break End::Stopped;
        }
        let Some(interval) = schedule.interval else {
            break End::Once;
        };
        if schedule.count.is_some_and(|n| taken >= n) {
            break End::Count;
        }
        // Sample k starts at start + k * interval; missed ticks are skipped.
        let now = Instant::now();
        let mut next = start + interval.saturating_mul(tick.saturating_add(1));
        tick = tick.saturating_add(1);
        while next < now {
            tick = tick.saturating_add(1);
            next = start + interval.saturating_mul(tick);
        }
        if schedule.deadline.is_some_and(|d| next > start + d) {
            break End::Deadline;
        }
        std::thread::sleep(next - now);
    };
    fmt.finish(columns, &mut buf);
    sink.write(&buf)?;
    Ok(end)
}
