//! The terminal while `nvq top` runs: raw mode and the alternate screen
//! (crossterm), keys as [`Key`]s, and the way back. [`Terminal::enter`]
//! returns a guard whose drop restores the terminal; a panic restores it
//! before the panic's message is printed ([`install_panic_hook`]); the
//! runner ends the run on `q`, Ctrl+C, SIGTERM, SIGHUP and a terminal that
//! is gone, so the guard is dropped in every case but SIGKILL. Ctrl+Z and
//! SIGTSTP put the terminal back for the shell ([`Terminal::leave`]) before
//! the process stops, and SIGCONT takes it again ([`Terminal::take_again`]).

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
use ratatui::style::{Color, Modifier};
use ratatui::text::Span;
use std::io::{BufWriter, Stdout};
use std::sync::atomic::{AtomicBool, Ordering};

/// Raw mode and the alternate screen are on.
static ACTIVE: AtomicBool = AtomicBool::new(false);

/// The frames go through a buffer of their own: `Stdout` locks itself for
/// each piece of a frame crossterm writes (a cursor move, a colour, a
/// character), the buffer once, when the frame is flushed.
pub type Tui = Frames<CrosstermBackend<BufWriter<Stdout>>>;

/// The terminal in `top`'s state; dropping it puts it back.
pub struct Terminal {
    pub tui: Tui,
}

/// What is on the screen and the frame being drawn: each frame is drawn
/// whole into a buffer, and only the cells that differ from the screen are
/// written (as ratatui's `Terminal` does, with a cheaper comparison: see
/// [`changed_cells`]). The cursor stays hidden.
///
/// The screen is remembered as each cell's [`Look`] (16 bytes), not as a
/// second buffer of cells (40 bytes each): a frame is drawn every sample at
/// most, long after the last one, so what it reads comes from memory, not
/// the caches, and comparing against a record of a third of the size was
/// most of what made a frame cheaper (`benches/RESULTS.md`).
pub struct Frames<B: Backend> {
    backend: B,
    shown: Shown,
    next: Buffer,
    /// `next` holds the frame last drawn (not so before the first frame
    /// and after a resize).
    holds_last: bool,
}

/// A cell as it is on screen, but its symbol's text: the symbol's
/// [`Widths::narrow`] code (0 when it is not one character one cell wide;
/// its text is then in [`Shown::others`]) and the cell's style.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Look {
    code: u32,
    fg: Color,
    bg: Color,
    modifier: Modifier,
    skip: bool,
}

impl Look {
    fn of(code: u32, c: &Cell) -> Look {
        Look {
            code,
            fg: c.fg,
            bg: c.bg,
            modifier: c.modifier,
            skip: c.skip,
        }
    }
}

/// What is on screen: each cell's [`Look`], and the symbols that are not
/// one character one cell wide (wide, combining, empty), by cell index in
/// increasing order.
#[derive(Debug, PartialEq)]
struct Shown {
    area: Rect,
    looks: Vec<Look>,
    others: Vec<(usize, String)>,
}

impl Shown {
    /// What `buf` shows.
    fn of(buf: &Buffer) -> Shown {
        let mut widths = Widths::default();
        let mut others = Vec::new();
        let looks = buf
            .content
            .iter()
            .enumerate()
            .map(|(i, c)| {
                let code = widths.narrow(c.symbol());
                if code == 0 {
                    others.push((i, c.symbol().to_string()));
                }
                Look::of(code, c)
            })
            .collect();
        Shown {
            area: buf.area,
            looks,
            others,
        }
    }
}

impl<B: Backend> Frames<B> {
    /// Start from a cleared screen of the backend's size.
    pub fn new(mut backend: B) -> std::io::Result<Self> {
        let area = Rect::from((Position::ORIGIN, backend.size()?));
        backend.clear()?;
        let next = Buffer::empty(area);
        Ok(Frames {
            backend,
            shown: Shown::of(&next),
            next,
            holds_last: false,
        })
    }

    /// After a resize: clear the screen and draw the next frame whole at the
    /// new size (nothing when the size is the same).
    pub fn autoresize(&mut self) -> std::io::Result<()> {
        let area = Rect::from((Position::ORIGIN, self.backend.size()?));
        if area != self.shown.area {
            self.forget()?;
        }
        Ok(())
    }

