//! The detail line: the selected GPU's numbers that the compact line has
//! no room for, and its time to full memory.

use super::paint::Parts;
use super::screen::{bold, style, Screen};
use super::text::{Rate, Unit};
use crate::tui::columns::Duration;
use nvq_core::model::top::Health;
use nvq_core::render::printable;
use nvq_core::render::stat::DERIVED_MARK;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::widgets::{Paragraph, Widget};
use std::sync::Arc;

/// What the detail line shows: the selected GPU's index, its time to full
/// memory, and (while it answers) its clocks, fan, memory utilization and
/// PCIe rates. A frame drawn over the last keeps the line while it is the
/// same.
#[derive(PartialEq)]
pub(super) struct Detail {
    host: Arc<str>,
    index: u32,
    full_s: Option<f64>,
    /// Its memory is the system's (a unified-memory GPU), marked `*`.
    derived: bool,
    numbers: Option<[Option<f64>; 6]>,
}

pub(super) fn detail(s: &Screen<'_>) -> Option<Detail> {
    let g = s.sample.gpus.get(s.ui.selected)?;
    Some(Detail {
        host: Arc::clone(&g.host),
        index: g.index,
        full_s: s.gpu_full_s.get(&(Arc::clone(&g.host), g.index)).copied(),
        derived: g.mem_derived,
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
pub(super) fn detail_line(s: &Screen<'_>, area: Rect, buf: &mut Buffer) {
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
    if d.derived {
        line.add(
            format_args!("  {DERIVED_MARK} memory: the system's (unified memory)"),
            Style::default(),
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
