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
/// processes per sample, and in public dmon logs of driver 352.99:
/// github.com/aizvorski/vgg-benchmarks, `results/*/*.dmon`).
pub const HEADER_EVERY: usize = 44;

/// How one column is laid out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Slot {
    /// The column's name, on the first header line (`gpu`, `sm`, ...).
    pub name: &'static str,
    /// The column's unit, on the second header line (`Idx`, `%`, ...).
    pub unit: &'static str,
    /// What goes before the cell (on header and data lines alike).
    pub sep: &'static str,
    /// Width of the header cells (right-aligned, unless `left`).
    pub head_width: usize,
    /// Width of the data cells (right-aligned, unless `left`).
    pub data_width: usize,
    /// Left-align the column's cells (`%-Ns`) instead of right-aligning them.
    pub left: bool,
    /// Data cells are cut to this many characters.
    pub max_chars: Option<usize>,
    /// When a 0 in this column prints `-`.
    pub zero: Zero,
    /// Not printed at all (a column this driver's nvidia-smi did not have).
    pub hidden: bool,
}

/// How a column prints 0.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Zero {
    /// As `0`.
    Show,
    /// As `-`.
    Dash,
    /// As `-` when every column of this group is 0 and a [`Zero::Dash`]
    /// column of the row is not (pmon: a sample of the encoder alone
    /// leaves `sm` and `mem` blank, a sample of nothing but SMs at 0 % does
    /// not).
    DashWhenOthersBusy(u8),
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
            zero: Zero::Show,
            hidden: false,
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
    /// The columns, left to right, hidden ones included.
    pub slots: Vec<Slot>,
    /// What ends a header line, before the newline.
    pub head_end: &'static str,
    /// What ends a data line, before the newline.
    pub data_end: &'static str,
}

/// The formatter for a monitor's own text.
pub struct Monitor {
    layout: Layout,
    rows: usize,
}

impl Monitor {
    /// A monitor formatter for `layout`, with no rows printed yet (the header comes first).
    pub fn new(layout: Layout) -> Self {
        Monitor { layout, rows: 0 }
    }

    fn header(&self, out: &mut Vec<u8>) {
        for unit_line in [false, true] {
            let mut line = String::from("#");
            for s in self.layout.slots.iter().filter(|s| !s.hidden) {
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
        let mut line = String::from(" ");
        for (s, text) in cell_texts(&self.layout, row) {
            line.push_str(s.sep);
            pad(&mut line, &text, s.data_width, s.left);
        }
        line.push_str(self.layout.data_end);
        line.push('\n');
        out.extend_from_slice(line.as_bytes());
    }
}

/// The shown cells of a row as nvidia-smi's monitors print them: `-` for a
/// value that is missing or a zero the column prints as `-`, cut to the
/// column's length; hidden columns left out.
fn cell_texts<'a>(layout: &'a Layout, row: &Row) -> Vec<(&'a Slot, String)> {
    let slots = &layout.slots;
    let cells = || slots.iter().zip(&row.cells);
    let others_busy = cells().any(|(s, v)| s.zero == Zero::Dash && is_busy(v));
    let idle_group = |g: u8| {
        cells()
            .filter(|(s, _)| s.zero == Zero::DashWhenOthersBusy(g))
            .all(|(_, v)| *v == Value::Int(0))
    };
    let dash = |s: &Slot, v: &Value| {
        *v == Value::Int(0)
            && match s.zero {
                Zero::Show => false,
                Zero::Dash => true,
                Zero::DashWhenOthersBusy(g) => others_busy && idle_group(g),
            }
    };
    cells()
        .filter(|(s, _)| !s.hidden)
        .map(|(s, v)| {
            let text = match v {
                Value::Error(_) | Value::NotAvailable => "-".to_string(),
                v if dash(s, v) => "-".to_string(),
                v => printable(&v.to_string()).into_owned(),
            };
            let text = match s.max_chars {
                Some(n) => text.chars().take(n).collect(),
                None => text,
            };
            (s, text)
        })
        .collect()
}

fn is_busy(v: &Value) -> bool {
    matches!(v, Value::Int(n) if *n != 0)
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

/// Which header lines nvidia-smi's own monitor CSV prints
/// (`dmon --format csv[,nounit][,noheader]`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SmiCsv {
    /// `nounit`: no second (units) header line.
    pub nounit: bool,
    /// `noheader`: no header line at all.
    pub noheader: bool,
}

/// nvidia-smi's own CSV for `dmon` (newer drivers' `--format csv`): the
/// same cells as the columns (`-` for a missing value), joined by `", "`,
/// under `#` header lines of names and units.
///
/// Unverified: no public capture of this output was found (see
/// `docs/formats.md`). The layout is the closest faithful reading of the
/// scripts that parse it (they split on `", "`, skip lines starting with
/// `#`, and read `-` as missing; one parser's test data,
/// github.com/inferLean/inferlean `internal/collectors/nvml/collector_test.go`,
/// has `#gpu, rxpci, txpci`, `#Idx, MB/s, MB/s`, ` 0, 12, 34`): names right
/// after `#`, a data line starting with a blank where a header line has `#`
/// (as in the columns), values unpadded, the header repeated every
/// [`HEADER_EVERY`] rows as the columns repeat theirs.
pub struct MonitorCsv {
    layout: Layout,
    opts: SmiCsv,
    rows: usize,
}

impl MonitorCsv {
    /// A monitor CSV formatter for `layout`, with the header lines `opts` asks for.
    pub fn new(layout: Layout, opts: SmiCsv) -> Self {
        MonitorCsv {
            layout,
            opts,
            rows: 0,
        }
    }

