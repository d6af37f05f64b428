//! A frame: drawn whole ([`render`]), or over the last one
//! ([`render_over`]), keeping what shows the same.

use super::curves::curve_block;
use super::detail::{detail, detail_line};
use super::gpus::gpu_block;
use super::header::header;
use super::help::help;
use super::layout::{first_gpu_line, regions, GpuLine};
use super::paint::{clear, keep_or_clear};
use super::screen::{FullMap, LeakMap, Screen};
use super::table::{process_table, table};
use nvq_core::model::top::TopSample;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use std::sync::Arc;

/// Draw the whole screen into `buf`.
pub fn render(s: &Screen<'_>, area: Rect, buf: &mut Buffer) {
    let r = regions(s, area);
    header(s, r.head, buf, r.lines.len() as u16 > r.gpus.height);
    gpu_block(s, &r.lines, r.gpus, buf, |_| false);
    detail_line(s, r.detail, buf);
    curve_block(s, None, r.curves, buf, r.wide);
    process_table(s, r.procs, buf, r.wide);
    if s.ui.help {
        help(s, area, buf);
    }
}

/// What the frame before showed that a sample changes: the sample and its
/// marks.
pub struct Before<'a> {
    pub sample: &'a TopSample,
    pub leaks: &'a LeakMap,
    pub gpu_full_s: &'a FullMap,
}

/// Draw the screen into `buf`, which holds the frame [`render`] drew of
/// `before` (the sample before, on the same screen with the same keys
/// pressed), drawing again only what may differ: the header, the lines of
/// GPUs whose values are the same, the detail line when it says the same,
/// the columns of the curves but their last while no new column begins,
/// and the process table's rows that show the same are kept. Returns the areas kept (untouched); everything else is
/// drawn as [`render`] draws it (the tests compare the two).
pub fn render_over(s: &Screen<'_>, before: &Before<'_>, area: Rect, buf: &mut Buffer) -> Vec<Rect> {
    let r = regions(s, area);
    let old = Screen {
        sample: before.sample,
        leaks: before.leaks,
        gpu_full_s: before.gpu_full_s,
        ..*s
    };
    let before = before.sample;
    if s.ui.help
        || r != regions(&old, area)
        || s.sample.gpus.len() != before.gpus.len()
        || s.sample.hosts.len() != before.hosts.len()
    {
        buf.reset();
        render(s, area, buf);
        return Vec::new();
    }
    // Each GPU compared once (a GPU's MIG rows ask again).
    let same: Vec<bool> = s
        .sample
        .gpus
        .iter()
        .zip(&before.gpus)
        .map(|(a, b)| a == b)
        .collect();
    let same_gpu = |i: usize| same.get(i).copied().unwrap_or(false);
    let same_host = |h: usize| s.sample.hosts.get(h) == before.hosts.get(h);
    let same_line = |l: &GpuLine| match *l {
        GpuLine::Gpu(i) | GpuLine::Mig(i, _) => same_gpu(i),
        GpuLine::Host(h) => same_host(h),
    };
    // Sized for every row of the screen kept: no growing while it fills.
    let mut kept = Vec::with_capacity(usize::from(area.height) + 8);
    // The header shows the number of GPUs and the selected GPU's index.
    let index = |t: &TopSample| {
        t.gpus
            .get(s.ui.selected)
            .map(|g| (Arc::clone(&g.host), g.index))
    };
    if index(s.sample) == index(before) {
        kept.push(r.head);
    } else {
        clear(buf, r.head);
        header(s, r.head, buf, r.lines.len() as u16 > r.gpus.height);
    }
    let first = first_gpu_line(s, &r.lines, r.gpus.height);
    for (row, line) in r
        .lines
        .iter()
        .skip(first)
        .take(usize::from(r.gpus.height))
        .enumerate()
    {
        keep_or_clear(
            buf,
            r.gpus,
            r.gpus.y + row as u16,
            same_line(line),
            &mut kept,
        );
    }
    gpu_block(s, &r.lines, r.gpus, buf, same_line);
    if detail(s) == detail(&old) {
        kept.push(r.detail);
    } else {
        clear(buf, r.detail);
        detail_line(s, r.detail, buf);
    }
    kept.extend(curve_block(s, Some(before), r.curves, buf, r.wide));
    kept.extend(table(s, Some(&old), r.procs, buf, r.wide));
    kept
}
