//! Units of measure: which units a number may carry, and how they convert.
//!
//! Every numeric value is compared in the base unit of its quantity (bytes
//! for sizes, W for power, Hz for clocks, seconds for durations, °C for
//! temperatures, and fractions for percentages: 90% = 0.9), from the one
//! unit table of the model (`model::UNITS`), which Prometheus reads too. A field's
//! values are converted from its header unit; a literal from the unit
//! written after it; a bare literal takes the unit of the field it is
//! compared with (`memory.free > 20000` means 20000 MiB).

use nvq_core::model::{FieldInfo, Quantity, UNITS};

/// What a number measures, for the checker: the model's quantities.
pub type Kind = Quantity;

/// How the checker names a quantity in its messages.
pub fn describe(kind: Kind) -> String {
    match kind {
        Quantity::Size => "a size".into(),
        Quantity::Power => "a power".into(),
        Quantity::PowerRate => "a power ramp rate".into(),
        Quantity::Clock => "a clock frequency".into(),
        Quantity::Time => "a duration".into(),
        Quantity::Temperature => "a temperature".into(),
        Quantity::Fraction => "a percentage".into(),
        Quantity::Plain => "a plain number".into(),
        Quantity::Other(u) => format!("a value in {u}"),
    }
}

/// The unit a literal names (`20GiB`, `300W`, `1.5GHz`): its quantity and
/// the size of one of it in the quantity's base unit. Exact spelling first,
/// then a case-insensitive match that is unambiguous (`gib`, `w`; `mw` and
/// `MW` would clash, so only `mW` and the exact spellings count).
pub fn literal_unit(u: &str) -> Option<(Kind, f64)> {
    if let Some(unit) = UNITS.iter().find(|x| x.symbol == u) {
        return Some((unit.quantity, unit.in_base));
    }
    let mut it = UNITS.iter().filter(|x| x.symbol.eq_ignore_ascii_case(u));
    match (it.next(), it.next()) {
        (Some(unit), None) => Some((unit.quantity, unit.in_base)),
        _ => None,
    }
}

/// The units a literal may carry, for error hints.
pub fn unit_list() -> String {
    UNITS
        .iter()
        .filter(|u| u.symbol.is_ascii() && !matches!(u.symbol, "sec" | "seconds" | "W/s"))
        .map(|u| u.symbol)
        .collect::<Vec<_>>()
        .join(" ")
}

/// The quantity of a field's numbers and the size of one of them in the
/// quantity's base unit (see [`FieldInfo::measure`]).
pub fn field_unit(f: &FieldInfo) -> (Kind, f64) {
    f.measure()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literal_units_convert_to_base() {
        let mib = 1024.0 * 1024.0;
        assert_eq!(literal_unit("GiB"), Some((Kind::Size, 1024.0 * mib)));
        assert_eq!(literal_unit("gib"), Some((Kind::Size, 1024.0 * mib)));
        assert_eq!(literal_unit("512MiB").map(|_| ()), None);
        assert_eq!(literal_unit("%"), Some((Kind::Fraction, 0.01)));
        assert_eq!(literal_unit("GHz"), Some((Kind::Clock, 1e9)));
        assert_eq!(literal_unit("w"), Some((Kind::Power, 1.0)));
        // "mw" could only be mW (there is no MW).
        assert_eq!(literal_unit("mw"), Some((Kind::Power, 1e-3)));
        // "MS" matches ms only.
        assert_eq!(literal_unit("MS"), Some((Kind::Time, 1e-3)));
        assert_eq!(literal_unit("parsec"), None);
        assert_eq!(literal_unit("GB"), Some((Kind::Size, 1e9)));
    }

    #[test]
    fn field_units() {
        let mem = FieldInfo::new("memory.free", "").unit("MiB");
        assert_eq!(field_unit(&mem), (Kind::Size, 1024.0 * 1024.0));
        let t = FieldInfo::new("temperature.gpu", "").celsius();
        assert_eq!(field_unit(&t).0, Kind::Temperature);
        let i = FieldInfo::new("index", "");
        assert_eq!(field_unit(&i).0, Kind::Plain);
        let ramp = FieldInfo::new("x", "").unit("W/s");
        assert_eq!(field_unit(&ramp).0, Kind::PowerRate);
        let odd = FieldInfo::new("x", "").unit("furlongs");
        assert_eq!(field_unit(&odd).0, Kind::Other("furlongs"));
    }
}
