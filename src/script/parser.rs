//! Precedence-climbing parser: tokens in, syntax tree out. Types and field
//! names are checked later, in `check`.

use super::lexer::{Op, Span, Tok, Token};
use super::ExprError;

/// Deepest nesting of parentheses and unary operators accepted, so that a
/// hostile expression cannot exhaust the stack.
pub const MAX_DEPTH: usize = 64;

/// Most tokens in one expression (this also bounds the depth of long
/// `a + b + c ...` chains).
pub const MAX_TOKENS: usize = 512;

#[derive(Debug, Clone, PartialEq)]
pub enum Ast {
    Num {
        value: f64,
        unit: Option<String>,
    },
    Str(String),
    Bool(bool),
    Field(String),
    /// `available(field)`.
    Available(String, Span),
    /// A function over a field's history: `rate(memory.used)`, `time_to_full(memory.used, 80GiB)`.
    Call(String, Vec<Node>),
    Unary(Op, Box<Node>),
    Binary(Op, Box<Node>, Box<Node>),
}

#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    pub ast: Ast,
    pub span: Span,
}

struct Parser {
    toks: Vec<Token>,
    pos: usize,
    depth: usize,
}

/// Binding power of a binary operator (higher binds tighter).
fn power(op: Op) -> Option<u8> {
    Some(match op {
        Op::Or => 1,
        Op::And => 2,
        Op::Cmp(_) => 3,
        Op::Add | Op::Sub => 4,
        Op::Mul | Op::Div => 5,
        Op::Not => return None,
    })
}

fn is_comparison(op: Op) -> bool {
    power(op) == Some(3)
}

pub fn parse(toks: Vec<Token>) -> Result<Node, ExprError> {
    if let Some(t) = toks.get(MAX_TOKENS) {
        return Err(ExprError::new(
            format!("the expression is longer than {MAX_TOKENS} tokens"),
            t.span.clone(),
        ));
    }
    let mut p = Parser {
        toks,
        pos: 0,
        depth: 0,
    };
    if matches!(p.peek().tok, Tok::End) {
        return Err(ExprError::new("the expression is empty".into(), 0..0));
    }
    let node = p.expr(0)?;
    let t = p.peek();
    match &t.tok {
        Tok::End => Ok(node),
        Tok::RParen => Err(ExprError::new(
            "this \")\" has no matching \"(\"".into(),
            t.span.clone(),
        )),
        _ => Err(ExprError::new(
            format!(
                "expected an operator (&&, ||, <, ==, ...) before {}",
                describe(&t.tok)
            ),
            t.span.clone(),
        )),
    }
}

fn describe(t: &Tok) -> String {
    match t {
        Tok::Num { .. } => "this number".into(),
        Tok::Str(_) => "this string".into(),
        Tok::Ident(s) => format!("\"{s}\""),
        Tok::Op(o) => format!("\"{}\"", o.text()),
        Tok::LParen => "\"(\"".into(),
        Tok::RParen => "\")\"".into(),
        Tok::Comma => "\",\"".into(),
        Tok::End => "the end".into(),
    }
}

impl Parser {
    fn peek(&self) -> &Token {
        // The token list always ends with End, and `pos` never passes it.
        &self.toks[self.pos.min(self.toks.len() - 1)]
    }

    fn bump(&mut self) -> Token {
        let t = self.peek().clone();
        if !matches!(t.tok, Tok::End) {
            self.pos += 1;
        }
        t
    }

