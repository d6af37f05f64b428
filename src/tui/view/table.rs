//! The process table: the processes shown (filtered, sorted), its columns
//! and their geometry (ratatui's `Table` layout), and its cells, drawn
//! whole or, over the last frame, only where they differ.

use super::layout::{split, stack};
use super::paint::{clear, glyphs, keep_or_clear, put_glyph};
use super::screen::{bold, style, Screen};
use crate::tui::columns::{ProcCol, ProcColumn, ProcRow, SortKey, COLUMNS};
use nvq_core::model::top::ProcSnap;
use nvq_core::render::printable;
use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Flex, Layout, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Widget};
use std::sync::Arc;

/// The processes the table shows, filtered and sorted.
pub fn shown_processes<'a>(s: &Screen<'a>) -> Vec<ProcRow<'a>> {
    let ui = s.ui;
    let only = ui
        .only_selected
        .then(|| s.sample.gpus.get(ui.selected).map(|g| (&*g.host, g.index)))
        .flatten();
    let needle = ui.filter.to_lowercase();
    let col = ui.sort_column();
    // Each row's key worked out once, not once per comparison.
    let mut keyed: Vec<(SortKey<'a>, ProcRow<'a>)> = Vec::with_capacity(s.sample.procs.len());
    keyed.extend(
        s.sample
            .procs
            .iter()
            .filter(|p| only.map_or(true, |(h, g)| p.gpu == g && *p.host == *h))
            .filter(|p| needle.is_empty() || matches_filter(p, &needle))
            .map(|p| {
                let row = ProcRow {
                    p,
                    leak: s.leaks.get(&(Arc::clone(&p.host), p.gpu, p.pid)).copied(),
                };
                ((col.key)(&row), row)
            }),
    );
    keyed.sort_by(|(ka, a), (kb, b)| {
        let o = ka.order(kb);
        let o = if ui.descending { o.reverse() } else { o };
        o.then(a.p.host.cmp(&b.p.host))
            .then(a.p.gpu.cmp(&b.p.gpu))
            .then(a.p.pid.cmp(&b.p.pid))
    });
    keyed.into_iter().map(|(_, row)| row).collect()
}

fn matches_filter(p: &ProcSnap, needle: &str) -> bool {
    p.command.to_lowercase().contains(needle)
        || p.user
            .as_deref()
            .is_some_and(|u| u.to_lowercase().contains(needle))
        || p.container.as_deref().is_some_and(|c| c.contains(needle))
        || p.pid.to_string().contains(needle)
        || p.kind.to_lowercase() == needle
}

pub(crate) fn process_table(s: &Screen<'_>, area: Rect, buf: &mut Buffer, wide: bool) {
    table(s, None, area, buf, wide);
}

