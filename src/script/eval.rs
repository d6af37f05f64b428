//! Evaluating a checked expression against one row, in three-valued logic:
//! a comparison that reads an unavailable value is *unknown*.

use super::lexer::{CmpOp, Op};
use nvq_core::model::Value;
use std::borrow::Cow;

/// The truth of an expression for one row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tri {
    True,
    False,
    /// A value the expression needs is unavailable (`[N/A]`, an error, or
    /// text where a number was expected).
    Unknown,
}

impl Tri {
    fn from(b: bool) -> Self {
        if b {
            Tri::True
        } else {
            Tri::False
        }
    }
}

/// A field read by an expression: its registry index and its position in
/// the row's cells (set by `bind`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FieldRef {
    pub field: usize,
    pub slot: usize,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Cond {
    Const(bool),
    Not(Box<Cond>),
    And(Box<Cond>, Box<Cond>),
    Or(Box<Cond>, Box<Cond>),
    Available(FieldRef),
    CmpNum(NumExpr, CmpOp, NumExpr),
    CmpText(TextExpr, CmpOp, TextExpr),
    /// Two unitless fields, `==`/`!=`: as numbers if both are, else as text.
    CmpAuto(FieldRef, CmpOp, FieldRef),
}

/// A function of a field's history, computed for each row before the
/// expression is evaluated (`rate(memory.used)`, `time_to_full(memory.used)`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Derived {
    pub func: Func,
    /// The field whose history it reads (an index into the mode's fields).
    pub field: usize,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Func {
    /// The growth per `per_s` seconds, in the field's base unit.
    Rate { per_s: f64 },
    /// Seconds until the field reaches its capacity at the current rate; infinite when it is not rising steadily.
    TimeToFull(Capacity),
}

/// What `time_to_full` measures against.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Capacity {
    /// Another field of the row (`memory.total`), times its unit's base value.
    Field(usize, f64),
    /// A constant in the base unit (`80GiB`).
    Const(f64),
    /// The memory of the row's GPU, which the app tells the script (`Script::set_gpu_memory`): the capacity of
    /// a process's memory and of dmon's `fb`, whose rows have no `memory.total`.
    GpuMemory,
}

/// A [`Derived`] value of the row: the `index`-th of the expression's, found in cell `slot` (set by `bind`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DerivedRef {
    pub index: usize,
    pub slot: usize,
}

/// A number in its kind's base unit.
#[derive(Debug, Clone, PartialEq)]
pub enum NumExpr {
    Const(f64),
    /// A value from the field's history, in the base unit.
    Derived(DerivedRef),
    /// A field's value times the base value of its unit.
    Field(FieldRef, f64),
    Neg(Box<NumExpr>),
    Bin(Op, Box<NumExpr>, Box<NumExpr>),
}

#[derive(Debug, Clone, PartialEq)]
pub enum TextExpr {
    Const(String),
    Field(FieldRef),
}

/// The number a cell shows: what the CSV prints (MiB rounded up, watts
/// rounded to their decimals), or text that reads as a number (`9.0`,
/// `0x1F`). `None` for unavailable values and other text.
pub fn cell_number(v: &Value) -> Option<f64> {
    match v {
        Value::Float { value, decimals } => shown_number(*value, *decimals),
        Value::Text(s) => {
            let s = s.trim();
            // A number starts with a digit, a sign or a point ("P0", "GPU-…", "inf" read as none).
            if !s.starts_with(|c: char| c.is_ascii_digit() || matches!(c, '+' | '-' | '.')) {
                return None;
            }
            if let Some(h) = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
                u64::from_str_radix(h, 16).ok().map(|v| v as f64)
            } else {
                s.parse::<f64>().ok().filter(|v| v.is_finite())
            }
        }
        other => other.as_f64(),
    }
}

/// `value` rounded to `decimals` as printed and read back: the number
/// `format!("{value:.decimals$}").parse()` gives, without the text. The
/// printed digits are `n`, `value * 10^d` rounded to the nearest whole number
/// (a tie to the even one, as the formatter rounds), and reading `n / 10^d`
/// back is the division of two exact numbers (IEEE division rounds as a
/// correct parser does). The product `p = value * 10^d` is within 2^-20 of
/// the exact one while below 2^31: far from a half, `p`'s rounding is the
/// exact product's; near one, the exact product's side of the half is told
/// by the product's error (`mul_add`, exact). Large values, and more than 15
/// decimals, go through the text.
fn shown_number(value: f64, decimals: u8) -> Option<f64> {
    const POW10: [f64; 16] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
    ];
    if let Some(&scale) = POW10.get(usize::from(decimals)) {
        let p = value * scale;
        if p.abs() < 2_147_483_648.0 {
            let floor = p.floor();
            let n = if (p - floor - 0.5).abs() > 1.0 / 1_048_576.0 {
                p.round()
            } else {
                // p - (floor + 0.5) is exact (the two are close), and so is the product's error.
                let above = (p - (floor + 0.5)) + value.mul_add(scale, -p);
                if above > 0.0 || (above == 0.0 && floor % 2.0 != 0.0) {
                    floor + 1.0
                } else {
                    floor
                }
            };
            // "-0.00" reads back as -0.
            let n = if n == 0.0 { 0.0f64.copysign(value) } else { n };
            return Some(n / scale);
        }
    }
    let shown = format!("{value:.prec$}", prec = usize::from(decimals));
    shown.parse().ok()
}

