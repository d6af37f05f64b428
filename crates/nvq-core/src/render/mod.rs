#![warn(missing_docs)]
//! Output formats. Each format is one file behind the [`Formatter`] trait:
//! rows in, bytes out, with no NVML and no I/O inside.

pub mod csv;
pub mod exporter;
pub mod field_help;
pub mod job;
pub(crate) mod json;
pub mod listing;
pub mod mig;
pub mod monitor;
mod ndjson;
pub mod nvlink;
mod prometheus;
pub mod report;
pub mod report_json;
pub mod report_unit;
pub mod report_xml;
pub mod smi_layout;
pub mod smi_table;
pub mod stat;
mod table;
pub mod topo;
pub mod trend_metrics;
pub mod vgpu;

pub use self::csv::Csv;
pub use self::json::Json;
pub use self::ndjson::Ndjson;
pub use self::prometheus::Prometheus;
pub use self::table::Table;

use crate::error::NvqError;
use crate::model::{Column, Row};

/// Does `c` stay off a terminal and out of a line-based format? One rule,
/// by Unicode general category (the tables of the `unicode-properties`
/// crate, from the Unicode Character Database): control characters (Cc:
/// C0, DEL, C1), format characters (Cf: the bidirectional marks and
/// overrides, U+061C, U+180E, the zero-width space, joiners and word
/// joiner, U+2060..U+2064, U+FEFF, the tag characters), and the line and
/// paragraph separators (Zl, Zp). The whole tag block U+E0000..U+E007F and
/// the bidirectional controls count whatever their category in a later
/// Unicode version.
pub fn hidden(c: char) -> bool {
    use unicode_properties::{GeneralCategory as G, UnicodeGeneralCategory};
    if c.is_ascii() {
        return c.is_ascii_control();
    }
    matches!(
        c,
        '\u{061C}' | '\u{200E}' | '\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}'
    ) || ('\u{E0000}'..='\u{E007F}').contains(&c)
        || matches!(
            c.general_category(),
            G::Control | G::Format | G::LineSeparator | G::ParagraphSeparator
        )
}

/// Text as every text view of nvq shows it (CSV, the table, the summary
/// table, the listings, `nvq top`): each [`hidden`] character becomes `?`,
/// as `ps` does with control characters, so that a process name or command
/// line holding a newline cannot forge a row, one holding ESC cannot drive
/// the terminal, and one holding a bidirectional override or an invisible
/// character cannot reorder or hide what is shown. JSON and Prometheus
/// escape instead and keep the text exact.
pub fn printable(s: &str) -> std::borrow::Cow<'_, str> {
    // Printable ASCII, most of what is shown, has nothing to replace.
    if s.bytes().all(|b| (0x20..0x7f).contains(&b)) || !s.chars().any(hidden) {
        return s.into();
    }
    s.chars()
        .map(|c| if hidden(c) { '?' } else { c })
        .collect::<String>()
        .into()
}

/// A format: how rows become bytes.
pub trait Formatter {
    /// Bytes written once, before the first sample (the CSV header; most
    /// formats have none).
    fn begin(&mut self, _columns: &[Column], _out: &mut Vec<u8>) {}
    /// Bytes for one sample's rows.
    fn sample(&mut self, columns: &[Column], rows: &[Row], out: &mut Vec<u8>);
    /// Bytes written once, after the last sample.
    fn finish(&mut self, _columns: &[Column], _out: &mut Vec<u8>) {}
    /// Does the format label rows by GPU? The collector then fills
    /// [`Row::gpu`], which costs a few NVML calls per GPU.
    fn needs_gpu_ident(&self) -> bool {
        false
    }
}

/// One sample through a formatter, begin to finish, as text (for tests).
#[cfg(test)]
pub(crate) fn render_once(f: &mut dyn Formatter, columns: &[Column], rows: &[Row]) -> String {
    written(|out| {
        f.begin(columns, out);
        f.sample(columns, rows, out);
        f.finish(columns, out);
    })
}

