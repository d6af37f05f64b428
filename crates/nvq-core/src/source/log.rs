//! Reading back a log nvq wrote with `-f`: CSV (with or without units, with or
//! without the header's units) or NDJSON. Text in, [`Log`] out; no I/O.
//!
//! What is refused, each with a message that says where: an empty log, a
//! log without a `timestamp` column, a last line cut short (no final
//! newline: nvq writes whole lines), lines of another format than the first
//! (JSON in a CSV log or the reverse), a row whose cells do not match the
//! header, a timestamp nvq would not write, a line longer than [`MAX_LINE`]
//! (so that a file without newlines, `/dev/zero`, ends at once). A CSV log ends
//! at its first empty line (what follows is `--summary`'s table); a repeated
//! header (a log appended to by several runs) is skipped. A number beyond
//! ±[`MAX_NUMBER`] is read as a missing cell and counted
//! ([`LogHead::beyond`]): nvq writes none, and a picture cannot hold one.
//!
//! A row's time is seconds since 1970 (UTC), so that logs of several
//! machines line up: an NDJSON object's `timestamp.epoch` where it has one
//! (`nvq run --log` writes only that), else its `timestamp` read in this
//! machine's time zone, as a CSV log's `timestamp` is.
//!
//! Both formats are read line by line: what is held is one line and the
//! texts seen (each once), never the log.

use crate::model::log::{quoted, Log, LogCell, LogColumn, LogFormat, LogHead, LogRow};
use crate::model::{Fact, Unit};
use crate::source::QueryMode;
use std::collections::HashMap;
use std::io::{BufRead, Read};

/// Which columns to read, given the header's names (CSV): a column not kept is read as [`LogCell::Missing`]
/// without looking at its cells.
pub type Keep<'k> = &'k dyn Fn(&[String]) -> Vec<bool>;

/// What is done with each row as it is read: given the log's head (its columns and texts so far), the row's
/// time and its cells, one per column.
pub type OnRow<'r> = &'r mut dyn FnMut(&LogHead, f64, &[LogCell]);

/// The longest line read (1 MiB): nvq's lines are a few KiB at most (every `--query-gpu` field in one row).
pub const MAX_LINE: usize = 1 << 20;

/// The largest magnitude of a number read (10^15, in the log's unit): nvq writes none larger (a PiB in bytes,
/// a counter of years in mJ), and an axis over one near f64's largest cannot be drawn.
pub const MAX_NUMBER: f64 = 1e15;

/// Each distinct text once. A log names the same few GPUs and processes over and over: the texts are looked
/// through in turn while they are few, hashed when many.
#[derive(Default)]
struct Texts {
    ids: HashMap<String, u32>,
}

impl Texts {
    const FEW: usize = 32;

    fn id(&mut self, texts: &mut Vec<String>, s: &str) -> u32 {
        if texts.len() <= Self::FEW {
            if let Some(at) = texts.iter().position(|t| t == s) {
                return u32::try_from(at).unwrap_or(u32::MAX);
            }
        } else if let Some(&id) = self.ids.get(s) {
            return id;
        }
        let id = u32::try_from(texts.len()).unwrap_or(u32::MAX);
        texts.push(s.to_string());
        if texts.len() == Self::FEW + 1 {
            self.ids = texts.iter().cloned().zip(0..).collect();
        } else if texts.len() > Self::FEW + 1 {
            self.ids.insert(s.to_string(), id);
        }
        id
    }
}

/// What is wrong with a log, and where (1-based line), for messages.
#[derive(Debug, Clone, PartialEq)]
pub struct LogError {
    /// The 1-based line the problem is on (0: the log as a whole, e.g. empty).
    pub line: usize,
    /// What is wrong, for the user.
    pub message: String,
}

fn fail<T>(line: usize, message: impl Into<String>) -> Result<T, LogError> {
    Err(LogError {
        line,
        message: message.into(),
    })
}

/// Parse a whole log, keeping every column; an error says why and on which line.
pub fn parse(text: &str) -> Result<Log, LogError> {
    parse_only(text, &|names| vec![true; names.len()])
}

