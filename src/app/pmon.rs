//! `nvq pmon`: nvidia-smi's scrolling per-process monitor.

use super::monitor::{self, column, Plan, Run};
use super::plan::Common;
use crate::cli::pmon::PmonArgs;
use nvq_core::error::NvqError;
use nvq_core::render::monitor::{Layout, Slot, Zero};
use nvq_core::source::monitor::{ProcessMetric, ProcessMetric as P};
use nvq_core::source::pmon::{self, PmonReader};

/// The longest command name pmon prints: 15 characters on Linux and on
/// 610's Windows driver (`ApplicationFram`), 16 under WDDM before it (a
/// 591.86 Windows capture: `NVIDIA Share.exe`, `TextInputHost.ex`).
pub const NAME_CHARS: usize = 15;
pub const WDDM_NAME_CHARS: usize = 16;
pub fn run(a: &PmonArgs, common: &Common<'_>) -> Result<(), NvqError> {
    let plan = Plan::new(&a.monitor, common)?;
    let metrics = monitor::selected("pmon", &pmon::TABLE, a.select.as_deref())?;
    let mut columns = vec![
        monitor::key_column("index", "The GPU's index."),
        monitor::key_column("pid", "The process's ID."),
        column("type", None, "C compute, G graphics, C+G both, M MPS."),
    ];
    columns.extend(metrics.iter().map(monitor::metric_column));
    columns.push(column("command", None, "The process's name."));
    let shown = metrics.clone();
    let layout = move |driver: monitor::Driver| layout(&shown, driver);
    let run = Run {
        common,
        plan,
        columns,
        layout: &layout,
        sub_key: true,
    };
    monitor::run_readers(
        run,
        move || PmonReader::new(metrics.clone()),
        PmonReader::read,
    )
}

/// nvidia-smi's pmon columns for `metrics` on a driver of this major
/// version: from [`pmon::NEW_LAYOUT_FROM`] on with `jpg` and `ofa`.
fn layout(metrics: &[pmon::Metric], driver: monitor::Driver) -> Layout {
    let old = driver.major < pmon::NEW_LAYOUT_FROM;
    // Before 550 the header's `type` and `sm` were a character narrower
    // than their values, and the header lines had no trailing space.
    let narrow = usize::from(old);
    let mut slots = vec![
        Slot::right("gpu", "Idx", "", 4, 4),
        Slot::right("pid", "#", " ", 11, 10),
        Slot::right("type", "C/G", " ", 6 - narrow, 5),
    ];
    for m in metrics {
        let metric = m.process();
        let head = if metric == Some(P::Sm) { 6 - narrow } else { 6 };
        let mut slot = Slot::right(m.name, m.unit_label, " ", head, 6);
        slot.zero = zero_rule(metric);
        slot.hidden = old && matches!(metric, Some(P::Jpg | P::Ofa));
        slots.push(slot);
    }
    let chars = if driver.wddm && driver.major < monitor::WDDM_NAMES_NARROW_FROM {
        WDDM_NAME_CHARS
    } else {
        NAME_CHARS
    };
    let mut command = Slot::left("command", "name", "    ", chars);
    command.head_width = 0;
    command.max_chars = Some(chars);
    slots.push(command);
    Layout {
        slots,
        head_end: if old { "" } else { " " },
        data_end: "",
    }
}

/// Which zeros nvidia-smi's pmon prints as `-`, as the captures of drivers
/// 545 to 610 show: an engine column (`enc`, `dec`, `jpg`, `ofa`) at 0;
/// `sm` and `mem` when both are 0 while an engine column is not (a sample
/// of the encoder alone); a process at 0 % everywhere prints `0 0`.
fn zero_rule(metric: Option<ProcessMetric>) -> Zero {
    match metric {
        Some(P::Sm | P::Mem) => Zero::DashWhenOthersBusy(1),
        Some(P::Enc | P::Dec | P::Jpg | P::Ofa) => Zero::Dash,
        Some(P::Fb | P::Ccpm) | None => Zero::Show,
    }
}
