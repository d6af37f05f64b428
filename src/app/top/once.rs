//! `nvq top --once`: one frame, as plain text.

use super::collector::Collector;
use super::marks::{record, HISTORY_CAP};
use super::options::Plan;
use crate::schedule::deadline;
use crate::tui::state::Ui;
use crate::tui::view::{self, Screen};
use nvq_core::error::NvqError;
use nvq_core::model::history::History;
use std::collections::HashMap;
use std::time::{Duration, Instant};

/// `--once`: one frame, as plain text, the size of the terminal (80×24
/// when there is none).
pub(super) fn once(plan: &Plan, collector: &mut Collector, title: &str) -> Result<(), NvqError> {
    let limit = deadline::limit_for(Duration::from_millis(plan.interval_ms));
    let sample = collector.sample(Instant::now() + limit);
    let mut history = History::new(HISTORY_CAP);
    record(&mut history, &sample);
    let (w, h) = ratatui::crossterm::terminal::size().unwrap_or((80, 24));
    let ui = Ui::new(plan.interval_ms, false);
    let (leaks, full) = (HashMap::new(), HashMap::new());
    let screen = Screen {
        sample: &sample,
        history: &history,
        leaks: &leaks,
        gpu_full_s: &full,
        ui: &ui,
        title,
    };
    let area = ratatui::layout::Rect::new(0, 0, w.max(40), h.max(12));
    let mut buf = ratatui::buffer::Buffer::empty(area);
    view::render(&screen, area, &mut buf);
    crate::output::Sink::stdout().write(crate::tui::buffer_text(&buf).as_bytes())
}
