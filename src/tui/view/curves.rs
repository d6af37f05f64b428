//! The selected GPU's memory and utilization curves: a curve's columns are
//! fixed spans of time on one [`Grid`], each the highest point of its span;
//! a frame over the last draws only a curve's last column when no new
//! column began.

use super::layout::{areas, regions, split_lengths};
use super::paint::{bordered, clear, eighth_block, inside, title_again};
use super::screen::{style, Screen, MEM_FIELD, UTIL_FIELD};
use super::text::Unit;
use crate::tui::columns::{Bytes, Duration, Or};
use nvq_core::model::history::{Series, SeriesRef};
use nvq_core::model::top::TopSample;
use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Style};
use ratatui::widgets::{Paragraph, Widget};

/// The selected GPU's memory and utilization over the zoom's time span.
/// With `old`, the sample whose curves `buf` shows (in `area`, with the same
/// keys pressed): a curve whose columns are the same but its last (see
/// [`last_column_only`]) gets only its title and last column drawn again,
/// and what it keeps is returned; any other is cleared and drawn whole.
pub(super) fn curve_block(
    s: &Screen<'_>,
    old: Option<&TopSample>,
    area: Rect,
    buf: &mut Buffer,
    wide: bool,
) -> Vec<Rect> {
    // Two curves, each keeping at most five areas.
    let mut kept = Vec::with_capacity(10);
    let Some(g) = s.sample.gpus.get(s.ui.selected) else {
        return kept;
    };
    let id = g.series_id();
    let key = SeriesRef::Gpu { uuid: &id };
    let span = s.ui.zoom_s() as f64;
    let total = g.mem_total.map(|t| t as f64);
    let last = |field| s.history.series(key, field).and_then(|x| x.last());
    let mem_title = format!(
        "memory {} of {}, last {}",
        Or(last(MEM_FIELD).map(|p| Bytes(p.v))),
        Or(total.map(Bytes)),
        Duration(span)
    );
    let util_title = format!(
        "utilization {}, last {}",
        Unit(last(UTIL_FIELD).map(|p| p.v), "%"),
        Duration(span)
    );
    // The old sample's GPU, when it is this one with the same total.
    let same_gpu = old
        .and_then(|o| o.gpus.get(s.ui.selected))
        .is_some_and(|o| o.uuid == g.uuid && o.mem_total == g.mem_total);
    let (mem_area, util_area) = curve_areas(area, wide);
    let pairs = [
        (mem_area, MEM_FIELD, mem_title, total, Color::Cyan, "mem "),
        (
            util_area,
            UTIL_FIELD,
            util_title,
            Some(100.0),
            Color::Magenta,
            "util",
        ),
    ];
    for (a, field, title, max, colour, short) in pairs {
        let inner = curve_inner(a, wide);
        let grid = Grid::new(span, inner.width, s.sample.t);
        let series = s.history.series(key, field);
        // The old frame's time, when only its last column may differ.
        let then = old.map(|o| o.t);
        let only_last = match then {
            Some(then) if same_gpu && inner.width > 0 => last_column_only(series, then, &grid),
            _ => false,
        };
        // The columns drawn: all, or the last.
        let from = if only_last { inner.width - 1 } else { 0 };
        let title_rows = u16::from(wide);
        // The last column's rows drawn again (from the bottom): all, or
        // those between its old and its new height.
        let mut redo = 0..usize::from(inner.height);
        if only_last {
            let x = inner.x + from;
            let below = a.y + title_rows;
            let rows = a.height.saturating_sub(title_rows);
            if let Some(then) = then {
                redo = column_rows_changed(series, then, max, &grid, inner.height);
            }
            // The rows of the column from `lo` up to `hi` (from the bottom) change.
            let (lo, hi) = (redo.start as u16, redo.end as u16);
            kept.extend([
                Rect::new(a.x, below, x.saturating_sub(a.x), rows),
                Rect::new(x + 1, below, a.right().saturating_sub(x + 1), rows),
                Rect::new(x, below, 1, (inner.bottom() - hi).saturating_sub(below)),
                Rect::new(
                    x,
                    inner.bottom() - lo,
                    1,
                    a.bottom().saturating_sub(inner.bottom() - lo),
                ),
            ]);
            clear(buf, Rect::new(x, inner.bottom() - hi, 1, hi - lo));
        } else if old.is_some() {
            clear(buf, a);
        }
        if wide {
            if only_last {
                // The title over the old one: the border past the longer
                // of the two is kept.
                kept.push(title_again(buf, a.intersection(buf.area), &title));
            } else {
                bordered(buf, a, &title);
            }
        } else if !only_last {
            let [label, _] = label_split(a);
            Paragraph::new(short).render(label, buf);
        }
        let values = buckets(series, max, &grid, from);
        Curve {
            values,
            style: style(s, colour),
            rows: redo,
        }
        .render(
            Rect {
                x: inner.x + from,
                width: inner.width - from,
                ..inner
            },
            buf,
        );
    }
    kept
}

