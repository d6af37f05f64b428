//! Drawing `nvq top`: a pure function of the sample, the history and the
//! person's choices, into ratatui's buffer (no terminal, no clock). The
//! terminal layer draws it on screen; the tests draw it on ratatui's
//! `TestBackend`.
//!
//! Layouts: under [`WIDE_FROM`] columns (or 32 rows) the compact one, one
//! line per GPU (8 GPUs and their processes fit 80×24); from there the wide
//! one, with clocks, fan and PCIe on each GPU's line, bigger curves side by
//! side and every process column.

use super::columns::{display_as_text, put, Bytes, Duration, Fixed, Leak, Or, ProcColumn, ProcRow};
use super::columns::{ProcCol, SortKey, Text, COLUMNS, WIDE_FROM};
use super::state::Ui;
use nvq_core::model::history::{History, SeriesRef};
use nvq_core::model::top::{GpuSnap, Health, HostSnap, HostState, ProcSnap, TopSample};
use nvq_core::model::{Fact, ListField, Token};
use nvq_core::render::printable;
use ratatui::buffer::{Buffer, Cell};
use ratatui::layout::{Constraint, Flex, Layout, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Paragraph, Widget};
use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

/// The history field of a GPU's used memory (bytes) and utilization (%),
/// and of a process's memory: the registry's names.
pub const MEM_FIELD: &str = Fact::MemoryUsed.describe().name;
pub const UTIL_FIELD: &str = Fact::UtilizationGpu.describe().name;
pub const PROC_MEM_FIELD: &str = ListField::UsedGpuMemory.name();

/// Processes whose memory rises steadily, by (host, GPU index, PID); the
/// host is empty for this machine's.
pub type LeakMap = HashMap<(Arc<str>, u32, u32), Leak>;

/// Each GPU's time to full memory, by (host, index), where it rises steadily.
pub type FullMap = HashMap<(Arc<str>, u32), f64>;

/// Everything one frame shows.
pub struct Screen<'a> {
    pub sample: &'a TopSample,
    pub history: &'a History,
    pub leaks: &'a LeakMap,
    pub gpu_full_s: &'a FullMap,
    pub ui: &'a Ui,
    /// nvq's version and the driver's, for the header.
    pub title: &'a str,
}

/// The height from which the wide layout is used.
const WIDE_HEIGHT: u16 = 32;

/// Where the screen's parts are, for a frame of `area`.
#[derive(Debug, PartialEq)]
pub(super) struct Regions {
    pub head: Rect,
    pub gpus: Rect,
    pub detail: Rect,
    pub curves: Rect,
    pub procs: Rect,
    pub wide: bool,
    /// The GPU block's lines, all of them (it shows those that fit).
    lines: Vec<GpuLine>,
}

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
    kept.extend(curve_block(s, Some(&old), r.curves, buf, r.wide));
    kept.extend(table(s, Some(&old), r.procs, buf, r.wide));
    kept
}

