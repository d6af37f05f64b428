//! The process table's columns, declared once: header, width, whether the
//! compact layout shows it, how a cell reads and how it sorts.

use nvq_core::model::top::ProcSnap;
use std::cmp::Ordering;
use std::fmt::{self, Write};

/// A number with `.1` digits after the point: the text of `format!("{:.N}")`
/// (rounded as it rounds), written with integer arithmetic where that gives
/// the same digits. Float formatting with a precision falls back to bignum
/// arithmetic for most values, and a frame formats about a hundred numbers.
#[derive(Clone, Copy)]
pub struct Fixed(pub f64, pub u8);

impl Fixed {
    /// The text, where integer arithmetic gives it: non-negative and small
    /// enough that `v * 10` is within a millionth of its exact value (so no
    /// tie is misread), and not near a tie.
    fn digits<'b>(&self, buf: &'b mut [u8; 24]) -> Option<&'b str> {
        let Fixed(v, digits) = *self;
        if !(v.is_finite() && v.is_sign_positive() && v < 1e8) {
            return None;
        }
        let n = match digits {
            // Rounding to an integer is exact: ties go to even, as `{:.0}`
            // takes them.
            0 => write_digits(buf, v.round_ties_even() as u64),
            1 => {
                let x = v * 10.0;
                // Near a tie, only the exact decimal value decides.
                if (x.fract() - 0.5).abs() <= 1e-6 {
                    return None;
                }
                let r = x.round() as u64;
                let n = write_digits(buf, r / 10);
                if let Some([dot, tenth]) = buf.get_mut(n..n + 2) {
                    *dot = b'.';
                    *tenth = b'0' + (r % 10) as u8;
                }
                n + 2
            }
            _ => return None,
        };
        std::str::from_utf8(buf.get(..n)?).ok()
    }
}

impl fmt::Display for Fixed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Fixed(v, digits) = *self;
        match self.digits(&mut [0; 24]) {
            // A whole number pads as integers do.
            Some(_) if digits == 0 => fmt::Display::fmt(&(v.round_ties_even() as u64), f),
            Some(text) => f.pad(text),
            None => f.pad(&format!("{v:.*}", usize::from(digits))),
        }
    }
}

/// Text written straight into a string (or any `fmt::Write`), without
/// `format!`'s machinery (arguments, padding, nested writers): a frame
/// writes about a hundred numbers.
pub trait Text {
    fn write_to(&self, out: &mut impl Write) -> fmt::Result;
}

/// `Display` for [`Text`] values (what `write_to` writes, padding ignored).
macro_rules! display_as_text {
    ($($t:ty),*) => {$(
        impl std::fmt::Display for $t {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                crate::tui::columns::Text::write_to(self, f)
            }
        }
    )*};
}
pub(crate) use display_as_text;

impl Text for Fixed {
    fn write_to(&self, out: &mut impl Write) -> fmt::Result {
        match self.digits(&mut [0; 24]) {
            Some(text) => out.write_str(text),
            None => write!(out, "{self}"),
        }
    }
}

impl Text for u64 {
    fn write_to(&self, out: &mut impl Write) -> fmt::Result {
        let mut buf = [0; 24];
        let n = write_digits(&mut buf, *self);
        out.write_str(std::str::from_utf8(buf.get(..n).unwrap_or_default()).unwrap_or_default())
    }
}

impl Text for u32 {
    fn write_to(&self, out: &mut impl Write) -> fmt::Result {
        u64::from(*self).write_to(out)
    }
}

impl Text for str {
    fn write_to(&self, out: &mut impl Write) -> fmt::Result {
        out.write_str(self)
    }
}

impl Text for std::borrow::Cow<'_, str> {
    fn write_to(&self, out: &mut impl Write) -> fmt::Result {
        out.write_str(self)
    }
}