/// What `write` writes, as text (for tests).
#[cfg(test)]
pub(crate) fn written(write: impl FnOnce(&mut Vec<u8>)) -> String {
    let mut out = Vec::new();
    write(&mut out);
    String::from_utf8(out).unwrap_or_default()
}

/// The output formats nvq knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FormatKind {
    /// nvidia-smi's `--format=csv`: a header line, then one comma-separated line per row.
    Csv,
    /// Each sample one compact JSON array on one line, one object per row.
    Json,
    /// Newline-delimited JSON: one object per row per line, with a `timestamp` key; for loops.
    Ndjson,
    /// Aligned columns for a terminal, optionally coloured.
    Table,
    /// Prometheus text exposition format, one metric family per field, labelled by GPU.
    Prometheus,
}

impl FormatKind {
    /// Every format with the `--format=` token that names it, in the order help and errors list them.
    pub const ALL: &'static [(FormatKind, &'static str)] = &[
        (FormatKind::Csv, "csv"),
        (FormatKind::Json, "json"),
        (FormatKind::Ndjson, "ndjson"),
        (FormatKind::Table, "table"),
        (FormatKind::Prometheus, "prometheus"),
    ];

    /// Is a `-f` file of this format replaced whole each sample rather than
    /// appended to? Prometheus text is scraped from a file (node_exporter's
    /// textfile collector), so a reader must only ever see a whole
    /// exposition; every other format is a log.
    pub fn replaces_file(self) -> bool {
        self == FormatKind::Prometheus
    }

    /// Do `noheader` and `nounits` mean anything for this format?
    pub fn takes_csv_options(self) -> bool {
        matches!(self, FormatKind::Csv | FormatKind::Table)
    }

    /// The `--format=` token for this format (`csv`, `json`, ...), as listed in [`Self::ALL`].
    pub fn name(self) -> &'static str {
        FormatKind::ALL
            .iter()
            .find(|(k, _)| *k == self)
            .map(|(_, n)| *n)
            .unwrap_or("csv")
    }
}

/// The environment variable that sets nvq's default `--format` (under its
/// own name, for a query that gives none).
pub const FORMAT_ENV: &str = "NVQ_FORMAT";

/// A parsed `--format=` value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FormatSpec {
    /// The output format named by the one format token.
    pub kind: FormatKind,
    /// `noheader` was given: leave out the header line (csv and table only).
    pub noheader: bool,
    /// `nounits` was given: numbers print bare, without a unit after them (csv and table only).
    pub nounits: bool,
}

