//! The terminal while `nvq top` runs: raw mode and the alternate screen
//! (crossterm), keys as [`Key`]s, and the way back. [`Terminal::enter`]
//! returns a guard whose drop restores the terminal; a panic restores it
//! before the panic's message is printed ([`install_panic_hook`]); the
//! runner ends the run on `q`, Ctrl+C, SIGTERM, SIGHUP and a terminal that
//! is gone, so the guard is dropped in every case but SIGKILL.

use super::state::Key;
use ratatui::backend::Backend;
use ratatui::buffer::{Buffer, Cell};
use ratatui::crossterm::event::{
    self, DisableMouseCapture, EnableMouseCapture, Event, KeyCode, KeyEventKind, KeyModifiers,
    MouseButton, MouseEventKind,
};
use ratatui::crossterm::{cursor, execute, terminal};
use ratatui::layout::{Position, Rect};
use ratatui::prelude::CrosstermBackend;
use ratatui::text::Span;
use std::io::Stdout;
use std::sync::atomic::{AtomicBool, Ordering};

/// Raw mode and the alternate screen are on.
static ACTIVE: AtomicBool = AtomicBool::new(false);

pub type Tui = Frames<CrosstermBackend<Stdout>>;

/// The terminal in `top`'s state; dropping it puts it back.
pub struct Terminal {
    pub tui: Tui,
}

/// What is on the screen and the frame being drawn: each frame is drawn
/// whole into a buffer, and only the cells that differ from the screen are
/// written (as ratatui's `Terminal` does, with a cheaper comparison: see
/// [`changed_cells`]). The cursor stays hidden.
pub struct Frames<B: Backend> {
    backend: B,
    shown: Frame,
    next: Frame,
}

/// A frame's cells, and each cell's [`Widths::narrow`] code: written while
/// the frame is compared with the one on screen, read when the next frame
/// is, in place of the symbol.
struct Frame {
    buf: Buffer,
    narrow: Vec<u32>,
}

impl Frame {
    fn empty(area: Rect) -> Self {
        let buf = Buffer::empty(area);
        let narrow = narrow_codes(&buf);
        Frame { buf, narrow }
    }
}

/// Each cell's [`Widths::narrow`] code.
fn narrow_codes(buf: &Buffer) -> Vec<u32> {
    let mut widths = Widths::default();
    buf.content
        .iter()
        .map(|c| widths.narrow(c.symbol()))
        .collect()
}

impl<B: Backend> Frames<B> {
    /// Start from a cleared screen of the backend's size.
    pub fn new(mut backend: B) -> std::io::Result<Self> {
        let area = Rect::from((Position::ORIGIN, backend.size()?));
        backend.clear()?;
        Ok(Frames {
            backend,
            shown: Frame::empty(area),
            next: Frame::empty(area),
        })
    }

    /// After a resize: clear the screen and draw the next frame whole at the
    /// new size (nothing when the size is the same).
    pub fn autoresize(&mut self) -> std::io::Result<()> {
        let area = Rect::from((Position::ORIGIN, self.backend.size()?));
        if area != self.shown.buf.area {
            self.backend.clear()?;
            self.shown = Frame::empty(area);
            self.next = Frame::empty(area);
        }
        Ok(())
    }

    /// Draw a frame with `render` and write what changed. (Not inlined, so
    /// that a profile shows what a frame costs: `benches/top_callgrind.sh`.)
    #[inline(never)]
    pub fn draw(&mut self, render: impl FnOnce(Rect, &mut Buffer)) -> std::io::Result<()> {
        let next = &mut self.next;
        next.buf.reset();
        render(next.buf.area, &mut next.buf);
        let updates = changed_cells(
            &self.shown.buf,
            &self.shown.narrow,
            &next.buf,
            &mut next.narrow,
        );
        if !updates.is_empty() {
            self.backend.draw(updates.into_iter())?;
            Backend::flush(&mut self.backend)?;
        }
        std::mem::swap(&mut self.shown, &mut self.next);
        Ok(())
    }

    /// The size of the screen being drawn.
    pub fn area(&self) -> Rect {
        self.shown.buf.area
    }

    pub fn backend(&self) -> &B {
        &self.backend
    }
}

