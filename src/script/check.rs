//! Type checking: field names are resolved, units converted and kinds
//! matched, turning the syntax tree into a [`Cond`] that evaluates fast.

use super::eval::{Capacity, Cond, Derived, DerivedRef, FieldRef, Func, NumExpr, TextExpr};
use super::lexer::{CmpOp, Op, Span};
use super::parser::{Ast, Node};
use super::units::{self, Kind};
use super::ExprError;
use nvq_core::model::FieldInfo;

/// What the checker knows about a sub-expression.
enum Ty {
    Bool(Cond),
    /// A field whose use (number or text) depends on what it meets.
    Field(FieldRef, Kind, f64),
    Num(NumExpr, NumTy),
    Text(TextExpr),
}

#[derive(Clone, Copy)]
enum NumTy {
    /// A constant without a unit: it takes the unit of what it meets.
    Free(f64),
    /// A measured quantity; `scale` is the base value of one display unit,
    /// which a free constant adopts.
    Dim { kind: Kind, scale: f64 },
}

pub struct Checker<'a> {
    pub infos: &'a [&'a FieldInfo],
    pub lookup: &'a dyn Fn(&str) -> Option<usize>,
    /// Fields referenced, in order of first use.
    pub fields: Vec<usize>,
    /// Functions of a field's history, in order of first use.
    pub derived: Vec<Derived>,
}

/// The functions over a field's history, for messages.
pub const FUNCTIONS: &str =
    "rate(FIELD), rate(FIELD, PER), time_to_full(FIELD), time_to_full(FIELD, CAPACITY)";

fn describe_ty(t: &Ty) -> String {
    match t {
        Ty::Bool(_) => "a condition".into(),
        Ty::Field(_, k, _) => format!("a field ({})", units::describe(*k)),
        Ty::Num(_, NumTy::Free(_)) => "a number".into(),
        Ty::Num(_, NumTy::Dim { kind, .. }) => units::describe(*kind),
        Ty::Text(_) => "a string".into(),
    }
}

fn err<T>(msg: String, span: &Span) -> Result<T, ExprError> {
    Err(ExprError::new(msg, span.clone()))
}

