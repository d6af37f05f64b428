//! `--format=json`: each sample is one JSON array with one object per row,
//! written compactly on one line.
//!
//! Keys are the canonical field names in the order queried (a field queried
//! twice appears once). Numbers are JSON numbers in the unit the CSV header
//! names (MiB, %, W, MHz, ...); text stays text. A cell without a value is
//! `null`, and its reason goes into the row's `"_errors"` object, keyed by
//! field name. The schema is documented in `docs/formats.md`.

use super::Formatter;
use crate::model::{Column, Fact, Row, Value};
use serde::ser::{SerializeMap, SerializeSeq, Serializer};
use serde::Serialize;

/// The reason recorded in `"_errors"` for a bare `N/A` (a value that does
/// not apply, as opposed to a failed call).
pub const NOT_AVAILABLE: &str = "not_available";

/// The reason recorded in `"_errors"` for a NaN or infinite reading.
pub const NOT_FINITE: &str = "not_finite";

/// The machine-readable reason a cell has no value, if it has none.
pub fn missing_reason(v: &Value) -> Option<&'static str> {
    match v {
        Value::Error(t) => Some(t.reason()),
        Value::NotAvailable => Some(NOT_AVAILABLE),
        Value::Float { value, .. } if !value.is_finite() => Some(NOT_FINITE),
        _ => None,
    }
}

/// One cell as a JSON value.
struct Cell<'a>(&'a Value);

impl Serialize for Cell<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.0 {
            Value::Int(i) => s.serialize_i64(*i),
            Value::Float { value, .. } if value.is_finite() => s.serialize_f64(*value),
            Value::Float { .. } => s.serialize_none(),
            Value::Bytes(b) => s.serialize_u64(Value::mib_ceil(*b)),
            Value::Text(t) => s.serialize_str(t),
            Value::NotAvailable | Value::Error(_) => s.serialize_none(),
        }
    }
}

/// The columns of a row, each field once (the first time it was queried).
fn unique<'a>(
    columns: &'a [Column],
    row: &'a Row,
) -> impl Iterator<Item = (&'a Column, &'a Value)> {
    columns
        .iter()
        .zip(&row.cells)
        .enumerate()
        .filter(move |(i, (c, _))| !columns[..*i].iter().any(|p| p.name == c.name))
        .map(|(_, pair)| pair)
}

/// A row's `"_errors"` object.
struct Errors<'a> {
    columns: &'a [Column],
    row: &'a Row,
}

impl Serialize for Errors<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        for (c, v) in unique(self.columns, self.row) {
            if let Some(reason) = missing_reason(v) {
                m.serialize_entry(c.name, reason)?;
            }
        }
        m.end()
    }
}

/// One row as a JSON object, keys in query order. Shared with NDJSON.
pub(crate) struct RowObject<'a> {
    pub columns: &'a [Column],
    pub row: &'a Row,
    /// Add a `"timestamp"` key first (from [`Row::timestamp`]) when the
    /// `timestamp` field was not queried.
    pub add_timestamp: bool,
}

impl Serialize for RowObject<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        // The keys are names: a column of the same name, whatever it is, takes the key.
        let has = |key: &str| self.columns.iter().any(|c| c.name == key);
        if self.add_timestamp && !has(Fact::Timestamp.name()) {
            if let Some(ts) = &self.row.timestamp {
                m.serialize_entry(Fact::Timestamp.name(), ts)?;
            }
        }
        // The same moment as a number, for plotting (nvq's `timestamp.epoch`).
        let epoch = Fact::TimestampEpoch;
        if self.add_timestamp && !has(epoch.name()) {
            if let Some(t) = self
                .row
                .time
                .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            {
                m.serialize_entry(epoch.name(), &(t.as_millis() as f64 / 1000.0))?;
            }
        }
        let mut any_missing = false;
        for (c, v) in unique(self.columns, self.row) {
            m.serialize_entry(c.name, &Cell(v))?;
            any_missing |= missing_reason(v).is_some();
        }
        if any_missing {
            m.serialize_entry(
                "_errors",
                &Errors {
                    columns: self.columns,
                    row: self.row,
                },
            )?;
        }
        m.end()
    }
}

