//! What one frame shows ([`Screen`]), the marks it carries, and the two
//! styles every part draws with.

use crate::tui::columns::Leak;
use crate::tui::state::Ui;
use nvq_core::model::history::History;
use nvq_core::model::top::TopSample;
use nvq_core::model::{ColumnId, Fact, ListField};
use ratatui::style::{Color, Modifier, Style};
use std::collections::HashMap;
use std::sync::Arc;

/// The history field of a GPU's used memory (bytes) and utilization (%),
/// and of a process's memory: the catalogue's ids.
pub const MEM_FIELD: ColumnId = ColumnId::Fact(Fact::MemoryUsed);
pub const UTIL_FIELD: ColumnId = ColumnId::Fact(Fact::UtilizationGpu);
pub const PROC_MEM_FIELD: ColumnId = ColumnId::List(ListField::UsedGpuMemory);

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

pub(crate) fn style(s: &Screen<'_>, colour: Color) -> Style {
    if s.ui.colour {
        Style::default().fg(colour)
    } else {
        Style::default()
    }
}

pub(crate) fn bold() -> Style {
    Style::default().add_modifier(Modifier::BOLD)
}