/// The text a cell shows without its unit; `None` when unavailable.
pub fn cell_text(v: &Value) -> Option<Cow<'_, str>> {
    match v {
        Value::Text(s) => Some(Cow::Borrowed(s)),
        Value::NotAvailable | Value::Error(_) => None,
        other => Some(Cow::Owned(other.to_string())),
    }
}

fn available(v: Option<&Value>) -> bool {
    !matches!(v, None | Some(Value::NotAvailable | Value::Error(_)))
}

fn cmp_num(a: f64, op: CmpOp, b: f64) -> bool {
    match op {
        CmpOp::Lt => a < b,
        CmpOp::Le => a <= b,
        CmpOp::Gt => a > b,
        CmpOp::Ge => a >= b,
        CmpOp::Eq => a == b,
        CmpOp::Ne => a != b,
        CmpOp::Contains => false,
    }
}

fn cmp_text(a: &str, op: CmpOp, b: &str) -> bool {
    match op {
        CmpOp::Eq => a == b,
        CmpOp::Ne => a != b,
        CmpOp::Contains => a.to_lowercase().contains(&b.to_lowercase()),
        _ => false,
    }
}

impl Cond {
    pub fn eval(&self, cells: &[Value]) -> Tri {
        match self {
            Cond::Const(b) => Tri::from(*b),
            Cond::Not(c) => match c.eval(cells) {
                Tri::True => Tri::False,
                Tri::False => Tri::True,
                Tri::Unknown => Tri::Unknown,
            },
            Cond::And(a, b) => match (a.eval(cells), b.eval(cells)) {
                (Tri::False, _) | (_, Tri::False) => Tri::False,
                (Tri::True, Tri::True) => Tri::True,
                _ => Tri::Unknown,
            },
            Cond::Or(a, b) => match (a.eval(cells), b.eval(cells)) {
                (Tri::True, _) | (_, Tri::True) => Tri::True,
                (Tri::False, Tri::False) => Tri::False,
                _ => Tri::Unknown,
            },
            Cond::Available(f) => Tri::from(available(cells.get(f.slot))),
            Cond::CmpNum(a, op, b) => match (a.eval(cells), b.eval(cells)) {
                (Some(x), Some(y)) => Tri::from(cmp_num(x, *op, y)),
                _ => Tri::Unknown,
            },
            Cond::CmpText(a, op, b) => match (a.eval(cells), b.eval(cells)) {
                (Some(x), Some(y)) => Tri::from(cmp_text(&x, *op, &y)),
                _ => Tri::Unknown,
            },
            Cond::CmpAuto(a, op, b) => {
                let (Some(x), Some(y)) = (cells.get(a.slot), cells.get(b.slot)) else {
                    return Tri::Unknown;
                };
                match (cell_number(x), cell_number(y)) {
                    (Some(x), Some(y)) => Tri::from(cmp_num(x, *op, y)),
                    _ => match (cell_text(x), cell_text(y)) {
                        (Some(x), Some(y)) => Tri::from(cmp_text(&x, *op, &y)),
                        _ => Tri::Unknown,
                    },
                }
            }
        }
    }

    /// Every field reference, mutably (for binding slots).
    pub fn refs_mut(&mut self, f: &mut dyn FnMut(&mut FieldRef)) {
        match self {
            Cond::Const(_) => {}
            Cond::Not(c) => c.refs_mut(f),
            Cond::And(a, b) | Cond::Or(a, b) => {
                a.refs_mut(f);
                b.refs_mut(f);
            }
            Cond::Available(r) => f(r),
            Cond::CmpNum(a, _, b) => {
                a.refs_mut(f);
                b.refs_mut(f);
            }
            Cond::CmpText(a, _, b) => {
                for t in [a, b] {
                    if let TextExpr::Field(r) = t {
                        f(r);
                    }
                }
            }
            Cond::CmpAuto(a, _, b) => {
                f(a);
                f(b);
            }
        }
    }
}

impl NumExpr {
    pub fn eval(&self, cells: &[Value]) -> Option<f64> {
        let v = match self {
            NumExpr::Const(v) => *v,
            NumExpr::Field(r, scale) => cell_number(cells.get(r.slot)?)? * scale,
            // Not yet known (too few points): unknown. Not rising: an infinite time to full, which compares.
            NumExpr::Derived(d) => match cells.get(d.slot) {
                Some(Value::Float { value, .. }) if !value.is_nan() => return Some(*value),
                _ => return None,
            },
            NumExpr::Neg(a) => -a.eval(cells)?,
            NumExpr::Bin(op, a, b) => {
                let (x, y) = (a.eval(cells)?, b.eval(cells)?);
                match op {
                    Op::Add => x + y,
                    Op::Sub => x - y,
                    Op::Mul => x * y,
                    _ => x / y,
                }
            }
        };
        v.is_finite().then_some(v)
    }

