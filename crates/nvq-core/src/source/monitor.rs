//! What the monitors' metric tables share: a metric (its two header lines,
//! nvq's unit and help, the `-s` letter that selects it) and `-s` itself.

/// One monitor column chosen by `-s`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Metric {
    /// The first header line's name (`pwr`), also nvq's column name.
    pub name: &'static str,
    /// The second header line's text (`W`).
    pub unit_label: &'static str,
    /// nvq's unit for the value (`None`: a bare number).
    pub unit: Option<&'static str>,
    pub help: &'static str,
    /// The `-s` letter that selects it.
    pub group: char,
    /// The `--query-gpu` field that reads the same quantity, if any: the
    /// column's kind (counter or gauge) and Prometheus name are that
    /// field's, so both views name one fact alike.
    pub fact: Option<&'static str>,
}

impl Metric {
    /// The metric with the `--query-gpu` field of the same quantity.
    pub const fn fact(mut self, field: &'static str) -> Self {
        self.fact = Some(field);
        self
    }
}

/// A table entry.
pub const fn m(
    name: &'static str,
    unit_label: &'static str,
    unit: Option<&'static str>,
    group: char,
    help: &'static str,
) -> Metric {
    Metric {
        name,
        unit_label,
        unit,
        help,
        group,
        fact: None,
    }
}

/// The metrics of `-s LETTERS` from `table`, group by group in the order
/// given (a letter given twice counts once). `Err(letter)` for a letter
/// that is not one of `groups`.
pub fn select(table: &[Metric], groups: &str, letters: &str) -> Result<Vec<Metric>, char> {
    let mut seen = String::new();
    let mut out = Vec::new();
    for g in letters.chars() {
        if !groups.contains(g) {
            return Err(g);
        }
        if !seen.contains(g) {
            seen.push(g);
            out.extend(table.iter().filter(|m| m.group == g).copied());
        }
    }
    Ok(out)
}