    /// The screen holds something else (the shell's, after a stop): clear
    /// it and draw the next frame whole, at the terminal's size now.
    pub fn forget(&mut self) -> std::io::Result<()> {
        let area = Rect::from((Position::ORIGIN, self.backend.size()?));
        self.backend.clear()?;
        self.next = Buffer::empty(area);
        self.shown = Shown::of(&self.next);
        self.holds_last = false;
        Ok(())
    }

    /// Draw a frame with `render` and write what changed. (Not inlined, so
    /// that a profile shows what a frame costs: `benches/top_callgrind.sh`.)
    #[inline(never)]
    pub fn draw(&mut self, render: impl FnOnce(Rect, &mut Buffer)) -> std::io::Result<()> {
        let next = &mut self.next;
        next.reset();
        render(next.area, next);
        self.write(&[])
    }

    /// The buffer holds the frame last drawn, so [`Frames::draw_over`] may
    /// be used.
    pub fn holds_last_frame(&self) -> bool {
        self.holds_last
    }

    /// Draw a frame over the last one (see [`Frames::holds_last_frame`]):
    /// `render` draws what changed over what the buffer holds and returns
    /// the areas it left as they were, which are not compared again.
    #[inline(never)]
    pub fn draw_over(
        &mut self,
        render: impl FnOnce(Rect, &mut Buffer) -> Vec<Rect>,
    ) -> std::io::Result<()> {
        let next = &mut self.next;
        let kept = render(next.area, next);
        let kept = spans(next.area, &kept);
        self.write(&kept)
    }

    /// Write the cells that changed (`kept`: spans of cells known to be the
    /// same, as [`spans`] gives them).
    fn write(&mut self, kept: &[(usize, usize)]) -> std::io::Result<()> {
        self.holds_last = false;
        let updates = changed_cells(&mut self.shown, &self.next, kept);
        if !updates.is_empty() {
            self.backend.draw(updates.into_iter())?;
            Backend::flush(&mut self.backend)?;
        }
        self.holds_last = true;
        Ok(())
    }

    /// The size of the screen being drawn.
    pub fn area(&self) -> Rect {
        self.shown.area
    }

    pub fn backend(&self) -> &B {
        &self.backend
    }
}

