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

/// Format a time as `YYYY/MM/DD HH:MM:SS.mmm` in the local time zone.
pub fn format_timestamp(t: SystemTime) -> String {
    let d = t.duration_since(UNIX_EPOCH).unwrap_or_default();
    let secs = d.as_secs() as libc::time_t;
    let millis = d.subsec_millis();
    // SAFETY: localtime_r only writes into the struct we hand it.
    let tm = unsafe {
        let mut tm: libc::tm = std::mem::zeroed();
        if libc::localtime_r(&secs, &mut tm).is_null() {
            return String::from("1970/01/01 00:00:00.000");
        }
        tm
    };
    format!(
        "{:04}/{:02}/{:02} {:02}:{:02}:{:02}.{:03}",
        tm.tm_year + 1900,
        tm.tm_mon + 1,
        tm.tm_mday,
        tm.tm_hour,
        tm.tm_min,
        tm.tm_sec,
        millis
    )
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

    #[test]
    fn shape() {
        assert!(is_timestamp(&timestamp_now()));
        assert!(is_timestamp("2026/06/24 10:26:34.977"));
        assert!(!is_timestamp("2026-06-24 10:26:34.977"));
    }
}
