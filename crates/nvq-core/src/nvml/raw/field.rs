//! Field values (`nvmlDeviceGetFieldValues`), with the driver's field-id
//! numbering.

use super::{zeroed, Dev};
use crate::nvml::{check, NvmlCode};
use nvml_wrapper_sys::bindings::*;

/// One `nvmlDeviceGetFieldValues` result.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum FieldVal {
    /// A signed integer.
    Int(i64),
    /// An unsigned integer.
    UInt(u64),
    /// A floating-point number.
    Float(f64),
}

impl FieldVal {
    /// The value as a float.
    pub fn as_f64(self) -> f64 {
        match self {
            FieldVal::Int(i) => i as f64,
            FieldVal::UInt(u) => u as f64,
            FieldVal::Float(f) => f,
        }
    }

    /// The value as an integer (a float is truncated).
    pub fn as_i64(self) -> i64 {
        match self {
            FieldVal::Int(i) => i,
            FieldVal::UInt(u) => i64::try_from(u).unwrap_or(i64::MAX),
            FieldVal::Float(f) => f as i64,
        }
    }
}

/// nvml-wrapper's rule: drivers from 580.82 on (CUDA 13.0 Update 1) number
/// field ids 251-273 differently; ids here use the older numbering.
fn translate_field_id(driver_version: &str, id: u32) -> u32 {
    let mut parts = driver_version.split('.');
    let major: u32 = parts.next().and_then(|s| s.parse().ok()).unwrap_or(0);
    let minor: u32 = parts.next().and_then(|s| s.parse().ok()).unwrap_or(0);
    let new_scheme = major > 580 || (major == 580 && minor >= 82);
    match id {
        251..=255 if new_scheme => id + 18,
        256..=273 if new_scheme => id - 5,
        other => other,
    }
}

/// Read several field values in one call. Each entry is the value or the
/// code NVML gave that entry (or the whole call).
pub fn field_values(c: &Dev<'_>, wanted: &[(u32, u32)]) -> Vec<Result<FieldVal, NvmlCode>> {
    let all = |code: NvmlCode| wanted.iter().map(|_| Err(code)).collect();
    let f = match sym!(c, nvmlDeviceGetFieldValues) {
        Ok(f) => f,
        Err(code) => return all(code),
    };
    let h = match c.handle() {
        Ok(h) => h,
        Err(code) => return all(code),
    };
    let driver = c.session.driver_version().unwrap_or("");
    let mut values: Vec<nvmlFieldValue_t> = wanted
        .iter()
        .map(|&(id, scope)| {
            let mut v: nvmlFieldValue_t = zeroed();
            v.fieldId = translate_field_id(driver, id);
            v.scopeId = scope;
            v
        })
        .collect();
    let n = i32::try_from(values.len()).unwrap_or(i32::MAX);
    // SAFETY: a valid handle and `n` initialised entries.
    if let Err(code) = check(unsafe { f(h, n, values.as_mut_ptr()) }) {
        return all(code);
    }
    values.iter().map(decode_field_value).collect()
}

fn decode_field_value(v: &nvmlFieldValue_t) -> Result<FieldVal, NvmlCode> {
    check(v.nvmlReturn)?;
    // SAFETY: the union member read is the one `valueType` names.
    unsafe {
        match v.valueType {
            0 => Ok(FieldVal::Float(v.value.dVal)),
            1 => Ok(FieldVal::UInt(u64::from(v.value.uiVal))),
            2 => Ok(FieldVal::UInt(v.value.ulVal)),
            3 => Ok(FieldVal::UInt(v.value.ullVal)),
            4 => Ok(FieldVal::Int(v.value.sllVal)),
            5 => Ok(FieldVal::Int(i64::from(v.value.siVal))),
            6 => Ok(FieldVal::UInt(u64::from(v.value.usVal))),
            _ => Err(NvmlCode::UNKNOWN),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn field_ids_follow_the_driver_numbering() {
        // Before 580.82 the ids pass through.
        assert_eq!(translate_field_id("580.65.06", 251), 251);
        assert_eq!(translate_field_id("535.129.03", 260), 260);
        // From 580.82 on, event reason counters move up, smoothing moves down.
        assert_eq!(translate_field_id("580.82.07", 251), 269);
        assert_eq!(translate_field_id("590.48.01", 253), 271);
        assert_eq!(translate_field_id("610.57.04", 256), 251);
        assert_eq!(translate_field_id("610.57.04", 273), 268);
        // Ids outside the range never move.
        assert_eq!(translate_field_id("590.48.01", 74), 74);
        assert_eq!(translate_field_id("590.48.01", 274), 274);
    }
}