/// Whether a curve of `series`, drawn on `grid`, differs from the one
/// drawn at time `then` only in its last column: the same grid (no new
/// column began); the series had begun when that frame was drawn (it holds
/// the point of its sample: a series that begins turns the columns before its
/// first point from gaps to empty); and no point the columns before the
/// last showed has gone since (none dropped from the series, or only
/// points older than the span).
fn last_column_only(series: Option<&Series>, then: f64, grid: &Grid) -> bool {
    let Some((series, first)) = series.and_then(|x| Some((x, x.first()?))) else {
        return false;
    };
    let same_grid = Grid::new(grid.span, grid.cols, then).end == grid.end;
    let begun = series
        .points()
        .rev()
        .take_while(|p| p.t >= then)
        .any(|p| p.t == then);
    let all_kept =
        series.len() < series.cap() || grid.column(first.t) <= grid.end - i64::from(grid.cols);
    same_grid && begun && all_kept
}

/// The rows (counted from the bottom, of `height`) of a curve's last
/// column that differ between the frame drawn at time `then` and now, when only the last
/// column changes ([`last_column_only`]): those between the column's old
/// height and its new one (none when the same). All of them when either
/// has no value there, or the series is out of time order.
fn column_rows_changed(
    series: Option<&Series>,
    then: f64,
    max: Option<f64>,
    grid: &Grid,
    height: u16,
) -> std::ops::Range<usize> {
    let h = usize::from(height);
    let all = 0..h;
    let (Some(series), Some(max)) = (series, max) else {
        return all;
    };
    if !series.in_order() || max <= 0.0 {
        return all;
    }
    // The column's highest point, of the points up to `until`.
    let peak = |until: f64| {
        series
            .points()
            .rev()
            .take_while(|p| grid.column(p.t) >= grid.end)
            .filter(|p| grid.column(p.t) == grid.end && p.t <= until)
            .map(|p| (p.v / max).clamp(0.0, 1.0))
            .reduce(f64::max)
    };
    match (peak(then), peak(f64::INFINITY)) {
        (Some(a), Some(b)) => {
            let (a, b) = (eighths(a, h), eighths(b, h));
            if a == b {
                0..0
            } else {
                (a.min(b) / 8).min(h)..a.max(b).div_ceil(8).min(h)
            }
        }
        _ => all,
    }
}

/// The columns of a curve: `cols` fixed spans of time (multiples of
/// `step` since the epoch), the last the one holding the sample's time,
/// so that a point stays in its column until it scrolls away.
struct Grid {
    span: f64,
    cols: u16,
    step: f64,
    /// The number of the last column (see [`Grid::column`]).
    end: i64,
}

impl Grid {
    fn new(span: f64, cols: u16, t: f64) -> Grid {
        let step = span / f64::from(cols.max(1));
        let mut g = Grid {
            span,
            cols,
            step,
            end: 0,
        };
        g.end = g.column(t);
        g
    }

    /// The number of the column holding time `t`: the span of time
    /// `((n - 1) * step, n * step]`.
    fn column(&self, t: f64) -> i64 {
        ceil_i64(t / self.step)
    }

    /// Where time `t` falls on the curve, from 0 (its first column).
    fn index(&self, t: f64) -> Option<usize> {
        let back = usize::try_from(self.end - self.column(t)).ok()?;
        usize::from(self.cols).checked_sub(back + 1)
    }
}

/// `x.ceil() as i64`, without a call to the C library's `ceil` (which the
/// baseline x86-64 target makes for each point of a curve's columns).
fn ceil_i64(x: f64) -> i64 {
    let t = x as i64;
    if (t as f64) < x {
        t.saturating_add(1)
    } else {
        t
    }
}

