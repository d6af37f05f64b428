//! The help box: the keys and what they do.

use super::screen::{bold, Screen};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Paragraph, Widget};

const HELP: &[(&str, &str)] = &[
    ("h ?", "this help (any key closes it)"),
    ("q Ctrl+C", "quit"),
    ("s > →  < ←", "sort by the next / previous column"),
    ("r", "reverse the sort order"),
    ("/ f", "filter processes by text (Enter keeps, Esc drops)"),
    ("↑↓ j k", "select a GPU"),
    (
        "Enter  0-9",
        "only the selected GPU's processes (Enter again: all)",
    ),
    ("Esc a", "all GPUs' processes, no filter"),
    ("+ - F2", "refresh interval up / down (100 ms to 10 s)"),
    ("p space", "pause / resume"),
    ("z Z", "curves: zoom in / out (30 s to 1 h)"),
    (
        "mouse",
        "click a GPU (alone) or a header (sort); wheel: scroll",
    ),
];

pub(super) fn help(s: &Screen<'_>, area: Rect, buf: &mut Buffer) {
    let w = area.width.min(72);
    let h = area.height.min(HELP.len() as u16 + 4);
    let r = Rect {
        x: area.x + (area.width - w) / 2,
        y: area.y + (area.height - h) / 2,
        width: w,
        height: h,
    };
    Clear.render(r, buf);
    let mut lines: Vec<Line<'_>> = HELP
        .iter()
        .map(|(k, what)| {
            Line::from(vec![
                Span::styled(format!("{k:>12}  "), bold()),
                Span::raw(*what),
            ])
        })
        .collect();
    lines.push(Line::from(format!(
        "{:>12}  processes rising steadily: rate and GPU time to full",
        "▲"
    )));
    let _ = s;
    Paragraph::new(lines)
        .block(Block::bordered().title(" nvq top: keys "))
        .render(r, buf);
}