/// [`parse`], reading only the columns `keep` picks (of a CSV log; an NDJSON log is read whole).
pub fn parse_only(text: &str, keep: Keep<'_>) -> Result<Log, LogError> {
    let mut rows = Vec::new();
    let head = read(&mut text.as_bytes(), keep, &mut |_, t, cells| {
        rows.push(LogRow {
            t,
            cells: cells.to_vec(),
        })
    })?;
    for r in &mut rows {
        r.cells.resize(head.columns.len(), LogCell::Missing);
    }
    Ok(Log { head, rows })
}

/// The lines of a log, read one at a time into one buffer: each whole (ending in a newline), as text.
struct Lines<'i> {
    input: &'i mut dyn BufRead,
    buf: Vec<u8>,
    /// Lines read so far (the number of the one in `buf`, 1-based).
    n: usize,
    /// Whether a line other than blanks was seen.
    seen: bool,
}

impl Lines<'_> {
    /// The next line's number (1-based) and text without its line end; None at the end of the log.
    fn next(&mut self) -> Result<Option<(usize, &str)>, LogError> {
        self.buf.clear();
        let got = (&mut *self.input)
            .take(MAX_LINE as u64 + 1)
            .read_until(b'\n', &mut self.buf)
            .or_else(|e| fail(0, format!("cannot read it: {e}")))?;
        if got == 0 {
            return Ok(None);
        }
        self.n += 1;
        if got > MAX_LINE && self.buf.last() != Some(&b'\n') {
            return fail(
                self.n,
                "this line is longer than 1 MiB (nvq's lines are a few KiB): the file is not a log nvq wrote",
            );
        }
        let Ok(line) = std::str::from_utf8(&self.buf) else {
            return fail(
                self.n,
                "this line is not UTF-8 text: the file is not a log nvq wrote",
            );
        };
        let blank = line.trim().is_empty();
        if (self.seen || !blank) && !line.ends_with('\n') {
            return fail(self.n, "the last line is cut short (no newline at its end): was the log copied while nvq wrote it?");
        }
        self.seen |= !blank;
        let line = line.strip_suffix('\n').unwrap_or(line);
        Ok(Some((self.n, line.strip_suffix('\r').unwrap_or(line))))
    }

    /// Read the rest, only to see that it ends with a newline (CSV's `--summary` table after the samples).
    fn skip_rest(&mut self) -> Result<(), LogError> {
        while self.next()?.is_some() {}
        Ok(())
    }
}

/// Read a log line by line from `input`, handing each row to `row` as it comes (the cells in a buffer used
/// again for the next row): a log is never held whole, only its texts, each once. An NDJSON log's columns are
/// its objects' keys in the order they first come: a key first met in a later object adds a column, and the rows
/// from there on have one more cell (the rows before it had it missing).
/// Returns the log's head; an error says why and on which line, and ends the reading there.
pub fn read(input: &mut dyn BufRead, keep: Keep<'_>, row: OnRow<'_>) -> Result<LogHead, LogError> {
    let mut lines = Lines {
        input,
        buf: Vec::with_capacity(256),
        n: 0,
        seen: false,
    };
    let first = loop {
        match lines.next()? {
            None => return fail(0, "the log is empty: there is nothing to draw"),
            Some((_, l)) if l.trim().is_empty() => continue,
            Some((n, l)) => break (n, l.to_string()),
        }
    };
    if first.1.trim_start().starts_with('{') {
        ndjson(&mut lines, first, row)
    } else {
        csv(&mut lines, first, keep, row)
    }
}

/// The unit of a field nvq knows, by name (for NDJSON, whose numbers carry none).
fn field_unit(name: &str) -> (Option<String>, f64) {
    for mode in QueryMode::ALL {
        if let Some(f) = mode
            .lookup(name)
            .and_then(|i| mode.fields().get(i).copied())
        {
            return (f.unit.map(str::to_string), f.measure().1);
        }
    }
    (None, 1.0)
}

fn unit_scale(unit: &str) -> f64 {
    Unit::find(unit).map_or(1.0, |u| u.in_base)
}