impl Text for fmt::Arguments<'_> {
    fn write_to(&self, out: &mut impl Write) -> fmt::Result {
        out.write_fmt(*self)
    }
}

impl<T: Text + ?Sized> Text for &T {
    fn write_to(&self, out: &mut impl Write) -> fmt::Result {
        (**self).write_to(out)
    }
}

/// `n`'s decimal digits at the start of `buf`; how many.
fn write_digits(buf: &mut [u8], mut n: u64) -> usize {
    let mut tmp = [0u8; 20];
    let mut i = tmp.len();
    loop {
        i -= 1;
        tmp[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    let digits = tmp.get(i..).unwrap_or_default();
    if let Some(out) = buf.get_mut(..digits.len()) {
        out.copy_from_slice(digits);
    }
    digits.len()
}

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

/// What a column sorts by (borrowed from the row's process: working out
/// a key allocates nothing).
pub enum SortKey<'a> {
    Num(Option<f64>),
    Text(&'a str),
}

impl SortKey<'_> {
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

/// Which process column: what code names a column by.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProcCol {
    Host,
    Gpu,
    Pid,
    User,
    Type,
    GpuMem,
    Sm,
    Enc,
    Dec,
    Cpu,
    HostMem,
    Container,
    Trend,
    Command,
}

pub struct ProcColumn {
    /// Which column it is.
    pub id: ProcCol,
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
    /// Appends the cell's text to the string (one string serves a frame's
    /// cells: no allocation per cell).
    pub text: fn(&ProcRow<'_>, &mut String),
    pub key: for<'a> fn(&ProcRow<'a>) -> SortKey<'a>,
}

/// The width from which the wide layout is used.
pub const WIDE_FROM: u16 = 120;

fn num(v: Option<f64>) -> SortKey<'static> {
    SortKey::Num(v)
}

impl ProcColumn {
    /// The cell's text, in a string of its own.
    pub fn text_of(&self, r: &ProcRow<'_>) -> String {
        let mut out = String::new();
        (self.text)(r, &mut out);
        out
    }
}

/// Append `v` to `out`.
pub fn put(out: &mut String, v: impl Text) {
    // Writing to a String cannot fail.
    let _ = v.write_to(out);
}

/// A value, or `-` for none.
pub struct Or<T>(pub Option<T>);

impl<T: Text> Text for Or<T> {
    fn write_to(&self, out: &mut impl Write) -> fmt::Result {
        match &self.0 {
            Some(v) => v.write_to(out),
            None => out.write_str("-"),
        }
    }
}

impl<T: Text> fmt::Display for Or<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.write_to(f)
    }
}

fn opt_bytes(out: &mut String, v: Option<u64>) {
    put(out, Or(v.map(|b| Bytes(b as f64))));
}

fn pct(out: &mut String, v: Option<f64>) {
    put(out, Or(v.map(|p| Fixed(p, 0))));
}

fn text(out: &mut String, v: Option<&str>) {
    out.push_str(v.unwrap_or("-"));
}

