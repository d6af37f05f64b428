//! The rows of a query as another nvq reads them: `nvq serve`'s
//! `/api/v1/query` answer, which `--hosts` reads.
//!
//! Unlike `--format=json`, the wire form keeps every cell exactly: an
//! integer, a real with its decimals, a size in bytes, text, a bare `N/A`
//! or the NVML code a call failed with. So the reading side prints the
//! same bytes as the node itself would (CSV, the table, JSON, Prometheus),
//! and its scripting flags see the same numbers.
//!
//! Everything read back is untrusted: [`Answer::rows`] keeps at most
//! [`MAX_ROWS`] rows, cuts text to [`MAX_TEXT`] bytes and keeps only the
//! labels whose key is one of the query's field names.

use super::{GpuIdent, NvmlCode, Row, Token, Value};
use serde::{Deserialize, Serialize};
use std::sync::Arc;
use std::time::{Duration, UNIX_EPOCH};

/// The version of the wire form, `"version"` in every answer. A reader
/// refuses an answer of another version.
pub const VERSION: u32 = 1;

/// The most rows a reader takes from one answer (a node has at most 64
/// GPUs, each with a few hundred processes at most).
pub const MAX_ROWS: usize = 16_384;

/// The most bytes a reader keeps of one text (a name, a command line).
pub const MAX_TEXT: usize = 4096;

/// One cell, tagged by its kind.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Cell {
    /// An integer.
    Int(i64),
    /// A real and how many decimals it prints with.
    Float(f64, u8),
    /// A size in bytes.
    Bytes(u64),
    /// Text.
    Text(String),
    /// nvidia-smi's bare `N/A`.
    NotAvailable,
    /// The NVML code of a failed call, and whether it prints in the old spelling.
    Error(u32, bool),
}

impl Cell {
    /// The wire form of a value. A real that is not finite goes as `N/A`
    /// (JSON has no such number).
    pub fn of(v: &Value) -> Self {
        match v {
            Value::Int(i) => Cell::Int(*i),
            Value::Float { value, decimals } if value.is_finite() => Cell::Float(*value, *decimals),
            Value::Float { .. } | Value::NotAvailable => Cell::NotAvailable,
            Value::Bytes(b) => Cell::Bytes(*b),
            Value::Text(t) => Cell::Text(t.clone()),
            Value::Error(t) => Cell::Error(t.code.0, t.legacy_spelling),
        }
    }

    /// The value this cell stands for, its text cut to [`MAX_TEXT`] bytes.
    pub fn value(self) -> Value {
        match self {
            Cell::Int(i) => Value::Int(i),
            Cell::Float(value, decimals) => Value::Float {
                value,
                decimals: decimals.min(6),
            },
            Cell::Bytes(b) => Value::Bytes(b),
            Cell::Text(t) => Value::Text(cut(t)),
            Cell::NotAvailable => Value::NotAvailable,
            Cell::Error(code, legacy_spelling) => Value::Error(Token {
                code: NvmlCode(code),
                legacy_spelling,
            }),
        }
    }
}

/// Text cut to at most [`MAX_TEXT`] bytes, on a character boundary.
fn cut(mut t: String) -> String {
    if t.len() > MAX_TEXT {
        let mut end = MAX_TEXT;
        while !t.is_char_boundary(end) {
            end -= 1;
        }
        t.truncate(end);
    }
    t
}

/// A GPU's identity on the wire.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Gpu {
    /// NVML's index.
    pub index: u32,
    /// `GPU-…`, or empty.
    pub uuid: String,
    /// The product name, or empty.
    pub name: String,
    /// The PCI bus id, or empty.
    pub pci_bus_id: String,
}

/// One row on the wire.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WireRow {
    /// The cells, one per field of the answer, in its order.
    pub cells: Vec<Cell>,
    /// The row's GPU, when the node knows it.
    #[serde(default)]
    pub gpu: Option<Gpu>,
    /// The sample time as the `timestamp` field prints it (the node's local time).
    #[serde(default)]
    pub timestamp: Option<String>,
    /// The sample time, seconds since the Unix epoch.
    #[serde(default)]
    pub time: Option<f64>,
    /// What tells the row apart from its GPU's other rows (`pid`, ...).
    #[serde(default)]
    pub labels: Vec<(String, String)>,
}

/// A node's answer to one query.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Answer {
    /// [`VERSION`].
    pub version: u32,
    /// The query mode's option, without `--query-` (`gpu`, `compute-apps`).
    pub mode: String,
    /// The fields, by canonical name, in the order of the cells.
    pub fields: Vec<String>,
    /// The rows.
    pub rows: Vec<WireRow>,
    /// The node's GPUs (NVML indices) that missed the answer's deadline:
    /// they have no rows.
    #[serde(default)]
    pub late: Vec<u32>,
}

impl Answer {
    /// The wire form of a query's rows.
    pub fn of(mode: &str, fields: &[&str], rows: &[Row], late: Vec<u32>) -> Self {
        let rows = rows
            .iter()
            .map(|r| WireRow {
                cells: r.cells.iter().map(Cell::of).collect(),
                gpu: r.gpu.as_deref().map(|g| Gpu {
                    index: g.index,
                    uuid: g.uuid.clone(),
                    name: g.name.clone(),
                    pci_bus_id: g.pci_bus_id.clone(),
                }),
                timestamp: r.timestamp.clone(),
                time: r
                    .time
                    .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
                    .map(|d| d.as_secs_f64()),
                labels: r
                    .labels
                    .iter()
                    .map(|(k, v)| ((*k).to_string(), v.clone()))
                    .collect(),
            })
            .collect();
        Answer {
            version: VERSION,
            mode: mode.to_string(),
            fields: fields.iter().map(|f| (*f).to_string()).collect(),
            rows,
            late,
        }
    }

