//! Reading back a log nvq wrote with `-f`: CSV (with or without units, with or
//! without the header's units) or NDJSON. Text in, [`Log`] out; no I/O.
//!
//! What is refused, each with a message that says where: an empty log, a
//! log without a `timestamp` column, a last line cut short (no final
//! newline: nvq writes whole lines), lines of another format than the first
//! (JSON in a CSV log or the reverse), a row whose cells do not match the
//! header, a timestamp nvq would not write. A CSV log ends at its first empty
//! line (what follows is `--summary`'s table); a repeated header (a log
//! appended to by several runs) is skipped.

use crate::model::log::{Log, LogCell, LogColumn, LogFormat, LogRow};
use crate::model::Unit;
use crate::source::QueryMode;
use std::collections::HashMap;

/// Which columns to read, given the header's names (CSV): a column not kept is read as [`LogCell::Missing`]
/// without looking at its cells.
pub type Keep<'k> = &'k dyn Fn(&[String]) -> Vec<bool>;

/// Each distinct text once.
#[derive(Default)]
struct Texts<'a> {
    ids: HashMap<&'a str, u32>,
    texts: Vec<String>,
}

impl<'a> Texts<'a> {
    fn id(&mut self, s: &'a str) -> u32 {
        if let Some(&id) = self.ids.get(s) {
            return id;
        }
        let id = u32::try_from(self.texts.len()).unwrap_or(u32::MAX);
        self.texts.push(s.to_string());
        self.ids.insert(s, id);
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
    if text.trim().is_empty() {
        return fail(0, "the log is empty: there is nothing to draw");
    }
    if !text.ends_with('\n') {
        let n = text.lines().count();
        return fail(n, "the last line is cut short (no newline at its end): was the log copied while nvq wrote it?");
    }
    let first = text.lines().position(|l| !l.trim().is_empty()).unwrap_or(0);
    let head = text.lines().nth(first).unwrap_or("").trim_start();
    if head.starts_with('{') {
        ndjson(text)
    } else {
        csv(text, keep)
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

fn csv(text: &str, keep: Keep<'_>) -> Result<Log, LogError> {
    let mut lines = text
        .lines()
        .enumerate()
        .skip_while(|(_, l)| l.trim().is_empty());
    let Some((hn, header)) = lines.next() else {
        return fail(0, "the log is empty: there is nothing to draw");
    };
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
        return fail(hn + 1, "the first line is not the header of a CSV log nvq wrote (--format=csv, with its header)");
    }
    let Some(ts) = columns.iter().position(|c| c.name == "timestamp") else {
        return fail(
            hn + 1,
            "the log has no timestamp column: log with --query-gpu=timestamp,... (or use --format=ndjson, which always \
             has one)",
        );
    };
    let names: Vec<String> = columns.iter().map(|c| c.name.clone()).collect();
    let mut kept = keep(&names);
    kept.resize(columns.len(), false);
    let mut texts = Texts::default();
    let mut rows = Vec::new();
    let mut start = String::new();
    // The rows of a sample share its timestamp: it is read once.
    let mut last_ts: (&str, f64) = ("", 0.0);
    for (n, line) in lines {
        if line.trim().is_empty() {
            break;
        }
        if line == header {
            continue;
        }
        if line.trim_start().starts_with('{') {
            return fail(
                n + 1,
                "this line is JSON, but the log began as CSV: one log, one format",
            );
        }
        let cells: Vec<&str> = line.split(", ").collect();
        if cells.len() != columns.len() {
            return fail(
                n + 1,
                format!(
                    "this row has {} cells where the header has {} columns",
                    cells.len(),
                    columns.len()
                ),
            );
        }
        let t = if cells[ts] == last_ts.0 && n > hn + 1 {
            last_ts.1
        } else {
            let Some(t) = parse_timestamp(cells[ts]) else {
                return fail(
                    n + 1,
                    format!(
                        "\"{}\" is not a timestamp as nvq writes it (2026/12/01 20:11:08.691)",
                        cells[ts]
                    ),
                );
            };
            last_ts = (cells[ts], t);
            t
        };
        if start.is_empty() {
            start = cells[ts].trim().to_string();
        }
        let cells = cells
            .iter()
            .zip(&columns)
            .zip(&kept)
            .map(|((c, col), &k)| match k {
                true => csv_cell(c, col, &mut texts),
                false => LogCell::Missing,
            })
            .collect();
        rows.push(LogRow { t, cells });
    }
    finish(LogFormat::Csv, columns, rows, start, hn + 2, texts.texts)
}

fn csv_cell<'a>(c: &'a str, col: &LogColumn, texts: &mut Texts<'a>) -> LogCell {
    let c = c.trim();
    if c.is_empty() || c.starts_with('[') || c == "N/A" {
        return LogCell::Missing;
    }
    let bare = match &col.unit {
        Some(u) => c.strip_suffix(u.as_str()).map_or(c, str::trim_end),
        None => c,
    };
    match bare.parse::<f64>() {
        Ok(v) if v.is_finite() => LogCell::Num(v * col.scale),
        _ => LogCell::Text(texts.id(c)),
    }
}

fn ndjson(text: &str) -> Result<Log, LogError> {
    let mut columns: Vec<LogColumn> = Vec::new();
    let mut raw: Vec<(f64, Vec<(usize, serde_json::Value)>)> = Vec::new();
    let mut start = String::new();
    for (n, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let obj: serde_json::Map<String, serde_json::Value> = match serde_json::from_str(line) {
            Ok(serde_json::Value::Object(o)) => o,
            _ if !line.trim_start().starts_with('{') => {
                return fail(
                    n + 1,
                    "this line is not JSON, but the log began as NDJSON: one log, one format",
                )
            }
            _ => return fail(n + 1, "this line is not a whole JSON object"),
        };
        let Some(ts) = obj.get("timestamp").and_then(|v| v.as_str()) else {
            return fail(
                n + 1,
                "this object has no \"timestamp\" (nvq's NDJSON always writes one)",
            );
        };
        let Some(t) = parse_timestamp(ts) else {
            return fail(
                n + 1,
                format!("\"{ts}\" is not a timestamp as nvq writes it (2026/12/01 20:11:08.691)"),
            );
        };
        if start.is_empty() {
            start = ts.to_string();
        }
        let mut cells = Vec::with_capacity(obj.len());
        for (k, v) in obj {
            if k.starts_with('_') {
                continue;
            }
            let idx = match columns.iter().position(|c| c.name == k) {
                Some(i) => i,
                None => {
                    let (unit, scale) = field_unit(&k);
                    columns.push(LogColumn {
                        name: k,
                        unit,
                        scale,
                    });
                    columns.len() - 1
                }
            };
            cells.push((idx, v));
        }
        raw.push((t, cells));
    }
    let mut texts = Texts::default();
    let mut owned: Vec<String> = Vec::new();
    let rows = raw
        .into_iter()
        .map(|(t, cells)| {
            let mut row = vec![LogCell::Missing; columns.len()];
            for (i, v) in cells {
                row[i] = match v {
                    serde_json::Value::Number(x) => x
                        .as_f64()
                        .filter(|x| x.is_finite())
                        .map_or(LogCell::Missing, |x| LogCell::Num(x * columns[i].scale)),
                    serde_json::Value::String(s) => LogCell::Text(intern(&mut owned, s)),
                    serde_json::Value::Bool(b) => LogCell::Text(intern(&mut owned, b.to_string())),
                    _ => LogCell::Missing,
                };
            }
            LogRow { t, cells: row }
        })
        .collect();
    texts.texts = owned;
    finish(LogFormat::Ndjson, columns, rows, start, 1, texts.texts)
}

/// The number of `s` among `texts` (added if new; NDJSON logs are small, a linear search does).
fn intern(texts: &mut Vec<String>, s: String) -> u32 {
    let at = match texts.iter().position(|t| *t == s) {
        Some(i) => i,
        None => {
            texts.push(s);
            texts.len() - 1
        }
    };
    u32::try_from(at).unwrap_or(u32::MAX)
}

fn finish(
    format: LogFormat,
    columns: Vec<LogColumn>,
    rows: Vec<LogRow>,
    start: String,
    line: usize,
    texts: Vec<String>,
) -> Result<Log, LogError> {
    if rows.is_empty() {
        return fail(
            line,
            "the log has a header but no rows: there is nothing to draw",
        );
    }
    Ok(Log {
        format,
        columns,
        rows,
        start,
        texts,
    })
}

/// `2026/12/01 20:11:08.691` (nvidia-smi's timestamp) as seconds since the epoch, read as UTC.
pub fn parse_timestamp(s: &str) -> Option<f64> {
    let (date, time) = s.trim().split_once(' ')?;
    let mut d = date.split('/').map(|x| x.parse::<i64>().ok());
    let (y, m, day) = (d.next()??, d.next()??, d.next()??);
    if d.next().is_some() || !(1..=12).contains(&m) || !(1..=31).contains(&day) {
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
        assert_eq!(log.format, LogFormat::Csv);
        assert_eq!(log.rows[0].cells[2], LogCell::Num(20480.0 * MIB));
        assert_eq!(log.rows[1].cells[2], LogCell::Missing);
        let LogCell::Text(h100) = log.rows[0].cells[3] else {
            panic!("{:?}", log.rows[0].cells[3]);
        };
        assert_eq!(log.text(h100), "H100");
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
        let k = log.column("memory.used").unwrap();
        assert_eq!(log.columns[k].unit.as_deref(), Some("MiB"));
        assert_eq!(log.rows[0].cells[k], LogCell::Num(20480.0 * MIB));
        assert_eq!(
            log.rows[0].cells[log.column("x").unwrap()],
            LogCell::Missing
        );
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