#[rustfmt::skip]
pub const COLUMNS: &[ProcColumn] = &[
    ProcColumn { id: ProcCol::Host, name: "host", head: "HOST", width: 16, right: false, compact: true, numeric: false,
        text: |r, o| o.push_str(&r.p.host), key: |r| SortKey::Text(&r.p.host) },
    ProcColumn { id: ProcCol::Gpu, name: "gpu", head: "GPU", width: 3, right: true, compact: true, numeric: false,
        text: |r, o| put(o, r.p.gpu), key: |r| num(Some(f64::from(r.p.gpu))) },
    ProcColumn { id: ProcCol::Pid, name: "pid", head: "PID", width: 7, right: true, compact: true, numeric: false,
        text: |r, o| put(o, r.p.pid), key: |r| num(Some(f64::from(r.p.pid))) },
    ProcColumn { id: ProcCol::User, name: "user", head: "USER", width: 8, right: false, compact: true, numeric: false,
        text: |r, o| text(o, r.p.user.as_deref()),
        key: |r| SortKey::Text(r.p.user.as_deref().unwrap_or_default()) },
    ProcColumn { id: ProcCol::Type, name: "type", head: "TYPE", width: 4, right: false, compact: true, numeric: false,
        text: |r, o| o.push_str(r.p.kind), key: |r| SortKey::Text(r.p.kind) },
    ProcColumn { id: ProcCol::GpuMem, name: "gpu_mem", head: "GPU-MEM", width: 7, right: true, compact: true, numeric: true,
        text: |r, o| opt_bytes(o, r.p.gpu_mem), key: |r| num(r.p.gpu_mem.map(|b| b as f64)) },
    ProcColumn { id: ProcCol::Sm, name: "sm", head: "SM%", width: 4, right: true, compact: true, numeric: true,
        text: |r, o| pct(o, r.p.sm), key: |r| num(r.p.sm) },
    ProcColumn { id: ProcCol::Enc, name: "enc", head: "ENC%", width: 4, right: true, compact: false, numeric: true,
        text: |r, o| pct(o, r.p.enc), key: |r| num(r.p.enc) },
    ProcColumn { id: ProcCol::Dec, name: "dec", head: "DEC%", width: 4, right: true, compact: false, numeric: true,
        text: |r, o| pct(o, r.p.dec), key: |r| num(r.p.dec) },
    ProcColumn { id: ProcCol::Cpu, name: "cpu", head: "CPU%", width: 5, right: true, compact: true, numeric: true,
        text: |r, o| put(o, Or(r.p.cpu_pct.map(|c| Fixed(c, 1)))), key: |r| num(r.p.cpu_pct) },
    ProcColumn { id: ProcCol::HostMem, name: "host_mem", head: "HOST-MEM", width: 8, right: true, compact: false, numeric: true,
        text: |r, o| opt_bytes(o, r.p.host_mem), key: |r| num(r.p.host_mem.map(|b| b as f64)) },
    ProcColumn { id: ProcCol::Container, name: "container", head: "CONTAINER", width: 12, right: false, compact: false, numeric: false,
        text: |r, o| text(o, r.p.container.as_deref()),
        key: |r| SortKey::Text(r.p.container.as_deref().unwrap_or_default()) },
    ProcColumn { id: ProcCol::Trend, name: "trend", head: "LEAK", width: 13, right: false, compact: true, numeric: true,
        text: |r, o| if let Some(l) = r.leak { put(o, LeakText(l)) }, key: |r| num(r.leak.map(|l| l.rate)) },
    ProcColumn { id: ProcCol::Command, name: "command", head: "COMMAND", width: 0, right: false, compact: true, numeric: false,
        text: |r, o| o.push_str(&r.p.command), key: |r| SortKey::Text(&r.p.command) },
];

/// `▲+12M/s 6m`: the rate, and the GPU's time to full at that rate.
pub fn leak_text(l: Leak) -> String {
    LeakText(l).to_string()
}

/// [`leak_text`], as it is written.
pub struct LeakText(pub Leak);

impl Text for LeakText {
    fn write_to(&self, out: &mut impl Write) -> fmt::Result {
        let Leak { rate, gpu_full_s } = self.0;
        out.write_str("▲+")?;
        Bytes(rate).write_to(out)?;
        out.write_str("/s")?;
        match gpu_full_s {
            Some(s) => {
                out.write_str(" ")?;
                Duration(s).write_to(out)
            }
            None => Ok(()),
        }
    }
}

/// Bytes with a binary unit, short: `512B`, `12K`, `1.5G`, `80G`.
#[derive(Clone, Copy)]
pub struct Bytes(pub f64);