    fn enter(&mut self, span: &Span) -> Result<(), ExprError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(ExprError::new(
                format!("the expression is nested more than {MAX_DEPTH} levels deep"),
                span.clone(),
            ));
        }
        Ok(())
    }

    fn expr(&mut self, min: u8) -> Result<Node, ExprError> {
        let mut lhs = self.unary()?;
        while let Tok::Op(op) = self.peek().tok {
            let Some(bp) = power(op) else { break };
            if bp <= min {
                break;
            }
            self.bump();
            let rhs = self.expr(bp)?;
            if is_comparison(op) {
                if let Tok::Op(next) = self.peek().tok {
                    if is_comparison(next) {
                        return Err(ExprError::new(
                            "comparisons cannot be chained; join them with && or ||".into(),
                            self.peek().span.clone(),
                        ));
                    }
                }
            }
            let span = lhs.span.start..rhs.span.end;
            lhs = Node {
                ast: Ast::Binary(op, Box::new(lhs), Box::new(rhs)),
                span,
            };
        }
        Ok(lhs)
    }

    fn unary(&mut self) -> Result<Node, ExprError> {
        let t = self.peek().clone();
        match t.tok {
            Tok::Op(op @ (Op::Not | Op::Sub)) => {
                self.bump();
                self.enter(&t.span)?;
                let inner = self.unary()?;
                self.depth -= 1;
                let span = t.span.start..inner.span.end;
                Ok(Node {
                    ast: Ast::Unary(op, Box::new(inner)),
                    span,
                })
            }
            _ => self.primary(),
        }
    }

    /// `name(arg, ...)`, the name already read and `(` next.
    fn call(&mut self, name: String, start: Span) -> Result<Node, ExprError> {
        self.bump();
        self.enter(&start)?;
        let mut args = Vec::new();
        loop {
            args.push(self.expr(0)?);
            let t = self.bump();
            match t.tok {
                Tok::Comma => continue,
                Tok::RParen => {
                    self.depth -= 1;
                    return Ok(Node {
                        ast: Ast::Call(name, args),
                        span: start.start..t.span.end,
                    });
                }
                other => {
                    return Err(ExprError::new(
                        format!(
                            "expected \",\" or \")\" in {name}( ), found {}",
                            describe(&other)
                        ),
                        t.span,
                    ))
                }
            }
        }
    }

    fn primary(&mut self) -> Result<Node, ExprError> {
        let t = self.bump();
        let ast = match t.tok {
            Tok::Num { value, unit } => Ast::Num { value, unit },
            Tok::Str(s) => Ast::Str(s),
            Tok::Ident(name) => match name.as_str() {
                "true" => Ast::Bool(true),
                "false" => Ast::Bool(false),
                "available" if matches!(self.peek().tok, Tok::LParen) => {
                    self.bump();
                    let f = self.bump();
                    let Tok::Ident(field) = f.tok else {
                        return Err(ExprError::new(
                            "available( ) takes a field name".into(),
                            f.span,
                        ));
                    };
                    let close = self.bump();
                    if close.tok != Tok::RParen {
                        return Err(ExprError::new(
                            "expected \")\" after the field name".into(),
                            close.span,
                        ));
                    }
                    return Ok(Node {
                        ast: Ast::Available(field, f.span),
                        span: t.span.start..close.span.end,
                    });
                }
                _ if matches!(self.peek().tok, Tok::LParen) => return self.call(name, t.span),
                _ => Ast::Field(name),
            },
            Tok::LParen => {
                self.enter(&t.span)?;
                let inner = self.expr(0)?;
                self.depth -= 1;
                let close = self.bump();
                if close.tok != Tok::RParen {
                    return Err(ExprError::new(
                        format!(
                            "expected \")\" to close the \"(\" at column {}, found {}",
                            t.span.start + 1,
                            describe(&close.tok)
                        ),
                        close.span,
                    ));
                }
                return Ok(Node {
                    ast: inner.ast,
                    span: t.span.start..close.span.end,
                });
            }
            Tok::End => {
                return Err(ExprError::new(
                    "the expression ends too early; a value is missing".into(),
                    t.span,
                ))
            }
            other => {
                return Err(ExprError::new(
                    format!(
                        "expected a field, number or string, found {}",
                        describe(&other)
                    ),
                    t.span,
                ))
            }
        };
        Ok(Node { ast, span: t.span })
    }
}

#[cfg(test)]
mod tests {
    use super::super::lexer::lex;
    use super::*;

    fn p(s: &str) -> Result<Node, ExprError> {
        parse(lex(s)?)
    }

    /// The tree as a fully parenthesised string.
    fn show(n: &Node) -> String {
        match &n.ast {
            Ast::Num { value, unit } => format!("{value}{}", unit.as_deref().unwrap_or("")),
            Ast::Str(s) => format!("{s:?}"),
            Ast::Bool(b) => b.to_string(),
            Ast::Field(f) => f.clone(),
            Ast::Available(f, _) => format!("available({f})"),
            Ast::Call(f, args) => format!(
                "{f}({})",
                args.iter().map(show).collect::<Vec<_>>().join(", ")
            ),
            Ast::Unary(op, a) => format!("({}{})", op.text(), show(a)),
            Ast::Binary(op, a, b) => format!("({} {} {})", show(a), op.text(), show(b)),
        }
    }

    #[test]
    fn precedence() {
        let cases = [
            (
                "a > 1 && b < 2 || c == 3",
                "(((a > 1) && (b < 2)) || (c == 3))",
            ),
            ("a || b && c", "(a || (b && c))"),
            ("a + b * c >= d - e / f", "((a + (b * c)) >= (d - (e / f)))"),
            ("!(a > 1)", "(!(a > 1))"),
            ("-a < -2", "((-a) < (-2))"),
            ("a - b - c", "((a - b) - c)"),
            (
                "available(x) && name ~ \"H1\"",
                "(available(x) && (name ~ \"H1\"))",
            ),
        ];
        for (src, want) in cases {
            assert_eq!(show(&p(src).unwrap()), want, "{src}");
        }
    }

    #[test]
    fn spans_cover_the_source() {
        let n = p("  (a > 1) ").unwrap();
        assert_eq!(n.span, 2..9);
        let Ast::Binary(_, l, r) = p("abc >= 20GiB").unwrap().ast else {
            panic!()
        };
        assert_eq!((l.span, r.span), (0..3, 7..12));
    }

    #[test]
    fn syntax_errors_point_at_the_problem() {
        for (src, span) in [
            ("", 0..0),
            ("a >", 3..3),
            ("a > 1 b", 6..7),
            ("(a > 1", 6..6),
            ("a > 1)", 5..6),
            ("a < b < c", 6..7),
            ("&& a", 0..2),
            ("available(1)", 10..11),
        ] {
            let e = p(src).unwrap_err();
            assert_eq!(e.span, span, "{src}: {}", e.message);
        }
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_crash() {
        let deep = format!("{}a{}", "(".repeat(100), ")".repeat(100));
        assert!(p(&deep).unwrap_err().message.contains("nested"));
        let huge = format!("{}a{}", "(".repeat(100_000), ")".repeat(100_000));
        assert!(p(&huge).is_err());
        let long = vec!["a"; 100_000].join("+");
        assert!(p(&long).unwrap_err().message.contains("tokens"));
        let nots = format!("{}a", "!".repeat(10_000));
        assert!(p(&nots).is_err());
        let ok = format!("{}a > 1{}", "(".repeat(MAX_DEPTH), ")".repeat(MAX_DEPTH));
        assert!(p(&ok).is_ok());
    }
}
