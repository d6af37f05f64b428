//! Writing into the buffer: text on the fast cell path (checked against
//! ratatui's), lines of styled parts, cleared and kept rows, and a box's
//! border and title.

use crate::tui::columns::{put, Text};
use ratatui::buffer::{Buffer, Cell};
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use std::sync::OnceLock;

/// Row `y` of `area`: kept (added to `kept`) when it shows the `same`, else
/// cleared (to be drawn again).
pub(super) fn keep_or_clear(
    buf: &mut Buffer,
    area: Rect,
    y: u16,
    same: bool,
    kept: &mut Vec<Rect>,
) {
    let row = Rect {
        y,
        height: 1,
        ..area
    };
    if same {
        kept.push(row);
    } else {
        clear(buf, row);
    }
}

/// The cells of `area` as `Buffer::reset` leaves them (what ratatui's
/// `Clear` widget does, a row slice at a time rather than by position for
/// each cell: a third of the instructions, on most of each frame).
pub(super) fn clear(buf: &mut Buffer, area: Rect) {
    let (full, area) = (buf.area, area.intersection(buf.area));
    let w = usize::from(full.width);
    let (x, width) = (
        usize::from(area.x.saturating_sub(full.x)),
        usize::from(area.width),
    );
    for y in area.top()..area.bottom() {
        let start = usize::from(y.saturating_sub(full.y)) * w + x;
        if let Some(row) = buf.content.get_mut(start..start + width) {
            row.iter_mut().for_each(Cell::reset);
        }
    }
}

/// A line of text in parts of their own styles, written into one string
/// (one allocation for the line, not one for each part).
#[derive(Default)]
pub(super) struct Parts {
    text: String,
    /// Where each part ends in `text`, and its style.
    ends: Vec<(usize, Style)>,
}

impl Parts {
    pub(super) fn add(&mut self, part: impl Text, st: Style) -> &mut Self {
        put(&mut self.text, part);
        self.ends.push((self.text.len(), st));
        self
    }

    /// What [`line_at`] draws for the parts as spans.
    pub(super) fn draw(&self, buf: &mut Buffer, area: Rect) {
        let starts = std::iter::once(0).chain(self.ends.iter().map(|(end, _)| *end));
        let spans = starts.zip(&self.ends).map(|(start, (end, st))| {
            let part = self.text.get(start..*end).unwrap_or_default();
            (part, *st)
        });
        spans_at(buf, area, spans);
    }
}

/// The width of `text` on screen: its characters, when each is one cell.
pub(super) fn text_width(text: &str) -> usize {
    if text.chars().all(one_cell) {
        text.chars().count()
    } else {
        Span::raw(text).width()
    }
}

/// `area` cut from the left into columns of these widths (each at most
/// what is left) and the rest. A plain split: ratatui's layout solver costs
/// more than drawing the line itself, and these lines are drawn every frame.
pub(super) fn cut<const N: usize, const M: usize>(area: Rect, widths: [u16; N]) -> [Rect; M] {
    let mut out = [Rect { width: 0, ..area }; M];
    let mut x = area.x;
    let end = area.right();
    for (slot, w) in out
        .iter_mut()
        .zip(widths.iter().copied().chain(std::iter::once(u16::MAX)))
    {
        let w = w.min(end - x);
        *slot = Rect {
            x,
            width: w,
            ..area
        };
        x += w;
    }
    out
}

/// One line of text at the top of `area`, cut at its right edge (what a
/// one-line `Paragraph` draws, without its wrapping machinery; what
/// `Buffer::set_line` writes).
pub(super) fn line_at(buf: &mut Buffer, area: Rect, line: &Line<'_>) {
    let spans = line.spans.iter();
    spans_at(
        buf,
        area,
        spans.map(|s| (s.content.as_ref(), line.style.patch(s.style))),
    );
}