impl Text for Bytes {
    fn write_to(&self, out: &mut impl Write) -> fmt::Result {
        const UNITS: [&str; 6] = ["B", "K", "M", "G", "T", "P"];
        let mut v = self.0.max(0.0);
        let mut u = 0;
        while v >= 1024.0 && u + 1 < UNITS.len() {
            v /= 1024.0;
            u += 1;
        }
        let digits = if u > 0 && v < 9.95 { 1 } else { 0 };
        Fixed(v, digits).write_to(out)?;
        out.write_str(UNITS[u])
    }
}

/// Seconds, short: `45s`, `6m`, `2.5h`, `3d`.
#[derive(Clone, Copy)]
pub struct Duration(pub f64);

impl Text for Duration {
    fn write_to(&self, out: &mut impl Write) -> fmt::Result {
        let s = self.0.max(0.0);
        let (v, digits, unit) = if s < 60.0 {
            (s, 0, "s")
        } else if s < 3600.0 {
            (s / 60.0, 0, "m")
        } else if s < 86400.0 {
            (s / 3600.0, 1, "h")
        } else {
            (s / 86400.0, 0, "d")
        };
        Fixed(v, digits).write_to(out)?;
        out.write_str(unit)
    }
}

display_as_text!(LeakText, Bytes, Duration);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fixed_numbers_read_as_float_formatting_writes_them() {
        let mut values = vec![
            0.0, 0.05, 0.15, 0.25, 0.35, 0.45, 0.5, 1.5, 2.5, 9.95, 9.949_999, 99.95, 1023.95,
        ];
        values.extend([
            1e7 + 0.05,
            99_999_999.95,
            1e8,
            1e12 + 0.5,
            4.5e15,
            f64::MAX,
            f64::NAN,
            f64::INFINITY,
        ]);
        values.extend([
            -0.0,
            -0.4,
            -2.5,
            -1e9,
            f64::MIN_POSITIVE,
            1.0 / 3.0,
            2.0 / 3.0,
        ]);
        // Spread over every magnitude the screen shows, ties included.
        let mut x = 0.000_123_f64;
        while x < 1e9 {
            values.extend([
                x,
                x * 1.000_001,
                (x * 10.0).round() / 10.0 + 0.05,
                x.round() + 0.5,
            ]);
            x *= 1.37;
        }
        for v in values {
            assert_eq!(Fixed(v, 0).to_string(), format!("{v:.0}"), "{v:e}");
            let (mut whole, mut tenths) = (String::new(), String::new());
            put(&mut whole, Fixed(v, 0));
            put(&mut tenths, Fixed(v, 1));
            assert_eq!(
                (whole, tenths),
                (format!("{v:.0}"), format!("{v:.1}")),
                "{v:e}"
            );
            assert_eq!(Fixed(v, 1).to_string(), format!("{v:.1}"), "{v:e}");
            assert_eq!(format!("{:>9}", Fixed(v, 1)), format!("{v:>9.1}"), "{v:e}");
            assert_eq!(format!("{:<7}", Fixed(v, 0)), format!("{v:<7.0}"), "{v:e}");
        }
    }

    #[test]
    fn short_numbers() {
        assert_eq!(Bytes(512.0).to_string(), "512B");
        assert_eq!(Bytes(1536.0 * 1024.0 * 1024.0).to_string(), "1.5G");
        assert_eq!(Bytes(80.0 * 1024.0 * 1024.0 * 1024.0).to_string(), "80G");
        assert_eq!(Duration(45.0).to_string(), "45s");
        assert_eq!(Duration(360.0).to_string(), "6m");
        assert_eq!(Duration(9000.0).to_string(), "2.5h");
        let l = Leak {
            rate: 12.0 * 1024.0 * 1024.0,
            gpu_full_s: Some(360.0),
        };
        assert_eq!(leak_text(l), "▲+12M/s 6m");
        let mut n = String::new();
        for v in [0, 7, 10, 4_000_000_000, u64::MAX] {
            n.clear();
            put(&mut n, v);
            assert_eq!(n, v.to_string());
        }
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
