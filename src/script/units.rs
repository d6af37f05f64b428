//! Units of measure: which units a number may carry, and how they convert.
//!
//! Every numeric value is compared in the base unit of its kind (MiB for
//! sizes, W for power, MHz for clocks, seconds for durations, °C for
//! temperatures, and fractions for percentages: 90% = 0.9). A field's
//! values are converted from its header unit; a literal from the unit
//! written after it; a bare literal takes the unit of the field it is
//! compared with (`memory.free > 20000` means 20000 MiB).

use crate::model::FieldInfo;

/// What a number measures.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Size,
    Power,
    Clock,
    Time,
    Temperature,
    /// Percentages and ratios (`memory.used / memory.total`).
    Fraction,
    /// A count or other plain number without a unit (`index`, `pcie.link.width.current`).
    Plain,
    /// A field unit nvq has no conversions for; only bare numbers or the
    /// exact same unit fit.
    Other(&'static str),
}

impl Kind {
    pub fn describe(self) -> String {
        match self {
            Kind::Size => "a size".into(),
            Kind::Power => "a power".into(),
            Kind::Clock => "a clock frequency".into(),
            Kind::Time => "a duration".into(),
            Kind::Temperature => "a temperature".into(),
            Kind::Fraction => "a percentage".into(),
            Kind::Plain => "a plain number".into(),
            Kind::Other(u) => format!("a value in {u}"),
        }
    }
}

const MIB: f64 = 1024.0 * 1024.0;

/// Every unit a literal may carry: spelling, kind, value of 1 unit in the
/// kind's base unit.
pub const UNITS: &[(&str, Kind, f64)] = &[
    ("B", Kind::Size, 1.0 / MIB),
    ("KiB", Kind::Size, 1.0 / 1024.0),
    ("MiB", Kind::Size, 1.0),
    ("GiB", Kind::Size, 1024.0),
    ("TiB", Kind::Size, 1024.0 * 1024.0),
    ("KB", Kind::Size, 1e3 / MIB),
    ("MB", Kind::Size, 1e6 / MIB),
    ("GB", Kind::Size, 1e9 / MIB),
    ("TB", Kind::Size, 1e12 / MIB),
    ("mW", Kind::Power, 1e-3),
    ("W", Kind::Power, 1.0),
    ("kW", Kind::Power, 1e3),
    ("Hz", Kind::Clock, 1e-6),
    ("kHz", Kind::Clock, 1e-3),
    ("MHz", Kind::Clock, 1.0),
    ("GHz", Kind::Clock, 1e3),
    ("ns", Kind::Time, 1e-9),
    ("us", Kind::Time, 1e-6),
    ("ms", Kind::Time, 1e-3),
    ("s", Kind::Time, 1.0),
    ("min", Kind::Time, 60.0),
    ("h", Kind::Time, 3600.0),
    ("C", Kind::Temperature, 1.0),
    ("°C", Kind::Temperature, 1.0),
    ("%", Kind::Fraction, 0.01),
];

/// The kind and scale of a unit written after a literal. Spelling is exact
/// first; otherwise a case-insensitive match is accepted when it is unique
/// (`20gib`, `300w`, `1.5ghz`).
pub fn literal_unit(u: &str) -> Option<(Kind, f64)> {
    if let Some(&(_, k, s)) = UNITS.iter().find(|(n, _, _)| *n == u) {
        return Some((k, s));
    }
    let mut it = UNITS.iter().filter(|(n, _, _)| n.eq_ignore_ascii_case(u));
    match (it.next(), it.next()) {
        (Some(&(_, k, s)), None) => Some((k, s)),
        _ => None,
    }
}

/// The units a literal may carry, for error messages.
pub fn unit_list() -> String {
    UNITS
        .iter()
        .filter(|(n, _, _)| n.is_ascii())
        .map(|(n, _, _)| *n)
        .collect::<Vec<_>>()
        .join(" ")
}

/// The kind of a field and the value of one of its header units in the
/// kind's base unit. Temperatures have no header unit but are degrees
/// Celsius, so they accept `C`.
pub fn field_unit(f: &FieldInfo) -> (Kind, f64) {
    match f.unit {
        Some("MiB") => (Kind::Size, 1.0),
        Some("KiB") => (Kind::Size, 1.0 / 1024.0),
        Some("W") => (Kind::Power, 1.0),
        Some("mW") => (Kind::Power, 1e-3),
        Some("MHz") => (Kind::Clock, 1.0),
        Some("%") => (Kind::Fraction, 0.01),
        Some("us") => (Kind::Time, 1e-6),
        Some("ms") => (Kind::Time, 1e-3),
        Some("s") | Some("seconds") | Some("sec") => (Kind::Time, 1.0),
        Some("C") => (Kind::Temperature, 1.0),
        Some(other) => (Kind::Other(other), 1.0),
        None if f.name.starts_with("temperature.") => (Kind::Temperature, 1.0),
        None => (Kind::Plain, 1.0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literal_units_convert_to_base() {
        assert_eq!(literal_unit("GiB"), Some((Kind::Size, 1024.0)));
        assert_eq!(literal_unit("gib"), Some((Kind::Size, 1024.0)));
        assert_eq!(literal_unit("512MiB").map(|_| ()), None);
        assert_eq!(literal_unit("%"), Some((Kind::Fraction, 0.01)));
        assert_eq!(literal_unit("GHz"), Some((Kind::Clock, 1000.0)));
        assert_eq!(literal_unit("w"), Some((Kind::Power, 1.0)));
        // "mw" could only be mW (there is no MW).
        assert_eq!(literal_unit("mw"), Some((Kind::Power, 1e-3)));
        // "MS" matches ms only.
        assert_eq!(literal_unit("MS"), Some((Kind::Time, 1e-3)));
        assert_eq!(literal_unit("parsec"), None);
        let gb = literal_unit("GB").unwrap().1;
        assert!((gb * MIB - 1e9).abs() < 1e-3);
    }

    #[test]
    fn field_units() {
        let mem = FieldInfo::new("memory.free", "").unit("MiB");
        assert_eq!(field_unit(&mem), (Kind::Size, 1.0));
        let t = FieldInfo::new("temperature.gpu", "");
        assert_eq!(field_unit(&t).0, Kind::Temperature);
        let i = FieldInfo::new("index", "");
        assert_eq!(field_unit(&i).0, Kind::Plain);
        let odd = FieldInfo::new("x", "").unit("W/s");
        assert_eq!(field_unit(&odd).0, Kind::Other("W/s"));
    }
}
