//! nvidia-smi's timestamp: `YYYY/MM/DD HH:MM:SS.mmm`, local time.

use std::time::{SystemTime, UNIX_EPOCH};

/// `timestamp.epoch`: seconds since 1970-01-01 UTC, with milliseconds.
pub fn epoch_value(t: SystemTime) -> crate::model::Value {
    let secs = t
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0.0, |d| d.as_millis() as f64 / 1000.0);
    crate::model::Value::Float {
        value: secs,
        decimals: 3,
    }
}

/// The current local time as nvidia-smi's `timestamp` field prints it: `YYYY/MM/DD HH:MM:SS.mmm`.
pub fn timestamp_now() -> String {
    format_timestamp(SystemTime::now())
}

/// `t` in the local time zone (`TZ`, else the system's, as `localtime_r`
/// reads them), to the second; `None` before 1970 or past jiff's range.
pub fn local(t: SystemTime) -> Option<jiff::Zoned> {
    let secs = t.duration_since(UNIX_EPOCH).ok()?.as_secs();
    let ts = jiff::Timestamp::from_second(i64::try_from(secs).ok()?).ok()?;
    Some(ts.to_zoned(jiff::tz::TimeZone::system()))
}

/// Format a time as `YYYY/MM/DD HH:MM:SS.mmm` in the local time zone.
pub fn format_timestamp(t: SystemTime) -> String {
    let millis = t
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default()
        .subsec_millis();
    let Some(z) = local(t) else {
        return String::from("1970/01/01 00:00:00.000");
    };
    format!(
        "{:04}/{:02}/{:02} {:02}:{:02}:{:02}.{:03}",
        z.year(),
        z.month(),
        z.day(),
        z.hour(),
        z.minute(),
        z.second(),
        millis
    )
}

/// The cell of a field known without asking the driver (see
/// [`FieldKind`](crate::model::FieldKind)): the sample time `when` (the
/// `timestamp` text, or `timestamp.epoch`, field `id`), the GPU's index
/// `gpu`, the GPU count `count`; `None` for any other field. A late GPU's
/// row keeps these, and so does a row read from another exporter.
pub fn known_cell(
    kind: crate::model::FieldKind,
    id: crate::model::ColumnId,
    when: SystemTime,
    gpu: u32,
    count: u32,
) -> Option<crate::model::Value> {
    use crate::model::{ColumnId, Fact, FieldKind, Value};
    match kind {
        FieldKind::Timestamp if id == ColumnId::Fact(Fact::TimestampEpoch) => {
            Some(epoch_value(when))
        }
        FieldKind::Timestamp => Some(Value::text(format_timestamp(when))),
        FieldKind::GpuIndex => Some(Value::Int(i64::from(gpu))),
        FieldKind::GpuCount => Some(Value::Int(i64::from(count))),
        _ => None,
    }
}

/// Does `s` have the shape of an nvidia-smi timestamp?
pub fn is_timestamp(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 23
        && b.iter().enumerate().all(|(i, c)| match i {
            4 | 7 => *c == b'/',
            10 => *c == b' ',
            13 | 16 => *c == b':',
            19 => *c == b'.',
            _ => c.is_ascii_digit(),
        })
}

/// The local date and time as `dmon -o DT` and `pmon -o DT` print them:
/// `YYYYMMDD` and `HH:MM:SS`.
pub fn monitor_date_time() -> (String, String) {
    let ts = timestamp_now();
    let date = ts.get(0..10).unwrap_or_default().replace('/', "");
    let time = ts.get(11..19).unwrap_or_default().to_string();
    (date, time)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The fields are the local calendar's, as `localtime_r` gives them:
    /// under `TZ=UTC` (the tests' own zone is whatever the machine has, so
    /// this checks the form and the UTC day of a known instant).
    #[test]
    fn a_known_instant() {
        let t = UNIX_EPOCH + std::time::Duration::from_millis(1_782_296_794_977);
        let z = local(t).unwrap();
        let utc = z.with_time_zone(jiff::tz::TimeZone::UTC);
        assert_eq!((utc.year(), utc.month(), utc.day()), (2026, 6, 24));
        assert_eq!((utc.hour(), utc.minute(), utc.second()), (10, 26, 34));
        assert!(is_timestamp(&format_timestamp(t)));
        assert!(format_timestamp(t).ends_with(".977"));
    }

    #[test]
    fn shape() {
        assert!(is_timestamp(&timestamp_now()));
        assert!(is_timestamp("2026/06/24 10:26:34.977"));
        assert!(!is_timestamp("2026-06-24 10:26:34.977"));
    }
}
