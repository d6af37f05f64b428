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
    let mut slots = vec![Slot::right("gpu", "Idx", "", 4, 4)];
    for m in &metrics {
        columns.push(column(m.name, m.unit, m.help));
        slots.push(Slot::right(m.name, m.unit_label, " ", 6, 6));
    }
    let layout = move |_driver: u32| Layout {
        slots: slots.clone(),
        head_end: " ",
        data_end: " ",
    };
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