/// [`process_table`]; with `old`, the screen whose table `buf` shows (in
/// `area`, with the same keys pressed), the rows that would be drawn the
/// same are kept (returned) and only the others cleared and drawn.
pub(super) fn table(
    s: &Screen<'_>,
    old: Option<&Screen<'_>>,
    area: Rect,
    buf: &mut Buffer,
    wide: bool,
) -> Vec<Rect> {
    let rows = shown_processes(s);
    let cols = table_columns(&rows, wide);
    let geometry = column_geometry(&cols, area.width);
    if area.is_empty() {
        return Vec::new();
    }
    let room = usize::from(area.height - 1);
    // The wheel's scroll, kept to what leaves the table's room filled.
    let skip = s.ui.scroll.min(rows.len().saturating_sub(room));
    // The rows the buffer shows, where it shows the same columns.
    let shown = old.map(shown_processes).filter(|o| {
        let o_cols = table_columns(o, wide);
        let same_cols = o_cols
            .iter()
            .map(|(i, _)| i)
            .eq(cols.iter().map(|(i, _)| i));
        same_cols
            && !o.is_empty()
            && !rows.is_empty()
            && s.ui.scroll.min(o.len().saturating_sub(room)) == skip
    });
    let Some(shown) = shown else {
        clear(buf, area);
        draw_table(s, &rows, &cols, &geometry, area, buf, |_, _| false);
        return Vec::new();
    };
    let mut kept = vec![Rect { height: 1, ..area }];
    // Each row's cells drawn again: a bit per column (all of them for a
    // row that comes or goes; none for a row that shows the same).
    let mut redo = vec![0u64; room];
    let (mut new, mut was) = (String::new(), String::new());
    for (n, bits) in redo.iter_mut().enumerate() {
        let y = area.y + 1 + n as u16;
        let pair = (rows.get(skip + n), shown.get(skip + n));
        let (a, b) = match pair {
            (Some(a), Some(b)) if a.p != b.p || a.leak != b.leak => (a, b),
            _ => {
                // The same row, or a row that comes or goes: kept or drawn whole.
                let same = matches!(pair, (Some(_), Some(_)) | (None, None));
                *bits = if same { 0 } else { u64::MAX };
                keep_or_clear(buf, area, y, same, &mut kept);
                continue;
            }
        };
        // Another process, or other values: only the cells whose text or
        // style differ are drawn again (the gaps between them are blank).
        let mut start = area.x;
        for (k, ((_, c), &(x, w))) in cols.iter().zip(&geometry).enumerate() {
            new.clear();
            (c.text)(a, &mut new);
            was.clear();
            (c.text)(b, &mut was);
            if new == was && cell_red(a, c) == cell_red(b, c) {
                continue;
            }
            *bits |= 1 << k.min(63);
            let cell = Rect::new(area.x + x, y, w, 1).intersection(area);
            if cell.x > start {
                kept.push(Rect::new(start, y, cell.x - start, 1));
            }
            clear(buf, cell);
            start = start.max(cell.right());
        }
        if area.right() > start {
            kept.push(Rect::new(start, y, area.right() - start, 1));
        }
    }
    draw_table(s, &rows, &cols, &geometry, area, buf, |n, k| {
        n == usize::MAX || redo.get(n).is_some_and(|b| b & (1 << k.min(63)) == 0)
    });
    kept
}

/// Whether a process's cell of column `c` is shown in red: its memory and
/// its rate of a process whose memory rises.
fn cell_red(r: &ProcRow<'_>, c: &ProcColumn) -> bool {
    r.leak.is_some() && matches!(c.id, ProcCol::Trend | ProcCol::GpuMem)
}

/// The table's header (unless `keep(usize::MAX, _)`) and rows (but the
/// cell of the `n`th shown in its `k`th column where `keep(n, k)`), over
/// cleared cells.
fn draw_table(
    s: &Screen<'_>,
    rows: &[ProcRow<'_>],
    cols: &[(usize, &ProcColumn)],
    geometry: &[(u16, u16)],
    area: Rect,
    buf: &mut Buffer,
    keep: impl Fn(usize, usize) -> bool,
) {
    // The header's line, then a line per process while there is room:
    // what ratatui's `Table` draws (its column layout, each cell a line
    // aligned in its column), written straight into the buffer.
    let sort = s.ui.sort;
    let header = if keep(usize::MAX, 0) { &[][..] } else { cols };
    for ((i, c), &(x, w)) in header.iter().zip(geometry) {
        let st = if *i == sort {
            bold().add_modifier(Modifier::REVERSED)
        } else {
            bold()
        };
        cell_at(
            buf,
            Rect::new(area.x + x, area.y, w, 1),
            c.head,
            st,
            c.right,
        );
    }
    if rows.is_empty() {
        let why = if s.sample.procs.is_empty() {
            "no processes on these GPUs"
        } else {
            "no process matches (Esc shows all)"
        };
        let r = Rect {
            y: area.y + 1,
            height: area.height - 1,
            ..area
        };
        Paragraph::new(why).render(r, buf);
        return;
    }
    let red = style(s, Color::Red).add_modifier(Modifier::BOLD);
    let room = usize::from(area.height - 1);
    // The wheel's scroll, kept to what leaves the table's room filled.
    let skip = s.ui.scroll.min(rows.len().saturating_sub(room));
    // Each cell's text, written again for each cell.
    let mut text = String::new();
    for (n, r) in rows.iter().skip(skip).take(room).enumerate() {
        let y = area.y + 1 + n as u16;
        for (k, ((_, c), &(x, w))) in cols.iter().zip(geometry).enumerate() {
            if keep(n, k) {
                continue;
            }
            text.clear();
            (c.text)(r, &mut text);
            let st = if cell_red(r, c) {
                red
            } else {
                Style::default()
            };
            cell_at(
                buf,
                Rect::new(area.x + x, y, w, 1),
                &printable(&text),
                st,
                c.right,
            );
        }
    }
}

/// The columns the table shows: all of them when wide, else the compact
/// ones (the leak column only while a process leaks).
pub(crate) fn table_columns<'c>(rows: &[ProcRow<'_>], wide: bool) -> Vec<(usize, &'c ProcColumn)> {
    let any_leak = rows.iter().any(|r| r.leak.is_some());
    let any_host = rows.iter().any(|r| !r.p.host.is_empty());
    let mut out = Vec::with_capacity(COLUMNS.len());
    out.extend(
        COLUMNS
            .iter()
            .enumerate()
            .filter(|(_, c)| c.id != ProcCol::Host || any_host)
            .filter(|(_, c)| wide || (c.compact && (c.id != ProcCol::Trend || any_leak))),
    );
    out
}

