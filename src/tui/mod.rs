//! `nvq top`'s screen: what the person chose ([`state`]), the process
//! columns ([`columns`]), the drawing ([`view`], pure: sample and history
//! in, ratatui buffer out) and the terminal ([`term`]: raw mode, the
//! alternate screen, keys, and putting the terminal back whatever ends the
//! run).

pub mod columns;
pub mod state;
pub mod term;
pub mod view;

use ratatui::buffer::Buffer;
use ratatui::text::Span;

/// The characters of a drawn buffer, one line per row, trailing blanks
/// cut (`--once`, and the snapshot tests). A double-width character fills
/// two cells: the cell after it (ratatui's blank continuation) is skipped,
/// as a terminal skips it, so a line is as wide on paper as on screen.
pub fn buffer_text(buf: &Buffer) -> String {
    let area = buf.area;
    let mut out = String::new();
    for y in area.top()..area.bottom() {
        let mut line = String::new();
        let mut covered = 0;
        for x in area.left()..area.right() {
            if covered > 0 {
                covered -= 1;
                continue;
            }
            if let Some(c) = buf.cell((x, y)) {
                line.push_str(c.symbol());
                covered = Span::raw(c.symbol()).width().saturating_sub(1);
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod snapshots;

/// Whole numbers below `n` (0 for `n` 0), drawn from proptest's fixed seed:
/// the same cases on every run, for the TUI's random tests.
#[cfg(test)]
fn seeded() -> impl FnMut(u64) -> u64 {
    use proptest::prelude::RngExt;
    use proptest::test_runner::{RngAlgorithm, TestRng};
    let mut rng = TestRng::deterministic_rng(RngAlgorithm::ChaCha);
    move |n| rng.random_range(0..n.max(1))
}
