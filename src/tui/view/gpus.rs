//! The GPU block: a line per GPU (its name, memory bar and numbers), per
//! MIG device, and with `--hosts` per node.

use super::layout::{first_gpu_line, GpuLine};
use super::paint::{
    cut, eighth_block, glyphs, line_at, put_glyph, put_str, spans_at, text_width, Parts,
};
use super::screen::{bold, style, Screen};
use super::text::{plural, right, Mem, Power, Rate, Unit};
use crate::tui::columns::{put, Or, WIDE_FROM};
use nvq_core::model::top::{GpuSnap, Health, HostSnap, HostState};
use nvq_core::model::Token;
use nvq_core::render::printable;
use nvq_core::render::stat::DERIVED_MARK;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::Widget;

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
    if let Some(lacks) = &h.lacks {
        line.add(format_args!("  ({})", printable(lacks)), Style::default());
    }
    line.draw(buf, area);
}

/// The GPU block's lines, but those `keep` says are already drawn.
pub(super) fn gpu_block(
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
                    mem_line(s, label_width(wide), used, false, r, buf, &mut text);
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

pub(super) fn fraction(used: Option<u64>, total: Option<u64>) -> Option<f64> {
    match (used, total) {
        (Some(u), Some(t)) if t > 0 => Some((u as f64 / t as f64).clamp(0.0, 1.0)),
        _ => None,
    }
}

/// A label of `label_w` characters, a memory bar, the numbers, then the
/// tail: `text`'s label and tail (its `mem` is written here). `derived`:
/// the numbers are the system's memory (a unified-memory GPU), marked `*`.
fn mem_line(
    s: &Screen<'_>,
    label_w: u16,
    (used, total): (Option<u64>, Option<u64>),
    derived: bool,
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
    if derived {
        mem.push(DERIVED_MARK);
    }
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

fn bar_colour(frac: f64) -> Color {
    if frac >= 0.9 {
        Color::Red
    } else if frac >= 0.7 {
        Color::Yellow
    } else {
        Color::Green
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
    let used = (g.mem_used, g.mem_total);
    mem_line(s, label_w, used, g.mem_derived, area, buf, text);
    if selected {
        for x in area.x..area.x + label_w.min(area.width) {
            if let Some(c) = buf.cell_mut((x, area.y)) {
                c.modifier.insert(Modifier::BOLD);
            }
        }
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