    /// The answer's rows as the reader's own, checked against the fields it
    /// asked for (`want`, canonical names): the answer must name the same
    /// fields in the same order, every row must have one cell per field.
    /// Labels are kept only when their key is one of `want`'s names, and
    /// only the first [`MAX_ROWS`] rows are read.
    pub fn rows(self, want: &[&'static str]) -> Result<Vec<Row>, String> {
        if self.version != VERSION {
            return Err(format!(
                "answers in version {} of nvq's query API; this nvq reads version {VERSION}",
                self.version
            ));
        }
        if self.fields.len() != want.len() || self.fields.iter().zip(want).any(|(a, b)| a != b) {
            return Err("answered other fields than the ones asked for".to_string());
        }
        let mut rows = Vec::with_capacity(self.rows.len().min(MAX_ROWS));
        for r in self.rows.into_iter().take(MAX_ROWS) {
            if r.cells.len() != want.len() {
                return Err(format!(
                    "sent a row of {} cells for {} fields",
                    r.cells.len(),
                    want.len()
                ));
            }
            let mut row = Row::new(r.cells.into_iter().map(Cell::value).collect());
            row.gpu = r.gpu.map(|g| {
                Arc::new(GpuIdent {
                    index: g.index,
                    uuid: cut(g.uuid),
                    name: cut(g.name),
                    pci_bus_id: cut(g.pci_bus_id),
                })
            });
            row.timestamp = r.timestamp.map(cut);
            row.time = r
                .time
                .filter(|t| t.is_finite() && *t >= 0.0 && *t < 1e11)
                .map(|t| UNIX_EPOCH + Duration::from_secs_f64(t));
            row.labels = r
                .labels
                .into_iter()
                .filter_map(|(k, v)| want.iter().find(|w| **w == k).map(|w| (*w, cut(v))))
                .collect();
            rows.push(row);
        }
        Ok(rows)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::SystemTime;

    fn sample() -> Vec<Row> {
        let mut row = Row::new(vec![
            Value::Int(3),
            Value::Float {
                value: 412.345,
                decimals: 2,
            },
            Value::Bytes(5 << 30),
            Value::text("python3 train.py"),
            Value::NotAvailable,
            Value::Error(Token {
                code: NvmlCode::NOT_SUPPORTED,
                legacy_spelling: true,
            }),
        ]);
        row.gpu = Some(Arc::new(GpuIdent {
            index: 3,
            uuid: "GPU-1".into(),
            name: "NVIDIA H100".into(),
            pci_bus_id: "00000000:01:00.0".into(),
        }));
        row.timestamp = Some("2026/12/07 01:02:03.456".into());
        row.time = Some(UNIX_EPOCH + Duration::from_millis(1_796_605_727_476));
        row.labels = vec![("pid", "4101".into())];
        vec![row]
    }

    const FIELDS: [&str; 6] = [
        "index",
        "power.draw",
        "memory.used",
        "name",
        "pid",
        "fan.speed",
    ];

    #[test]
    fn every_kind_of_cell_comes_back_as_it_went() {
        let rows = sample();
        let json = serde_json::to_string(&Answer::of("gpu", &FIELDS, &rows, Vec::new())).unwrap();
        let back: Answer = serde_json::from_str(&json).unwrap();
        let got = back.rows(&FIELDS).unwrap();
        assert_eq!(got[0].cells, rows[0].cells);
        assert_eq!(got[0].gpu, rows[0].gpu);
        assert_eq!(got[0].timestamp, rows[0].timestamp);
        assert_eq!(got[0].labels, rows[0].labels);
        let ms = |t: SystemTime| t.duration_since(UNIX_EPOCH).unwrap().as_millis();
        assert_eq!(ms(got[0].time.unwrap()), ms(rows[0].time.unwrap()));
    }

    #[test]
    fn another_version_other_fields_or_short_rows_are_refused() {
        let rows = sample();
        let mut a = Answer::of("gpu", &FIELDS, &rows, Vec::new());
        a.version = 2;
        assert!(a.rows(&FIELDS).unwrap_err().contains("version 2"));
        let a = Answer::of("gpu", &FIELDS, &rows, Vec::new());
        assert!(a.rows(&FIELDS[..5]).is_err());
        let mut a = Answer::of("gpu", &FIELDS, &rows, Vec::new());
        a.rows[0].cells.pop();
        assert!(a.rows(&FIELDS).unwrap_err().contains("5 cells for 6"));
    }

    #[test]
    fn hostile_text_labels_and_row_counts_are_bounded() {
        let rows = sample();
        let mut a = Answer::of("gpu", &FIELDS, &rows, Vec::new());
        a.rows[0].cells[3] = Cell::Text("é".repeat(MAX_TEXT));
        a.rows[0].labels.push(("evil".into(), "x".into()));
        let one = a.rows[0].clone();
        a.rows = vec![one; MAX_ROWS + 10];
        let got = a.rows(&FIELDS).unwrap();
        assert_eq!(got.len(), MAX_ROWS);
        let Value::Text(t) = &got[0].cells[3] else {
            panic!("text")
        };
        assert!(t.len() <= MAX_TEXT && t.chars().all(|c| c == 'é'));
        assert_eq!(got[0].labels, vec![("pid", "4101".to_string())]);
    }

    #[test]
    fn a_time_out_of_range_is_dropped() {
        let mut a = Answer::of("gpu", &FIELDS, &sample(), Vec::new());
        a.rows[0].time = Some(1e300);
        assert_eq!(a.rows(&FIELDS).unwrap()[0].time, None);
    }
}