/// [`line_at`] for the parts of a line: each text and its style.
pub(super) fn spans_at<'t>(
    buf: &mut Buffer,
    area: Rect,
    spans: impl IntoIterator<Item = (&'t str, Style)>,
) {
    if area.height > 0 && area.width > 0 {
        let (mut x, mut left) = (area.x, area.width);
        for (text, st) in spans {
            if left == 0 {
                break;
            }
            let (end, _) = put_str(buf, x, area.y, text, usize::from(left), st);
            left = left.saturating_sub(end.saturating_sub(x));
            x = end;
        }
    }
}

/// `Buffer::set_stringn`, with a fast path for text whose every character
/// is one cell on its own (no grapheme segmentation, no width lookup):
/// printable ASCII and the few other narrow symbols `top` draws. That is
/// almost every string `top` draws; the cells are the same either way.
pub(super) fn put_str(
    buf: &mut Buffer,
    x: u16,
    y: u16,
    text: &str,
    max_width: usize,
    st: Style,
) -> (u16, u16) {
    let ascii = text.bytes().all(|b| (0x20..0x7f).contains(&b));
    if !ascii && !text.chars().all(one_cell) {
        return buf.set_stringn(x, y, text, max_width, st);
    }
    let area = buf.area;
    if y < area.top() || y >= area.bottom() || x < area.left() || x >= area.right() {
        return (x, y);
    }
    let room = usize::from(area.right() - x);
    let first = usize::from(y - area.y) * usize::from(area.width) + usize::from(x - area.x);
    let cells = buf.content.iter_mut().skip(first).take(max_width.min(room));
    let glyphs = glyphs();
    let mut n = 0;
    for (cell, ch) in cells.zip(text.chars()) {
        match glyphs.ascii(ch) {
            Some(glyph) => put_glyph(cell, glyph, st),
            None => {
                cell.set_char(ch).set_style(st);
            }
        }
        n += 1;
    }
    (x + n, y)
}

/// Cells made once, whose symbols are copied into the buffer: copying a
/// short symbol costs less than making it again from a character or a
/// string, for each of the thousand cells of text a frame writes.
pub(super) struct Glyphs {
    /// Printable ASCII, from the space.
    ascii: [Cell; 95],
    /// A bar's full block and its empty part.
    pub(super) full: Cell,
    pub(super) shade: Cell,
}

impl Glyphs {
    /// The cell of a printable ASCII character.
    pub(super) fn ascii(&self, c: char) -> Option<&Cell> {
        let i = u32::from(c).wrapping_sub(u32::from(' '));
        self.ascii.get(usize::try_from(i).ok()?)
    }
}

pub(super) fn glyphs() -> &'static Glyphs {
    static GLYPHS: OnceLock<Glyphs> = OnceLock::new();
    GLYPHS.get_or_init(|| {
        let cell = |symbol: &str| {
            let mut c = Cell::EMPTY;
            c.set_symbol(symbol);
            c
        };
        Glyphs {
            ascii: std::array::from_fn(|i| {
                let mut c = Cell::EMPTY;
                c.set_char(char::from(b' ' + i as u8));
                c
            }),
            full: cell("█"),
            shade: cell("░"),
        }
    })
}

/// What `cell.set_symbol(glyph.symbol()).set_style(st)` does, with the
/// symbol copied from `glyph`.
pub(super) fn put_glyph(cell: &mut Cell, glyph: &Cell, st: Style) {
    let (fg, bg, modifier, skip) = (cell.fg, cell.bg, cell.modifier, cell.skip);
    cell.clone_from(glyph);
    (cell.fg, cell.bg, cell.modifier, cell.skip) = (fg, bg, modifier, skip);
    cell.set_style(st);
}