/// A CSV line's cells: the text between `", "`s, as `str::split(", ")` gives them, found byte by byte.
fn cells(line: &str) -> impl Iterator<Item = &str> {
    let mut rest = Some(line);
    std::iter::from_fn(move || {
        let s = rest?;
        let b = s.as_bytes();
        let mut i = 0;
        while let Some(at) = b.get(i..).and_then(|t| t.iter().position(|&c| c == b',')) {
            let at = i + at;
            if b.get(at + 1) == Some(&b' ') {
                rest = s.get(at + 2..);
                return s.get(..at);
            }
            i = at + 1;
        }
        rest = None;
        Some(s)
    })
}

fn csv(
    lines: &mut Lines<'_>,
    (hn, header): (usize, String),
    keep: Keep<'_>,
    row: OnRow<'_>,
) -> Result<LogHead, LogError> {
    let columns: Vec<LogColumn> = header
        .split(", ")
        .map(|h| {
            let h = h.trim();
            match h.strip_suffix(']').and_then(|s| s.rsplit_once(" [")) {
                Some((name, unit)) => LogColumn {
                    name: name.to_string(),
                    unit: Some(unit.to_string()),
                    scale: unit_scale(unit),
                },
                None => LogColumn {
                    name: h.to_string(),
                    unit: None,
                    scale: 1.0,
                },
            }
        })
        .collect();
    if columns
        .iter()
        .any(|c| c.name.is_empty() || c.name.contains(['{', '"']))
    {
        return fail(hn, "the first line is not the header of a CSV log nvq wrote (--format=csv, with its header)");
    }
    let Some(ts) = columns
        .iter()
        .position(|c| c.name == Fact::Timestamp.name())
    else {
        return fail(
            hn,
            "the log has no timestamp column: log with --query-gpu=timestamp,... (or use --format=ndjson, which always \
             has one)",
        );
    };
    let names: Vec<String> = columns.iter().map(|c| c.name.clone()).collect();
    let mut kept = keep(&names);
    kept.resize(columns.len(), false);
    let mut head = LogHead {
        format: LogFormat::Csv,
        columns,
        start: String::new(),
        texts: Vec::new(),
        beyond: 0,
    };
    let mut texts = Texts::default();
    let mut rows = 0usize;
    let zone = jiff::tz::TimeZone::system();
    let mut out: Vec<LogCell> = Vec::with_capacity(head.columns.len());
    // The rows of a sample share its timestamp: it is read once.
    let mut last_ts: (String, f64) = (String::new(), 0.0);
    while let Some((n, line)) = lines.next()? {
        if line.trim().is_empty() {
            lines.skip_rest()?;
            break;
        }
        if line == header {
            continue;
        }
        if line.trim_start().starts_with('{') {
            return fail(
                n,
                "this line is JSON, but the log began as CSV: one log, one format",
            );
        }
        out.clear();
        let mut stamp = None;
        for (k, c) in cells(line).enumerate() {
            if k == ts {
                // The row's time, not a text to keep (each row has its own).
                stamp = Some(c);
                out.push(LogCell::Missing);
                continue;
            }
            out.push(match (head.columns.get(k), kept.get(k)) {
                (Some(col), Some(true)) => {
                    csv_cell(c, col, &mut texts, &mut head.texts, &mut head.beyond)
                }
                _ => LogCell::Missing,
            });
        }
        if out.len() != head.columns.len() {
            return fail(
                n,
                format!(
                    "this row has {} cells where the header has {} columns",
                    out.len(),
                    head.columns.len()
                ),
            );
        }
        let stamp = stamp.unwrap_or("");
        let t = if rows > 0 && stamp == last_ts.0 {
            last_ts.1
        } else {
            let Some(t) = parse_timestamp(stamp) else {
                return fail(
                    n,
                    format!(
                        "{} is not a timestamp as nvq writes it (2026/12/01 20:11:08.691)",
                        quoted(stamp)
                    ),
                );
            };
            let t = in_zone(t, &zone);
            last_ts.0.clear();
            last_ts.0.push_str(stamp);
            last_ts.1 = t;
            t
        };
        if head.start.is_empty() {
            head.start = stamp.trim().to_string();
        }
        rows += 1;
        row(&head, t, &out);
    }
    finish(head, rows, hn + 1)
}

