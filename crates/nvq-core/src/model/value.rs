//! One cell of output: a value, or the reason there is none.

use super::NvmlCode;

const MIB: u64 = 1024 * 1024;

/// Why a cell has no value: the NVML code behind it. nvidia-smi prints it as
/// a bracketed token (`[N/A]`, `[GPU is lost]`, ...).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Token {
    /// The NVML code the call failed with; it decides the text and the reason.
    pub code: NvmlCode,
    /// Drivers before about 2020 spelled NOT_SUPPORTED `[Not Supported]`.
    pub legacy_spelling: bool,
}

impl Token {
    /// A value as text, or the token of the code it failed with.
    pub fn or_text<T: ToString>(r: &Result<T, NvmlCode>) -> String {
        match r {
            Ok(v) => v.to_string(),
            Err(c) => Token::new(*c).text(),
        }
    }

    /// The token of this code, in today's spelling.
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

/// A cell value. Numbers stay numbers until a formatter renders them.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// An integer, printed plainly (plus the field's unit, unless `nounits`).
    Int(i64),
    /// A real number printed with a fixed number of decimals (watts: 2).
    Float {
        /// The number, in the field's unit.
        value: f64,
        /// How many digits to print after the point.
        decimals: u8,
    },
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
    /// A [`Value::Text`] of anything that converts into a `String`.
    pub fn text(s: impl Into<String>) -> Self {
        Value::Text(s.into())
    }

    /// Watts with 2 decimals, from the milliwatts NVML's power calls report.
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

    /// The cell of a call that failed with `code` (its token in today's spelling).
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

    /// Whether the value is numeric (an integer, a real or a size); see [`Value::as_f64`].
    pub fn is_number(&self) -> bool {
        self.as_f64().is_some()
    }
}

/// The value's own text, as nvidia-smi prints it without a unit: integers in
/// decimal, reals with their decimals, sizes in MiB (rounded up), text as it
/// is, `N/A`, and failure tokens (`[N/A]`, `[GPU is lost]`, ...).
impl std::fmt::Display for Value {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Value::Int(i) => write!(f, "{i}"),
            Value::Float { value, decimals } => {
                write!(f, "{value:.prec$}", prec = usize::from(*decimals))
            }
            Value::Bytes(b) => write!(f, "{}", Self::mib_ceil(*b)),
            Value::Text(s) => f.write_str(s),
            Value::NotAvailable => f.write_str("N/A"),
            Value::Error(t) => f.write_str(&t.text()),
        }
    }
}
