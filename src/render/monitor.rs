//! nvidia-smi's scrolling monitors (`dmon`, `pmon`): fixed-width columns
//! under two `#` header lines (names, then units), `-` for a value that is
//! missing, and the header printed again every [`HEADER_EVERY`] rows.
//!
//! The layout (widths, separators, which zeros print as `-`) is data the
//! caller describes in a [`Layout`]; the formatter only lays cells out.

use super::{printable, Formatter};
use crate::model::{Column, Row, Value};

/// nvidia-smi prints the two header lines again before every 44th row,
/// wherever that falls in a sample (seen in pmon captures with 19 and 21
/// processes per sample).
pub const HEADER_EVERY: usize = 44;

/// How one column is laid out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Slot {
    /// The first and second header lines' texts.
    pub name: &'static str,
    pub unit: &'static str,
    /// What goes before the cell (on header and data lines alike).
    pub sep: &'static str,
    /// Width of the header cells and of the data cells (right-aligned,
    /// unless `left`).
    pub head_width: usize,
    pub data_width: usize,
    pub left: bool,
    /// Data cells are cut to this many characters.
    pub max_chars: Option<usize>,
    /// Cells of the same group print `-` when every one of them is 0.
    pub blank_zero: Option<u8>,
}

impl Slot {
    /// A right-aligned column.
    pub const fn right(
        name: &'static str,
        unit: &'static str,
        sep: &'static str,
        head_width: usize,
        data_width: usize,
    ) -> Self {
        Slot {
            name,
            unit,
            sep,
            head_width,
            data_width,
            left: false,
            max_chars: None,
            blank_zero: None,
        }
    }

    /// A left-aligned column (`%-Ns`).
    pub const fn left(
        name: &'static str,
        unit: &'static str,
        sep: &'static str,
        width: usize,
    ) -> Self {
        Slot {
            left: true,
            ..Slot::right(name, unit, sep, width, width)
        }
    }
}

/// A whole monitor line's layout.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Layout {
    pub slots: Vec<Slot>,
    /// What ends a header line and a data line.
    pub head_end: &'static str,
    pub data_end: &'static str,
}

/// The formatter for a monitor's own text.
pub struct Monitor {
    layout: Layout,
    rows: usize,
}

impl Monitor {
    pub fn new(layout: Layout) -> Self {
        Monitor { layout, rows: 0 }
    }

    fn header(&self, out: &mut Vec<u8>) {
        for unit_line in [false, true] {
            let mut line = String::from("#");
            for s in &self.layout.slots {
                let text = if unit_line { s.unit } else { s.name };
                line.push_str(s.sep);
                pad(&mut line, text, s.head_width, s.left);
            }
            line.push_str(self.layout.head_end);
            line.push('\n');
            out.extend_from_slice(line.as_bytes());
        }
    }

    fn line(&self, row: &Row, out: &mut Vec<u8>) {
        let slots = &self.layout.slots;
        // A blank-zero group whose every cell is 0 prints `-`.
        let zero_group = |g: u8| {
            slots
                .iter()
                .zip(&row.cells)
                .filter(|(s, _)| s.blank_zero == Some(g))
                .all(|(_, v)| *v == Value::Int(0))
        };
        let mut line = String::from(" ");
        for (s, v) in slots.iter().zip(&row.cells) {
            let text = match v {
                Value::Error(_) | Value::NotAvailable => "-".to_string(),
                _ if s.blank_zero.is_some_and(zero_group) => "-".to_string(),
                v => printable(&v.to_string()).into_owned(),
            };
            let text = match s.max_chars {
                Some(n) => text.chars().take(n).collect(),
                None => text,
            };
            line.push_str(s.sep);
            pad(&mut line, &text, s.data_width, s.left);
        }
        line.push_str(self.layout.data_end);
        line.push('\n');
        out.extend_from_slice(line.as_bytes());
    }
}

fn pad(line: &mut String, text: &str, width: usize, left: bool) {
    use std::fmt::Write;
    let _ = if left {
        write!(line, "{text:<width$}")
    } else {
        write!(line, "{text:>width$}")
    };
}

impl Formatter for Monitor {
    fn begin(&mut self, _columns: &[Column], _out: &mut Vec<u8>) {}

    fn sample(&mut self, _columns: &[Column], rows: &[Row], out: &mut Vec<u8>) {
        for row in rows {
            if self.rows % HEADER_EVERY == 0 {
                self.header(out);
            }
            self.line(row, out);
            self.rows += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::NvmlCode;

    fn layout() -> Layout {
        let mut sm = Slot::right("sm", "%", " ", 6, 6);
        sm.blank_zero = Some(1);
        let mut name = Slot::left("command", "name", "    ", 15);
        name.head_width = 0;
        name.max_chars = Some(15);
        Layout {
            slots: vec![Slot::right("gpu", "Idx", "", 4, 4), sm, name],
            head_end: " ",
            data_end: "",
        }
    }

    #[test]
    fn columns_dashes_and_repeated_headers() {
        let mut f = Monitor::new(layout());
        let row = |sm: Value, name: &str| Row::new(vec![Value::Int(0), sm, Value::text(name)]);
        let rows: Vec<Row> = (0..45)
            .map(|i| match i {
                0 => row(Value::Int(7), "a-very-long-command-name"),
                1 => row(Value::Int(0), "x\ty"),
                _ => row(Value::err(NvmlCode::NOT_FOUND), "z"),
            })
            .collect();
        let text = crate::render::render_once(&mut f, &[], &rows);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "# gpu     sm    command ");
        assert_eq!(lines[1], "# Idx      %    name ");
        assert_eq!(lines[2], "    0      7    a-very-long-com");
        assert_eq!(lines[3], "    0      -    x?y            ");
        assert_eq!(lines[4], "    0      -    z              ");
        // 44 rows, then the header again before the 45th.
        assert_eq!(lines[46], lines[0]);
        assert_eq!(lines.len(), 2 + 44 + 2 + 1);
    }
}