/// The cells of `next` to write over what is `shown`, which then records
/// `next`: the same list as ratatui's `Buffer::diff` (a cell that differs,
/// and those after a wide character that changed; none hidden under a wide
/// character), at a fraction of its cost. A pair of cells whose symbols
/// are each one character one cell wide (almost all of a frame) is compared
/// by character and style: nothing after them is hidden, and what a wide
/// character before them invalidated runs one cell shorter. A symbol's
/// width is worked out once a frame for each character; `Buffer::diff`
/// works out three widths per cell, which was a third of drawing a frame.
///
/// The spans of cells in `kept` (from [`spans`]) are the same in `next` as
/// on screen: each is passed over without a look (when nothing before it is
/// pending) but for its last cell, compared as any other, so that what its
/// symbol hides after it is known.
fn changed_cells<'a>(
    shown: &mut Shown,
    next: &'a Buffer,
    kept: &[(usize, usize)],
) -> Vec<(u16, u16, &'a Cell)> {
    let mut widths = Widths::default();
    let mut updates = Vec::new();
    let (mut invalidated, mut to_skip) = (0usize, 0usize);
    let mut push = |i: usize, cell: &'a Cell| {
        let (x, y) = position(next.area, i);
        updates.push((x, y, cell));
    };
    let n = next.content.len().min(shown.looks.len());
    let (cells, looks) = (&next.content[..n], &mut shown.looks[..n]);
    let old_others = std::mem::take(&mut shown.others);
    let mut old_others = old_others.iter().peekable();
    let mut others = Vec::new();
    let mut kept = kept.iter().copied().peekable();
    let mut i = 0;
    while i < n {
        if (to_skip | invalidated) == 0 {
            while kept.next_if(|&(start, _)| start < i).is_some() {}
            if let Some((_, end)) = kept.next_if(|&(start, _)| start == i) {
                // Cells kept as they were, and the symbols kept aside, stay.
                // The last is compared as any other, hidden if the symbol
                // before it is wide (only those kept aside are not one cell
                // wide), so that what it hides after it is known; unless it
                // is one character one cell wide (not kept aside) and not
                // hidden: then it hides nothing, and is passed over too
                // (not read: each span's last cell is on a row of its own).
                let last = end.min(n).max(i + 1) - 1;
                while old_others.next_if(|(j, _)| *j < i).is_some() {}
                while let Some((j, text)) = old_others.next_if(|(j, _)| *j < last) {
                    if j + 1 == last {
                        to_skip = widths.width(text).saturating_sub(1);
                    }
                    others.push((*j, text.clone()));
                }
                let narrow = old_others.peek().map_or(true, |(j, _)| *j != last);
                i = if to_skip == 0 && narrow {
                    last + 1
                } else {
                    last
                };
                continue;
            }
            let limit = kept.peek().map_or(n, |&(start, _)| start.min(n));
            i = same_narrow_run(cells, looks, i, limit, &mut widths);
            if i >= n {
                break;
            }
            if i == limit {
                continue;
            }
        }
        let at = i;
        i += 1;
        let cur = &cells[at];
        let symbol = cur.symbol();
        let p = widths.narrow(symbol);
        let (look, prev) = (Look::of(p, cur), looks[at]);
        looks[at] = look;
        if p == 0 {
            others.push((at, symbol.to_string()));
        }
        if p != 0 && prev.code != 0 {
            // Both one cell wide: nothing after them to skip.
            let same = look == prev;
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
        // The symbol on screen: its character, or its text kept aside.
        while old_others.next_if(|(j, _)| *j < at).is_some() {}
        let mut one = [0u8; 4];
        let before: &str = match char::from_u32(prev.code) {
            Some(c) if prev.code != 0 => c.encode_utf8(&mut one),
            _ => match old_others.peek() {
                Some((j, text)) if *j == at => text,
                _ => "",
            },
        };
        let same = symbol == before && Look { code: 0, ..look } == Look { code: 0, ..prev };
        if !cur.skip && (!same || invalidated > 0) && to_skip == 0 {
            push(at, cur);
        }
        let wc = widths.width(symbol);
        to_skip = wc.saturating_sub(1);
        let wp = if same { wc } else { widths.width(before) };
        invalidated = wc.max(wp).max(invalidated).saturating_sub(1);
    }
    // Cells past the comparison (none while the sizes agree) keep nothing aside.
    shown.others = others;
    updates
}

/// From cell `from` on (to `limit` at most), the first cell whose symbol
/// is not one character one cell wide the same as the one on screen, in the
/// same style (or the end). A cell passed needs no writing, hides nothing
/// after it, and its record in `looks` is already right (nothing is written
/// to it). A loop of its own, with few values to keep (not inlined, its
/// values stay in registers): most of a frame is such cells.
#[inline(never)]
fn same_narrow_run(
    cells: &[Cell],
    looks: &[Look],
    from: usize,
    limit: usize,
    widths: &mut Widths,
) -> usize {
    let n = cells.len().min(looks.len()).min(limit);
    let (cells, looks) = (&cells[..n], &looks[..n]);
    let mut i = from;
    while i < n {
        let (cur, prev) = (&cells[i], &looks[i]);
        let p = widths.narrow(cur.symbol());
        if p == 0 || Look::of(p, cur) != *prev {
            break;
        }
        i += 1;
    }
    i
}