/// The memory and the utilization curves' boxes: side by side in the wide
/// layout, one above the other in the compact one.
pub(super) fn curve_areas(area: Rect, wide: bool) -> (Rect, Rect) {
    if wide {
        // Solved for one row: a horizontal split does not depend on the
        // height, and the curves' height changes with the process count.
        let [a, b] = areas(
            Layout::horizontal([Constraint::Percentage(50), Constraint::Percentage(50)]),
            Rect {
                y: 0,
                height: 1,
                ..area
            },
        );
        let whole = |r: Rect| Rect {
            y: area.y,
            height: area.height,
            ..r
        };
        (whole(a), whole(b))
    } else {
        let [a, b] = areas(
            Layout::vertical([Constraint::Length(2), Constraint::Length(2)]),
            area,
        );
        (a, b)
    }
}

/// Whether a frame of `area` at the time of `s` shows a curve's columns
/// moved from where they were at time `t`: the columns are fixed spans of
/// time (see [`Grid`]), so a curve moves only when a new column begins,
/// and the runner redraws for the curves only then.
pub fn curves_moved(s: &Screen<'_>, area: Rect, t: f64) -> bool {
    let r = regions(s, area);
    let (a, b) = curve_areas(r.curves, r.wide);
    let span = s.ui.zoom_s() as f64;
    [a, b].into_iter().any(|x| {
        let grid = Grid::new(span, curve_inner(x, r.wide).width, s.sample.t);
        grid.column(t) != grid.end
    })
}

/// A compact curve's line: its 5-column label, then the curve.
pub(super) fn label_split(a: Rect) -> [Rect; 2] {
    split_lengths(a, false, [5, 1], || {
        Layout::horizontal([Constraint::Length(5), Constraint::Min(1)])
    })
}

/// Where a curve is drawn in its part `a` of the screen: inside the box
/// (wide) or after the label (compact).
fn curve_inner(a: Rect, wide: bool) -> Rect {
    if wide {
        inside(a)
    } else {
        label_split(a)[1]
    }
}

/// The series on the columns of `grid`, from column `from` on: each
/// column's highest point as a fraction of `max` (None: no point in that
/// column, e.g. the GPU was late or lost; 0 for a column before the series
/// began, which is not a gap).
fn buckets(series: Option<&Series>, max: Option<f64>, grid: &Grid, from: u16) -> Vec<Option<f64>> {
    let mut out = vec![None; usize::from(grid.cols.saturating_sub(from))];
    let (Some(series), Some(max)) = (series, max) else {
        return out;
    };
    if out.is_empty() || max <= 0.0 {
        return out;
    }
    let lowest = grid.end - i64::from(grid.cols) + 1 + i64::from(from);
    let from = usize::from(from);
    let first = series.first().map(|p| grid.column(p.t));
    let first_index = |c: i64| usize::try_from(c - (grid.end - i64::from(grid.cols) + 1)).ok();
    if let Some(start) = first.map(first_index) {
        // Before the series began there is nothing to show, not a gap.
        let before = start.unwrap_or(0).saturating_sub(from).min(out.len());
        out[..before].fill(Some(0.0));
    }
    let mut put = |t: f64, v: f64| {
        if let Some(i) = grid.index(t).and_then(|i| i.checked_sub(from)) {
            let f = (v / max).clamp(0.0, 1.0);
            out[i] = Some(out[i].map_or(f, |o: f64| o.max(f)));
        }
    };
    if series.in_order() {
        // Newest first, down to the first column asked for.
        for p in series.points().rev() {
            if grid.column(p.t) < lowest {
                break;
            }
            put(p.t, p.v);
        }
    } else {
        series.points().for_each(|p| put(p.t, p.v));
    }
    out
}

/// A curve: one column per value, filled from the bottom in eighths of a
/// row; a column without a value shows `·` on its bottom row.
struct Curve {
    values: Vec<Option<f64>>,
    style: Style,
    /// The rows drawn, counted from the bottom (all: `0..height`; a frame
    /// over the last draws only the rows of its last column that changed).
    rows: std::ops::Range<usize>,
}

/// How many eighths of a cell a curve's column of `h` rows fills for `v`
/// (a fraction): at least one for a value above zero, so it shows.
pub(super) fn eighths(v: f64, h: usize) -> usize {
    let e = (v * h as f64 * 8.0).round() as usize;
    if v > 0.0 {
        e.max(1)
    } else {
        e
    }
}

