//! nvq's scripting extensions: a small expression language over the fields
//! of the active query mode (`--where`, `--assert`, `--until`), and the
//! statistics of `--summary`.
//!
//! An expression is compiled once, before NVML is touched: lexed
//! (`lexer`), parsed (`parser`), then checked (`check`): field names
//! are resolved, units converted, kinds matched. The result, an [`Expr`],
//! evaluates against a row's cells in three-valued logic ([`Tri`]).
//! The grammar and the rules are in `docs/scripting.md`.

mod check;
mod eval;
mod lexer;
pub mod lives;
mod parser;
pub mod run;
pub mod stats;
mod units;

pub use eval::{Capacity, Derived, Func, Tri};
pub use run::{Flags, Quantifier, RowKey, Script, Verdict};
pub use stats::Stats;

use lexer::Span;
use nvq_core::error::NvqError;
use nvq_core::model::{FieldInfo, Value};
use nvq_core::source::QueryMode;

/// What is wrong with an expression, and where.
#[derive(Debug, Clone, PartialEq)]
pub struct ExprError {
    pub message: String,
    /// Byte range in the expression text.
    pub span: Span,
    /// A suggestion printed after the marker.
    pub hint: Option<String>,
}

impl ExprError {
    pub fn new(message: String, span: Span) -> Self {
        ExprError {
            message,
            span,
            hint: None,
        }
    }

    /// The message with the expression and a `^^^` marker under the span:
    ///
    /// ```text
    /// invalid --where expression: unknown field "memory.fre"
    ///   memory.fre >= 20GiB
    ///   ^^^^^^^^^^
    /// ```
    ///
    /// A long expression is shown as a window of at most [`SHOWN`]
    /// characters around the marked part, cut ends marked `...`, so that
    /// a huge expression makes a short message.
    pub fn render(&self, flag: &str, src: &str) -> String {
        let chars: Vec<char> = src
            .chars()
            .map(|c| if nvq_core::render::hidden(c) { ' ' } else { c })
            .collect();
        let start = self.span.start.min(src.len());
        let end = self.span.end.clamp(start, src.len());
        let col = src.get(..start).map_or(0, |s| s.chars().count());
        let width = src.get(start..end).map_or(0, |s| s.chars().count()).max(1);
        // The window: up to a fifth before the mark, the mark, the rest after.
        let from = col.saturating_sub(SHOWN / 5);
        let to = chars.len().min(from + SHOWN).max(from);
        let cut_left = from > 0;
        let cut_right = to < chars.len();
        let shown: String = chars.get(from..to).unwrap_or_default().iter().collect();
        let lead = if cut_left { "..." } else { "" };
        let marks = width.min(to.saturating_sub(col)).max(1);
        let mut out = format!(
            "invalid {flag} expression: {}\n  {lead}{shown}{}\n  {}{}",
            self.message,
            if cut_right { "..." } else { "" },
            " ".repeat(col - from + lead.len()),
            "^".repeat(marks)
        );
        if let Some(h) = &self.hint {
            out.push(' ');
            out.push_str(h);
        }
        out
    }
}

/// The most characters of an expression an error message shows.
const SHOWN: usize = 120;

/// A compiled expression.
#[derive(Debug, Clone)]
pub struct Expr {
    /// The option it came from (`--where`), for messages.
    pub flag: &'static str,
    /// The expression as written.
    pub source: String,
    cond: eval::Cond,
    fields: Vec<usize>,
    derived: Vec<eval::Derived>,
}

impl Expr {
    /// Compile `src` against the fields of `mode`. Errors are usage errors
    /// (exit 2) with the position marked.
    pub fn compile(flag: &'static str, src: &str, mode: QueryMode) -> Result<Self, NvqError> {
        let infos = mode.fields();
        Self::compile_with(flag, src, &infos, &|name| mode.lookup(name))
            .map_err(|e| NvqError::Usage(e.render(flag, src)))
    }

    /// Compile against any field table; `lookup` resolves a name or alias
    /// to an index into `infos`.
    pub fn compile_with(
        flag: &'static str,
        src: &str,
        infos: &[&FieldInfo],
        lookup: &dyn Fn(&str) -> Option<usize>,
    ) -> Result<Self, ExprError> {
        let node = parser::parse(lexer::lex(src)?)?;
        let mut checker = check::Checker {
            infos,
            lookup,
            fields: Vec::new(),
            derived: Vec::new(),
        };
        let cond = checker.condition(&node)?;
        Ok(Expr {
            flag,
            source: src.to_string(),
            cond,
            fields: checker.fields,
            derived: checker.derived,
        })
    }

    /// The fields the expression reads (indices into the mode's fields), in
    /// order of first use.
    pub fn fields(&self) -> &[usize] {
        &self.fields
    }

    /// Say where each field sits in the rows to come: `read[k]` is the field
    /// of cell `k`. Every field of [`Self::fields`] must be in `read`; one
    /// that is not reads as unavailable.
    pub fn bind(&mut self, read: &[usize]) {
        self.cond.refs_mut(&mut |r| {
            r.slot = read
                .iter()
                .position(|&f| f == r.field)
                .unwrap_or(usize::MAX);
        });
    }

    /// The functions of a field's history the expression uses (`rate`, `time_to_full`).
    pub fn derived(&self) -> &[eval::Derived] {
        &self.derived
    }

    /// Say where each derived value sits: `all[k]` is in cell `base + k` (after the fields read).
    pub fn bind_derived(&mut self, base: usize, all: &[eval::Derived]) {
        let mine = self.derived.clone();
        self.cond.derived_mut(&mut |d| {
            d.slot = mine
                .get(d.index)
                .and_then(|m| all.iter().position(|a| a == m))
                .map_or(usize::MAX, |k| base + k);
        });
    }

    /// The truth of the expression for a row (cells in `bind` order).
    pub fn eval(&self, cells: &[Value]) -> Tri {
        self.cond.eval(cells)
    }

    /// Does the row satisfy the expression? Unknown does not.
    pub fn holds(&self, cells: &[Value]) -> bool {
        self.eval(cells) == Tri::True
    }

    /// The values the expression read from a row, for messages:
    /// `temperature.gpu = 93, memory.used = 80000 MiB`.
    pub fn explain(&self, cells: &[Value], read: &[usize], infos: &[&FieldInfo]) -> String {
        self.fields
            .iter()
            .filter_map(|&f| {
                let info = infos.get(f)?;
                let cell = read.iter().position(|&r| r == f).and_then(|k| cells.get(k));
                let text = cell.map_or_else(
                    || "?".to_string(),
                    |v| nvq_core::render::csv::cell_text(v, info.unit, false),
                );
                Some(format!("{} = {text}", info.name))
            })
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// The union of the queried fields and those the expressions read: the
/// queried fields first, in order (duplicates kept), then each extra field
/// once. Rows are read with this list and cut back to `queried.len()`
/// cells before they are printed.
pub fn read_list<'a>(queried: &[usize], exprs: impl IntoIterator<Item = &'a Expr>) -> Vec<usize> {
    let mut read = queried.to_vec();
    for e in exprs {
        for &f in e.fields() {
            if !read.contains(&f) {
                read.push(f);
            }
        }
    }
    read
}

#[cfg(test)]
mod tests;
