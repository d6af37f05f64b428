//! Output formats. Each format is one file behind the [`Formatter`] trait:
//! rows in, bytes out, with no NVML and no I/O inside.

mod csv;
pub mod summary_table;

pub use self::csv::Csv;

use crate::error::NvqError;
use crate::fields::Value;

/// One output column.
#[derive(Debug, Clone, PartialEq)]
pub struct Column {
    /// The field's canonical name (JSON key, Prometheus metric stem).
    pub name: &'static str,
    /// The name the CSV header prints (differs from `name` on old drivers).
    pub header_name: &'static str,
    /// The field's unit, if it has one.
    pub unit: Option<&'static str>,
}

impl Column {
    /// The header cell: `name [unit]`.
    pub fn header(&self) -> String {
        match self.unit {
            Some(u) => format!("{} [{u}]", self.header_name),
            None => self.header_name.to_string(),
        }
    }
}

/// Who a row is about, for formats that label rows by GPU (Prometheus).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct GpuIdent {
    pub index: u32,
    pub uuid: String,
    pub name: String,
    pub pci_bus_id: String,
}

/// One output row.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    pub cells: Vec<Value>,
    /// The GPU the row belongs to, when the format needs it.
    pub gpu: Option<std::rc::Rc<GpuIdent>>,
}

impl Row {
    pub fn new(cells: Vec<Value>) -> Self {
        Row { cells, gpu: None }
    }
}

/// A format: how rows become bytes.
pub trait Formatter {
    /// Bytes written once, before the first sample (the CSV header).
    fn begin(&mut self, columns: &[Column], out: &mut Vec<u8>);
    /// Bytes for one sample's rows.
    fn sample(&mut self, columns: &[Column], rows: &[Row], out: &mut Vec<u8>);
    /// Bytes written once, after the last sample.
    fn finish(&mut self, _columns: &[Column], _out: &mut Vec<u8>) {}
}

/// The output formats nvq knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FormatKind {
    Csv,
}

impl FormatKind {
    pub const ALL: &'static [(FormatKind, &'static str)] = &[(FormatKind::Csv, "csv")];

    pub fn name(self) -> &'static str {
        FormatKind::ALL
            .iter()
            .find(|(k, _)| *k == self)
            .map(|(_, n)| *n)
            .unwrap_or("csv")
    }
}

/// A parsed `--format=` value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FormatSpec {
    pub kind: FormatKind,
    pub noheader: bool,
    pub nounits: bool,
}

impl FormatSpec {
    /// Parse `--format=`: comma-separated tokens in any order; exactly one
    /// format token (`csv`, ...) plus any of `noheader` and `nounits`.
    pub fn parse(s: &str) -> Result<Self, NvqError> {
        let mut kind = None;
        let mut noheader = false;
        let mut nounits = false;
        for tok in s.split(',') {
            match tok {
                "noheader" => noheader = true,
                "nounits" => nounits = true,
                t => {
                    let k = FormatKind::ALL
                        .iter()
                        .find(|(_, n)| *n == t)
                        .map(|(k, _)| *k)
                        .ok_or_else(|| {
                            NvqError::Usage(format!(
                                "Invalid format option \"{t}\" in --format. Valid options are: {}, noheader, nounits.",
                                FormatKind::ALL.iter().map(|(_, n)| *n).collect::<Vec<_>>().join(", ")
                            ))
                        })?;
                    if kind.is_some_and(|prev| prev != k) {
                        return Err(NvqError::Usage(format!(
                            "--format names more than one output format (\"{s}\"); choose one."
                        )));
                    }
                    kind = Some(k);
                }
            }
        }
        let kind = kind.ok_or_else(|| {
            NvqError::Usage(format!(
                "--format=\"{s}\" does not name an output format; csv is mandatory (or one of nvq's: {}).",
                FormatKind::ALL.iter().map(|(_, n)| *n).collect::<Vec<_>>().join(", ")
            ))
        })?;
        Ok(FormatSpec {
            kind,
            noheader,
            nounits,
        })
    }

    /// The formatter for this spec.
    pub fn formatter(&self) -> Box<dyn Formatter> {
        match self.kind {
            FormatKind::Csv => Box::new(Csv::new(self.noheader, self.nounits)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_in_any_order() {
        let a = FormatSpec::parse("csv,noheader,nounits").unwrap();
        let b = FormatSpec::parse("nounits,noheader,csv").unwrap();
        assert_eq!(a, b);
        assert!(a.noheader && a.nounits);
    }

    #[test]
    fn csv_is_mandatory_and_tokens_are_known() {
        assert!(FormatSpec::parse("noheader").is_err());
        assert!(FormatSpec::parse("csv,bogus").is_err());
        assert!(FormatSpec::parse("").is_err());
        assert!(FormatSpec::parse("csv, noheader").is_err());
    }
}