/// The cells of `kept` (areas of a buffer of `area`) as spans of cell
/// indices, `start..end`, sorted, apart and none empty. The rows are swept
/// top to bottom with the areas that cover each, by their left edge: the
/// spans come out in order (the curves' areas give some hundred spans a
/// frame, which sorting cost more than the rest of this).
fn spans(area: Rect, kept: &[Rect]) -> Vec<(usize, usize)> {
    let w = usize::from(area.width);
    let mut rects: Vec<Rect> = kept
        .iter()
        .map(|r| r.intersection(area))
        .filter(|r| !r.is_empty())
        .collect();
    rects.sort_unstable_by_key(|r| (r.y, r.x));
    let rows = rects.iter().map(|r| usize::from(r.height)).sum();
    let mut merged: Vec<(usize, usize)> = Vec::with_capacity(rows);
    // The areas covering the row, by left edge, and the next area to begin.
    let mut active: Vec<Rect> = Vec::with_capacity(rects.len());
    let mut next = rects.iter().peekable();
    let Some(mut y) = rects.first().map(|r| r.y) else {
        return merged;
    };
    while !active.is_empty() || next.peek().is_some() {
        if active.is_empty() {
            y = y.max(next.peek().map_or(y, |r| r.y));
        }
        while let Some(r) = next.next_if(|r| r.y <= y) {
            let at = active.partition_point(|a| a.x <= r.x);
            active.insert(at, *r);
        }
        let row = usize::from(y - area.y) * w;
        for r in &active {
            let start = row + usize::from(r.x - area.x);
            let end = start + usize::from(r.width);
            match merged.last_mut() {
                Some(last) if start <= last.1 => last.1 = last.1.max(end),
                _ => merged.push((start, end)),
            }
        }
        y = y.saturating_add(1);
        active.retain(|r| r.bottom() > y);
    }
    merged
}

