//! `--format=table`: aligned columns for people.
//!
//! Each sample is a table of its own: a header line (`memory.used [MiB]`,
//! unless `noheader`), then one line per row. Cells read as in CSV (with the
//! unit after numbers unless `nounits`; tokens such as `[N/A]` as is).
//! Columns are separated by two spaces, sized to their widest cell; numbers
//! right-aligned (a column holding any number is right-aligned
//! whole, tokens and header included), text left-aligned; lines carry no trailing blanks.
//! In a loop, samples are separated by one empty line. ANSI colour (bold
//! header, dim `[N/A]`, red for other failures) only when the caller says so.

use super::Formatter;
use crate::model::NvmlCode;
use crate::model::Value;
use crate::model::{Column, Row};

const BOLD: &str = "\x1b[1m";
const DIM: &str = "\x1b[2m";
const RED: &str = "\x1b[31m";
const RESET: &str = "\x1b[0m";
const GAP: &str = "  ";

/// The `--format=table` formatter; it counts samples so that a loop's tables are separated by an
/// empty line.
#[derive(Debug)]
pub struct Table {
    noheader: bool,
    nounits: bool,
    colour: bool,
    samples: u64,
}

impl Table {
    /// A table formatter. `noheader` and `nounits` as in CSV; `colour`: may cells carry ANSI colour
    /// (the caller decides, e.g. a terminal and `NO_COLOR` unset).
    pub fn new(noheader: bool, nounits: bool, colour: bool) -> Self {
        Table {
            noheader,
            nounits,
            colour,
            samples: 0,
        }
    }
}

/// The colour a cell is drawn in, if any.
fn style(v: &Value) -> Option<&'static str> {
    match v {
        Value::NotAvailable => Some(DIM),
        Value::Error(t) if t.code == NvmlCode::NOT_SUPPORTED => Some(DIM),
        Value::Error(_) => Some(RED),
        _ => None,
    }
}

struct Cell {
    text: String,
    width: usize,
    right: bool,
    style: Option<&'static str>,
}

impl Cell {
    fn new(text: String, right: bool, style: Option<&'static str>) -> Self {
        Cell {
            width: text.chars().count(),
            text,
            right,
            style,
        }
    }
}

fn pad_with(out: &mut String, n: usize) {
    for _ in 0..n {
        out.push(' ');
    }
}

impl Table {
    fn line(&self, cells: &[Cell], widths: &[usize], out: &mut String) {
        let last = cells.len().saturating_sub(1);
        for (i, (cell, &w)) in cells.iter().zip(widths).enumerate() {
            if i > 0 {
                out.push_str(GAP);
            }
            let pad = w.saturating_sub(cell.width);
            if cell.right {
                pad_with(out, pad);
            }
            match (self.colour, cell.style) {
                (true, Some(s)) => {
                    out.push_str(s);
                    out.push_str(&cell.text);
                    out.push_str(RESET);
                }
                _ => out.push_str(&cell.text),
            }
            if !cell.right && i < last {
                pad_with(out, pad);
            }
        }
        out.push('\n');
    }
}

impl Formatter for Table {
    fn sample(&mut self, columns: &[Column], rows: &[Row], out: &mut Vec<u8>) {
        // A column is numeric when any of its cells is a number; all of its
        // cells (tokens and header too) are then right-aligned.
        let numeric: Vec<bool> = (0..columns.len())
            .map(|i| {
                rows.iter()
                    .any(|r| r.cells.get(i).is_some_and(Value::is_number))
            })
            .collect();
        let body: Vec<Vec<Cell>> = rows
            .iter()
            .map(|r| {
                r.cells
                    .iter()
                    .zip(columns)
                    .zip(&numeric)
                    .map(|((v, c), &num)| {
                        Cell::new(
                            super::csv::cell_text(v, c.unit, self.nounits),
                            num,
                            style(v),
                        )
                    })
                    .collect()
            })
            .collect();
        let header: Vec<Cell> = columns
            .iter()
            .zip(&numeric)
            .map(|(c, &num)| Cell::new(c.header(), num, Some(BOLD)))
            .collect();
        let mut widths: Vec<usize> = vec![0; columns.len()];
        let shown = (!self.noheader).then_some(&header).into_iter();
        for line in shown.chain(&body) {
            for (w, cell) in widths.iter_mut().zip(line) {
                *w = (*w).max(cell.width);
            }
        }
        let mut text = String::new();
        if self.samples > 0 {
            text.push('\n');
        }
        if !self.noheader {
            self.line(&header, &widths, &mut text);
        }
        for line in &body {
            self.line(line, &widths, &mut text);
        }
        self.samples += 1;
        out.extend_from_slice(text.as_bytes());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::json::tests::{cols, rows};

    fn render(noheader: bool, nounits: bool, colour: bool, samples: usize) -> String {
        let mut f = Table::new(noheader, nounits, colour);
        let mut out = Vec::new();
        f.begin(&cols(), &mut out);
        for _ in 0..samples {
            f.sample(&cols(), &rows(), &mut out);
        }
        f.finish(&cols(), &mut out);
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn aligned_with_units_in_header_and_cells() {
        assert_eq!(
            render(false, false, false, 1),
            concat!(
                "index  name                memory.used [MiB]   power.draw [W]  temperature.memory\n",
                "    0  NVIDIA H100 \"80GB\"             21 MiB         412.35 W                  48\n",
                "    1  [GPU is lost]           [GPU is lost]  [Not Supported]                 N/A\n",
            )
        );
    }

    #[test]
    fn nounits_and_noheader() {
        assert_eq!(
            render(true, true, false, 1),
            concat!(
                "0  NVIDIA H100 \"80GB\"             21           412.35   48\n",
                "1  [GPU is lost]       [GPU is lost]  [Not Supported]  N/A\n",
            )
        );
    }

    #[test]
    fn no_trailing_blanks_and_samples_separated() {
        let text = render(false, false, false, 2);
        assert!(text.lines().all(|l| !l.ends_with(' ')));
        let parts: Vec<&str> = text.split("\n\n").collect();
        assert_eq!(parts.len(), 2);
        assert_eq!(parts[0].to_string() + "\n", render(false, false, false, 1));
    }

    #[test]
    fn colour_only_when_told_and_never_breaks_alignment() {
        let plain = render(false, false, false, 1);
        assert!(!plain.contains('\x1b'));
        let coloured = render(false, false, true, 1);
        assert!(coloured.contains(BOLD) && coloured.contains(RED) && coloured.contains(DIM));
        let stripped = coloured
            .replace(BOLD, "")
            .replace(DIM, "")
            .replace(RED, "")
            .replace(RESET, "");
        assert_eq!(stripped, plain);
    }
}