/// Each column's x (from the table's left edge) and width: ratatui's
/// `Table` layout (its constraints, one space between columns).
pub(super) fn column_geometry(cols: &[(usize, &ProcColumn)], width: u16) -> Vec<(u16, u16)> {
    // The command, the one column of no set width, is the last: the others
    // keep their widths and it has what is left, if they fit.
    if let Some(((_, last), heads)) = cols.split_last() {
        let lengths: Vec<u16> = heads.iter().map(|(_, c)| c.width).collect();
        if last.width == 0 && !lengths.contains(&0) {
            if let Some(parts) = stack(0, width, &lengths, 1, 0) {
                return parts.collect();
            }
        }
    }
    let table = Layout::horizontal(widths(cols))
        .flex(Flex::Start)
        .spacing(1);
    split(table, Rect::new(0, 0, width, 1))
        .iter()
        .map(|r| (r.x, r.width))
        .collect()
}

/// One table cell: `text` left or right in `area`, as a ratatui `Line` of
/// one span draws it (a line too wide for a right-aligned cell loses its
/// start). Plain ASCII, the usual case, is written byte by byte, with no
/// grapheme segmentation or width lookup.
fn cell_at(buf: &mut Buffer, area: Rect, text: &str, st: Style, right: bool) {
    let area = area.intersection(buf.area);
    if area.is_empty() || text.is_empty() {
        return;
    }
    let ascii = text.bytes().all(|b| (0x20..0x7f).contains(&b));
    if !ascii || text.len() > usize::from(area.width) {
        let line = Line::from(Span::styled(text, st));
        return if right { line.right_aligned() } else { line }.render(area, buf);
    }
    let pad = if right {
        area.width - text.len() as u16
    } else {
        0
    };
    let glyphs = glyphs();
    for (i, b) in text.bytes().enumerate() {
        let (Some(c), Some(glyph)) = (
            buf.cell_mut((area.x + pad + i as u16, area.y)),
            glyphs.ascii(char::from(b)),
        ) else {
            continue;
        };
        put_glyph(c, glyph, st);
    }
}

pub(crate) fn widths(cols: &[(usize, &ProcColumn)]) -> Vec<Constraint> {
    cols.iter()
        .map(|(_, c)| {
            if c.width == 0 {
                Constraint::Fill(1)
            } else {
                Constraint::Length(c.width)
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tui::columns::Leak;
    use std::sync::Arc;

    #[test]
    fn the_table_columns_are_where_ratatuis_solver_puts_them() {
        let row = [ProcRow {
            p: &ProcSnap {
                host: Arc::default(),
                gpu: 0,
                gpu_uuid: Arc::default(),
                pid: 1,
                start: 0,
                kind: "C",
                user: None,
                gpu_mem: None,
                sm: None,
                enc: None,
                dec: None,
                cpu_pct: None,
                host_mem: None,
                container: None,
                command: Arc::default(),
            },
            leak: Some(Leak {
                rate: 1.0,
                gpu_full_s: None,
            }),
        }];
        let sets = [
            table_columns(&[], false),
            table_columns(&row, false),
            table_columns(&row, true),
        ];
        for cols in &sets {
            for w in (0..=160).chain([200, 255, 400, 1000, u16::MAX]) {
                let table = Layout::horizontal(widths(cols))
                    .flex(Flex::Start)
                    .spacing(1);
                let theirs: Vec<(u16, u16)> = table
                    .split(Rect::new(0, 0, w, 1))
                    .iter()
                    .map(|r| (r.x, r.width))
                    .collect();
                assert_eq!(column_geometry(cols, w), theirs, "{w} {}", cols.len());
            }
        }
    }
}
