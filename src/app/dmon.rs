//! `nvq dmon`: nvidia-smi's scrolling per-GPU monitor.

use super::monitor::{self, column, Plan, Run};
use crate::cli::dmon::DmonArgs;
use crate::error::NvqError;
use crate::nvml::LibSource;
use crate::render::monitor::{Layout, Slot};
use crate::source::dmon::{self, DmonReader};
use crate::Personality;

/// Run as `nvidia-smi` (`personality`), `--format csv` is nvidia-smi's
/// own dmon CSV; run as nvq, it is nvq's typed CSV.
pub fn run(a: &DmonArgs, lib: LibSource, personality: Personality) -> Result<(), NvqError> {
    let plan = Plan::new(
        "dmon",
        &a.monitor,
        None,
        personality == Personality::NvidiaSmi,
    )?;
    let metrics = monitor::selected(
        "dmon",
        a.select.as_deref(),
        dmon::DEFAULT_GROUPS,
        dmon::GROUPS,
        dmon::select,
    )?;
    let mut columns = vec![column("index", None, "The GPU's index.")];
    for m in &metrics {
        columns.push(column(m.name, m.unit, m.help));
    }
    let shown = metrics.clone();
    let layout = move |driver: u32| layout(&shown, driver);
    let run = Run {
        lib,
        args: &a.monitor,
        plan,
        columns,
        layout: &layout,
        script: None,
        script_timeout: None,
    };
    monitor::run_readers(
        run,
        move || DmonReader::new(metrics.clone()),
        |reader, session, target, count| vec![reader.read(session, target, count)],
    )
}

/// nvidia-smi's dmon columns for `metrics` on a driver of this major
/// version. Before [`dmon::WIDE_LAYOUT_FROM`]: five-character columns, one
/// `temp` column (the GPU's; no memory temperature), no `jpg`, `ofa` or
/// `ccpm`, and no blank at the end of a line, as public outputs of driver
/// 352.99 show; from it on, six-character columns ending in a blank.
fn layout(metrics: &[dmon::Metric], driver: u32) -> Layout {
    let old = driver < dmon::WIDE_LAYOUT_FROM;
    let width = if old { 5 } else { 6 };
    let mut slots = vec![Slot::right("gpu", "Idx", "", 4, 4)];
    for m in metrics {
        let mut slot = Slot::right(m.name, m.unit_label, " ", width, width);
        if old {
            slot.name = if m.name == "gtemp" { "temp" } else { m.name };
            slot.hidden = matches!(m.name, "mtemp" | "jpg" | "ofa" | "ccpm");
        }
        slots.push(slot);
    }
    let end = if old { "" } else { " " };
    Layout {
        slots,
        head_end: end,
        data_end: end,
    }
}
