//! `--format`, read once (`plan::Common::format`) for what the mode or
//! sub-command prints: the runners take the typed [`Format`] and never read
//! the text again. The value is taken as given, never trimmed, as
//! nvidia-smi takes it (comma-separated tokens, no spaces).

use crate::Personality;
use nvq_core::error::NvqError;
use nvq_core::render::monitor::SmiCsv;
use nvq_core::render::FormatSpec;

/// What `--format` asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// One of the row formats (csv, json, ndjson, table, prometheus) with
    /// its options: the queries, the short commands, the monitors.
    Rows(FormatSpec),
    /// nvidia-smi's own dmon CSV: `dmon --format csv[,nounit][,noheader]`
    /// run as `nvidia-smi`.
    SmiCsv(SmiCsv),
    /// JSON instead of the text of a report or a listing (`-q`, `topo`, `mig`).
    Json,
}

/// Which `--format` values a mode takes, and how it refuses the others.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Formats {
    /// The row formats: nvidia-smi's reading run as `nvidia-smi`
    /// ([`FormatSpec::parse`]), nvq's otherwise ([`FormatSpec::parse_lenient`]:
    /// `nounit` for `nounits`, a "did you mean").
    Rows,
    /// A monitor's: the row formats in nvq's reading; with `smi_csv`, run
    /// as `nvidia-smi`, nvidia-smi's own dmon CSV when spelled as dmon
    /// spells it.
    Monitor { smi_csv: bool },
    /// Text, or JSON with `--format=json`; any other value is refused with
    /// a message naming the sub-command.
    TextOrJson(&'static str),
    /// The `-q` report: text or XML, or JSON with `--format=json`; any other
    /// value is an invalid combination, as nvidia-smi says.
    Report,
}

impl Format {
    /// Read `text` for a mode that takes `takes`.
    pub fn parse(text: &str, takes: Formats, personality: Personality) -> Result<Self, NvqError> {
        let smi = personality == Personality::NvidiaSmi;
        match takes {
            Formats::Rows if smi => FormatSpec::parse(text).map(Format::Rows),
            Formats::Rows => FormatSpec::parse_lenient(text).map(Format::Rows),
            Formats::Monitor { smi_csv } => match smi_csv_spec(text).filter(|_| smi_csv && smi) {
                Some(spec) => Ok(Format::SmiCsv(spec)),
                None => FormatSpec::parse_lenient(text).map(Format::Rows),
            },
            Formats::TextOrJson(_) | Formats::Report if text == "json" => Ok(Format::Json),
            Formats::TextOrJson(name) => Err(NvqError::Usage(format!(
                "\"{text}\" is not a format of {name}; it prints text, or json with --format=json."
            ))),
            Formats::Report => Err(NvqError::InvalidCombination),
        }
    }

    /// The row format asked for, if one was.
    pub fn rows(self) -> Option<FormatSpec> {
        match self {
            Format::Rows(spec) => Some(spec),
            Format::SmiCsv(_) | Format::Json => None,
        }
    }
}

/// nvidia-smi's dmon `--format`: `csv` with any of `nounit` and
/// `noheader`, in any order; `None` for anything else.
fn smi_csv_spec(f: &str) -> Option<SmiCsv> {
    let mut spec = SmiCsv::default();
    let mut csv = false;
    for t in f.split(',') {
        match t {
            "csv" => csv = true,
            "nounit" => spec.nounit = true,
            "noheader" => spec.noheader = true,
            _ => return None,
        }
    }
    csv.then_some(spec)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_mode_reads_its_own_formats() {
        let nvq = Personality::Nvq;
        let smi = Personality::NvidiaSmi;
        let rows = |t, p| {
            Format::parse(t, Formats::Rows, p)
                .ok()
                .and_then(Format::rows)
        };
        assert!(rows("csv,nounit", nvq).is_some_and(|f| f.nounits));
        assert!(rows("csv,nounit", smi).is_none());
        let dmon = Formats::Monitor { smi_csv: true };
        assert!(matches!(
            Format::parse("nounit,csv", dmon, smi),
            Ok(Format::SmiCsv(SmiCsv {
                nounit: true,
                noheader: false
            }))
        ));
        assert!(matches!(
            Format::parse("csv", dmon, nvq),
            Ok(Format::Rows(_))
        ));
        let topo = Formats::TextOrJson("topo");
        assert!(matches!(Format::parse("json", topo, nvq), Ok(Format::Json)));
        let e = Format::parse("csv", topo, nvq).map(|_| ()).unwrap_err();
        assert!(
            e.to_string().contains("\"csv\" is not a format of topo"),
            "{e}"
        );
        assert!(matches!(
            Format::parse(" json", Formats::Report, nvq),
            Err(NvqError::InvalidCombination)
        ));
    }
}
