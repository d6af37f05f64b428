//! The scenario's building blocks: its limits, values that change over time (`Series`) and
//! NVML return codes written by name (`Code`).

use serde::Deserialize;

/// Most devices a scenario may describe (handles are carved from a fixed address range).
pub const MAX_DEVICES: usize = 16384;
/// Largest scenario file read, in bytes (16 MiB); big machines use `[generate]`.
pub const MAX_SCENARIO_BYTES: u64 = 16 << 20;
/// Most MIG instances per device.
pub const MAX_MIG_INSTANCES: usize = 63;
/// Most GPU instances per device.
pub const MAX_GPU_INSTANCES: usize = 8;
/// Most compute instances per GPU instance.
pub const MAX_COMPUTE_INSTANCES: usize = 8;

/// A value that may change over time: one value, or a list (element n answers call n).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(untagged)]
pub enum Series<T> {
    One(T),
    Many(Vec<T>),
}

impl<T: Copy> Series<T> {
    /// Value for the 0-based call index `i` (the last element repeats); `None` for an empty list.
    pub fn at(&self, i: usize) -> Option<T> {
        match self {
            Series::One(v) => Some(*v),
            Series::Many(v) => v.get(i).or_else(|| v.last()).copied(),
        }
    }
    /// The first value (what the first call returns).
    pub fn first(&self) -> Option<T> {
        self.at(0)
    }
}

impl<T> From<T> for Series<T> {
    fn from(v: T) -> Self {
        Series::One(v)
    }
}

/// Optional series, the type of nearly every scenario field.
pub type Val<T> = Option<Series<T>>;

/// An NVML return code, written as a name (`"NOT_SUPPORTED"`, `"NVML_ERROR_GPU_IS_LOST"`) or a number.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(untagged)]
pub enum Code {
    Num(u32),
    Name(String),
}

/// NVML return codes by name (without the `NVML_ERROR_` prefix).
pub const CODES: &[(&str, u32)] = &[
    ("SUCCESS", 0),
    ("UNINITIALIZED", 1),
    ("INVALID_ARGUMENT", 2),
    ("NOT_SUPPORTED", 3),
    ("NO_PERMISSION", 4),
    ("ALREADY_INITIALIZED", 5),
    ("NOT_FOUND", 6),
    ("INSUFFICIENT_SIZE", 7),
    ("INSUFFICIENT_POWER", 8),
    ("DRIVER_NOT_LOADED", 9),
    ("TIMEOUT", 10),
    ("IRQ_ISSUE", 11),
    ("LIBRARY_NOT_FOUND", 12),
    ("FUNCTION_NOT_FOUND", 13),
    ("CORRUPTED_INFOROM", 14),
    ("GPU_IS_LOST", 15),
    ("RESET_REQUIRED", 16),
    ("OPERATING_SYSTEM", 17),
    ("LIB_RM_VERSION_MISMATCH", 18),
    ("IN_USE", 19),
    ("MEMORY", 20),
    ("NO_DATA", 21),
    ("VGPU_ECC_NOT_SUPPORTED", 22),
    ("INSUFFICIENT_RESOURCES", 23),
    ("FREQ_NOT_SUPPORTED", 24),
    ("ARGUMENT_VERSION_MISMATCH", 25),
    ("DEPRECATED", 26),
    ("NOT_READY", 27),
    ("GPU_NOT_FOUND", 28),
    ("INVALID_STATE", 29),
    ("RESET_TYPE_NOT_SUPPORTED", 30),
    ("UNKNOWN", 999),
];

impl Code {
    /// The numeric NVML code, or a description of what is wrong with the name.
    pub fn value(&self) -> Result<u32, String> {
        match self {
            Code::Num(n) => Ok(*n),
            Code::Name(s) => {
                let up = s.trim().to_ascii_uppercase();
                let bare = up
                    .strip_prefix("NVML_ERROR_")
                    .or_else(|| up.strip_prefix("NVML_"))
                    .unwrap_or(&up);
                CODES
                    .iter()
                    .find(|(n, _)| *n == bare)
                    .map(|(_, v)| *v)
                    .ok_or_else(|| format!("unknown NVML return code name {s:?}"))
            }
        }
    }
}

/// Name of an NVML return code (`"NOT_SUPPORTED"`), if known.
pub fn code_name(code: u32) -> Option<&'static str> {
    CODES.iter().find(|(_, v)| *v == code).map(|(n, _)| *n)
}