impl Widget for Curve {
    fn render(self, area: Rect, buf: &mut Buffer) {
        const PARTS: [&str; 8] = [" ", "▁", "▂", "▃", "▄", "▅", "▆", "▇"];
        let h = usize::from(area.height);
        if h == 0 {
            return;
        }
        for (i, v) in self.values.iter().enumerate().take(usize::from(area.width)) {
            let x = area.x + i as u16;
            let Some(v) = v else {
                if let Some(c) = buf.cell_mut((x, area.y + area.height - 1)) {
                    c.set_symbol("·");
                }
                continue;
            };
            let eighths = eighths(*v, h);
            // The rows the column fills (none above them).
            let top = h.min(eighths.div_ceil(8)).min(self.rows.end);
            for row in self.rows.start..top {
                let Some(sym) = eighth_block(eighths, row, &PARTS) else {
                    continue;
                };
                let y = area.y + area.height - 1 - row as u16;
                if let Some(c) = buf.cell_mut((x, y)) {
                    c.set_symbol(sym).set_style(self.style);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nvq_core::model::history::History;
    use nvq_core::model::top::TopSample;

    /// A column's number is the ceiling of its time in steps, as `f64::ceil`
    /// gives it, for any time (negative, huge, infinite, not a number).
    #[test]
    fn a_columns_number_is_the_ceiling_of_its_time_in_steps() {
        let xs = [
            0.0,
            -0.0,
            0.5,
            1.0,
            1.0000001,
            -0.5,
            -1.0,
            -1.5,
            2.5e9,
            1e300,
            -1e300,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
            f64::MIN_POSITIVE,
            9.007199254740993e15,
        ];
        for x in xs {
            assert_eq!(ceil_i64(x), x.ceil() as i64, "{x}");
        }
        for i in -2000..2000 {
            let x = f64::from(i) / 7.0;
            assert_eq!(ceil_i64(x), x.ceil() as i64, "{x}");
        }
    }

    /// Each column of a curve is the highest point of its span of time (0
    /// before the series began, none where it has no point), whatever the
    /// order of the points (a clock set back, by more than the span too),
    /// and the columns worked out from one on (as a frame drawn over the
    /// last works out its last) are those worked out whole.
    #[test]
    fn a_curves_columns_are_the_highest_point_of_their_time() {
        let mut rand = crate::tui::seeded();
        let key = SeriesRef::Gpu { uuid: "GPU-1" };
        let mut partial = 0;
        for _ in 0..600 {
            let mut history = History::new(1 + rand(200) as usize);
            // Times off the columns' edges (where rounding decides).
            let unit = 0.137_035_999;
            let mut t = 1_790_000_000.0 + rand(1000) as f64 * unit;
            for _ in 0..rand(300) {
                t += match rand(25) {
                    0 => -(rand(50000) as f64) * unit,
                    1 => rand(50000) as f64 * unit,
                    _ => (1 + rand(200)) as f64 * unit,
                };
                let v = rand(1000) as f64;
                history.push(key, MEM_FIELD, nvq_core::model::history::Point { t, v });
            }
            // The sample's time: its point's, or later (the GPU was late).
            let sample = TopSample {
                t: t + (rand(3) * rand(100)) as f64 * unit,
                ..TopSample::default()
            };
            let span = crate::tui::state::ZOOMS_S[rand(7) as usize] as f64;
            let cols = 1 + rand(130) as u16;
            let grid = Grid::new(span, cols, sample.t);
            let whole = buckets(history.series(key, MEM_FIELD), Some(1000.0), &grid, 0);
            let points: Vec<_> = history
                .series(key, MEM_FIELD)
                .map_or(Vec::new(), |x| x.points().collect());
            let step = span / f64::from(cols);
            let expected: Vec<Option<f64>> = (0..cols)
                .map(|i| {
                    let hi = (grid.end - i64::from(cols) + 1 + i64::from(i)) as f64 * step;
                    let highest = points
                        .iter()
                        .filter(|p| p.t > hi - step && p.t <= hi)
                        .map(|p| p.v / 1000.0)
                        .reduce(f64::max);
                    let before = points.first().is_some_and(|p| hi < p.t);
                    highest.or(before.then_some(0.0))
                })
                .collect();
            assert_eq!(whole, expected, "{points:?} {}", sample.t);
            for from in [1, cols - 1, rand(u64::from(cols)) as u16] {
                let part = buckets(history.series(key, MEM_FIELD), Some(1000.0), &grid, from);
                assert_eq!(
                    part[..],
                    whole[usize::from(from.min(cols))..],
                    "from {from}"
                );
                partial += usize::from(!part.is_empty());
            }
        }
        assert!(partial > 1000, "{partial}");
    }
}