    fn header(&self, out: &mut Vec<u8>) {
        let shown = || self.layout.slots.iter().filter(|s| !s.hidden);
        let names: Vec<&str> = shown().map(|s| s.name).collect();
        let units: Vec<&str> = shown().map(|s| s.unit).collect();
        out.extend_from_slice(format!("#{}\n", names.join(SEP)).as_bytes());
        if !self.opts.nounit {
            out.extend_from_slice(format!("#{}\n", units.join(SEP)).as_bytes());
        }
    }
}

/// What separates the cells of nvidia-smi's monitor CSV (as in its query CSV).
const SEP: &str = ", ";

impl Formatter for MonitorCsv {
    fn sample(&mut self, _columns: &[Column], rows: &[Row], out: &mut Vec<u8>) {
        for row in rows {
            if !self.opts.noheader && self.rows % HEADER_EVERY == 0 {
                self.header(out);
            }
            let cells: Vec<String> = cell_texts(&self.layout, row)
                .into_iter()
                .map(|(_, t)| t)
                .collect();
            out.push(b' ');
            out.extend_from_slice(cells.join(SEP).as_bytes());
            out.push(b'\n');
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
        sm.zero = Zero::DashWhenOthersBusy(1);
        let mut enc = Slot::right("enc", "%", " ", 6, 6);
        enc.zero = Zero::Dash;
        let mut name = Slot::left("command", "name", "    ", 15);
        name.head_width = 0;
        name.max_chars = Some(15);
        Layout {
            slots: vec![Slot::right("gpu", "Idx", "", 4, 4), sm, enc, name],
            head_end: " ",
            data_end: "",
        }
    }

    #[test]
    fn columns_dashes_and_repeated_headers() {
        let mut f = Monitor::new(layout());
        let row = |sm: Value, enc: i64, name: &str| {
            Row::new(vec![Value::Int(0), sm, Value::Int(enc), Value::text(name)])
        };
        let rows: Vec<Row> = (0..46)
            .map(|i| match i {
                0 => row(Value::Int(7), 0, "a-very-long-command-name"),
                1 => row(Value::Int(0), 49, "x\ty"),
                2 => row(Value::Int(0), 0, "idle"),
                _ => row(Value::err(NvmlCode::NOT_FOUND), 0, "z"),
            })
            .collect();
        let text = crate::render::render_once(&mut f, &[], &rows);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "# gpu     sm    enc    command ");
        assert_eq!(lines[1], "# Idx      %      %    name ");
        assert_eq!(lines[2], "    0      7      -    a-very-long-com");
        // An encoder-only sample: sm blank; a sample at 0 % everywhere: 0.
        assert_eq!(lines[3], "    0      -     49    x?y            ");
        assert_eq!(lines[4], "    0      0      -    idle           ");
        assert_eq!(lines[5], "    0      -      -    z              ");
        // 44 rows, then the header again before the 45th.
        assert_eq!(lines[46], lines[0]);
        assert_eq!(lines.len(), 2 + 44 + 2 + 2);
    }

    #[test]
    fn nvidia_smis_csv_with_and_without_headers() {
        let row = |i: i64, sm: Value| {
            Row::new(vec![Value::Int(i), sm, Value::Int(0), Value::text("a, b")])
        };
        let rows = [
            row(0, Value::Int(7)),
            row(1, Value::err(NvmlCode::NOT_FOUND)),
        ];
        let text =
            |opts| crate::render::render_once(&mut MonitorCsv::new(layout(), opts), &[], &rows);
        assert_eq!(
            text(SmiCsv::default()),
            "#gpu, sm, enc, command\n#Idx, %, %, name\n 0, 7, -, a, b\n 1, -, -, a, b\n"
        );
        let nounit = SmiCsv {
            nounit: true,
            noheader: false,
        };
        assert_eq!(
            text(nounit),
            "#gpu, sm, enc, command\n 0, 7, -, a, b\n 1, -, -, a, b\n"
        );
        let bare = SmiCsv {
            nounit: true,
            noheader: true,
        };
        assert_eq!(text(bare), " 0, 7, -, a, b\n 1, -, -, a, b\n");
    }
}
