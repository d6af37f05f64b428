//! A log nvq wrote with `-f` (CSV with or without units, or NDJSON), read
//! back as a table of numbers over time: what `nvq plot` draws.

/// One column of the log.
#[derive(Clone, Debug, PartialEq)]
pub struct LogColumn {
    /// The field's name as the header or the JSON key spells it (`memory.used`).
    pub name: String,
    /// The unit its numbers are in (`MiB`, `%`), from the header or the field table.
    pub unit: Option<String>,
    /// One of that unit in the quantity's base unit (MiB: 1048576), so that cells hold base units.
    pub scale: f64,
}

/// A cell of the log.
#[derive(Clone, Debug, PartialEq)]
pub enum LogCell {
    /// A number, in the column's base unit.
    Num(f64),
    /// Text, as a number in [`LogHead::texts`] (each distinct text is kept once: a day of rows names the same few
    /// GPUs and processes over and over).
    Text(u32),
    /// `[N/A]`, an error token, `null` or an empty cell.
    Missing,
}

/// One row of the log: when it was read, and its cells in column order.
#[derive(Clone, Debug, PartialEq)]
pub struct LogRow {
    /// Seconds since the UNIX epoch (UTC): NDJSON's `timestamp.epoch`, else the `timestamp` read in this machine's
    /// time zone.
    pub t: f64,
    /// The row's cells, one per [`LogHead::columns`] entry, in the same order (the `timestamp` column's is
    /// [`LogCell::Missing`]: it is `t`).
    pub cells: Vec<LogCell>,
}

/// Which of nvq's formats the log is in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LogFormat {
    /// CSV (`--format=csv`), with or without the units in the header.
    Csv,
    /// Newline-delimited JSON, one object per row.
    Ndjson,
}

/// What a log read row by row says beside its rows (`source::log::read`): its format, columns, first timestamp
/// and the texts its cells name.
#[derive(Clone, Debug, PartialEq)]
pub struct LogHead {
    /// The format the log was read as.
    pub format: LogFormat,
    /// The columns, in the order the header or the first object lists them.
    pub columns: Vec<LogColumn>,
    /// The first row's timestamp as written, for the time axis.
    pub start: String,
    /// The distinct texts of the cells read so far.
    pub texts: Vec<String>,
    /// How many numbers were read as missing for being too large to draw (beyond ±10^15; nvq writes none).
    pub beyond: usize,
}

impl LogHead {
    /// The position of a column, by name.
    pub fn column(&self, name: &str) -> Option<usize> {
        self.columns.iter().position(|c| c.name == name)
    }

    /// The text of a [`LogCell::Text`].
    pub fn text(&self, id: u32) -> &str {
        self.texts.get(id as usize).map_or("", String::as_str)
    }
}

/// A whole log: its head and its rows.
#[derive(Clone, Debug, PartialEq)]
pub struct Log {
    /// The format, columns, first timestamp and texts, as [`LogHead`] (here with every row read).
    pub head: LogHead,
    /// The rows, in the order they were written.
    pub rows: Vec<LogRow>,
}

impl Log {
    /// Does the column hold a number in at least one row?
    pub fn is_numeric(&self, k: usize) -> bool {
        self.rows
            .iter()
            .any(|r| matches!(r.cells.get(k), Some(LogCell::Num(_))))
    }
}

/// Text of the log in a message: in quotes, its first 60 characters (a line may be a MiB long). The message's
/// reader escapes what it holds for the terminal.
pub fn quoted(s: &str) -> String {
    const MOST: usize = 60;
    match s.char_indices().nth(MOST) {
        Some((at, _)) => format!("\"{}…\"", s.get(..at).unwrap_or(s)),
        None => format!("\"{s}\""),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Log text in a message is quoted and cut to 60 characters.
    #[test]
    fn quoted_text_is_cut() {
        assert_eq!(quoted("abc"), "\"abc\"");
        let long = "é".repeat(100);
        assert_eq!(quoted(&long), format!("\"{}…\"", "é".repeat(60)));
    }
}
