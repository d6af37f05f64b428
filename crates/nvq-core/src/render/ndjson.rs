//! `--format=ndjson`: one compact JSON object per row, one per line; the
//! streaming form for loops.
//!
//! Objects are those of `--format=json` (same keys, numbers, `null`s and
//! `"_errors"`), plus a `"timestamp"` key first, taken from the row, when the
//! `timestamp` field was not queried, so that every line says when it was
//! sampled.

use super::json::{write_line, RowObject};
use super::Formatter;
use crate::model::{Column, Row};

/// The `--format=ndjson` formatter: one JSON object per row per line, with a timestamp; stateless.
#[derive(Debug, Default)]
pub struct Ndjson;

impl Formatter for Ndjson {
    fn sample(&mut self, columns: &[Column], rows: &[Row], out: &mut Vec<u8>) {
        for row in rows {
            write_line(
                &RowObject {
                    columns,
                    row,
                    add_timestamp: true,
                },
                out,
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Value;
    use crate::render::json::tests::{col, cols, rows};

    fn render(columns: &[Column], rows: &[Row]) -> String {
        crate::render::render_once(&mut Ndjson, columns, rows)
    }

    #[test]
    fn one_object_per_line_with_its_timestamp() {
        let mut rows = rows();
        rows[0].timestamp = Some("2026/01/02 03:04:05.678".into());
        rows[1].timestamp = Some("2026/01/02 03:04:05.679".into());
        assert_eq!(
            render(&cols(), &rows),
            concat!(
                r#"{"timestamp":"2026/01/02 03:04:05.678","index":0,"name":"NVIDIA H100 \"80GB\"","memory.used":21,"power.draw":412.345,"temperature.memory":48}"#,
                "\n",
                r#"{"timestamp":"2026/01/02 03:04:05.679","index":1,"name":null,"memory.used":null,"power.draw":null,"temperature.memory":null,"#,
                r#""_errors":{"name":"gpu_lost","memory.used":"gpu_lost","power.draw":"not_supported","temperature.memory":"not_available"}}"#,
                "\n"
            )
        );
    }

    #[test]
    fn a_queried_timestamp_is_not_repeated() {
        let columns = vec![col("index", None), col("timestamp", None)];
        let mut row = Row::new(vec![Value::Int(0), Value::text("2026/01/02 03:04:05.678")]);
        row.timestamp = Some("ignored".into());
        assert_eq!(
            render(&columns, &[row]),
            "{\"index\":0,\"timestamp\":\"2026/01/02 03:04:05.678\"}\n"
        );
    }

    #[test]
    fn no_rows_no_lines_and_each_line_parses() {
        assert_eq!(render(&cols(), &[]), "");
        let text = render(&cols(), &rows());
        for line in text.lines() {
            let v: serde_json::Value = serde_json::from_str(line).unwrap();
            assert!(v.is_object());
        }
        assert_eq!(text.lines().count(), 2);
    }
}