/// Row `y` of `area`: kept (added to `kept`) when it shows the `same`, else
/// cleared (to be drawn again).
fn keep_or_clear(buf: &mut Buffer, area: Rect, y: u16, same: bool, kept: &mut Vec<Rect>) {
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
fn clear(buf: &mut Buffer, area: Rect) {
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

/// `layout` split over `area`, as ratatui solves it, remembered for the
/// whole process: ratatui keeps its solutions per thread, and `nvq top`
/// draws on whichever lane read the sample, so each new lane thread would
/// solve every layout again (about two million instructions each).
fn split(layout: Layout, area: Rect) -> Vec<Rect> {
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
fn areas<const N: usize>(layout: Layout, area: Rect) -> [Rect; N] {
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
fn stack(
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
fn split_lengths<const N: usize>(
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

/// The parts of the screen, as [`render`] draws them.
pub(super) fn regions(s: &Screen<'_>, area: Rect) -> Regions {
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

/// How many process rows the table has room for in a frame of `area`.
pub fn process_rows(s: &Screen<'_>, area: Rect) -> usize {
    usize::from(regions(s, area).procs.height.saturating_sub(1))
}

/// The first line the GPU block shows: the selected GPU's line is visible.
fn first_gpu_line(s: &Screen<'_>, lines: &[GpuLine], height: u16) -> usize {
    let h = usize::from(height);
    let sel = lines
        .iter()
        .position(|l| matches!(l, GpuLine::Gpu(i) if *i == s.ui.selected))
        .unwrap_or(0);
    sel.saturating_sub(h.saturating_sub(1))
}

pub(super) fn style(s: &Screen<'_>, colour: Color) -> Style {
    if s.ui.colour {
        Style::default().fg(colour)
    } else {
        Style::default()
    }
}

pub(super) fn bold() -> Style {
    Style::default().add_modifier(Modifier::BOLD)
}

fn header(s: &Screen<'_>, area: Rect, buf: &mut Buffer, scrolled: bool) {
    let ui = s.ui;
    let col = ui.sort_column();
    let arrow = if ui.descending { "↓" } else { "↑" };
    let n = s.sample.gpus.len();
    let mut line = Parts::default();
    line.add(printable(s.title), bold())
        .add(format_args!("  {n} GPU{}", plural(n)), Style::default());
    let hosts = &s.sample.hosts;
    if !hosts.is_empty() {
        let up = hosts
            .iter()
            .filter(|h| h.state == HostState::Reachable)
            .count();
        line.add(
            format_args!(" on {up}/{} hosts", hosts.len()),
            Style::default(),
        );
    }
    line.add(
        format_args!("  every {}", Interval(ui.interval_ms)),
        Style::default(),
    );
    if scrolled {
        line.add(" ↑↓more", Style::default());
    }
    if ui.paused {
        line.add("  PAUSED", bold().add_modifier(Modifier::REVERSED));
    }
    line.add(format_args!("  sort {}{arrow}", col.head), Style::default());
    if ui.only_selected {
        match s.sample.gpus.get(ui.selected) {
            Some(g) if !g.host.is_empty() => line.add(
                format_args!("  {} GPU {} only", printable(&g.host), g.index),
                Style::default(),
            ),
            g => line.add(
                format_args!("  GPU {} only", g.map_or(0, |g| g.index)),
                Style::default(),
            ),
        };
    }
    if ui.editing || !ui.filter.is_empty() {
        let cursor = if ui.editing { "_" } else { "" };
        line.add(format_args!("  /{}{cursor}", printable(&ui.filter)), bold());
    }
    line.add("  h help", Style::default());
    line.draw(buf, area);
}

/// A line of text in parts of their own styles, written into one string
/// (one allocation for the line, not one for each part).
#[derive(Default)]
struct Parts {
    text: String,
    /// Where each part ends in `text`, and its style.
    ends: Vec<(usize, Style)>,
}

impl Parts {
    fn add(&mut self, part: impl Text, st: Style) -> &mut Self {
        put(&mut self.text, part);
        self.ends.push((self.text.len(), st));
        self
    }

    /// What [`line_at`] draws for the parts as spans.
    fn draw(&self, buf: &mut Buffer, area: Rect) {
        let starts = std::iter::once(0).chain(self.ends.iter().map(|(end, _)| *end));
        let spans = starts.zip(&self.ends).map(|(start, (end, st))| {
            let part = self.text.get(start..*end).unwrap_or_default();
            (part, *st)
        });
        spans_at(buf, area, spans);
    }
}

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// A refresh interval: `100ms`, `2s`, `1.5s`.
struct Interval(u64);

impl Text for Interval {
    fn write_to(&self, out: &mut impl fmt::Write) -> fmt::Result {
        let ms = self.0;
        if ms < 1000 {
            ms.write_to(out)?;
            out.write_str("ms")
        } else if ms % 1000 == 0 {
            (ms / 1000).write_to(out)?;
            out.write_str("s")
        } else {
            Fixed(ms as f64 / 1000.0, 1).write_to(out)?;
            out.write_str("s")
        }
    }
}

/// One line of the GPU block: a GPU (by its position), one of its MIG
/// devices, or (with `--hosts`) a node's header, by its position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum GpuLine {
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

/// A node's header line: its name and how it answered.
fn host_line(s: &Screen<'_>, h: &HostSnap, area: Rect, buf: &mut Buffer) {
    let gpus = s.sample.gpus.iter().filter(|g| g.host == h.name).count();
    let mut line = Parts::default();
    line.add(printable(&h.name), bold());
    match &h.state {
        HostState::Reachable => line.add(
            format_args!("  reachable, {gpus} GPU{}", plural(gpus)),
            style(s, Color::Green),
        ),
        HostState::Late => line.add(
            "  late: no answer within the sample's deadline",
            style(s, Color::Yellow).add_modifier(Modifier::BOLD),
        ),
        HostState::Failed(why) => line.add(
            format_args!("  failed: {}", printable(why)),
            style(s, Color::Red).add_modifier(Modifier::BOLD),
        ),
    };
    line.draw(buf, area);
}

/// The GPU block's lines, but those `keep` says are already drawn.
fn gpu_block(
    s: &Screen<'_>,
    lines: &[GpuLine],
    area: Rect,
    buf: &mut Buffer,
    keep: impl Fn(&GpuLine) -> bool,
) {
    let h = usize::from(area.height);
    // Scroll so that the selected GPU's line is visible.
    let first = first_gpu_line(s, lines, area.height);
    let wide = area.width >= WIDE_FROM;
    // The lines' texts, written again for each line.
    let mut text = LineText::new();
    for (row, line) in lines.iter().skip(first).take(h).enumerate() {
        if keep(line) {
            continue;
        }
        let r = Rect {
            y: area.y + row as u16,
            height: 1,
            ..area
        };
        text.label.clear();
        text.tail.clear();
        match *line {
            GpuLine::Host(h) => {
                if let Some(host) = s.sample.hosts.get(h) {
                    host_line(s, host, r, buf);
                }
            }
            GpuLine::Gpu(i) => {
                if let Some(g) = s.sample.gpus.get(i) {
                    gpu_line(s, g, i == s.ui.selected, wide, r, buf, &mut text);
                }
            }
            GpuLine::Mig(i, m) => {
                if let Some(mig) = s.sample.gpus.get(i).and_then(|g| g.mig.get(m)) {
                    let (gi, ci) = (Or(mig.gpu_instance), Or(mig.compute_instance));
                    let profile = printable(&mig.profile);
                    if wide {
                        put(
                            &mut text.label,
                            format_args!("   └ MIG {profile}  GI {gi}  CI {ci}"),
                        );
                    } else {
                        put(&mut text.label, format_args!("  └ {profile} GI{gi} CI{ci}"));
                    }
                    let used = (mig.mem_used, mig.mem_total);
                    mem_line(s, label_width(wide), used, r, buf, &mut text);
                }
            }
        }
    }
}

/// The texts of a line of the GPU block: its label, the numbers after its
/// bar (`mem`) and what follows them (`tail`).
struct LineText {
    label: String,
    mem: String,
    tail: String,
}

impl LineText {
    /// Room for the longest line of the wide layout: the strings are not
    /// grown (allocated again) while a frame is drawn.
    fn new() -> Self {
        LineText {
            label: String::with_capacity(64),
            mem: String::with_capacity(32),
            tail: String::with_capacity(128),
        }
    }
}

/// `40.0G/80.0G`
struct Mem(Option<u64>, Option<u64>);

impl Text for Mem {
    fn write_to(&self, out: &mut impl fmt::Write) -> fmt::Result {
        match (self.0, self.1) {
            (Some(u), t) => {
                Bytes(u as f64).write_to(out)?;
                match t {
                    Some(t) => {
                        out.write_str("/")?;
                        Bytes(t as f64).write_to(out)
                    }
                    None => Ok(()),
                }
            }
            _ => out.write_str("-"),
        }
    }
}

/// Append `v` to `out`, right-aligned in `width` characters (what `{:>w}`
/// writes).
fn right(out: &mut String, width: usize, v: impl Text) {
    let start = out.len();
    put(out, v);
    let n = out.get(start..).map_or(0, |t| t.chars().count());
    for _ in n..width {
        out.insert(start, ' ');
    }
}

fn fraction(used: Option<u64>, total: Option<u64>) -> Option<f64> {
    match (used, total) {
        (Some(u), Some(t)) if t > 0 => Some((u as f64 / t as f64).clamp(0.0, 1.0)),
        _ => None,
    }
}

/// A label of `label_w` characters, a memory bar, the numbers, then the
/// tail: `text`'s label and tail (its `mem` is written here).
fn mem_line(
    s: &Screen<'_>,
    label_w: u16,
    (used, total): (Option<u64>, Option<u64>),
    area: Rect,
    buf: &mut Buffer,
    text: &mut LineText,
) {
    let (label, tail) = (&text.label, &text.tail);
    let tail_w = text_width(tail) as u16;
    let mem = &mut text.mem;
    mem.clear();
    mem.push(' ');
    right(mem, 11, Mem(used, total));
    let bar_w = area
        .width
        .saturating_sub(label_w + 1 + mem.len() as u16 + tail_w)
        .max(4);
    let [l, _, bar, rest] = cut(area, [label_w, 1, bar_w]);
    put_str(buf, l.x, l.y, label, usize::from(l.width), Style::default());
    let frac = fraction(used, total);
    Bar {
        frac,
        style: style(s, bar_colour(frac.unwrap_or(0.0))),
    }
    .render(bar, buf);
    let (x, _) = put_str(
        buf,
        rest.x,
        rest.y,
        mem,
        usize::from(rest.width),
        Style::default(),
    );
    let left = rest.width.saturating_sub(x - rest.x);
    let tail_area = Rect {
        x,
        width: left,
        ..rest
    };
    spans_at(buf, tail_area, [(tail.as_str(), Style::default())]);
}

/// The width of `text` on screen: its characters, when each is one cell.
fn text_width(text: &str) -> usize {
    if text.chars().all(one_cell) {
        text.chars().count()
    } else {
        Span::raw(text).width()
    }
}

/// `area` cut from the left into columns of these widths (each at most
/// what is left) and the rest. A plain split: ratatui's layout solver costs
/// more than drawing the line itself, and these lines are drawn every frame.
fn cut<const N: usize, const M: usize>(area: Rect, widths: [u16; N]) -> [Rect; M] {
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
fn line_at(buf: &mut Buffer, area: Rect, line: &Line<'_>) {
    let spans = line.spans.iter();
    spans_at(
        buf,
        area,
        spans.map(|s| (s.content.as_ref(), line.style.patch(s.style))),
    );
}

/// [`line_at`] for the parts of a line: each text and its style.
fn spans_at<'t>(buf: &mut Buffer, area: Rect, spans: impl IntoIterator<Item = (&'t str, Style)>) {
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
fn put_str(
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
struct Glyphs {
    /// Printable ASCII, from the space.
    ascii: [Cell; 95],
    /// A bar's full block and its empty part.
    full: Cell,
    shade: Cell,
}

impl Glyphs {
    /// The cell of a printable ASCII character.
    fn ascii(&self, c: char) -> Option<&Cell> {
        let i = u32::from(c).wrapping_sub(u32::from(' '));
        self.ascii.get(usize::try_from(i).ok()?)
    }
}

fn glyphs() -> &'static Glyphs {
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
fn put_glyph(cell: &mut Cell, glyph: &Cell, st: Style) {
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

fn bar_colour(frac: f64) -> Color {
    if frac >= 0.9 {
        Color::Red
    } else if frac >= 0.7 {
        Color::Yellow
    } else {
        Color::Green
    }
}

/// A whole number and its unit (`35°C`), or `-`.
struct Unit(Option<f64>, &'static str);

impl Text for Unit {
    fn write_to(&self, out: &mut impl fmt::Write) -> fmt::Result {
        match self.0 {
            Some(v) => {
                Fixed(v, 0).write_to(out)?;
                out.write_str(self.1)
            }
            None => out.write_str("-"),
        }
    }
}

fn gpu_line(
    s: &Screen<'_>,
    g: &GpuSnap,
    selected: bool,
    wide: bool,
    area: Rect,
    buf: &mut Buffer,
    text: &mut LineText,
) {
    let mark = if selected { "▶" } else { " " };
    let name_w: usize = if wide { 28 } else { 16 };
    let label = &mut text.label;
    label.push_str(mark);
    right(label, 2, g.index);
    label.push(' ');
    // The name, cut to `name_w` characters and padded to them.
    let name = printable(g.name.strip_prefix("NVIDIA ").unwrap_or(&g.name));
    let mut n = 0;
    for c in name.chars().take(name_w) {
        label.push(c);
        n += 1;
    }
    label.extend(std::iter::repeat(' ').take(name_w - n));
    let label_w = label_width(wide);
    let sel_style = if selected { bold() } else { Style::default() };
    match g.health {
        Health::Fresh => {}
        Health::Late | Health::Lost(_) => {
            let (why, colour) = match g.health {
                Health::Lost(code) => (
                    format!("{}: no values", Token::new(code).text()),
                    Color::Red,
                ),
                _ => (
                    "late: no answer within the sample's deadline".to_string(),
                    Color::Yellow,
                ),
            };
            let line = Line::from(vec![
                Span::styled(label.as_str(), sel_style),
                Span::raw(" "),
                Span::styled(why, style(s, colour).add_modifier(Modifier::BOLD)),
            ]);
            line_at(buf, area, &line);
            return;
        }
    }
    let tail = &mut text.tail;
    tail.push(' ');
    right(tail, 4, Unit(g.util_gpu, "%"));
    tail.push(' ');
    right(tail, 4, Unit(g.temp_c, "°C"));
    tail.push(' ');
    right(tail, 9, Power(g.power_w, g.power_limit_w));
    if wide {
        tail.push(' ');
        right(tail, 8, Unit(g.clock_sm_mhz, "MHz"));
        tail.push(' ');
        right(tail, 8, Unit(g.clock_mem_mhz, "MHz"));
        tail.push_str(" fan ");
        right(tail, 4, Unit(g.fan_pct, "%"));
        tail.push_str("  rx ");
        right(tail, 7, Rate(g.pcie_rx));
        tail.push_str(" tx ");
        right(tail, 7, Rate(g.pcie_tx));
    }
    mem_line(s, label_w, (g.mem_used, g.mem_total), area, buf, text);
    if selected {
        for x in area.x..area.x + label_w.min(area.width) {
            if let Some(c) = buf.cell_mut((x, area.y)) {
                c.modifier.insert(Modifier::BOLD);
            }
        }
    }
}

/// Power drawn and its limit: `100/700W`, `100W`, `-`.
struct Power(Option<f64>, Option<f64>);

impl Text for Power {
    fn write_to(&self, out: &mut impl fmt::Write) -> fmt::Result {
        let Some(p) = self.0 else {
            return out.write_str("-");
        };
        Fixed(p, 0).write_to(out)?;
        if let Some(l) = self.1 {
            out.write_str("/")?;
            Fixed(l, 0).write_to(out)?;
        }
        out.write_str("W")
    }
}

/// The width of a GPU's (or MIG device's) label, before its bar.
fn label_width(wide: bool) -> u16 {
    if wide {
        32
    } else {
        20
    }
}

/// Bytes a second (`1.5G/s`), or `-`.
struct Rate(Option<f64>);

impl Text for Rate {
    fn write_to(&self, out: &mut impl fmt::Write) -> fmt::Result {
        match self.0 {
            Some(b) => {
                Bytes(b).write_to(out)?;
                out.write_str("/s")
            }
            None => out.write_str("-"),
        }
    }
}

display_as_text!(Interval, Unit, Rate);

/// What the detail line shows: the selected GPU's index, its time to full
/// memory, and (while it answers) its clocks, fan, memory utilization and
/// PCIe rates. A frame drawn over the last keeps the line while it is the
/// same.
#[derive(PartialEq)]
struct Detail {
    host: Arc<str>,
    index: u32,
    full_s: Option<f64>,
    numbers: Option<[Option<f64>; 6]>,
}

fn detail(s: &Screen<'_>) -> Option<Detail> {
    let g = s.sample.gpus.get(s.ui.selected)?;
    Some(Detail {
        host: Arc::clone(&g.host),
        index: g.index,
        full_s: s.gpu_full_s.get(&(Arc::clone(&g.host), g.index)).copied(),
        numbers: (g.health == Health::Fresh).then_some([
            g.clock_sm_mhz,
            g.clock_mem_mhz,
            g.fan_pct,
            g.util_mem,
            g.pcie_rx,
            g.pcie_tx,
        ]),
    })
}

/// The selected GPU's numbers that the compact line has no room for.
fn detail_line(s: &Screen<'_>, area: Rect, buf: &mut Buffer) {
    let Some(d) = detail(s) else {
        Paragraph::new("no GPU selected").render(area, buf);
        return;
    };
    let mut line = Parts::default();
    if !d.host.is_empty() {
        line.add(format_args!("{} ", printable(&d.host)), bold());
    }
    line.add(format_args!("GPU {}", d.index), bold());
    if let Some(full) = d.full_s {
        line.add(
            format_args!("  memory full in {}", Duration(full)),
            style(s, Color::Red).add_modifier(Modifier::BOLD),
        );
    }
    if let Some([sm, mem, fan, mem_util, rx, tx]) = d.numbers {
        line.add(
            format_args!(
                "  sm {}  mem {}  fan {}  mem-util {}  PCIe rx {} tx {}",
                Unit(sm, "MHz"),
                Unit(mem, "MHz"),
                Unit(fan, "%"),
                Unit(mem_util, "%"),
                Rate(rx),
                Rate(tx)
            ),
            Style::default(),
        );
    }
    line.draw(buf, area);
}

/// The selected GPU's memory and utilization over the zoom's time span.
/// With `old`, the screen whose curves `buf` shows (in `area`, with the same
/// keys pressed): a curve whose columns are the same but its last (see
/// [`last_column_only`]) gets only its title and last column drawn again,
/// and what it keeps is returned; any other is cleared and drawn whole.
fn curve_block(
    s: &Screen<'_>,
    old: Option<&Screen<'_>>,
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
    // The old screen's GPU, when it is this one with the same total.
    let same_gpu = old
        .and_then(|o| o.sample.gpus.get(s.ui.selected))
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
        let only_last = match old {
            Some(o) if same_gpu && inner.width > 0 => last_column_only(s, o, key, field, &grid),
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
            if let Some(o) = old {
                redo = column_rows_changed(s, o, key, field, max, &grid, inner.height);
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
        let values = buckets(s, key, field, max, &grid, from);
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

/// Whether a curve of `field` of `s`, drawn on `grid`, differs from the
/// one `old` shows only in its last column: the same grid (no new column
/// began); the series had begun when `old` was drawn (it holds the point
/// of `old`'s sample: a series that begins turns the columns before its
/// first point from gaps to empty); and no point the columns before the
/// last showed has gone since (none dropped from the series, or only
/// points older than the span).
fn last_column_only(
    s: &Screen<'_>,
    old: &Screen<'_>,
    key: SeriesRef<'_>,
    field: &str,
    grid: &Grid,
) -> bool {
    let Some(series) = s.history.series(key, field) else {
        return false;
    };
    let Some(first) = series.first() else {
        return false;
    };
    let same_grid = Grid::new(grid.span, grid.cols, old.sample.t).end == grid.end;
    let then = old.sample.t;
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
/// column that differ between `old`'s frame and `s`'s, when only the last
/// column changes ([`last_column_only`]): those between the column's old
/// height and its new one (none when the same). All of them when either
/// has no value there, or the series is out of time order.
fn column_rows_changed(
    s: &Screen<'_>,
    old: &Screen<'_>,
    key: SeriesRef<'_>,
    field: &str,
    max: Option<f64>,
    grid: &Grid,
    height: u16,
) -> std::ops::Range<usize> {
    let h = usize::from(height);
    let all = 0..h;
    let (Some(series), Some(max)) = (s.history.series(key, field), max) else {
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
    match (peak(old.sample.t), peak(f64::INFINITY)) {
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
fn curve_areas(area: Rect, wide: bool) -> (Rect, Rect) {
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
fn label_split(a: Rect) -> [Rect; 2] {
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

/// `a` without its border.
fn inside(a: Rect) -> Rect {
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
fn bordered(buf: &mut Buffer, area: Rect, title: &str) {
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
fn title_again(buf: &mut Buffer, area: Rect, title: &str) -> Rect {
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

/// The series on the columns of `grid`, from column `from` on: each
/// column's highest point as a fraction of `max` (None: no point in that
/// column, e.g. the GPU was late or lost; 0 for a column before the series
/// began, which is not a gap).
fn buckets(
    s: &Screen<'_>,
    key: SeriesRef<'_>,
    field: &str,
    max: Option<f64>,
    grid: &Grid,
    from: u16,
) -> Vec<Option<f64>> {
    let mut out = vec![None; usize::from(grid.cols.saturating_sub(from))];
    let (Some(series), Some(max)) = (s.history.series(key, field), max) else {
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

/// The block of cell `i` (from 0) of a bar `eighths` eighths of a cell long:
/// full, one of the partial blocks `parts` (indexed by eighths), or `None`
/// past the bar's end.
fn eighth_block(eighths: usize, i: usize, parts: &[&'static str; 8]) -> Option<&'static str> {
    if eighths >= (i + 1) * 8 {
        Some("█")
    } else if eighths > i * 8 {
        parts.get(eighths - i * 8).copied()
    } else {
        None
    }
}

/// A bar of `frac` of its width.
struct Bar {
    frac: Option<f64>,
    style: Style,
}

impl Widget for Bar {
    fn render(self, area: Rect, buf: &mut Buffer) {
        const PARTS: [&str; 8] = [" ", "▏", "▎", "▍", "▌", "▋", "▊", "▉"];
        let w = usize::from(area.width);
        let Some(frac) = self.frac else {
            return;
        };
        let eighths = (frac * w as f64 * 8.0).round() as usize;
        let glyphs = glyphs();
        for i in 0..w {
            let Some(c) = buf.cell_mut((area.x + i as u16, area.y)) else {
                continue;
            };
            match eighth_block(eighths, i, &PARTS) {
                Some("█") => put_glyph(c, &glyphs.full, self.style),
                Some(sym) => {
                    c.set_symbol(sym).set_style(self.style);
                }
                None => put_glyph(c, &glyphs.shade, self.style),
            }
        }
    }
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
fn eighths(v: f64, h: usize) -> usize {
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

pub(super) fn process_table(s: &Screen<'_>, area: Rect, buf: &mut Buffer, wide: bool) {
    table(s, None, area, buf, wide);
}

/// [`process_table`]; with `old`, the screen whose table `buf` shows (in
/// `area`, with the same keys pressed), the rows that would be drawn the
/// same are kept (returned) and only the others cleared and drawn.
fn table(
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
pub(super) fn table_columns<'c>(rows: &[ProcRow<'_>], wide: bool) -> Vec<(usize, &'c ProcColumn)> {
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
fn column_geometry(cols: &[(usize, &ProcColumn)], width: u16) -> Vec<(u16, u16)> {
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

pub(super) fn widths(cols: &[(usize, &ProcColumn)]) -> Vec<Constraint> {
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

fn help(s: &Screen<'_>, area: Rect, buf: &mut Buffer) {
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

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
        let mut rng = crate::test_support::XorShift(0xbb67_ae85_84ca_a73b_u64);
        let mut rand = |n: u64| rng.below(n);
        let key = SeriesRef::Gpu { uuid: "GPU-1" };
        let ui = Ui::new(100, true);
        let (leaks, full) = (HashMap::new(), HashMap::new());
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
            let s = Screen {
                sample: &sample,
                history: &history,
                leaks: &leaks,
                gpu_full_s: &full,
                ui: &ui,
                title: "",
            };
            let span = crate::tui::state::ZOOMS_S[rand(7) as usize] as f64;
            let cols = 1 + rand(130) as u16;
            let grid = Grid::new(span, cols, sample.t);
            let whole = buckets(&s, key, MEM_FIELD, Some(1000.0), &grid, 0);
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
                let part = buckets(&s, key, MEM_FIELD, Some(1000.0), &grid, from);
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

    #[test]
    fn a_bordered_box_is_ratatuis() {
        let screen = Rect::new(0, 0, 30, 8);
        for area in [
            Rect::new(0, 0, 30, 8),
            Rect::new(2, 1, 12, 5),
            Rect::new(25, 5, 10, 6),
            Rect::new(0, 0, 2, 2),
            Rect::new(0, 0, 1, 3),
            Rect::new(4, 4, 0, 3),
        ] {
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