/// A sample's rows as one JSON array.
struct Sample<'a> {
    columns: &'a [Column],
    rows: &'a [Row],
}

impl Serialize for Sample<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(Some(self.rows.len()))?;
        for row in self.rows {
            seq.serialize_element(&RowObject {
                columns: self.columns,
                row,
                add_timestamp: false,
            })?;
        }
        seq.end()
    }
}

/// Append `value` as compact JSON plus a newline. Serializing into memory
/// cannot fail for these types; should it ever, nothing is appended.
pub(crate) fn write_line(value: &impl Serialize, out: &mut Vec<u8>) {
    let start = out.len();
    if serde_json::to_writer(&mut *out, value).is_ok() {
        out.push(b'\n');
    } else {
        out.truncate(start);
    }
}

/// The `--format=json` formatter: one JSON array per sample, one line each; stateless.
#[derive(Debug, Default)]
pub struct Json;

impl Formatter for Json {
    fn sample(&mut self, columns: &[Column], rows: &[Row], out: &mut Vec<u8>) {
        write_line(&Sample { columns, rows }, out);
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::model::NvmlCode;
    use crate::model::Token;

    pub(crate) fn col(name: &'static str, unit: Option<&'static str>) -> Column {
        Column::plain(name, unit, "help text")
    }

    pub(crate) fn cols() -> Vec<Column> {
        vec![
            col("index", None),
            col("name", None),
            col("memory.used", Some("MiB")),
            col("power.draw", Some("W")),
            col("temperature.memory", None),
        ]
    }

    pub(crate) fn rows() -> Vec<Row> {
        vec![
            Row::new(vec![
                Value::Int(0),
                Value::text("NVIDIA H100 \"80GB\""),
                Value::Bytes((20 << 20) + 1),
                Value::watts_from_mw(412_345),
                Value::Int(48),
            ]),
            Row::new(vec![
                Value::Int(1),
                Value::err(NvmlCode::GPU_IS_LOST),
                Value::err(NvmlCode::GPU_IS_LOST),
                Value::Error(Token {
                    code: NvmlCode::NOT_SUPPORTED,
                    legacy_spelling: true,
                }),
                Value::NotAvailable,
            ]),
        ]
    }

    fn render(columns: &[Column], rows: &[Row]) -> String {
        crate::render::render_once(&mut Json, columns, rows)
    }

    #[test]
    fn one_array_per_sample_keys_in_order() {
        assert_eq!(
            render(&cols(), &rows()),
            concat!(
                r#"[{"index":0,"name":"NVIDIA H100 \"80GB\"","memory.used":21,"power.draw":412.345,"temperature.memory":48},"#,
                r#"{"index":1,"name":null,"memory.used":null,"power.draw":null,"temperature.memory":null,"#,
                r#""_errors":{"name":"gpu_lost","memory.used":"gpu_lost","power.draw":"not_supported","temperature.memory":"not_available"}}]"#,
                "\n"
            )
        );
    }

    #[test]
    fn parses_back_with_numbers_as_numbers() {
        let text = render(&cols(), &rows());
        let v: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(v[0]["memory.used"].as_u64(), Some(21));
        assert_eq!(v[0]["power.draw"].as_f64(), Some(412.345));
        assert!(v[0].get("_errors").is_none());
        assert!(v[1]["power.draw"].is_null());
        assert_eq!(v[1]["_errors"]["power.draw"], "not_supported");
    }

    #[test]
    fn duplicate_fields_appear_once_and_empty_sample_is_an_empty_array() {
        let columns = vec![col("index", None), col("index", None)];
        let rows = vec![Row::new(vec![Value::Int(3), Value::Int(3)])];
        assert_eq!(render(&columns, &rows), "[{\"index\":3}]\n");
        assert_eq!(render(&columns, &[]), "[]\n");
    }

    #[test]
    fn json_leaves_out_the_row_timestamp() {
        let mut rows = rows();
        rows[0].timestamp = Some("2026/01/02 03:04:05.678".into());
        assert!(!render(&cols(), &rows).contains("2026/01/02"));
    }
}
