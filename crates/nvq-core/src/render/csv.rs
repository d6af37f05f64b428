//! nvidia-smi's CSV: cells joined by ", ", nothing quoted, one "\n" per line.

use super::{printable, Formatter};
use crate::model::{Column, Row, Value};
use std::fmt::Write;

/// The `--format=csv` formatter: a header line (unless `noheader`), then one line per row.
pub struct Csv {
    noheader: bool,
    nounits: bool,
}

impl Csv {
    /// A CSV formatter. `noheader` leaves out the header line; `nounits` drops the unit after each
    /// number (the header keeps its `[unit]` suffixes either way).
    pub fn new(noheader: bool, nounits: bool) -> Self {
        Csv { noheader, nounits }
    }
}

impl Formatter for Csv {
    fn begin(&mut self, columns: &[Column], out: &mut Vec<u8>) {
        if self.noheader {
            return;
        }
        // The header keeps its [unit] suffixes even under nounits.
        for (i, c) in columns.iter().enumerate() {
            if i > 0 {
                out.extend_from_slice(b", ");
            }
            out.extend_from_slice(c.header().as_bytes());
        }
        out.push(b'\n');
    }

    fn sample(&mut self, columns: &[Column], rows: &[Row], out: &mut Vec<u8>) {
        let mut line = String::new();
        for row in rows {
            line.clear();
            for (i, (cell, col)) in row.cells.iter().zip(columns).enumerate() {
                if i > 0 {
                    line.push_str(", ");
                }
                write_cell(cell, col.unit, self.nounits, &mut line);
            }
            line.push('\n');
            out.extend_from_slice(line.as_bytes());
        }
    }
}

/// How CSV and the table print a NaN or infinite reading: unavailable.
const NOT_FINITE_TOKEN: &str = "[N/A]";

/// Append a cell as nvidia-smi's CSV prints it: the value's text, then a
/// space and the unit after a number (unless `nounits`). Failure tokens keep
/// their brackets and never get a unit; a NaN or infinite reading is
/// `[N/A]`; text goes through [`printable`], so it never breaks a row.
pub fn write_cell(v: &Value, unit: Option<&str>, nounits: bool, out: &mut String) {
    match v {
        Value::Float { value, .. } if !value.is_finite() => return out.push_str(NOT_FINITE_TOKEN),
        Value::Text(s) => return out.push_str(&printable(s)),
        _ => {}
    }
    let _ = write!(out, "{v}");
    if let (true, Some(u), false) = (v.is_number(), unit, nounits) {
        out.push(' ');
        out.push_str(u);
    }
}

/// [`write_cell`] into a new string.
pub fn cell_text(v: &Value, unit: Option<&str>, nounits: bool) -> String {
    let mut s = String::new();
    write_cell(v, unit, nounits, &mut s);
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::NvmlCode;
    use crate::model::Value;

    fn cols() -> Vec<Column> {
        vec![
            Column::plain("name", None, ""),
            Column::plain("memory.used", Some("MiB"), ""),
            Column::plain("power.draw", Some("W"), ""),
        ]
    }

    fn rows() -> Vec<Row> {
        vec![
            Row::new(vec![
                Value::text("NVIDIA H200"),
                Value::Bytes(3 << 20),
                Value::watts_from_mw(77_710),
            ]),
            Row::new(vec![
                Value::text("x, y"),
                Value::err(NvmlCode::GPU_IS_LOST),
                Value::err(NvmlCode::NOT_SUPPORTED),
            ]),
        ]
    }

    fn render(noheader: bool, nounits: bool) -> String {
        let mut f = Csv::new(noheader, nounits);
        let mut out = Vec::new();
        f.begin(&cols(), &mut out);
        f.sample(&cols(), &rows(), &mut out);
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn header_and_units() {
        assert_eq!(
            render(false, false),
            "name, memory.used [MiB], power.draw [W]\nNVIDIA H200, 3 MiB, 77.71 W\nx, y, [GPU is \
             lost], [N/A]\n"
        );
    }

    #[test]
    fn nounits_keeps_header_units() {
        assert_eq!(
            render(false, true),
            "name, memory.used [MiB], power.draw [W]\nNVIDIA H200, 3, 77.71\nx, y, [GPU is \
             lost], [N/A]\n"
        );
    }

    #[test]
    fn noheader() {
        assert_eq!(
            render(true, true),
            "NVIDIA H200, 3, 77.71\nx, y, [GPU is lost], [N/A]\n"
        );
    }
}

#[cfg(test)]
mod cell_tests {
    use super::*;
    use crate::model::NvmlCode;
    use crate::model::{Token, Value};

    const MIB: u64 = 1024 * 1024;

    fn cell(v: &Value, unit: Option<&str>, nounits: bool) -> String {
        let mut s = String::new();
        write_cell(v, unit, nounits, &mut s);
        s
    }

    #[test]
    fn mib_rounds_up() {
        assert_eq!(
            cell(&Value::Bytes(501_481_472), Some("MiB"), false),
            "479 MiB"
        );
        assert_eq!(cell(&Value::Bytes(0), Some("MiB"), true), "0");
        assert_eq!(cell(&Value::Bytes(MIB), Some("MiB"), true), "1");
    }

    #[test]
    fn watts_have_two_decimals() {
        assert_eq!(
            cell(&Value::watts_from_mw(77_710), Some("W"), false),
            "77.71 W"
        );
        assert_eq!(
            cell(&Value::watts_from_mw(700_000), Some("W"), true),
            "700.00"
        );
    }

    #[test]
    fn nan_and_infinity_are_unavailable() {
        for value in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
            let v = Value::Float { value, decimals: 2 };
            assert_eq!(cell(&v, Some("W"), false), "[N/A]");
        }
    }

    #[test]
    fn control_characters_become_question_marks() {
        use crate::render::printable;
        assert_eq!(printable("a\nb\rc\x1b[1m\u{7f}\u{9b}\td"), "a?b?c?[1m???d");
        assert_eq!(printable("ünïcode ok"), "ünïcode ok");
        assert_eq!(cell(&Value::text("x\n1, 2"), None, false), "x?1, 2");
    }

    #[test]
    fn tokens_keep_brackets_under_nounits() {
        let na = Value::err(NvmlCode::NOT_SUPPORTED);
        assert_eq!(cell(&na, Some("W"), true), "[N/A]");
        let lost = Value::err(NvmlCode::GPU_IS_LOST);
        assert_eq!(cell(&lost, None, false), "[GPU is lost]");
        let old = Value::Error(Token {
            code: NvmlCode::NOT_SUPPORTED,
            legacy_spelling: true,
        });
        assert_eq!(cell(&old, Some("%"), false), "[Not Supported]");
        assert_eq!(
            cell(&Value::err(NvmlCode::DEPRECATED), None, false),
            "[Requested functionality has been deprecated]"
        );
        assert_eq!(cell(&Value::NotAvailable, Some("C"), false), "N/A");
    }
}
