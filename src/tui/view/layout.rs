//! Where the screen's parts go: the header, the GPU block (its lines, and
//! which of them show), the detail line, the curves and the process table,
//! cut without ratatui's solver where the parts fit and with it (its
//! solutions kept for the whole process) where they do not.

use super::screen::Screen;
use crate::tui::columns::WIDE_FROM;
use nvq_core::model::top::GpuSnap;
use ratatui::layout::{Constraint, Layout, Rect};
use std::sync::{Mutex, PoisonError};

/// The height from which the wide layout is used.
const WIDE_HEIGHT: u16 = 32;

/// Where the screen's parts are, for a frame of `area`.
#[derive(Debug, PartialEq)]
pub(crate) struct Regions {
    pub head: Rect,
    pub gpus: Rect,
    pub detail: Rect,
    pub curves: Rect,
    pub procs: Rect,
    pub wide: bool,
    /// The GPU block's lines, all of them (it shows those that fit).
    pub(super) lines: Vec<GpuLine>,
}

/// `layout` split over `area`, as ratatui solves it, remembered for the
/// whole process: ratatui keeps its solutions per thread, and `nvq top`
/// draws on whichever lane read the sample, so each new lane thread would
/// solve every layout again (about two million instructions each).
pub(super) fn split(layout: Layout, area: Rect) -> Vec<Rect> {
    /// The layouts of a few sizes and column sets (the oldest goes first).
    const KEEP: usize = 32;
    type Solved = Vec<((Layout, Rect), Vec<Rect>)>;
    static SOLVED: Mutex<Solved> = Mutex::new(Vec::new());
    let mut solved = SOLVED.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some((_, rects)) = solved.iter().find(|((l, a), _)| *a == area && *l == layout) {
        return rects.clone();
    }
    let rects = layout.split(area).to_vec();
    if solved.len() >= KEEP {
        solved.remove(0);
    }
    solved.push(((layout, area), rects.clone()));
    rects
}

/// [`split`] into `N` parts (an empty one for a part the layout lacks).
pub(super) fn areas<const N: usize>(layout: Layout, area: Rect) -> [Rect; N] {
    let rects = split(layout, area);
    std::array::from_fn(|i| rects.get(i).copied().unwrap_or_default())
}

/// The parts of a line of `total` cells from `start`: `lengths` one after
/// the other, `gap` cells apart, then a last part of what is left, at least
/// `min_last` (each as its start and length). When they fit, that is what
/// ratatui's solver gives for `Length`s then `Min(min_last)` (the default
/// flex) and for `Length`s then `Fill` (`Flex::Start`, `min_last` 0): the
/// tests compare the two. `None` when they do not fit: the solver decides.
/// Solving costs about a million instructions, and the screen's parts
/// change with the number of GPUs and processes.
pub(super) fn stack(
    start: u16,
    total: u16,
    lengths: &[u16],
    gap: u16,
    min_last: u16,
) -> Option<impl Iterator<Item = (u16, u16)> + '_> {
    let used = lengths
        .iter()
        .try_fold(0u16, |sum, &l| sum.checked_add(l)?.checked_add(gap))?;
    let last = total.checked_sub(used).filter(|&l| l >= min_last)?;
    let mut at = start;
    Some(lengths.iter().copied().chain([last]).map(move |l| {
        let part = (at, l);
        at = at.saturating_add(l).saturating_add(gap);
        part
    }))
}

/// `area` cut along one axis by [`stack`]: parts of the first lengths, then
/// one of what is left (at least the last length); by `layout` where that
/// is `None`.
pub(super) fn split_lengths<const N: usize>(
    area: Rect,
    vertical: bool,
    lengths: [u16; N],
    layout: impl FnOnce() -> Layout,
) -> [Rect; N] {
    let (start, total) = if vertical {
        (area.y, area.height)
    } else {
        (area.x, area.width)
    };
    let mut out = [area; N];
    let Some((last, heads)) = lengths.split_last() else {
        return out;
    };
    let Some(parts) = stack(start, total, heads, 0, *last) else {
        return areas(layout(), area);
    };
    for (slot, (at, len)) in out.iter_mut().zip(parts) {
        *slot = if vertical {
            Rect {
                y: at,
                height: len,
                ..area
            }
        } else {
            Rect {
                x: at,
                width: len,
                ..area
            }
        };
    }
    out
}