/// The cells of `next` to write over `shown`: the same list as ratatui's
/// `Buffer::diff` (a cell that differs, and those after a wide character
/// that changed; none hidden under a wide character), at a fraction of its
/// cost. A pair of cells whose symbols are each one character one cell wide
/// (almost all of a frame) is compared by character and style: nothing
/// after them is hidden, and what a wide character before them invalidated
/// runs one cell shorter. A symbol's width is worked out once a frame for
/// each character; `Buffer::diff` works out three widths per cell, which
/// was a third of drawing a frame.
///
/// Each cell's [`Widths::narrow`] code is read for `shown` (`shown_narrow`)
/// and written for `next` (`next_narrow`).
fn changed_cells<'a>(
    shown: &Buffer,
    shown_narrow: &[u32],
    next: &'a Buffer,
    next_narrow: &mut [u32],
) -> Vec<(u16, u16, &'a Cell)> {
    let mut widths = Widths::default();
    let mut updates = Vec::new();
    let (mut invalidated, mut to_skip) = (0usize, 0usize);
    let mut push = |i: usize, cell: &'a Cell| {
        let (x, y) = position(next.area, i);
        updates.push((x, y, cell));
    };
    let n = next.content.len().min(shown.content.len());
    let n = n.min(shown_narrow.len()).min(next_narrow.len());
    let (cells, before) = (&next.content[..n], &shown.content[..n]);
    let (codes, before_codes) = (&mut next_narrow[..n], &shown_narrow[..n]);
    let mut i = 0;
    while i < n {
        if (to_skip | invalidated) == 0 {
            i = same_narrow_run(cells, before, codes, before_codes, i, &mut widths);
            if i >= n {
                break;
            }
        }
        let at = i;
        i += 1;
        let (cur, prev) = (&cells[at], &before[at]);
        let symbol = cur.symbol();
        let (p, q) = (widths.narrow(symbol), before_codes[at]);
        debug_assert_eq!(q, Widths::default().narrow(prev.symbol()));
        codes[at] = p;
        if p != 0 && q != 0 {
            // Both one cell wide: nothing after them to skip.
            let same = same_narrow(p, q, cur, prev);
            if (to_skip | invalidated) == 0 {
                if !same && !cur.skip {
                    push(at, cur);
                }
                continue;
            }
            if to_skip == 0 && !cur.skip {
                push(at, cur);
            }
            to_skip = 0;
            invalidated = invalidated.saturating_sub(1);
            continue;
        }
        let same = same_cell(symbol, cur, prev);
        if !cur.skip && (!same || invalidated > 0) && to_skip == 0 {
            push(at, cur);
        }
        let wc = widths.width(symbol);
        to_skip = wc.saturating_sub(1);
        let wp = if same {
            wc
        } else {
            widths.width(prev.symbol())
        };
        invalidated = wc.max(wp).max(invalidated).saturating_sub(1);
    }
    updates
}

/// From cell `from` on, the first cell whose symbol is not one character
/// one cell wide the same as the one on screen, in the same style (or the
/// end), writing the cells' codes to `codes` (the one it stops at
/// included). Such a cell needs no writing and hides nothing after it:
/// when nothing before it is pending, there is nothing else to do for it.
/// A loop of its own, with few values to keep (not inlined, its values
/// stay in registers): most of a frame is such cells.
#[inline(never)]
fn same_narrow_run(
    cells: &[Cell],
    before: &[Cell],
    codes: &mut [u32],
    before_codes: &[u32],
    from: usize,
    widths: &mut Widths,
) -> usize {
    let mut i = from;
    let cells = cells.iter().zip(before).skip(from);
    let records = codes.iter_mut().zip(before_codes).skip(from);
    for ((cur, prev), (code, &q)) in cells.zip(records) {
        let p = widths.narrow(cur.symbol());
        debug_assert_eq!(q, Widths::default().narrow(prev.symbol()));
        *code = p;
        if p == 0 || p != q || !same_narrow(p, q, cur, prev) {
            break;
        }
        i += 1;
    }
    i
}

/// Where the `i`th cell of a buffer of `area` is. Not inlined: a cell to
/// write is rare, and inlined, the division became two counters kept up to
/// date for every cell.
#[inline(never)]
fn position(area: Rect, i: usize) -> (u16, u16) {
    let w = usize::from(area.width).max(1);
    (area.x + (i % w) as u16, area.y + (i / w) as u16)
}

