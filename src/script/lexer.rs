//! Splitting an expression into tokens, each with its byte span.

use super::ExprError;

/// A byte range in the expression text.
pub type Span = std::ops::Range<usize>;

#[derive(Debug, Clone, PartialEq)]
pub enum Tok {
    /// A number with the unit written right after it (`20GiB`, `90%`).
    Num {
        value: f64,
        unit: Option<String>,
    },
    /// A quoted string, escapes resolved.
    Str(String),
    /// A field name or keyword (`memory.free`, `available`, `true`).
    Ident(String),
    Op(Op),
    LParen,
    RParen,
    /// Between a function's arguments.
    Comma,
    End,
}

/// A comparison, as the lexer reads it and the evaluator applies it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CmpOp {
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Ne,
    /// Case-insensitive substring.
    Contains,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    Or,
    And,
    Not,
    Cmp(CmpOp),
    Add,
    Sub,
    Mul,
    Div,
}

impl Op {
    pub fn text(self) -> &'static str {
        match self {
            Op::Or => "||",
            Op::And => "&&",
            Op::Not => "!",
            Op::Cmp(CmpOp::Lt) => "<",
            Op::Cmp(CmpOp::Le) => "<=",
            Op::Cmp(CmpOp::Gt) => ">",
            Op::Cmp(CmpOp::Ge) => ">=",
            Op::Cmp(CmpOp::Eq) => "==",
            Op::Cmp(CmpOp::Ne) => "!=",
            Op::Cmp(CmpOp::Contains) => "~",
            Op::Add => "+",
            Op::Sub => "-",
            Op::Mul => "*",
            Op::Div => "/",
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Token {
    pub tok: Tok,
    pub span: Span,
}

fn is_ident_start(c: char) -> bool {
    c.is_ascii_alphabetic() || c == '_'
}

fn is_ident_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '.'
}

fn is_unit_char(c: char) -> bool {
    c.is_ascii_alphabetic() || c == '%' || c == '°'
}

/// Split `src` into tokens; the last one is [`Tok::End`].
pub fn lex(src: &str) -> Result<Vec<Token>, ExprError> {
    let mut out = Vec::new();
    let mut it = src.char_indices().peekable();
    while let Some(&(start, c)) = it.peek() {
        if c.is_whitespace() {
            it.next();
            continue;
        }
        let tok = if c.is_ascii_digit()
            || (c == '.' && src[start + 1..].starts_with(|d: char| d.is_ascii_digit()))
        {
            number(src, start, &mut it)?
        } else if is_ident_start(c) {
            let mut end = start;
            while let Some(&(i, c)) = it.peek() {
                if !is_ident_char(c) {
                    break;
                }
                end = i + c.len_utf8();
                it.next();
            }
            Tok::Ident(src[start..end].to_string())
        } else if c == '"' || c == '\'' {
            it.next();
            let mut s = String::new();
            let mut closed = false;
            while let Some((_, ch)) = it.next() {
                if ch == c {
                    closed = true;
                    break;
                }
                if ch == '\\' {
                    match it.next() {
                        Some((_, e)) => s.push(e),
                        None => break,
                    }
                } else {
                    s.push(ch);
                }
            }
            if !closed {
                return Err(ExprError::new(
                    "this string is not closed".to_string(),
                    start..src.len(),
                ));
            }
            Tok::Str(s)
        } else {
            it.next();
            let next = it.peek().map(|&(_, c)| c);
            let two = |it: &mut std::iter::Peekable<std::str::CharIndices>, op| {
                it.next();
                Tok::Op(op)
            };
            match (c, next) {
                ('|', Some('|')) => two(&mut it, Op::Or),
                ('&', Some('&')) => two(&mut it, Op::And),
                ('<', Some('=')) => two(&mut it, Op::Cmp(CmpOp::Le)),
                ('>', Some('=')) => two(&mut it, Op::Cmp(CmpOp::Ge)),
                ('=', Some('=')) => two(&mut it, Op::Cmp(CmpOp::Eq)),
                ('!', Some('=')) => two(&mut it, Op::Cmp(CmpOp::Ne)),
                ('!', _) => Tok::Op(Op::Not),
                ('<', _) => Tok::Op(Op::Cmp(CmpOp::Lt)),
                ('>', _) => Tok::Op(Op::Cmp(CmpOp::Gt)),
                ('~', _) => Tok::Op(Op::Cmp(CmpOp::Contains)),
                ('+', _) => Tok::Op(Op::Add),
                ('-', _) => Tok::Op(Op::Sub),
                ('*', _) => Tok::Op(Op::Mul),
                ('/', _) => Tok::Op(Op::Div),
                ('(', _) => Tok::LParen,
                (')', _) => Tok::RParen,
                (',', _) => Tok::Comma,
                ('=', _) => {
                    return Err(ExprError::new(
                        "a single = is not an operator; compare with ==".to_string(),
                        start..start + 1,
                    ))
                }
                ('|', _) | ('&', _) => {
                    return Err(ExprError::new(
                        format!("unexpected \"{c}\"; write {c}{c}"),
                        start..start + 1,
                    ))
                }
                _ => {
                    return Err(ExprError::new(
                        format!("unexpected character {c:?}"),
                        start..start + c.len_utf8(),
                    ))
                }
            }
        };
        let end = it.peek().map_or(src.len(), |&(i, _)| i);
        out.push(Token {
            tok,
            span: start..end,
        });
    }
    out.push(Token {
        tok: Tok::End,
        span: src.len()..src.len(),
    });
    Ok(out)
}

fn number(
    src: &str,
    start: usize,
    it: &mut std::iter::Peekable<std::str::CharIndices>,
) -> Result<Tok, ExprError> {
    // Hexadecimal: 0x1F (bit masks), never with a unit.
    if src[start..].starts_with("0x") || src[start..].starts_with("0X") {
        it.next();
        it.next();
        let mut end = start + 2;
        while let Some(&(i, c)) = it.peek() {
            if !c.is_ascii_alphanumeric() {
                break;
            }
            end = i + c.len_utf8();
            it.next();
        }
        let digits = &src[start + 2..end];
        return u64::from_str_radix(digits, 16)
            .map(|v| Tok::Num {
                value: v as f64,
                unit: None,
            })
            .map_err(|_| {
                ExprError::new(
                    format!("\"{}\" is not a hexadecimal number", &src[start..end]),
                    start..end,
                )
            });
    }
    let mut end = start;
    let mut dot = false;
    while let Some(&(i, c)) = it.peek() {
        if c.is_ascii_digit() || (c == '.' && !dot) {
            dot |= c == '.';
            end = i + 1;
            it.next();
        } else {
            break;
        }
    }
    let value: f64 = src[start..end].parse().map_err(|_| {
        ExprError::new(
            format!("\"{}\" is not a number", &src[start..end]),
            start..end,
        )
    })?;
    let ustart = end;
    while let Some(&(i, c)) = it.peek() {
        if !is_unit_char(c) {
            break;
        }
        end = i + c.len_utf8();
        it.next();
    }
    let unit = (end > ustart).then(|| src[ustart..end].to_string());
    Ok(Tok::Num { value, unit })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(s: &str) -> Vec<Tok> {
        lex(s).unwrap().into_iter().map(|t| t.tok).collect()
    }

    #[test]
    fn numbers_units_fields_and_operators() {
        assert_eq!(
            toks("memory.free>=20GiB && x<.5"),
            vec![
                Tok::Ident("memory.free".into()),
                Tok::Op(Op::Cmp(CmpOp::Ge)),
                Tok::Num {
                    value: 20.0,
                    unit: Some("GiB".into())
                },
                Tok::Op(Op::And),
                Tok::Ident("x".into()),
                Tok::Op(Op::Cmp(CmpOp::Lt)),
                Tok::Num {
                    value: 0.5,
                    unit: None
                },
                Tok::End
            ]
        );
        assert_eq!(
            toks("0x1F 90%"),
            vec![
                Tok::Num {
                    value: 31.0,
                    unit: None
                },
                Tok::Num {
                    value: 90.0,
                    unit: Some("%".into())
                },
                Tok::End
            ]
        );
    }

    #[test]
    fn strings_with_either_quote_and_escapes() {
        assert_eq!(
            toks(r#"name == "NVIDIA \"H100\"" 'a'"#)[2],
            Tok::Str("NVIDIA \"H100\"".into())
        );
        assert_eq!(toks("'a b'")[0], Tok::Str("a b".into()));
    }

    #[test]
    fn spans_are_byte_ranges() {
        let t = lex("  abc >= 1").unwrap();
        assert_eq!(t[0].span, 2..5);
        assert_eq!(t[1].span, 6..8);
        assert_eq!(t[2].span, 9..10);
        assert_eq!(t[3].span, 10..10);
    }

    #[test]
    fn lexical_errors() {
        for (src, span) in [
            ("a = 1", 2..3),
            ("a & b", 2..3),
            ("\"open", 0..5),
            ("a $ b", 2..3),
            ("0xZZ", 0..4),
            ("1.2.3", 0..3),
        ] {
            match lex(src) {
                Err(e) => assert_eq!(e.span, span, "{src}"),
                Ok(t) if src == "1.2.3" => {
                    // `1.2` then `.3`: two numbers, which the parser rejects.
                    assert_eq!(t.len(), 3);
                }
                Ok(t) => panic!("{src}: {t:?}"),
            }
        }
    }
}
