//! One cell of output: a value, or the reason there is none.

use crate::nvml::NvmlCode;

const MIB: u64 = 1024 * 1024;

/// How CSV and the table print a NaN or infinite reading.
const NOT_FINITE_TOKEN: &str = "[N/A]";

/// The reason JSON's `"_errors"` gives for a NaN or infinite reading.
pub const NOT_FINITE: &str = "not_finite";

/// Why a cell has no value: the NVML code behind it. nvidia-smi prints it as
/// a bracketed token (`[N/A]`, `[GPU is lost]`, ...).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Token {
    pub code: NvmlCode,
    /// Drivers before about 2020 spelled NOT_SUPPORTED `[Not Supported]`.
    pub legacy_spelling: bool,
}

impl Token {
    pub fn new(code: NvmlCode) -> Self {
        Token {
            code,
            legacy_spelling: false,
        }
    }

    /// The token exactly as nvidia-smi prints it.
    pub fn text(&self) -> String {
        match self.code {
            NvmlCode::NOT_SUPPORTED if self.legacy_spelling => "[Not Supported]".to_string(),
            NvmlCode::NOT_SUPPORTED => "[N/A]".to_string(),
            c => format!("[{}]", c.message()),
        }
    }

    /// A stable machine-readable name for the reason (JSON, Prometheus).
    pub fn reason(&self) -> &'static str {
        match self.code.0 {
            3 => "not_supported",
            4 => "no_permission",
            6 => "not_found",
            10 => "timeout",
            13 => "function_not_found",
            15 => "gpu_lost",
            16 => "reset_required",
            26 => "deprecated",
            _ => "error",
        }
    }
}

/// Text as the line-based formats (CSV, the table, the summary table) print
/// it: every control character (C0 below 0x20, DEL and C1) becomes `?`, as
/// `ps` does, so that a process name or command line holding a newline
/// cannot forge a row and one holding ESC cannot drive the terminal. JSON and
/// Prometheus escape instead and keep the text exact.
pub fn printable(s: &str) -> std::borrow::Cow<'_, str> {
    if s.chars().any(char::is_control) {
        s.chars()
            .map(|c| if c.is_control() { '?' } else { c })
            .collect::<String>()
            .into()
    } else {
        s.into()
    }
}

/// A cell value. Numbers stay numbers until a formatter renders them.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// An integer, printed plainly (plus the field's unit, unless `nounits`).
    Int(i64),
    /// A real number printed with a fixed number of decimals (watts: 2).
    Float { value: f64, decimals: u8 },
    /// A size in bytes, printed in MiB rounded up, as nvidia-smi does.
    Bytes(u64),
    /// Text, printed as is, never with a unit.
    Text(String),
    /// nvidia-smi's bare `N/A` (no brackets): a formatted value that means
    /// "nothing to report", as opposed to a failed call.
    NotAvailable,
    /// The NVML call behind the cell failed.
    Error(Token),
}

impl Value {
    pub fn text(s: impl Into<String>) -> Self {
        Value::Text(s.into())
    }

    pub fn watts_from_mw(mw: u32) -> Self {
        Value::Float {
            value: f64::from(mw) / 1000.0,
            decimals: 2,
        }
    }

    /// A count or counter, printed as a plain integer.
    pub fn count(n: u64) -> Self {
        Value::Int(i64::try_from(n).unwrap_or(i64::MAX))
    }

    pub fn err(code: NvmlCode) -> Self {
        Value::Error(Token::new(code))
    }

    /// `Enabled` / `Disabled`.
    pub fn enabled(on: bool) -> Self {
        Value::text(if on { "Enabled" } else { "Disabled" })
    }

    /// `Yes` / `No`.
    pub fn yes_no(on: bool) -> Self {
        Value::text(if on { "Yes" } else { "No" })
    }

    /// Build a value from a getter result.
    pub fn from_result<T>(r: Result<T, NvmlCode>, f: impl FnOnce(T) -> Value) -> Self {
        match r {
            Ok(v) => f(v),
            Err(c) => Value::err(c),
        }
    }