/// `a == b` for two cells whose symbols have the [`Widths::narrow`] codes
/// `p` and `q`, neither 0.
fn same_narrow(p: u32, q: u32, a: &Cell, b: &Cell) -> bool {
    let same =
        p == q && a.fg == b.fg && a.bg == b.bg && a.modifier == b.modifier && a.skip == b.skip;
    debug_assert_eq!(same, a == b);
    same
}

/// Display widths of symbols, as `Span::width` works them out, with those
/// of one-character symbols kept by character: a frame has few distinct
/// ones (borders, bars, the curves' blocks), each worked out once a frame,
/// not once a cell.
struct Widths {
    /// Character and width; `u32::MAX` is no character.
    memo: [(u32, u8); 64],
}

impl Default for Widths {
    fn default() -> Self {
        Widths {
            memo: [(u32::MAX, 0); 64],
        }
    }
}

impl Widths {
    /// The symbol's display width.
    fn width(&mut self, s: &str) -> usize {
        if let [b] = s.as_bytes() {
            if b.wrapping_sub(0x20) < 0x5f {
                return 1;
            }
        }
        let mut chars = s.chars();
        let (Some(ch), None) = (chars.next(), chars.next()) else {
            return Span::raw(s).width();
        };
        self.char_width(ch, s)
    }

    /// The width of `s`, the one character `ch`.
    fn char_width(&mut self, ch: char, s: &str) -> usize {
        let slot = &mut self.memo[ch as usize % 64];
        if slot.0 == u32::from(ch) {
            return usize::from(slot.1);
        }
        let w = Span::raw(s).width();
        if let Ok(narrow) = u8::try_from(w) {
            *slot = (u32::from(ch), narrow);
        }
        w
    }

    /// The symbol's character where the symbol is one character one cell
    /// wide (printable ASCII, box drawing, blocks, ...), else 0: two such
    /// symbols are the same when their codes are.
    #[inline]
    fn narrow(&mut self, s: &str) -> u32 {
        match s.as_bytes() {
            [b] if b.wrapping_sub(0x20) < 0x5f => u32::from(*b),
            _ => self.narrow_other(s),
        }
    }

    /// [`Widths::narrow`] for a symbol that is not one printable ASCII
    /// byte (not inlined: the loops over the cells stay small).
    #[inline(never)]
    fn narrow_other(&mut self, s: &str) -> u32 {
        let mut chars = s.chars();
        match (chars.next(), chars.next()) {
            (Some(ch), None) if self.char_width(ch, s) == 1 => u32::from(ch),
            _ => 0,
        }
    }
}

/// `a == b`, with the symbols compared inline: the derived comparison
/// calls `memcmp` for every cell, and most cells are one byte. (ratatui's
/// `underline-color` feature, which adds a field, is off; debug builds
/// check the answer against `==` on every cell the tests draw.)
fn same_cell(a_symbol: &str, a: &Cell, b: &Cell) -> bool {
    let (x, y) = (a_symbol.as_bytes(), b.symbol().as_bytes());
    let symbol = match (x, y) {
        ([p], [q]) => p == q,
        _ => x == y,
    };
    let same =
        symbol && a.fg == b.fg && a.bg == b.bg && a.modifier == b.modifier && a.skip == b.skip;
    debug_assert_eq!(same, a == b);
    same
}

impl Terminal {
    pub fn enter() -> std::io::Result<Self> {
        terminal::enable_raw_mode()?;
        ACTIVE.store(true, Ordering::SeqCst);
        let mut out = std::io::stdout();
        if let Err(e) = execute!(
            out,
            terminal::EnterAlternateScreen,
            cursor::Hide,
            EnableMouseCapture
        ) {
            restore();
            return Err(e);
        }
        match Frames::new(CrosstermBackend::new(out)) {
            Ok(tui) => Ok(Terminal { tui }),
            Err(e) => {
                restore();
                Err(e)
            }
        }
    }
}

impl Drop for Terminal {
    fn drop(&mut self) {
        restore();
    }
}

/// Leave the alternate screen, show the cursor, end raw mode (once; later
/// calls do nothing).
pub fn restore() {
    if ACTIVE.swap(false, Ordering::SeqCst) {
        let _ = execute!(
            std::io::stdout(),
            DisableMouseCapture,
            terminal::LeaveAlternateScreen,
            cursor::Show
        );
        let _ = terminal::disable_raw_mode();
    }
}

/// Restore the terminal before any panic message is printed (the message
/// would be lost on the alternate screen, and the shell left in raw mode).
pub fn install_panic_hook() {
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        restore();
        previous(info);
    }));
}