fn csv_cell(
    c: &str,
    col: &LogColumn,
    texts: &mut Texts,
    all: &mut Vec<String>,
    beyond: &mut usize,
) -> LogCell {
    let c = c.trim();
    if c.is_empty() || c.starts_with('[') || c == "N/A" {
        return LogCell::Missing;
    }
    let bare = match &col.unit {
        Some(u) => c.strip_suffix(u.as_str()).map_or(c, str::trim_end),
        None => c,
    };
    match number(bare) {
        Some(v) => num_cell(v, col.scale, beyond),
        None => LogCell::Text(texts.id(all, c)),
    }
}

/// A number read, in base units; one beyond ±[`MAX_NUMBER`] is missing, and counted.
fn num_cell(v: f64, scale: f64, beyond: &mut usize) -> LogCell {
    if v.abs() <= MAX_NUMBER {
        LogCell::Num(v * scale)
    } else {
        *beyond += 1;
        LogCell::Missing
    }
}

/// A cell's number as `str::parse::<f64>` reads it (finite only); whole numbers of up to 15 digits, the most
/// common cells, without the general parser (they are exact as f64, so the result is the same).
fn number(s: &str) -> Option<f64> {
    let b = s.as_bytes();
    if !b.is_empty() && b.len() <= 15 && b.iter().all(u8::is_ascii_digit) {
        return Some(b.iter().fold(0u64, |n, d| n * 10 + u64::from(d - b'0')) as f64);
    }
    s.parse::<f64>().ok().filter(|v| v.is_finite())
}

fn ndjson(
    lines: &mut Lines<'_>,
    first: (usize, String),
    row: OnRow<'_>,
) -> Result<LogHead, LogError> {
    let mut head = LogHead {
        format: LogFormat::Ndjson,
        columns: Vec::new(),
        start: String::new(),
        texts: Vec::new(),
        beyond: 0,
    };
    // The columns by name (a log may have thousands), the texts by value.
    let mut index: HashMap<String, usize> = HashMap::new();
    let mut texts = Texts::default();
    let mut cells: Vec<LogCell> = Vec::new();
    let mut rows = 0usize;
    let zone = jiff::tz::TimeZone::system();
    let (n, text) = first;
    let mut line = Some((n, text.as_str()));
    while let Some((n, text)) = line.take() {
        if !text.trim().is_empty() {
            let obj = ndjson_object(text, n)?;
            let (t, ts) = object_time(&obj, n, &zone)?;
            if head.start.is_empty() {
                head.start = ts;
            }
            cells.fill(LogCell::Missing);
            for (k, v) in obj {
                if k.starts_with('_') {
                    continue;
                }
                let is_time = k == Fact::Timestamp.name() || k == EPOCH.name();
                let i = match index.get(&k) {
                    Some(&i) => i,
                    None => {
                        let (unit, scale) = field_unit(&k);
                        head.columns.push(LogColumn {
                            name: k.clone(),
                            unit,
                            scale,
                        });
                        cells.push(LogCell::Missing);
                        index.insert(k, head.columns.len() - 1);
                        head.columns.len() - 1
                    }
                };
                let scale = head.columns.get(i).map_or(1.0, |c| c.scale);
                let cell = match v {
                    // The row's time, not a text to keep (each row has its own).
                    _ if is_time => LogCell::Missing,
                    serde_json::Value::Number(x) => x
                        .as_f64()
                        .map_or(LogCell::Missing, |x| num_cell(x, scale, &mut head.beyond)),
                    serde_json::Value::String(s) => LogCell::Text(texts.id(&mut head.texts, &s)),
                    serde_json::Value::Bool(b) => {
                        LogCell::Text(texts.id(&mut head.texts, if b { "true" } else { "false" }))
                    }
                    _ => LogCell::Missing,
                };
                if let Some(c) = cells.get_mut(i) {
                    *c = cell;
                }
            }
            rows += 1;
            row(&head, t, &cells);
        }
        line = lines.next()?;
    }
    finish(head, rows, 1)
}

/// The time as a number of seconds since 1970 (UTC) (`timestamp.epoch`), which nvq's NDJSON writes beside
/// `timestamp` and `nvq run --log` writes alone.
const EPOCH: Fact = Fact::TimestampEpoch;

/// The latest time read (the end of the year 9999, as `timestamp`'s four-digit years).
const LAST_EPOCH: f64 = 253_402_300_799.0;