/// A character that is one cell wide and a grapheme of its own whatever
/// follows it (no combining mark, joiner or emoji presentation can be
/// among these): printable ASCII, Latin-1's printable symbols and letters
/// (not the soft hyphen), box drawing, block elements and `top`'s marks.
fn one_cell(c: char) -> bool {
    matches!(c, ' '..='~' | '\u{a1}'..='\u{ac}' | '\u{ae}'..='\u{ff}' | '\u{2500}'..='\u{259f}')
        || matches!(c, '▶' | '▲' | '▼' | '↑' | '↓' | '·')
}

/// `a` without its border.
pub(super) fn inside(a: Rect) -> Rect {
    Rect::new(
        a.x.saturating_add(1),
        a.y.saturating_add(1),
        a.width.saturating_sub(2),
        a.height.saturating_sub(2),
    )
}

/// What `Block::bordered().title(title)` draws (plain lines all round, the
/// title at the top left after the corner, cut at the right corner), with
/// the fast cell path: a block's border was a tenth of a frame. What is
/// inside is [`inside`] the area.
pub(super) fn bordered(buf: &mut Buffer, area: Rect, title: &str) {
    let area = area.intersection(buf.area);
    if area.is_empty() {
        return;
    }
    let (top, bottom) = (area.top(), area.bottom() - 1);
    let (left, right) = (area.left(), area.right() - 1);
    let mut put = |x: u16, y: u16, symbol: &str| {
        if let Some(c) = buf.cell_mut((x, y)) {
            c.set_symbol(symbol);
        }
    };
    for y in top..=bottom {
        put(left, y, "│");
        put(right, y, "│");
    }
    for x in left..=right {
        put(x, bottom, "─");
    }
    put(right, bottom, "┘");
    put(left, bottom, "└");
    top_border(buf, area, title);
}

/// The top row of [`bordered`]'s box, over `area` (inside the buffer):
/// the line, its corners and the title.
fn top_border(buf: &mut Buffer, area: Rect, title: &str) {
    if area.is_empty() {
        return;
    }
    let (top, left, right) = (area.top(), area.left(), area.right() - 1);
    let mut put = |x: u16, symbol: &str| {
        if let Some(c) = buf.cell_mut((x, top)) {
            c.set_symbol(symbol);
        }
    };
    for x in left..=right {
        put(x, "─");
    }
    put(right, "┐");
    put(left, "┌");
    let title = Line::raw(title);
    let room = area.width.saturating_sub(2);
    let title_area = Rect::new(left + 1, top, (title.width() as u16).min(room), 1);
    line_at(buf, title_area, &title);
}

/// Draw `title` again on the top border of [`bordered`]'s box over `area`
/// (inside the buffer), which the buffer shows with a title of its own:
/// only the cells of the longer of the two titles are cleared and drawn.
/// Returns the part of the row kept (the corners and the line past them).
pub(super) fn title_again(buf: &mut Buffer, area: Rect, title: &str) -> Rect {
    let room = area.width.saturating_sub(2);
    let (left, top) = (area.left(), area.top());
    let old = (0..room)
        .take_while(|&i| {
            buf.cell((left + 1 + i, top))
                .is_some_and(|c| c.symbol() != "─")
        })
        .count() as u16;
    let line = Line::raw(title);
    let new = (line.width() as u16).min(room);
    let drawn = Rect::new(left + 1, top, old.max(new), 1);
    clear(buf, drawn);
    for x in drawn.left()..drawn.right() {
        if let Some(c) = buf.cell_mut((x, top)) {
            c.set_symbol("─");
        }
    }
    line_at(
        buf,
        Rect {
            width: new,
            ..drawn
        },
        &line,
    );
    Rect::new(
        drawn.right(),
        top,
        area.right().saturating_sub(drawn.right()),
        1,
    )
}

