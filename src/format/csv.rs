//! nvidia-smi's CSV: cells joined by ", ", nothing quoted, one "\n" per line.

use super::{Column, Formatter, Row};

pub struct Csv {
    noheader: bool,
    nounits: bool,
}

impl Csv {
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
                cell.write_csv(col.unit, self.nounits, &mut line);
            }
            line.push('\n');
            out.extend_from_slice(line.as_bytes());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fields::Value;
    use crate::nvml::NvmlCode;

    fn cols() -> Vec<Column> {
        vec![
            Column {
                name: "name",
                header_name: "name",
                unit: None,
                help: "",
            },
            Column {
                name: "memory.used",
                header_name: "memory.used",
                unit: Some("MiB"),
                help: "",
            },
            Column {
                name: "power.draw",
                header_name: "power.draw",
                unit: Some("W"),
                help: "",
            },
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
            "name, memory.used [MiB], power.draw [W]\nNVIDIA H200, 3 MiB, 77.71 W\nx, y, [GPU is lost], [N/A]\n"
        );
    }

    #[test]
    fn nounits_keeps_header_units() {
        assert_eq!(
            render(false, true),
            "name, memory.used [MiB], power.draw [W]\nNVIDIA H200, 3, 77.71\nx, y, [GPU is lost], [N/A]\n"
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
