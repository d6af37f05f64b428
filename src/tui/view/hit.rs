//! What a click is on: a GPU's line or a process column's header.

use super::layout::{first_gpu_line, regions, GpuLine};
use super::screen::Screen;
use super::table::{column_geometry, shown_processes, table_columns};
use ratatui::layout::Rect;

/// What a click at (`x`, `y`) of a frame of `area` is on: a GPU's (or its
/// MIG device's) line, by the GPU's position, or a process column's header,
/// by its index in `COLUMNS`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Hit {
    Gpu(usize),
    Column(usize),
}

pub fn hit(s: &Screen<'_>, area: Rect, x: u16, y: u16) -> Option<Hit> {
    let r = regions(s, area);
    let at = |a: Rect| a.contains(ratatui::layout::Position { x, y });
    if at(r.gpus) {
        let first = first_gpu_line(s, &r.lines, r.gpus.height);
        return match r.lines.get(first + usize::from(y - r.gpus.y))? {
            GpuLine::Gpu(i) | GpuLine::Mig(i, _) => Some(Hit::Gpu(*i)),
            GpuLine::Host(_) => None,
        };
    }
    if at(r.procs) && y == r.procs.y {
        let rows = shown_processes(s);
        let cols = table_columns(&rows, r.wide);
        let geometry = column_geometry(&cols, r.procs.width);
        let dx = x - r.procs.x;
        return cols
            .iter()
            .zip(&geometry)
            .find(|(_, &(cx, w))| dx >= cx && dx < cx + w)
            .map(|((i, _), _)| Hit::Column(*i));
    }
    None
}
