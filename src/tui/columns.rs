//! The process table's columns, declared once: header, width, whether the
//! compact layout shows it, how a cell reads and how it sorts.

use crate::model::top::ProcSnap;
use std::cmp::Ordering;

/// A process whose memory is rising steadily.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Leak {
    /// Bytes per second.
    pub rate: f64,
    /// At this rate, seconds until its GPU's memory is full.
    pub gpu_full_s: Option<f64>,
}

/// A process as the table shows it.
pub struct ProcRow<'a> {
    pub p: &'a ProcSnap,
    pub leak: Option<Leak>,
}

/// What a column sorts by.
pub enum SortKey {
    Num(Option<f64>),
    Text(String),
}

impl SortKey {
    /// Ascending order; an unknown number sorts after every known one.
    pub fn order(&self, other: &Self) -> Ordering {
        match (self, other) {
            (SortKey::Num(a), SortKey::Num(b)) => match (a, b) {
                (Some(a), Some(b)) => a.total_cmp(b),
                (Some(_), None) => Ordering::Less,
                (None, Some(_)) => Ordering::Greater,
                (None, None) => Ordering::Equal,
            },
            (SortKey::Text(a), SortKey::Text(b)) => a.cmp(b),
            (SortKey::Num(_), SortKey::Text(_)) => Ordering::Less,
            (SortKey::Text(_), SortKey::Num(_)) => Ordering::Greater,
        }
    }
}

