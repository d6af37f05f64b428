//! The numbers the GPU lines, the detail line and the curves' titles
//! write: an interval, memory, a whole number and its unit, power, a rate.

use crate::tui::columns::{display_as_text, put, Bytes, Fixed, Text};
use std::fmt;

pub(super) fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// A refresh interval: `100ms`, `2s`, `1.5s`.
pub(super) struct Interval(pub(super) u64);

impl Text for Interval {
    fn write_to(&self, out: &mut impl fmt::Write) -> fmt::Result {
        let ms = self.0;
        if ms < 1000 {
            ms.write_to(out)?;
            out.write_str("ms")
        } else if ms % 1000 == 0 {
            (ms / 1000).write_to(out)?;
            out.write_str("s")
        } else {
            Fixed(ms as f64 / 1000.0, 1).write_to(out)?;
            out.write_str("s")
        }
    }
}

/// `40.0G/80.0G`
pub(super) struct Mem(pub(super) Option<u64>, pub(super) Option<u64>);

impl Text for Mem {
    fn write_to(&self, out: &mut impl fmt::Write) -> fmt::Result {
        match (self.0, self.1) {
            (Some(u), t) => {
                Bytes(u as f64).write_to(out)?;
                match t {
                    Some(t) => {
                        out.write_str("/")?;
                        Bytes(t as f64).write_to(out)
                    }
                    None => Ok(()),
                }
            }
            _ => out.write_str("-"),
        }
    }
}

/// Append `v` to `out`, right-aligned in `width` characters (what `{:>w}`
/// writes).
pub(super) fn right(out: &mut String, width: usize, v: impl Text) {
    let start = out.len();
    put(out, v);
    let n = out.get(start..).map_or(0, |t| t.chars().count());
    for _ in n..width {
        out.insert(start, ' ');
    }
}

/// A whole number and its unit (`35°C`), or `-`.
pub(super) struct Unit(pub(super) Option<f64>, pub(super) &'static str);

impl Text for Unit {
    fn write_to(&self, out: &mut impl fmt::Write) -> fmt::Result {
        match self.0 {
            Some(v) => {
                Fixed(v, 0).write_to(out)?;
                out.write_str(self.1)
            }
            None => out.write_str("-"),
        }
    }
}

/// Power drawn and its limit: `100/700W`, `100W`, `-`.
pub(super) struct Power(pub(super) Option<f64>, pub(super) Option<f64>);

impl Text for Power {
    fn write_to(&self, out: &mut impl fmt::Write) -> fmt::Result {
        let Some(p) = self.0 else {
            return out.write_str("-");
        };
        Fixed(p, 0).write_to(out)?;
        if let Some(l) = self.1 {
            out.write_str("/")?;
            Fixed(l, 0).write_to(out)?;
        }
        out.write_str("W")
    }
}

/// Bytes a second (`1.5G/s`), or `-`.
pub(super) struct Rate(pub(super) Option<f64>);

impl Text for Rate {
    fn write_to(&self, out: &mut impl fmt::Write) -> fmt::Result {
        match self.0 {
            Some(b) => {
                Bytes(b).write_to(out)?;
                out.write_str("/s")
            }
            None => out.write_str("-"),
        }
    }
}

display_as_text!(Interval, Unit, Rate);