/// An NDJSON object's time, as seconds since 1970 (UTC): its `timestamp.epoch` where it has one (so that logs of
/// several machines line up), else its `timestamp` read in this machine's time zone; and the time as text for the
/// axis (its `timestamp`, else the epoch in local time).
fn object_time(
    obj: &serde_json::Map<String, serde_json::Value>,
    n: usize,
    zone: &jiff::tz::TimeZone,
) -> Result<(f64, String), LogError> {
    let text = obj.get(Fact::Timestamp.name()).and_then(|v| v.as_str());
    match obj.get(EPOCH.name()) {
        Some(v) => {
            let Some(t) = v.as_f64().filter(|t| (0.0..=LAST_EPOCH).contains(t)) else {
                return fail(
                    n,
                    format!(
                        "its \"{}\" is not a time in seconds since 1970 as nvq writes it",
                        EPOCH.name()
                    ),
                );
            };
            let shown = match text {
                Some(ts) => ts.to_string(),
                None => crate::source::time::format_timestamp(
                    std::time::UNIX_EPOCH + std::time::Duration::from_secs_f64(t),
                ),
            };
            Ok((t, shown))
        }
        None => {
            let Some(ts) = text else {
                return fail(
                    n,
                    "this object has no \"timestamp\" (nvq's NDJSON always writes one)",
                );
            };
            let Some(t) = parse_timestamp(ts) else {
                return fail(
                    n,
                    format!(
                        "{} is not a timestamp as nvq writes it (2026/12/01 20:11:08.691)",
                        quoted(ts)
                    ),
                );
            };
            Ok((in_zone(t, zone), ts.to_string()))
        }
    }
}

/// A time read as UTC ([`parse_timestamp`]) that was local time in `zone`, as seconds since 1970 (UTC).
fn in_zone(t: f64, zone: &jiff::tz::TimeZone) -> f64 {
    let offset =
        jiff::Timestamp::from_second(t as i64).map_or(0, |at| zone.to_offset(at).seconds());
    t - f64::from(offset)
}

/// One NDJSON line as an object, or why it is not one.
fn ndjson_object(
    line: &str,
    n: usize,
) -> Result<serde_json::Map<String, serde_json::Value>, LogError> {
    match serde_json::from_str(line) {
        Ok(serde_json::Value::Object(o)) => Ok(o),
        _ if !line.trim_start().starts_with('{') => fail(
            n,
            "this line is not JSON, but the log began as NDJSON: one log, one format",
        ),
        _ => fail(n, "this line is not a whole JSON object"),
    }
}

fn finish(head: LogHead, rows: usize, line: usize) -> Result<LogHead, LogError> {
    if rows == 0 {
        return fail(
            line,
            "the log has a header but no rows: there is nothing to draw",
        );
    }
    Ok(head)
}

/// `2026/12/01 20:11:08.691` (nvidia-smi's timestamp) as seconds since the epoch, read as UTC.
pub fn parse_timestamp(s: &str) -> Option<f64> {
    let (date, time) = s.trim().split_once(' ')?;
    let mut d = date.split('/').map(|x| x.parse::<i64>().ok());
    let (y, m, day) = (d.next()??, d.next()??, d.next()??);
    // Years of four digits, as nvq writes them (and no overflow below).
    if d.next().is_some()
        || !(0..=9999).contains(&y)
        || !(1..=12).contains(&m)
        || !(1..=31).contains(&day)
    {
        return None;
    }
    let mut t = time.split(':');
    let (h, mi, sec) = (
        t.next()?.parse::<i64>().ok()?,
        t.next()?.parse::<i64>().ok()?,
        t.next()?.parse::<f64>().ok()?,
    );
    if t.next().is_some()
        || !(0..24).contains(&h)
        || !(0..60).contains(&mi)
        || !(0.0..61.0).contains(&sec)
    {
        return None;
    }
    // Days from the civil date (Howard Hinnant's algorithm).
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    Some((days * 86_400 + h * 3600 + mi * 60) as f64 + sec)
}

#[cfg(test)]
mod tests {
    use super::*;

    const MIB: f64 = 1048576.0;