    /// MiB as nvidia-smi computes them: rounded up.
    pub fn mib_ceil(bytes: u64) -> u64 {
        bytes.div_ceil(MIB)
    }

    /// The number in the unit the CSV header names, if the value is numeric.
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Value::Int(i) => Some(*i as f64),
            Value::Float { value, .. } => Some(*value),
            Value::Bytes(b) => Some(Self::mib_ceil(*b) as f64),
            _ => None,
        }
    }

    pub fn is_number(&self) -> bool {
        self.as_f64().is_some()
    }

    /// Append the value as nvidia-smi's CSV prints it.
    pub fn write_csv(&self, unit: Option<&str>, nounits: bool, out: &mut String) {
        use std::fmt::Write;
        let with_unit = |out: &mut String| {
            if let (Some(u), false) = (unit, nounits) {
                out.push(' ');
                out.push_str(u);
            }
        };
        match self {
            Value::Int(i) => {
                let _ = write!(out, "{i}");
                with_unit(out);
            }
            Value::Float { value, decimals } if value.is_finite() => {
                let _ = write!(out, "{value:.prec$}", prec = usize::from(*decimals));
                with_unit(out);
            }
            // NaN or infinite: the reading is unusable, so it is unavailable.
            Value::Float { .. } => out.push_str(NOT_FINITE_TOKEN),
            Value::Bytes(b) => {
                let _ = write!(out, "{}", Self::mib_ceil(*b));
                with_unit(out);
            }
            Value::Text(s) => out.push_str(&printable(s)),
            Value::NotAvailable => out.push_str("N/A"),
            Value::Error(t) => out.push_str(&printable(&t.text())),
        }
    }

    /// The CSV text of the value, as a new string.
    pub fn to_csv(&self, unit: Option<&str>, nounits: bool) -> String {
        let mut s = String::new();
        self.write_csv(unit, nounits, &mut s);
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mib_rounds_up() {
        assert_eq!(
            Value::Bytes(501_481_472).to_csv(Some("MiB"), false),
            "479 MiB"
        );
        assert_eq!(Value::Bytes(0).to_csv(Some("MiB"), true), "0");
        assert_eq!(Value::Bytes(MIB).to_csv(Some("MiB"), true), "1");
    }

    #[test]
    fn watts_have_two_decimals() {
        assert_eq!(
            Value::watts_from_mw(77_710).to_csv(Some("W"), false),
            "77.71 W"
        );
        assert_eq!(
            Value::watts_from_mw(700_000).to_csv(Some("W"), true),
            "700.00"
        );
    }

    #[test]
    fn nan_and_infinity_are_unavailable() {
        for value in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
            let v = Value::Float { value, decimals: 2 };
            assert_eq!(v.to_csv(Some("W"), false), "[N/A]");
        }
    }

    #[test]
    fn control_characters_become_question_marks() {
        assert_eq!(printable("a\nb\rc\x1b[1m\u{7f}\u{9b}\td"), "a?b?c?[1m???d");
        assert_eq!(printable("ünïcode ok"), "ünïcode ok");
        assert_eq!(Value::text("x\n1, 2").to_csv(None, false), "x?1, 2");
    }

    #[test]
    fn tokens_keep_brackets_under_nounits() {
        let na = Value::err(NvmlCode::NOT_SUPPORTED);
        assert_eq!(na.to_csv(Some("W"), true), "[N/A]");
        let lost = Value::err(NvmlCode::GPU_IS_LOST);
        assert_eq!(lost.to_csv(None, false), "[GPU is lost]");
        let old = Value::Error(Token {
            code: NvmlCode::NOT_SUPPORTED,
            legacy_spelling: true,
        });
        assert_eq!(old.to_csv(Some("%"), false), "[Not Supported]");
        assert_eq!(
            Value::err(NvmlCode::DEPRECATED).to_csv(None, false),
            "[Requested functionality has been deprecated]"
        );
        assert_eq!(Value::NotAvailable.to_csv(Some("C"), false), "N/A");
    }
}