    /// The value of an expression without fields.
    pub fn constant(&self) -> f64 {
        self.eval(&[]).unwrap_or(f64::NAN)
    }

    fn refs_mut(&mut self, f: &mut dyn FnMut(&mut FieldRef)) {
        match self {
            NumExpr::Const(_) | NumExpr::Derived(_) => {}
            NumExpr::Field(r, _) => f(r),
            NumExpr::Neg(a) => a.refs_mut(f),
            NumExpr::Bin(_, a, b) => {
                a.refs_mut(f);
                b.refs_mut(f);
            }
        }
    }
}

impl NumExpr {
    fn derived_mut(&mut self, f: &mut dyn FnMut(&mut DerivedRef)) {
        match self {
            NumExpr::Derived(d) => f(d),
            NumExpr::Neg(a) => a.derived_mut(f),
            NumExpr::Bin(_, a, b) => {
                a.derived_mut(f);
                b.derived_mut(f);
            }
            NumExpr::Const(_) | NumExpr::Field(..) => {}
        }
    }
}

impl Cond {
    /// Every reference to a derived value, mutably (for binding slots).
    pub fn derived_mut(&mut self, f: &mut dyn FnMut(&mut DerivedRef)) {
        match self {
            Cond::Not(c) => c.derived_mut(f),
            Cond::And(a, b) | Cond::Or(a, b) => {
                a.derived_mut(f);
                b.derived_mut(f);
            }
            Cond::CmpNum(a, _, b) => {
                a.derived_mut(f);
                b.derived_mut(f);
            }
            Cond::Const(_) | Cond::Available(_) | Cond::CmpText(..) | Cond::CmpAuto(..) => {}
        }
    }
}

impl TextExpr {
    fn eval<'a>(&'a self, cells: &'a [Value]) -> Option<Cow<'a, str>> {
        match self {
            TextExpr::Const(s) => Some(Cow::Borrowed(s)),
            TextExpr::Field(r) => cell_text(cells.get(r.slot)?),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_read_as_shown() {
        assert_eq!(cell_number(&Value::Bytes(1)), Some(1.0));
        assert_eq!(cell_number(&Value::watts_from_mw(412_345)), Some(412.35));
        assert_eq!(cell_number(&Value::text("9.0")), Some(9.0));
        assert_eq!(cell_number(&Value::text("0x1F")), Some(31.0));
        assert_eq!(cell_number(&Value::text("P0")), None);
        assert_eq!(cell_number(&Value::text("inf")), None);
        for (text, number) in [
            ("-inf", None),
            ("NaN", None),
            ("+5", Some(5.0)),
            (" .5", Some(0.5)),
            ("-2e3", Some(-2000.0)),
        ] {
            assert_eq!(cell_number(&Value::text(text)), number, "{text}");
        }
        assert_eq!(cell_number(&Value::NotAvailable), None);
        assert_eq!(cell_text(&Value::Int(3)).as_deref(), Some("3"));
        assert_eq!(cell_text(&Value::NotAvailable), None);
    }

    /// The rounding without text gives the very number the printed text reads back as: over values near and at
    /// halves, negative ones, zeros, large ones, and every number of decimals a field has.
    #[test]
    fn a_float_reads_as_its_printed_text_reads_back() {
        let text = |v: f64, d: u8| {
            format!("{v:.prec$}", prec = usize::from(d))
                .parse::<f64>()
                .ok()
        };
        let mut values = vec![
            0.0,
            -0.0,
            0.5,
            1.5,
            2.5,
            -2.5,
            0.125,
            0.375,
            1e300,
            -1e20,
            2e9,
            f64::NAN,
        ];
        values.extend([
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::MIN_POSITIVE,
            0.005,
            0.015,
            1.005,
            412.345,
        ]);
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        for i in 0..10_000u64 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let unit = (x >> 11) as f64 / (1u64 << 53) as f64;
            values.push(match i % 6 {
                0 => unit * 1000.0,
                1 => (unit * 100_000.0).round() / 1000.0 + 0.0005,
                2 => -unit * 50.0,
                // Milliwatts as watts: a third decimal of 5 is a near-tie at two.
                3 => (x % 1_000_000) as f64 / 1000.0,
                // Exact ties (eighths) at every number of decimals up to three, either sign.
                4 => (x % 100_000) as f64 / 8.0,
                _ => -((x % 100_000) as f64) / 8.0,
            });
        }
        for v in values {
            for d in 0..=6u8 {
                let (got, want) = (shown_number(v, d), text(v, d));
                let same = match (got, want) {
                    (Some(a), Some(b)) => a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan()),
                    (a, b) => a == b,
                };
                assert!(
                    same,
                    "{v:e} to {d} decimals: {got:?}, the text reads {want:?}"
                );
            }
        }
    }
}