    #[test]
    fn timestamps_read_as_utc_seconds() {
        assert_eq!(parse_timestamp("1970/01/01 00:00:00.000"), Some(0.0));
        assert_eq!(
            parse_timestamp("2026/12/01 20:11:08.500"),
            Some(1_796_155_868.5)
        );
        assert_eq!(parse_timestamp("2026/13/01 20:11:08"), None);
        assert_eq!(parse_timestamp("yesterday"), None);
    }

    #[test]
    fn csv_with_and_without_units() {
        let with = "timestamp, index, memory.used [MiB], name\n2026/12/01 20:11:08.691, 0, 20480 MiB, H100\n\
                    2026/12/01 20:11:09.691, 0, [N/A], H100\n";
        let log = parse(with).unwrap();
        assert_eq!(log.head.format, LogFormat::Csv);
        assert_eq!(log.rows[0].cells[2], LogCell::Num(20480.0 * MIB));
        assert_eq!(log.rows[1].cells[2], LogCell::Missing);
        let LogCell::Text(h100) = log.rows[0].cells[3] else {
            panic!("{:?}", log.rows[0].cells[3]);
        };
        assert_eq!(log.head.text(h100), "H100");
        assert_eq!(log.rows[1].cells[3], LogCell::Text(h100));
        // A column not kept is not read.
        let only = parse_only(with, &|names| names.iter().map(|n| n != "name").collect()).unwrap();
        assert_eq!(only.rows[0].cells[3], LogCell::Missing);
        assert_eq!(only.rows[0].cells[2], LogCell::Num(20480.0 * MIB));
        assert_eq!(log.rows[1].t - log.rows[0].t, 1.0);
        let without = with.replace(" MiB,", ",");
        assert_eq!(
            parse(&without).unwrap().rows[0].cells[2],
            LogCell::Num(20480.0 * MIB)
        );
        // --summary's table after an empty line is not part of the samples.
        let summary = format!("{with}\ngpu, statistic, memory.used [MiB]\n0, min, 1 MiB\n");
        assert_eq!(parse(&summary).unwrap().rows.len(), 2);
    }

    #[test]
    fn ndjson_takes_units_from_the_field_table() {
        let log = parse("{\"timestamp\":\"2026/12/01 20:11:08.691\",\"index\":0,\"memory.used\":20480,\"x\":null}\n")
            .unwrap();
        let k = log.head.column("memory.used").unwrap();
        assert_eq!(log.head.columns[k].unit.as_deref(), Some("MiB"));
        assert_eq!(log.rows[0].cells[k], LogCell::Num(20480.0 * MIB));
        assert_eq!(
            log.rows[0].cells[log.head.column("x").unwrap()],
            LogCell::Missing
        );
    }

    /// `nvq run --log` writes `timestamp.epoch` alone: its rows are timed by it, the axis named by it in local
    /// time; where both are written the epoch times the row; an epoch that is no time is refused.
    #[test]
    fn ndjson_rows_are_timed_by_their_epoch() {
        let run = "{\"timestamp.epoch\":1796610093.5,\"gpu_index\":0,\"pid\":null,\"memory.used\":3072}\n\
                   {\"timestamp.epoch\":1796610093.75,\"gpu_index\":0,\"pid\":7,\"memory.used\":3072}\n";
        let log = parse(run).unwrap();
        assert_eq!(log.rows[0].t, 1796610093.5);
        assert_eq!(log.rows[1].t, 1796610093.75);
        assert!(
            crate::source::time::is_timestamp(&log.head.start),
            "{}",
            log.head.start
        );
        let k = log.head.column("timestamp.epoch").unwrap();
        assert_eq!(
            log.rows[0].cells[k],
            LogCell::Missing,
            "the time is no number to draw"
        );
        let both = "{\"timestamp\":\"2026/12/01 20:11:08.691\",\"timestamp.epoch\":1796155868.691,\"index\":0}\n";
        let log = parse(both).unwrap();
        assert_eq!(log.rows[0].t, 1796155868.691);
        assert_eq!(log.head.start, "2026/12/01 20:11:08.691");
        for bad in ["-1", "1e300", "\"soon\""] {
            let e = parse(&format!("{{\"timestamp.epoch\":{bad},\"index\":0}}\n")).unwrap_err();
            assert!(e.message.contains("timestamp.epoch"), "{bad}: {e:?}");
        }
    }

