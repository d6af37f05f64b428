//! The header line: the title, the GPU and node counts, the interval, the
//! sort, the selection and the filter.

use super::paint::Parts;
use super::screen::{bold, Screen};
use super::text::{plural, Interval};
use nvq_core::model::top::HostState;
use nvq_core::render::printable;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};

pub(super) fn header(s: &Screen<'_>, area: Rect, buf: &mut Buffer, scrolled: bool) {
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