pub struct ProcColumn {
    /// The name `s` shows in the status line.
    pub name: &'static str,
    pub head: &'static str,
    /// Characters; 0: whatever is left (the command).
    pub width: u16,
    pub right: bool,
    /// Shown on a narrow terminal (under [`WIDE_FROM`] columns).
    pub compact: bool,
    /// Sorts by number (first sort is largest first).
    pub numeric: bool,
    pub text: fn(&ProcRow<'_>) -> String,
    pub key: fn(&ProcRow<'_>) -> SortKey,
}

/// The width from which the wide layout is used.
pub const WIDE_FROM: u16 = 120;

fn num(v: Option<f64>) -> SortKey {
    SortKey::Num(v)
}

fn opt_bytes(v: Option<u64>) -> String {
    v.map_or_else(|| "-".into(), |b| bytes(b as f64))
}

fn pct(v: Option<f64>) -> String {
    v.map_or_else(|| "-".into(), |p| format!("{p:.0}"))
}

#[rustfmt::skip]
pub const COLUMNS: &[ProcColumn] = &[
    ProcColumn { name: "gpu", head: "GPU", width: 3, right: true, compact: true, numeric: false,
        text: |r| r.p.gpu.to_string(), key: |r| num(Some(f64::from(r.p.gpu))) },
    ProcColumn { name: "pid", head: "PID", width: 7, right: true, compact: true, numeric: false,
        text: |r| r.p.pid.to_string(), key: |r| num(Some(f64::from(r.p.pid))) },
    ProcColumn { name: "user", head: "USER", width: 8, right: false, compact: true, numeric: false,
        text: |r| r.p.user.clone().unwrap_or_else(|| "-".into()),
        key: |r| SortKey::Text(r.p.user.clone().unwrap_or_default()) },
    ProcColumn { name: "type", head: "TYPE", width: 4, right: false, compact: true, numeric: false,
        text: |r| r.p.kind.clone(), key: |r| SortKey::Text(r.p.kind.clone()) },
    ProcColumn { name: "gpu_mem", head: "GPU-MEM", width: 7, right: true, compact: true, numeric: true,
        text: |r| opt_bytes(r.p.gpu_mem), key: |r| num(r.p.gpu_mem.map(|b| b as f64)) },
    ProcColumn { name: "sm", head: "SM%", width: 4, right: true, compact: true, numeric: true,
        text: |r| pct(r.p.sm), key: |r| num(r.p.sm) },
    ProcColumn { name: "enc", head: "ENC%", width: 4, right: true, compact: false, numeric: true,
        text: |r| pct(r.p.enc), key: |r| num(r.p.enc) },
    ProcColumn { name: "dec", head: "DEC%", width: 4, right: true, compact: false, numeric: true,
        text: |r| pct(r.p.dec), key: |r| num(r.p.dec) },
    ProcColumn { name: "cpu", head: "CPU%", width: 5, right: true, compact: true, numeric: true,
        text: |r| r.p.cpu_pct.map_or_else(|| "-".into(), |c| format!("{c:.1}")), key: |r| num(r.p.cpu_pct) },
    ProcColumn { name: "host_mem", head: "HOST-MEM", width: 8, right: true, compact: false, numeric: true,
        text: |r| opt_bytes(r.p.host_mem), key: |r| num(r.p.host_mem.map(|b| b as f64)) },
    ProcColumn { name: "container", head: "CONTAINER", width: 12, right: false, compact: false, numeric: false,
        text: |r| r.p.container.clone().unwrap_or_else(|| "-".into()),
        key: |r| SortKey::Text(r.p.container.clone().unwrap_or_default()) },
    ProcColumn { name: "trend", head: "LEAK", width: 13, right: false, compact: true, numeric: true,
        text: |r| r.leak.map(leak_text).unwrap_or_default(), key: |r| num(r.leak.map(|l| l.rate)) },
    ProcColumn { name: "command", head: "COMMAND", width: 0, right: false, compact: true, numeric: false,
        text: |r| r.p.command.clone(), key: |r| SortKey::Text(r.p.command.clone()) },
];

/// `▲+12M/s 6m`: the rate, and the GPU's time to full at that rate.
pub fn leak_text(l: Leak) -> String {
    let full = l
        .gpu_full_s
        .map(|s| format!(" {}", duration(s)))
        .unwrap_or_default();
    format!("▲+{}/s{full}", bytes(l.rate))
}

/// Bytes with a binary unit, short: `512B`, `12K`, `1.5G`, `80G`.
pub fn bytes(b: f64) -> String {
    const UNITS: [&str; 6] = ["B", "K", "M", "G", "T", "P"];
    let mut v = b.max(0.0);
    let mut u = 0;
    while v >= 1024.0 && u + 1 < UNITS.len() {
        v /= 1024.0;
        u += 1;
    }
    if u > 0 && v < 9.95 {
        format!("{v:.1}{}", UNITS[u])
    } else {
        format!("{v:.0}{}", UNITS[u])
    }
}

/// Seconds, short: `45s`, `6m`, `2.5h`, `3d`.
pub fn duration(s: f64) -> String {
    let s = s.max(0.0);
    if s < 60.0 {
        format!("{s:.0}s")
    } else if s < 3600.0 {
        format!("{:.0}m", s / 60.0)
    } else if s < 86400.0 {
        format!("{:.1}h", s / 3600.0)
    } else {
        format!("{:.0}d", s / 86400.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_numbers() {
        assert_eq!(bytes(512.0), "512B");
        assert_eq!(bytes(1536.0 * 1024.0 * 1024.0), "1.5G");
        assert_eq!(bytes(80.0 * 1024.0 * 1024.0 * 1024.0), "80G");
        assert_eq!(duration(45.0), "45s");
        assert_eq!(duration(360.0), "6m");
        assert_eq!(duration(9000.0), "2.5h");
        let l = Leak {
            rate: 12.0 * 1024.0 * 1024.0,
            gpu_full_s: Some(360.0),
        };
        assert_eq!(leak_text(l), "▲+12M/s 6m");
    }

    #[test]
    fn unknown_numbers_sort_last_and_names_are_unique() {
        assert_eq!(num(Some(1.0)).order(&num(None)), Ordering::Less);
        assert_eq!(num(Some(1.0)).order(&num(Some(2.0))), Ordering::Less);
        let mut names: Vec<_> = COLUMNS.iter().map(|c| c.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), COLUMNS.len());
        assert_eq!(COLUMNS.iter().filter(|c| c.width == 0).count(), 1);
    }
}