/// The parts of the screen, as [`render`](super::render) draws them.
pub(crate) fn regions(s: &Screen<'_>, area: Rect) -> Regions {
    let wide = area.width >= WIDE_FROM && area.height >= WIDE_HEIGHT;
    let gpu_lines = gpu_lines(s, wide);
    // Keep at least a few process rows: the GPU list scrolls first.
    let min_procs: u16 = if wide { 8 } else { 4 };
    // The wide layout gives the curves what the GPUs and processes do not
    // need (the process rows kept counted, so that the curves never take
    // the GPU lines' room).
    let curve_h: u16 = if wide {
        let procs = s.sample.procs.len().max(usize::from(min_procs));
        let used = 3 + gpu_lines.len() + procs + 1;
        (usize::from(area.height).saturating_sub(used) as u16).clamp(10, 24)
    } else {
        4
    };
    let fixed = 1 + 1 + curve_h + 1 + min_procs;
    let gpu_h = (gpu_lines.len() as u16).min(area.height.saturating_sub(fixed).max(1));
    let [head, gpus, detail, curves, procs] =
        split_lengths(area, true, [1, gpu_h, 1, curve_h, 1], || {
            screen_layout(gpu_h, curve_h)
        });
    Regions {
        head,
        gpus,
        detail,
        curves,
        procs,
        wide,
        lines: gpu_lines,
    }
}

/// The screen's rows: the header, the GPUs, the detail line, the curves
/// and the processes.
fn screen_layout(gpu_h: u16, curve_h: u16) -> Layout {
    Layout::vertical([
        Constraint::Length(1),
        Constraint::Length(gpu_h),
        Constraint::Length(1),
        Constraint::Length(curve_h),
        Constraint::Min(1),
    ])
}

/// How many process rows the table has room for in a frame of `area`.
pub fn process_rows(s: &Screen<'_>, area: Rect) -> usize {
    usize::from(regions(s, area).procs.height.saturating_sub(1))
}

/// The first line the GPU block shows: the selected GPU's line is visible.
pub(super) fn first_gpu_line(s: &Screen<'_>, lines: &[GpuLine], height: u16) -> usize {
    let h = usize::from(height);
    let sel = lines
        .iter()
        .position(|l| matches!(l, GpuLine::Gpu(i) if *i == s.ui.selected))
        .unwrap_or(0);
    sel.saturating_sub(h.saturating_sub(1))
}

/// One line of the GPU block: a GPU (by its position), one of its MIG
/// devices, or (with `--hosts`) a node's header, by its position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum GpuLine {
    Gpu(usize),
    Mig(usize, usize),
    Host(usize),
}

/// The GPU block's lines; with `--hosts`, each node's header line then its
/// GPUs (they come in the nodes' order).
fn gpu_lines(s: &Screen<'_>, _wide: bool) -> Vec<GpuLine> {
    let migs: usize = s.sample.gpus.iter().map(|g| g.mig.len()).sum();
    let hosts = &s.sample.hosts;
    let mut out = Vec::with_capacity(s.sample.gpus.len() + migs + hosts.len());
    let mut gpus = s.sample.gpus.iter().enumerate().peekable();
    let push_gpu = |out: &mut Vec<GpuLine>, i: usize, g: &GpuSnap| {
        out.push(GpuLine::Gpu(i));
        out.extend((0..g.mig.len()).map(|m| GpuLine::Mig(i, m)));
    };
    for (h, host) in hosts.iter().enumerate() {
        out.push(GpuLine::Host(h));
        while let Some((i, g)) = gpus.next_if(|(_, g)| g.host == host.name) {
            push_gpu(&mut out, i, g);
        }
    }
    for (i, g) in gpus {
        push_gpu(&mut out, i, g);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tui::view::curves::{curve_areas, label_split};

    #[test]
    fn the_screens_parts_are_where_ratatuis_solver_puts_them() {
        for h in 0..=70 {
            let area = Rect::new(3, 2, 50, h);
            for g in [0, 1, 2, 5, 9, 20] {
                for c in [4, 10, 18, 24] {
                    let ours = split_lengths(area, true, [1, g, 1, c, 1], || screen_layout(g, c));
                    let theirs = screen_layout(g, c).split(area);
                    assert_eq!(ours.to_vec(), theirs.to_vec(), "{h} {g} {c}");
                }
            }
        }
        for w in 0..=90 {
            for a in [Rect::new(0, 5, w, 2), Rect::new(7, 0, w, 1)] {
                let theirs =
                    Layout::horizontal([Constraint::Length(5), Constraint::Min(1)]).split(a);
                assert_eq!(label_split(a).to_vec(), theirs.to_vec(), "{a:?}");
                for h in [0, 1, 10, 17, 24] {
                    let a = Rect { height: h, ..a };
                    let halves = [Constraint::Percentage(50), Constraint::Percentage(50)];
                    let theirs = Layout::horizontal(halves).split(a);
                    let (l, r) = curve_areas(a, true);
                    assert_eq!(vec![l, r], theirs.to_vec(), "{a:?}");
                }
            }
        }
    }
}
