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
}

/// Sample with `collect`, format with `fmt`, write to `sink`, on `schedule`.
pub fn run(
    schedule: Schedule,
    columns: &[Column],
    fmt: &mut dyn Formatter,
    sink: &mut Sink,
    mut collect: impl FnMut() -> Result<Vec<Row>, NvqError>,
) -> Result<(), NvqError> {
    let mut buf = Vec::with_capacity(4096);
    fmt.begin(columns, &mut buf);
    let start = Instant::now();
    let mut taken: u64 = 0;
    let mut tick: u32 = 0;
    loop {
        let rows = collect()?;
        fmt.sample(columns, &rows, &mut buf);
        sink.write(&buf)?;
        buf.clear();
        taken += 1;
        let Some(interval) = schedule.interval else {
            break;
        };
        if schedule.count.is_some_and(|n| taken >= n) {
            break;
        }
        // Sample k starts at start + k * interval; missed ticks are skipped.
        let now = Instant::now();
        let mut next = start + interval.saturating_mul(tick.saturating_add(1));
        tick = tick.saturating_add(1);
        while next < now {
            tick = tick.saturating_add(1);
            next = start + interval.saturating_mul(tick);
        }
        std::thread::sleep(next - now);
    }
    fmt.finish(columns, &mut buf);
    sink.write(&buf)
}