/// The block of cell `i` (from 0) of a bar `eighths` eighths of a cell long:
/// full, one of the partial blocks `parts` (indexed by eighths), or `None`
/// past the bar's end.
pub(super) fn eighth_block(
    eighths: usize,
    i: usize,
    parts: &[&'static str; 8],
) -> Option<&'static str> {
    if eighths >= (i + 1) * 8 {
        Some("█")
    } else if eighths > i * 8 {
        parts.get(eighths - i * 8).copied()
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tui::view::screen::bold;
    use ratatui::style::Color;
    use ratatui::widgets::{Block, Widget};

    #[test]
    fn a_bordered_box_is_ratatuis() {
        let screen = Rect::new(0, 0, 30, 8);
        let areas = [
            (0, 0, 30, 8),
            (2, 1, 12, 5),
            (25, 5, 10, 6),
            (0, 0, 2, 2),
            (0, 0, 1, 3),
            (4, 4, 0, 3),
        ];
        for area in areas.map(|(x, y, w, h)| Rect::new(x, y, w, h)) {
            for title in [
                "",
                "memory 30G of 80G, last 10m",
                "util 5%",
                "日本語 wide title",
            ] {
                let (mut ours, mut theirs) = (Buffer::empty(screen), Buffer::empty(screen));
                bordered(&mut ours, area, title);
                let block = Block::bordered().title(title);
                let on_screen = area.intersection(screen);
                let their_inner = block.inner(on_screen);
                block.render(area, &mut theirs);
                assert_eq!(ours, theirs, "{area:?} {title:?}");
                if !on_screen.is_empty() {
                    assert_eq!(inside(on_screen), their_inner, "{area:?}");
                }
            }
        }
    }

    #[test]
    fn the_fast_path_writes_what_ratatui_writes() {
        let area = Rect::new(0, 0, 12, 1);
        let texts = [
            "",
            "plain text",
            "exactly12!!!",
            "longer than twelve",
            "tab\there",
            "日本語 wide",
            "a\u{301}b",
            "°C",
            "▶ 0 H100 █▉░░░ ▲+12M/s",
            "└ MIG ┌─┐│ ▁▂▃▄▅▆▇ ↑↓·",
            "e\u{301}°\u{301}",
            "soft\u{ad}hyphen",
            "\u{25b6}\u{fe0f} emoji",
            "é ñ ü ÿ × ÷ ½",
        ];
        // Every character the fast path takes is one cell, as ratatui sees it.
        let mut all: Vec<char> = (' '..='\u{ff}').chain('\u{2500}'..='\u{259f}').collect();
        all.extend(['▶', '▲', '▼', '↑', '↓', '·']);
        for c in all.into_iter().filter(|&c| one_cell(c)) {
            let text = format!("{c}{c}x");
            let (mut ours, mut theirs) = (Buffer::empty(area), Buffer::empty(area));
            assert_eq!(
                put_str(&mut ours, 0, 0, &text, 12, bold()),
                theirs.set_stringn(0, 0, &text, 12, bold())
            );
            assert_eq!(ours, theirs, "{c:?}");
        }
        for text in texts {
            for (x, max) in [(0, 12), (3, 12), (0, 4), (11, 5), (12, 3), (0, 0)] {
                let st = Style::default().fg(Color::Red);
                let (mut ours, mut theirs) = (Buffer::empty(area), Buffer::empty(area));
                let a = put_str(&mut ours, x, 0, text, max, st);
                let b = theirs.set_stringn(x, 0, text, max, st);
                assert_eq!((a, &ours), (b, &theirs), "{text:?} at {x}, max {max}");
                let line = Line::from(vec![Span::raw(text), Span::styled(" °C 42", bold())]);
                let (mut ours, mut theirs) = (Buffer::empty(area), Buffer::empty(area));
                let w = 12u16.saturating_sub(x).min(max as u16);
                line_at(&mut ours, Rect::new(x.min(11), 0, w, 1), &line);
                if w > 0 {
                    theirs.set_line(x.min(11), 0, &line, w);
                }
                assert_eq!(ours, theirs, "{text:?} line at {x}, max {max}");
            }
        }
    }
}