impl FormatSpec {
    /// nvq's own reading of `--format=`: as [`Self::parse`], but `nounit`
    /// (dmon's spelling) means `nounits`, and an unknown token gets the
    /// nearest valid ones suggested.
    pub fn parse_lenient(s: &str) -> Result<Self, NvqError> {
        let fixed: Vec<&str> = s
            .split(',')
            .map(|t| if t == "nounit" { "nounits" } else { t })
            .collect();
        Self::parse(&fixed.join(",")).map_err(|e| {
            let valid: Vec<&str> = FormatKind::ALL
                .iter()
                .map(|(_, n)| *n)
                .chain(["noheader", "nounits"])
                .collect();
            let bad = fixed.iter().find(|t| !valid.contains(t));
            let hint = bad.and_then(|b| {
                crate::model::suggest::did_you_mean(&crate::model::suggest::nearest(
                    b,
                    valid.iter().copied(),
                ))
            });
            match (e, hint) {
                (NvqError::Usage(m), Some(h)) => NvqError::Usage(format!("{m} ({h})")),
                (e, _) => e,
            }
        })
    }

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
                "--format=\"{s}\" does not name an output format; csv is mandatory (or one of nvq's: \
                 {}).",
                FormatKind::ALL.iter().map(|(_, n)| *n).collect::<Vec<_>>().join(", ")
            ))
        })?;
        if !kind.takes_csv_options() && (noheader || nounits) {
            let opt = if noheader { "noheader" } else { "nounits" };
            return Err(NvqError::Usage(format!(
                "--format={s}: \"{opt}\" applies to csv and table output only; {} output has no \
                 header line and keeps numbers bare.",
                kind.name()
            )));
        }
        Ok(FormatSpec {
            kind,
            noheader,
            nounits,
        })
    }

    /// The formatter for this spec, without colour.
    pub fn formatter(&self) -> Box<dyn Formatter> {
        self.formatter_with(false)
    }

    /// The formatter for this spec. `colour`: may the output carry ANSI
    /// colours (the caller decides: a terminal, `NO_COLOR` unset); only the
    /// table uses them.
    pub fn formatter_with(&self, colour: bool) -> Box<dyn Formatter> {
        match self.kind {
            FormatKind::Csv => Box::new(Csv::new(self.noheader, self.nounits)),
            FormatKind::Json => Box::new(Json),
            FormatKind::Ndjson => Box::new(Ndjson),
            FormatKind::Table => Box::new(Table::new(self.noheader, self.nounits, colour)),
            FormatKind::Prometheus => Box::new(Prometheus::new()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every character that reorders, hides or breaks text is `?`, by its
    /// category; letters of every script, symbols, marks and spaces stay.
    #[test]
    fn invisible_and_control_characters_become_question_marks() {
        let hidden_ones = [
            '\u{0}',
            '\n',
            '\u{1b}',
            '\u{7f}',
            '\u{85}',
            '\u{9b}',
            '\u{ad}',
            '\u{61c}',
            '\u{180e}',
            '\u{200b}',
            '\u{200d}',
            '\u{200e}',
            '\u{202e}',
            '\u{2028}',
            '\u{2029}',
            '\u{2060}',
            '\u{2061}',
            '\u{2062}',
            '\u{2063}',
            '\u{2064}',
            '\u{2066}',
            '\u{2069}',
            '\u{feff}',
            '\u{fff9}',
            '\u{e0000}',
            '\u{e0001}',
            '\u{e0041}',
            '\u{e007f}',
        ];
        for c in hidden_ones {
            assert_eq!(printable(&format!("a{c}b")), "a?b", "U+{:04X}", c as u32);
        }
        let shown = "ünïcode 日本語 Ｈ１００ e\u{301} \u{a0}x ★ אב ع \u{fffd} 🙂";
        assert_eq!(printable(shown), shown);
        assert!(matches!(
            printable("NVIDIA H100"),
            std::borrow::Cow::Borrowed(_)
        ));
    }

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

    #[test]
    fn every_format_parses_by_name() {
        for &(kind, name) in FormatKind::ALL {
            let spec = FormatSpec::parse(name).unwrap();
            assert_eq!(spec.kind, kind);
            assert_eq!(kind.name(), name);
        }
        assert!(FormatSpec::parse("json,csv").is_err());
        assert!(FormatSpec::parse("table,noheader,nounits").is_ok());
    }

    #[test]
    fn header_options_are_refused_where_meaningless() {
        for name in ["json", "ndjson", "prometheus"] {
            for opt in ["noheader", "nounits"] {
                let err = FormatSpec::parse(&format!("{name},{opt}")).unwrap_err();
                assert_eq!(err.exit_code(), crate::ExitCode::InvalidArgument);
                let text = err.to_string();
                assert!(text.contains(opt) && text.contains(name), "{text}");
            }
        }
    }

    #[test]
    fn only_prometheus_needs_gpu_idents() {
        for &(kind, name) in FormatKind::ALL {
            let f = FormatSpec::parse(name).unwrap().formatter();
            assert_eq!(
                f.needs_gpu_ident(),
                kind == FormatKind::Prometheus,
                "{name}"
            );
        }
    }
}