/// What the input thread reads.
pub enum Input {
    Key(Key),
    Mouse(Mouse),
    Resize,
    /// The terminal is gone (or cannot be read).
    Closed,
}

/// Wait for the next input that matters.
pub fn next_input() -> Input {
    loop {
        match event::read() {
            Ok(Event::Key(k)) if k.kind != KeyEventKind::Release => {
                if let Some(key) = map_key(k.code, k.modifiers) {
                    return Input::Key(key);
                }
            }
            Ok(Event::Mouse(m)) => {
                if let Some(m) = map_mouse(m.kind, m.column, m.row) {
                    return Input::Mouse(m);
                }
            }
            Ok(Event::Resize(_, _)) => return Input::Resize,
            Ok(_) => {}
            Err(_) => return Input::Closed,
        }
    }
}

/// What `top` does with the mouse: the left button's press, and the wheel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mouse {
    Click { x: u16, y: u16 },
    WheelUp,
    WheelDown,
}

fn map_mouse(kind: MouseEventKind, x: u16, y: u16) -> Option<Mouse> {
    Some(match kind {
        MouseEventKind::Down(MouseButton::Left) => Mouse::Click { x, y },
        MouseEventKind::ScrollUp => Mouse::WheelUp,
        MouseEventKind::ScrollDown => Mouse::WheelDown,
        _ => return None,
    })
}