impl Checker<'_> {
    /// Check a whole expression, which must be a condition.
    pub fn condition(&mut self, n: &Node) -> Result<Cond, ExprError> {
        self.want_bool(n)
    }

    fn want_bool(&mut self, n: &Node) -> Result<Cond, ExprError> {
        match self.check(n)? {
            Ty::Bool(c) => Ok(c),
            Ty::Field(f, _, _) => {
                let name = self.infos.get(f.field).map_or("", |i| i.name);
                err(
                    format!("\"{name}\" is a field, not a condition; compare it with something (e.g. {name} > 0)"),
                    &n.span,
                )
            }
            other => err(
                format!(
                    "expected a condition (a comparison), found {}",
                    describe_ty(&other)
                ),
                &n.span,
            ),
        }
    }

    fn field(&mut self, name: &str, span: &Span) -> Result<(FieldRef, Kind, f64), ExprError> {
        let Some(idx) = (self.lookup)(name) else {
            let mut e = ExprError::new(
                format!("unknown field \"{}\"", nvq_core::model::suggest::clip(name)),
                span.clone(),
            );
            e.hint = suggest(name, self.infos);
            return Err(e);
        };
        if !self.fields.contains(&idx) {
            self.fields.push(idx);
        }
        let (kind, scale) = self
            .infos
            .get(idx)
            .map_or((Kind::Plain, 1.0), |i| units::field_unit(i));
        Ok((
            FieldRef {
                field: idx,
                slot: usize::MAX,
            },
            kind,
            scale,
        ))
    }

    fn check(&mut self, n: &Node) -> Result<Ty, ExprError> {
        Ok(match &n.ast {
            Ast::Bool(b) => Ty::Bool(Cond::Const(*b)),
            Ast::Str(s) => Ty::Text(TextExpr::Const(s.clone())),
            Ast::Num { value, unit: None } => Ty::Num(NumExpr::Const(*value), NumTy::Free(*value)),
            Ast::Num {
                value,
                unit: Some(u),
            } => {
                let Some((kind, scale)) = units::literal_unit(u) else {
                    let mut e = ExprError::new(format!("unknown unit \"{u}\""), n.span.clone());
                    e.hint = Some(format!("units: {}", units::unit_list()));
                    return Err(e);
                };
                Ty::Num(NumExpr::Const(value * scale), NumTy::Dim { kind, scale })
            }
            Ast::Field(name) => {
                let (f, k, s) = self.field(name, &n.span)?;
                Ty::Field(f, k, s)
            }
            Ast::Available(name, span) => Ty::Bool(Cond::Available(self.field(name, span)?.0)),
            Ast::Call(name, args) => self.call(name, args, &n.span)?,
            Ast::Unary(Op::Not, a) => Ty::Bool(Cond::Not(Box::new(self.want_bool(a)?))),
            Ast::Unary(_, a) => {
                let (e, t) = self.num(a)?;
                match t {
                    NumTy::Free(v) => Ty::Num(NumExpr::Const(-v), NumTy::Free(-v)),
                    d => Ty::Num(NumExpr::Neg(Box::new(e)), d),
                }
            }
            Ast::Binary(op @ (Op::And | Op::Or), a, b) => {
                let (a, b) = (self.want_bool(a)?, self.want_bool(b)?);
                let (a, b) = (Box::new(a), Box::new(b));
                Ty::Bool(if *op == Op::And {
                    Cond::And(a, b)
                } else {
                    Cond::Or(a, b)
                })
            }
            Ast::Binary(op @ (Op::Add | Op::Sub), a, b) => {
                let (l, r, t) = self.unify(a, b, &n.span, "add")?;
                match t {
                    NumTy::Free(_) => {
                        let v = NumExpr::Bin(*op, Box::new(l), Box::new(r)).constant();
                        Ty::Num(NumExpr::Const(v), NumTy::Free(v))
                    }
                    t => Ty::Num(NumExpr::Bin(*op, Box::new(l), Box::new(r)), t),
                }
            }
            Ast::Binary(op @ (Op::Mul | Op::Div), a, b) => self.product(*op, a, b, &n.span)?,
            Ast::Binary(Op::Cmp(cmp), a, b) => self.compare(*cmp, a, b, &n.span)?,
            Ast::Binary(Op::Not, a, _) => return err("! takes one operand".into(), &a.span),
        })
    }

    /// `rate(FIELD[, PER])`: FIELD's growth per second (or per PER, a duration), in FIELD's unit.
    /// `time_to_full(FIELD[, CAPACITY])`: a duration; CAPACITY is a field or a constant of FIELD's kind, and defaults
    /// to the field's own capacity (`memory.total` for `memory.used`).
    fn call(&mut self, name: &str, args: &[Node], span: &Span) -> Result<Ty, ExprError> {
        let usage = |msg: String| {
            let mut e = ExprError::new(msg, span.clone());
            e.hint = Some(format!("functions: {FUNCTIONS}"));
            e
        };
        if !matches!(name, "rate" | "time_to_full") {
            return Err(usage(format!("unknown function \"{name}\"")));
        }
        let (first, rest) = match args {
            [first, rest @ ..] if rest.len() <= 1 => (first, rest.first()),
            _ => {
                return Err(usage(format!(
                    "{name}( ) takes a field and at most one more argument"
                )))
            }
        };
        let Ast::Field(fname) = &first.ast else {
            return err(
                format!("{name}( ) needs a field name first, e.g. {name}(memory.used)"),
                &first.span,
            );
        };
        let (fref, kind, scale) = self.field(fname, &first.span)?;
        if matches!(kind, Kind::Plain)
            && self.infos.get(fref.field).is_some_and(|i| i.unit.is_none())
        {
            let shown = self.infos.get(fref.field).map_or("", |i| i.name);
            return err(
                format!("{name}( ) needs a measured field (memory.used, utilization.gpu, ...), not \"{shown}\""),
                &first.span,
            );
        }
        let func = if name == "rate" {
            let per_s =
                match rest {
                    None => 1.0,
                    Some(per) => match self.num(per)? {
                        (
                            e,
                            NumTy::Dim {
                                kind: Kind::Time, ..
                            },
                        ) if e.constant() > 0.0 => e.constant(),
                        _ => return err(
                            "the second argument of rate( ) is a duration: rate(memory.used, 1min)"
                                .into(),
                            &per.span,
                        ),
                    },
                };
            Func::Rate { per_s }
        } else {
            let cap = match rest {
                Some(c) => self.capacity(c, kind, scale)?,
                None => {
                    let own = self
                        .infos
                        .get(fref.field)
                        .and_then(|i| nvq_core::model::trend::capacity_field(i.name));
                    match own.map(|c| (c, self.field(c, span))) {
                        Some((_, Ok((cf, _, cs)))) => Capacity::Field(cf.field, cs),
                        Some(("memory.total", Err(_))) => Capacity::GpuMemory,
                        _ => {
                            return err(
                            format!(
                                "time_to_full({fname}) needs a capacity to fill: give one, as in \
                                 time_to_full({fname}, CAPACITY), a constant or a field of the same kind"
                            ),
                                span,
                            )
                        }
                    }
                }
            };
            Func::TimeToFull(cap)
        };
        let d = Derived {
            func,
            field: fref.field,
        };
        let index = match self.derived.iter().position(|x| *x == d) {
            Some(i) => i,
            None => {
                self.derived.push(d);
                self.derived.len() - 1
            }
        };
        let r = NumExpr::Derived(DerivedRef {
            index,
            slot: usize::MAX,
        });
        Ok(match func {
            Func::Rate { .. } => Ty::Num(r, NumTy::Dim { kind, scale }),
            Func::TimeToFull(_) => Ty::Num(
                r,
                NumTy::Dim {
                    kind: Kind::Time,
                    scale: 1.0,
                },
            ),
        })
    }

    fn capacity(&mut self, n: &Node, kind: Kind, scale: f64) -> Result<Capacity, ExprError> {
        let wrong = || {
            format!(
                "the capacity of time_to_full( ) is a field or a constant of the same kind ({})",
                units::describe(kind)
            )
        };
        if let Ast::Field(c) = &n.ast {
            let (cf, ck, cs) = self.field(c, &n.span)?;
            if ck != kind {
                return err(wrong(), &n.span);
            }
            return Ok(Capacity::Field(cf.field, cs));
        }
        match self.num(n)? {
            (e, NumTy::Free(v)) if e.constant().is_finite() => Ok(Capacity::Const(v * scale)),
            (e, NumTy::Dim { kind: k, .. }) if k == kind && e.constant().is_finite() => {
                Ok(Capacity::Const(e.constant()))
            }
            _ => err(wrong(), &n.span),
        }
    }

    fn num(&mut self, n: &Node) -> Result<(NumExpr, NumTy), ExprError> {
        match self.check(n)? {
            Ty::Num(e, t) => Ok((e, t)),
            Ty::Field(f, kind, scale) => Ok((NumExpr::Field(f, scale), NumTy::Dim { kind, scale })),
            other => err(
                format!("expected a number, found {}", describe_ty(&other)),
                &n.span,
            ),
        }
    }

    /// Check two operands that must be of the same kind; a free constant
    /// takes the other side's unit.
    fn unify(
        &mut self,
        a: &Node,
        b: &Node,
        span: &Span,
        verb: &str,
    ) -> Result<(NumExpr, NumExpr, NumTy), ExprError> {
        let (l, lt) = self.num(a)?;
        let (r, rt) = self.num(b)?;
        Ok(match (lt, rt) {
            (NumTy::Free(x), NumTy::Free(_)) => (l, r, NumTy::Free(x)),
            (NumTy::Free(x), d @ NumTy::Dim { scale, .. }) => (NumExpr::Const(x * scale), r, d),
            (d @ NumTy::Dim { scale, .. }, NumTy::Free(y)) => (l, NumExpr::Const(y * scale), d),
            (d @ NumTy::Dim { kind: k1, .. }, NumTy::Dim { kind: k2, .. }) => {
                if k1 != k2 {
                    let mut e = ExprError::new(
                        format!(
                            "cannot {verb} {} and {}: the units do not match",
                            units::describe(k1),
                            units::describe(k2)
                        ),
                        span.clone(),
                    );
                    // `memory.used < 90%`: a share of what? Say how to write it.
                    if (k1 == Kind::Fraction) != (k2 == Kind::Fraction) {
                        e.hint = Some(
                            "a percentage of a size is a share of a total: write \
                             memory.used < 90% * memory.total, or memory.used.percent < 90"
                                .into(),
                        );
                    }
                    return Err(e);
                }
                (l, r, d)
            }
        })
    }

    fn product(&mut self, op: Op, a: &Node, b: &Node, span: &Span) -> Result<Ty, ExprError> {
        let (l, lt) = self.num(a)?;
        let (r, rt) = self.num(b)?;
        let ratio = NumTy::Dim {
            kind: Kind::Fraction,
            scale: 1.0,
        };
        let t = match (op, lt, rt) {
            (_, NumTy::Free(x), NumTy::Free(y)) => {
                if op == Op::Div && y == 0.0 {
                    return err("division by zero".into(), &b.span);
                }
                let v = if op == Op::Mul { x * y } else { x / y };
                return Ok(Ty::Num(NumExpr::Const(v), NumTy::Free(v)));
            }
            (_, d @ NumTy::Dim { .. }, NumTy::Free(_)) => d,
            (Op::Mul, NumTy::Free(_), d @ NumTy::Dim { .. }) => d,
            (
                Op::Div,
                NumTy::Free(_),
                NumTy::Dim {
                    kind: Kind::Fraction,
                    ..
                },
            ) => ratio,
            (
                Op::Mul,
                NumTy::Dim {
                    kind: Kind::Fraction,
                    ..
                },
                d @ NumTy::Dim { .. },
            ) => d,
            (
                _,
                d @ NumTy::Dim { kind, .. },
                NumTy::Dim {
                    kind: Kind::Fraction,
                    ..
                },
            ) if kind != Kind::Fraction => d,
            (Op::Div, NumTy::Dim { kind: k1, .. }, NumTy::Dim { kind: k2, .. }) if k1 == k2 => {
                ratio
            }
            _ => {
                let verb = if op == Op::Mul { "multiply" } else { "divide" };
                return err(
                    format!("cannot {verb} {} by {}", describe_num(lt), describe_num(rt)),
                    span,
                );
            }
        };
        Ok(Ty::Num(NumExpr::Bin(op, Box::new(l), Box::new(r)), t))
    }

    fn compare(&mut self, cmp: CmpOp, a: &Node, b: &Node, span: &Span) -> Result<Ty, ExprError> {
        // Text comparisons: a string on either side, or `~`.
        let texty = |n: &Node| matches!(n.ast, Ast::Str(_));
        if cmp == CmpOp::Contains || texty(a) || texty(b) {
            if !matches!(cmp, CmpOp::Eq | CmpOp::Ne | CmpOp::Contains) {
                return err(
                    format!(
                        "strings can only be compared with ==, != and ~, not {}",
                        Op::Cmp(cmp).text()
                    ),
                    span,
                );
            }
            let l = self.text(a)?;
            let r = self.text(b)?;
            return Ok(Ty::Bool(Cond::CmpText(l, cmp, r)));
        }
        // Two plain fields compared for equality: numbers if both are, else text.
        if let (Ast::Field(_), Ast::Field(_), CmpOp::Eq | CmpOp::Ne) = (&a.ast, &b.ast, cmp) {
            let (fa, ka, _) = self.field_of(a)?;
            let (fb, kb, _) = self.field_of(b)?;
            if ka == Kind::Plain && kb == Kind::Plain {
                return Ok(Ty::Bool(Cond::CmpAuto(fa, cmp, fb)));
            }
        }
        let (l, r, _) = self.unify(a, b, span, "compare")?;
        Ok(Ty::Bool(Cond::CmpNum(l, cmp, r)))
    }

    fn field_of(&mut self, n: &Node) -> Result<(FieldRef, Kind, f64), ExprError> {
        match &n.ast {
            Ast::Field(name) => self.field(name, &n.span),
            _ => err("expected a field".into(), &n.span),
        }
    }

    fn text(&mut self, n: &Node) -> Result<TextExpr, ExprError> {
        match self.check(n)? {
            Ty::Text(t) => Ok(t),
            Ty::Field(f, _, _) => Ok(TextExpr::Field(f)),
            other => err(
                format!(
                    "expected a field or a string, found {}",
                    describe_ty(&other)
                ),
                &n.span,
            ),
        }
    }
}

fn describe_num(t: NumTy) -> String {
    match t {
        NumTy::Free(_) => "a number".into(),
        NumTy::Dim { kind, .. } => units::describe(kind),
    }
}

/// The closest field names or aliases, if close enough to be a typo.
fn suggest(name: &str, infos: &[&FieldInfo]) -> Option<String> {
    let names = infos
        .iter()
        .flat_map(|i| std::iter::once(i.name).chain(i.aliases.iter().copied()));
    nvq_core::model::suggest::did_you_mean(&nvq_core::model::suggest::nearest(name, names))
}