    /// The byte-by-byte splitting, the whole-number reading and the texts' numbering give what the general ones do.
    #[test]
    fn cells_numbers_and_texts_read_as_the_general_code_does() {
        for line in [
            "",
            "a",
            "a, b",
            "a,, b",
            "a , b,c, ",
            ", , ,",
            "x,y",
            "1, 2, 3",
            "é, ü,, ",
        ] {
            assert_eq!(
                cells(line).collect::<Vec<_>>(),
                line.split(", ").collect::<Vec<_>>(),
                "{line:?}"
            );
        }
        for s in [
            "0",
            "0012",
            "20480",
            "999999999999999",
            "9999999999999999",
            "1.5",
            "-3",
            "1e3",
            "",
            "inf",
            "x",
        ] {
            assert_eq!(
                number(s),
                s.parse::<f64>().ok().filter(|v| v.is_finite()),
                "{s:?}"
            );
        }
        let (mut texts, mut all) = (Texts::default(), Vec::new());
        let names: Vec<String> = (0..100).map(|i| format!("GPU-{i}")).collect();
        for _ in 0..2 {
            for (i, n) in names.iter().enumerate() {
                assert_eq!(texts.id(&mut all, n), i as u32);
            }
        }
        assert_eq!(all, names);
    }

    /// Rows are handed over as they are read; a bad line ends the reading there, after the rows before it.
    #[test]
    fn rows_stream_until_a_bad_line() {
        let log = "timestamp, index, memory.used [MiB]\n2026/12/01 20:11:08.691, 0, 1 MiB\n\
                   2026/12/01 20:11:09.691, 0, 2 MiB\n2026/12/01 20:11:10.691, 0\n";
        let mut seen = Vec::new();
        let err = read(
            &mut log.as_bytes(),
            &|n| vec![true; n.len()],
            &mut |_, t, c| seen.push((t, c.get(2).cloned())),
        )
        .unwrap_err();
        assert_eq!(err.line, 4);
        assert_eq!(seen.len(), 2);
        assert_eq!(seen[1].1, Some(LogCell::Num(2.0 * MIB)));
        let bytes = b"timestamp, index\n2026/12/01 20:11:08.691, \xff\n";
        assert!(
            read(&mut &bytes[..], &|n| vec![true; n.len()], &mut |_, _, _| {})
                .unwrap_err()
                .message
                .contains("UTF-8")
        );
    }

    /// An NDJSON log is read line by line too: its rows are handed over as they come, a key first met later adds
    /// a column from there on, and a bad line ends the reading after the rows before it.
    #[test]
    fn ndjson_rows_stream_until_a_bad_line() {
        let log = "{\"timestamp\":\"2026/12/01 20:11:08.691\",\"index\":0,\"name\":\"H100\"}\n\
                   {\"timestamp\":\"2026/12/01 20:11:09.691\",\"index\":0,\"name\":\"H100\",\"extra\":2}\n\
                   not json\n";
        let mut seen = Vec::new();
        let err = read(
            &mut log.as_bytes(),
            &|n| vec![true; n.len()],
            &mut |head, _, c| seen.push((head.columns.len(), c.to_vec())),
        )
        .unwrap_err();
        assert_eq!(err.line, 3);
        assert_eq!(seen.len(), 2);
        // The columns in the order of the objects' keys: index, name, timestamp, then extra.
        assert_eq!((seen[0].0, seen[0].1.len()), (3, 3));
        assert_eq!((seen[1].0, seen[1].1.len()), (4, 4));
        assert_eq!(seen[1].1[1], LogCell::Text(0));
        assert_eq!(seen[1].1[3], LogCell::Num(2.0));
    }