fn map_key(code: KeyCode, mods: KeyModifiers) -> Option<Key> {
    Some(match code {
        KeyCode::Char('c') | KeyCode::Char('C') if mods.contains(KeyModifiers::CONTROL) => {
            Key::CtrlC
        }
        KeyCode::Char(c) => Key::Char(c),
        KeyCode::Up => Key::Up,
        KeyCode::Down => Key::Down,
        KeyCode::Left => Key::Left,
        KeyCode::Right => Key::Right,
        KeyCode::Enter => Key::Enter,
        KeyCode::Esc => Key::Esc,
        KeyCode::Backspace => Key::Backspace,
        KeyCode::F(n) => Key::F(n),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use ratatui::style::{Color, Modifier, Style};

    /// [`changed_cells`] of two buffers.
    fn changed<'a>(shown: &Buffer, next: &'a Buffer) -> Vec<(u16, u16, &'a Cell)> {
        changed_cells(
            shown,
            &narrow_codes(shown),
            next,
            &mut vec![0; next.content.len()],
        )
    }

    #[test]
    fn the_changed_cells_are_those_ratatui_writes() {
        let area = Rect::new(0, 0, 12, 3);
        let frames = [
            vec!["hello world", "GPU ▶ 0 ███▁", "plain"],
            vec!["hello World", "GPU ▶ 1 ██▁▁", "plain"],
            vec!["日本語 wide", "GPU ▶ 1 ██▁▁", "pla日n"],
            vec!["ascii again", "", "plain"],
            vec!["", "", ""],
        ];
        let buffers: Vec<Buffer> = frames
            .iter()
            .enumerate()
            .map(|(n, lines)| {
                let mut b = Buffer::empty(area);
                for (y, l) in lines.iter().enumerate() {
                    let st = if n % 2 == 0 {
                        Style::default()
                    } else {
                        Style::default().fg(Color::Red)
                    };
                    b.set_string(0, y as u16, l, if y == 1 { st } else { Style::default() });
                }
                b
            })
            .collect();
        let mut pairs = 0;
        for a in &buffers {
            for b in &buffers {
                let ours: Vec<_> = changed(a, b)
                    .into_iter()
                    .map(|(x, y, c)| (x, y, c.clone()))
                    .collect();
                let theirs: Vec<_> = a
                    .diff(b)
                    .into_iter()
                    .map(|(x, y, c)| (x, y, c.clone()))
                    .collect();
                assert_eq!(ours, theirs);
                pairs += usize::from(!ours.is_empty());
            }
        }
        assert!(pairs >= 15, "{pairs}");
    }

    /// Random cells: ASCII, wide, combining, zero-width, empty and control
    /// symbols in random styles, some marked skip.
    fn random_buffer(area: Rect, seed: &mut u64, like: Option<&Buffer>) -> Buffer {
        const SYMBOLS: [&str; 18] = [
            " ", "a", "b", "~", "日", "語", "█", "▁", "é", "a\u{301}", "", "🙂", "\u{200b}", "ab",
            "\x1b", "\t", "日本", "abc",
        ];
        let colours = [
            Color::Reset,
            Color::Red,
            Color::Rgb(1, 2, 3),
            Color::Indexed(5),
        ];
        let mut next = move || {
            *seed ^= *seed << 13;
            *seed ^= *seed >> 7;
            *seed ^= *seed << 17;
            (*seed >> 32) as usize
        };
        let mut b = like.cloned().unwrap_or_else(|| Buffer::empty(area));
        // A buffer like `like` differs from it in a few cells (as frames do).
        let changes = if like.is_some() {
            next() % 6
        } else {
            b.content.len()
        };
        for _ in 0..changes {
            let i = next() % b.content.len();
            let cell = &mut b.content[i];
            // Mostly ASCII, as on screen.
            let k = next() % 40;
            cell.set_symbol(SYMBOLS.get(k).copied().unwrap_or(["x", " ", "y"][k % 3]));
            let r = next();
            cell.fg = colours[r % 4];
            cell.bg = colours[(r >> 2) % 4];
            cell.modifier = Modifier::from_bits_truncate((r >> 4) as u16 % 4);
            cell.skip = r % 13 == 0;
        }
        b
    }

    #[test]
    fn the_changed_cells_of_random_buffers_are_those_ratatui_writes() {
        let mut seed = 0x2545_f491_4f6c_dd1d_u64;
        for area in [
            Rect::new(0, 0, 17, 5),
            Rect::new(3, 2, 1, 4),
            Rect::new(0, 0, 2, 9),
        ] {
            for _ in 0..300 {
                let a = random_buffer(area, &mut seed, None);
                let mut b = random_buffer(area, &mut seed, Some(&a));
                for _ in 0..4 {
                    let ours: Vec<_> = changed(&a, &b)
                        .into_iter()
                        .map(|(x, y, c)| (x, y, c.clone()))
                        .collect();
                    let theirs: Vec<_> = a
                        .diff(&b)
                        .into_iter()
                        .map(|(x, y, c)| (x, y, c.clone()))
                        .collect();
                    assert_eq!(ours, theirs, "{a:?} {b:?}");
                    b = random_buffer(area, &mut seed, Some(&b));
                }
            }
        }
    }

    #[test]
    fn frames_drawn_one_after_another_show_what_ratatui_shows() {
        let area = Rect::new(0, 0, 17, 5);
        let mut seed = 0x9e37_79b9_7f4a_7c15_u64;
        let mut ours = Frames::new(ratatui::backend::TestBackend::new(17, 5)).unwrap();
        let mut theirs = ratatui::backend::TestBackend::new(17, 5);
        let mut shown = Buffer::empty(area);
        let mut next = random_buffer(area, &mut seed, None);
        for _ in 0..300 {
            ours.draw(|_, b| b.clone_from(&next)).unwrap();
            theirs.draw(shown.diff(&next).into_iter()).unwrap();
            assert_eq!(ours.backend().buffer(), theirs.buffer());
            shown = next.clone();
            next = random_buffer(area, &mut seed, Some(&next));
        }
    }

    #[test]
    fn a_frame_writes_only_what_changed() {
        let mut f = Frames::new(ratatui::backend::TestBackend::new(10, 2)).unwrap();
        f.draw(|a, b| {
            b.set_string(a.x, a.y, "abc", Style::default());
        })
        .unwrap();
        f.draw(|a, b| {
            b.set_string(a.x, a.y, "abd", Style::default());
        })
        .unwrap();
        assert_eq!(crate::tui::buffer_text(f.backend().buffer()), "abd\n\n");
        let (same, next) = (f.shown.buf.clone(), f.shown.buf.clone());
        assert!(changed(&same, &next).is_empty());
    }

    #[test]
    fn ctrl_c_is_quit_not_a_letter() {
        assert_eq!(
            map_key(KeyCode::Char('c'), KeyModifiers::CONTROL),
            Some(Key::CtrlC)
        );
        assert_eq!(
            map_key(KeyCode::Char('c'), KeyModifiers::NONE),
            Some(Key::Char('c'))
        );
        assert_eq!(map_key(KeyCode::F(2), KeyModifiers::NONE), Some(Key::F(2)));
        assert_eq!(map_key(KeyCode::Home, KeyModifiers::NONE), None);
    }
}