/// Where the `i`th cell of a buffer of `area` is. Not inlined: a cell to
/// write is rare, and inlined, the division became two counters kept up to
/// date for every cell.
#[inline(never)]
fn position(area: Rect, i: usize) -> (u16, u16) {
    let w = usize::from(area.width).max(1);
    (area.x + (i % w) as u16, area.y + (i / w) as u16)
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

/// Raw mode, the alternate screen, no cursor, mouse reporting (restored
/// at once when one of them fails).
fn take() -> std::io::Result<()> {
    terminal::enable_raw_mode()?;
    ACTIVE.store(true, Ordering::SeqCst);
    execute!(
        std::io::stdout(),
        terminal::EnterAlternateScreen,
        cursor::Hide,
        EnableMouseCapture
    )
    .inspect_err(|_| restore())
}

impl Terminal {
    pub fn enter() -> std::io::Result<Self> {
        take()?;
        match Frames::new(CrosstermBackend::new(BufWriter::with_capacity(
            1 << 14,
            std::io::stdout(),
        ))) {
            Ok(tui) => Ok(Terminal { tui }),
            Err(e) => {
                restore();
                Err(e)
            }
        }
    }
}

impl Terminal {
    /// Put the terminal back as it was (before a stop): the shell's screen,
    /// its cursor, no mouse reporting, no raw mode.
    pub fn leave(&mut self) {
        restore();
    }

    /// Take the terminal again after [`Terminal::leave`] (the process was
    /// continued): the next frame is drawn whole.
    pub fn take_again(&mut self) -> std::io::Result<()> {
        if !ACTIVE.load(Ordering::SeqCst) {
            take()?;
        }
        self.tui.forget()
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
        KeyCode::Char('z') | KeyCode::Char('Z') if mods.contains(KeyModifiers::CONTROL) => {
            Key::CtrlZ
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
    use proptest::prelude::*;
    use ratatui::style::{Color, Modifier, Style};

    /// [`changed_cells`] of two buffers; checks that the record of the
    /// screen is then `next`'s.
    fn changed<'a>(shown: &Buffer, next: &'a Buffer) -> Vec<(u16, u16, &'a Cell)> {
        let mut record = Shown::of(shown);
        let out = changed_cells(&mut record, next, &[]);
        assert_eq!(record, Shown::of(next));
        out
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

    /// One random change to a cell: which cell, which symbol (`SYMBOLS`, or
    /// mostly ASCII past its end, as on screen) and which look (colours,
    /// modifiers, skip).
    type Change = (prop::sample::Index, usize, usize);

    fn change() -> impl Strategy<Value = Change> {
        (any::<prop::sample::Index>(), 0..40usize, any::<usize>())
    }

    /// `b` with `changes` made: ASCII, wide, combining, zero-width, empty and
    /// control symbols in random styles, some marked skip.
    fn changed_by(mut b: Buffer, changes: &[Change]) -> Buffer {
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
        for (at, k, r) in changes {
            let i = at.index(b.content.len());
            let cell = &mut b.content[i];
            cell.set_symbol(SYMBOLS.get(*k).copied().unwrap_or(["x", " ", "y"][k % 3]));
            cell.fg = colours[r % 4];
            cell.bg = colours[(r >> 2) % 4];
            cell.modifier = Modifier::from_bits_truncate((r >> 4) as u16 % 4);
            cell.skip = r % 13 == 0;
        }
        b
    }

    /// A buffer of `area` whose cells are drawn at random.
    fn random_buffer(area: Rect) -> impl Strategy<Value = Buffer> {
        prop::collection::vec(change(), usize::from(area.width) * usize::from(area.height))
            .prop_map(move |c| changed_by(Buffer::empty(area), &c))
    }

    /// A few changes, as a frame differs from the last.
    fn a_few_changes() -> impl Strategy<Value = Vec<Change>> {
        prop::collection::vec(change(), 0..6)
    }

    /// An area of the random tests: wide, one column, two columns.
    fn test_area() -> impl Strategy<Value = Rect> {
        prop::sample::select(vec![
            Rect::new(0, 0, 17, 5),
            Rect::new(3, 2, 1, 4),
            Rect::new(0, 0, 2, 9),
            Rect::new(2, 1, 9, 6),
        ])
    }

    /// The cells [`changed_cells`] writes from `a` to `b` over `kept`, and
    /// those ratatui's `Buffer::diff` writes, after checking that the record
    /// of the screen is then `b`'s.
    #[allow(clippy::type_complexity)]
    fn ours_and_theirs(
        a: &Buffer,
        b: &Buffer,
        kept: &[Rect],
    ) -> (Vec<(u16, u16, Cell)>, Vec<(u16, u16, Cell)>) {
        let mut record = Shown::of(a);
        let ours = changed_cells(&mut record, b, &spans(a.area, kept))
            .into_iter()
            .map(|(x, y, c)| (x, y, c.clone()))
            .collect();
        assert_eq!(record, Shown::of(b), "{a:?} {b:?} {kept:?}");
        let theirs = a
            .diff(b)
            .into_iter()
            .map(|(x, y, c)| (x, y, c.clone()))
            .collect();
        (ours, theirs)
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]

        /// A random buffer, then four frames each a few cells further from
        /// it: the cells written to go from the first to each are those
        /// ratatui writes.
        #[test]
        fn the_changed_cells_of_random_buffers_are_those_ratatui_writes(
            (a, steps) in test_area().prop_flat_map(|area| {
                (random_buffer(area), prop::collection::vec(a_few_changes(), 4))
            }),
        ) {
            let mut b = a.clone();
            for step in &steps {
                b = changed_by(b, step);
                let (ours, theirs) = ours_and_theirs(&a, &b, &[]);
                prop_assert_eq!(ours, theirs, "{:?} {:?}", a, b);
            }
        }
    }

    /// A frame and the next (much like it, or not at all), with areas of the
    /// next said to be kept (the same as on screen; some reach past the
    /// buffer's edges).
    fn frame_pair_with_kept() -> impl Strategy<Value = (Buffer, Buffer, Vec<Rect>)> {
        test_area().prop_flat_map(|area| {
            let (w, h) = (area.width, area.height);
            let kept = prop::collection::vec(
                (0..w + 2, 0..h + 2, 1..w + 2, 1..4u16).prop_map(move |(x, y, kw, kh)| {
                    Rect::new(area.x + x, area.y.saturating_sub(1) + y, kw, kh)
                }),
                0..4,
            );
            let next = prop_oneof![a_few_changes().prop_map(Some), Just(None),];
            (random_buffer(area), random_buffer(area), next, kept).prop_map(
                |(a, unlike, next, kept)| {
                    let b = match next {
                        Some(changes) => changed_by(a.clone(), &changes),
                        None => unlike,
                    };
                    (a, b, kept)
                },
            )
        })
    }

    /// Areas of the next frame said to be kept are passed over, and what is
    /// written is still what ratatui writes, whatever they hold: wide, empty
    /// and zero-width symbols at their ends too. (Not symbols of three cells
    /// or more, which no terminal has: after one, ratatui writes again cells
    /// that are the same.)
    #[test]
    fn kept_areas_are_passed_over_and_the_same_cells_written() {
        let kept_cells = std::cell::Cell::new(0);
        let mut runner = proptest::test_runner::TestRunner::new(ProptestConfig::with_cases(1200));
        runner
            .run(&frame_pair_with_kept(), |(mut a, mut b, kept)| {
                let mut widths = Widths::default();
                for r in &kept {
                    let inside = r.intersection(a.area);
                    // (`positions` gives one of an empty area.)
                    for pos in inside.positions().filter(|_| !inside.is_empty()) {
                        if widths.width(a[pos].symbol()) > 2 {
                            a[pos].set_symbol("x");
                        }
                        b[pos] = a[pos].clone();
                        kept_cells.set(kept_cells.get() + 1);
                    }
                }
                let (ours, theirs) = ours_and_theirs(&a, &b, &kept);
                prop_assert_eq!(ours, theirs, "{:?} {:?} {:?}", a, b, kept);
                Ok(())
            })
            .unwrap();
        // The cases kept cells, so the test covers that path.
        assert!(kept_cells.get() > 5000, "{}", kept_cells.get());
    }

    #[test]
    fn areas_become_sorted_spans_apart() {
        let area = Rect::new(2, 1, 10, 4);
        let kept = [
            Rect::new(6, 2, 3, 2),
            Rect::new(2, 1, 10, 1),
            Rect::new(0, 0, 3, 1),
            Rect::new(11, 1, 5, 1),
            Rect::new(4, 3, 3, 1),
            Rect::new(5, 5, 3, 1),
        ];
        // Row 0 whole (and a cell of it again); rows 1 and 2 from x 6 for 3 cells; row 2 from x 4 too,
        // joined to it; nothing of the areas above and below.
        assert_eq!(spans(area, &kept), vec![(0, 10), (14, 17), (22, 27)]);
        assert!(spans(area, &[]).is_empty());
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        /// The spans of random areas are those of each area's rows, sorted by
        /// start and joined where they touch or overlap.
        #[test]
        fn random_areas_become_the_spans_of_their_rows(
            area in (0..3u16, 0..3u16, 1..13u16, 1..9u16)
                .prop_map(|(x, y, w, h)| Rect::new(x, y, w, h)),
            kept in prop::collection::vec(
                (0..16u16, 0..12u16, 0..8u16, 0..6u16)
                    .prop_map(|(x, y, w, h)| Rect::new(x, y, w, h)),
                0..8,
            ),
        ) {
            let w = usize::from(area.width);
            let mut rows: Vec<(usize, usize)> = Vec::new();
            for r in kept
                .iter()
                .map(|r| r.intersection(area))
                .filter(|r| !r.is_empty())
            {
                for y in r.top()..r.bottom() {
                    let start = usize::from(y - area.y) * w + usize::from(r.x - area.x);
                    rows.push((start, start + usize::from(r.width)));
                }
            }
            rows.sort();
            let mut want: Vec<(usize, usize)> = Vec::new();
            for (start, end) in rows {
                match want.last_mut() {
                    Some(last) if start <= last.1 => last.1 = last.1.max(end),
                    _ => want.push((start, end)),
                }
            }
            prop_assert_eq!(spans(area, &kept), want, "{:?} {:?}", area, kept);
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(16))]

        /// Frames drawn one after another, each a few cells from the last,
        /// leave on screen what ratatui's own drawing leaves.
        #[test]
        fn frames_drawn_one_after_another_show_what_ratatui_shows(
            first in random_buffer(Rect::new(0, 0, 17, 5)),
            steps in prop::collection::vec(a_few_changes(), 1..300),
        ) {
            let mut ours = Frames::new(ratatui::backend::TestBackend::new(17, 5)).unwrap();
            let mut theirs = ratatui::backend::TestBackend::new(17, 5);
            let mut shown = Buffer::empty(first.area);
            let mut next = first;
            for step in &steps {
                ours.draw(|_, b| b.clone_from(&next)).unwrap();
                theirs.draw(shown.diff(&next).into_iter()).unwrap();
                prop_assert_eq!(ours.backend().buffer(), theirs.buffer());
                shown = next.clone();
                next = changed_by(next, step);
            }
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
        let (same, next) = (f.next.clone(), f.next.clone());
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
        assert_eq!(
            map_key(KeyCode::Char('z'), KeyModifiers::CONTROL),
            Some(Key::CtrlZ)
        );
        assert_eq!(map_key(KeyCode::F(2), KeyModifiers::NONE), Some(Key::F(2)));
        assert_eq!(map_key(KeyCode::Home, KeyModifiers::NONE), None);
    }
}
