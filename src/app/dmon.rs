//! `nvq dmon`: nvidia-smi's scrolling per-GPU monitor.

use super::monitor::{self, column, Plan, Run};
use crate::cli::dmon::DmonArgs;
use crate::error::NvqError;
use crate::nvml::LibSource;
use crate::render::monitor::{Layout, Slot};
use crate::source::dmon::{self, DmonReader};

pub fn run(a: &DmonArgs, lib: LibSource) -> Result<(), NvqError> {
    let plan = Plan::new("dmon", &a.monitor, None)?;
    let metrics = monitor::selected(
        "dmon",
        a.select.as_deref(),
        dmon::DEFAULT_GROUPS,
        dmon::GROUPS,
        dmon::select,
    )?;
    let gpm = match &a.gpm_metrics {
        Some(list) => dmon::select_gpm(list).map_err(|item| {
            NvqError::Usage(format!(
                "dmon: \"{item}\" in --gpm-metrics {list} is not a GPM metric id nvq knows (see nvq dmon --help)."
            ))
        })?,
        None => Vec::new(),
    };
    let level = dmon::GpmLevel::parse(a.gpm_options.as_deref()).ok_or_else(|| {
        NvqError::Usage(format!(
            "dmon: --gpm-options takes d, m or dm, not \"{}\".",
            a.gpm_options.as_deref().unwrap_or("")
        ))
    })?;
    let mut columns = vec![column("index", None, "The GPU's index.")];
    let mut slots = vec![Slot::right("gpu", "Idx", "", 4, 4)];
    // MIG-level GPM rows are told apart by their GPU instance (this column
    // is unverified: no public capture of it was found).
    if level.mig && !gpm.is_empty() {
        columns.push(column(
            "gi",
            None,
            "The MIG GPU instance of the row; - for the GPU's own row.",
        ));
        slots.push(Slot::right("gi", "Idx", " ", 3, 3));
    }
    for m in &metrics {
        columns.push(column(m.name, m.unit, m.help));
        slots.push(Slot::right(m.name, m.unit_label, " ", 6, 6));
    }
    for g in &gpm {
        let m = g.metric;
        columns.push(column(m.name, m.unit, m.help));
        slots.push(Slot::right(m.name, m.unit_label, " ", 10, 10));
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
    monitor::run_shared_readers(
        run,
        move || DmonReader::with_gpm(metrics.clone(), gpm.clone(), level),
        |reader, session, target, count| reader.read(session, target, count),
    )
}