    /// Each row's timestamp is its time, not a text kept: a log of a million samples keeps no million texts.
    #[test]
    fn timestamps_are_not_kept_as_texts() {
        let csv = "timestamp, name\n2026/12/01 20:11:08.691, H100\n2026/12/01 20:11:09.691, H100\n";
        let nd = "{\"timestamp\":\"2026/12/01 20:11:08.691\",\"name\":\"H100\"}\n\
                  {\"timestamp\":\"2026/12/01 20:11:09.691\",\"name\":\"H100\"}\n";
        for log in [csv, nd] {
            let log = parse(log).unwrap();
            assert_eq!(log.head.texts, ["H100"]);
            let ts = log.head.column("timestamp").unwrap();
            assert_eq!(log.rows[1].cells[ts], LogCell::Missing);
            assert_eq!(log.rows[1].t - log.rows[0].t, 1.0);
        }
    }

    /// A line longer than [`MAX_LINE`] is refused at its number, also when it never ends; one as long ends well.
    #[test]
    fn a_line_over_a_mebibyte_is_refused() {
        let mut zero = std::io::BufReader::new(std::io::repeat(0));
        let err = read(&mut zero, &|n| vec![true; n.len()], &mut |_, _, _| {}).unwrap_err();
        assert_eq!(err.line, 1);
        assert!(err.message.contains("longer than 1 MiB"), "{err:?}");
        let head = "timestamp, name\n";
        let row = |len: usize| {
            let stamp = "2026/12/01 20:11:08.691, ";
            format!("{stamp}{}\n", "x".repeat(len - stamp.len()))
        };
        let fits = format!("{head}{}", row(MAX_LINE));
        assert!(parse(&fits).is_ok());
        let over = format!("{head}{}{}", row(30), row(MAX_LINE + 1));
        let err = parse(&over).unwrap_err();
        assert_eq!(err.line, 3);
        assert!(err.message.contains("longer than 1 MiB"), "{err:?}");
    }

    /// Numbers beyond ±10^15 (up to f64's largest) are read as missing and counted, in either format; a year
    /// beyond four digits is no timestamp (and no overflow).
    #[test]
    fn numbers_too_large_to_draw_are_missing_and_counted() {
        let csv = "timestamp, memory.used [MiB], utilization.gpu [%]\n\
                   2026/12/01 20:11:08.691, 1e305 MiB, 1.7976931348623157e308 %\n\
                   2026/12/01 20:11:09.691, -1e16 MiB, 1e15 %\n";
        let log = parse(csv).unwrap();
        assert_eq!(log.head.beyond, 3);
        assert_eq!(log.rows[0].cells[1], LogCell::Missing);
        assert_eq!(log.rows[1].cells[2], LogCell::Num(1e15 * 0.01));
        let nd = "{\"timestamp\":\"2026/12/01 20:11:08.691\",\"memory.used\":1e305,\"utilization.gpu\":-1.7e308}\n";
        let log = parse(nd).unwrap();
        assert_eq!(log.head.beyond, 2);
        for name in ["memory.used", "utilization.gpu"] {
            let k = log.head.column(name).unwrap();
            assert_eq!(log.rows[0].cells[k], LogCell::Missing);
        }
        assert_eq!(
            parse_timestamp("9223372036854775807/12/31 23:59:59.000"),
            None
        );
        assert_eq!(parse_timestamp("-9223372036854775808/01/01 00:00:00"), None);
        assert!(parse_timestamp("9999/12/31 23:59:59.999").is_some());
    }

    #[test]
    fn bad_logs_say_what_and_where() {
        let msg = |s: &str| parse(s).unwrap_err();
        assert!(msg("").message.contains("empty"));
        assert!(msg("\n\n").message.contains("empty"));
        assert!(msg("timestamp, index\n2026/12/01 20:11:08.691, 0")
            .message
            .contains("cut short"));
        let mixed = msg("timestamp, index\n2026/12/01 20:11:08.691, 0\n{\"timestamp\":\"x\"}\n");
        assert_eq!(mixed.line, 3);
        assert!(mixed.message.contains("JSON"));
        let mixed = msg("{\"timestamp\":\"2026/12/01 20:11:08.691\"}\ntimestamp, index\n");
        assert!(mixed.message.contains("not JSON"), "{mixed:?}");
        assert!(msg("index, memory.used [MiB]\n0, 1 MiB\n")
            .message
            .contains("no timestamp"));
        assert!(msg("timestamp, index\n2026/12/01 20:11:08.691, 0, 1\n")
            .message
            .contains("3 cells"));
        assert!(msg("timestamp, index\n").message.contains("no rows"));
    }
}
