//! `nvq dmon`: nvidia-smi's scrolling per-GPU monitor.

use super::monitor::{self, column, Options, Plan, Run};
use crate::cli::dmon::DmonArgs;
use crate::error::NvqError;
use crate::nvml::LibSource;
use crate::render::monitor::{Layout, Slot};
use crate::source::dmon::{self, DmonReader};
use crate::source::targets;
use std::sync::Arc;

pub fn run(a: &DmonArgs, lib: LibSource) -> Result<(), NvqError> {
    let plan = Plan::new(&Options {
        command: "dmon",
        delay: a.delay.as_deref(),
        count: a.count.as_deref(),
        options: a.options.as_deref(),
        format: a.format.as_deref(),
        max_delay: None,
    })?;
    let letters = a.select.as_deref().unwrap_or(dmon::DEFAULT_GROUPS);
    let metrics = dmon::select(letters).map_err(|g| {
        NvqError::Usage(format!(
            "dmon: unknown metric group '{g}' in -s {letters}; choose from {}.",
            dmon::GROUPS
        ))
    })?;
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
        id: a.id.as_deref(),
        filename: a.filename.as_deref(),
        plan,
        columns,
        layout: &layout,
        script: None,
        script_timeout: None,
    };
    monitor::run(
        run,
        Arc::new(move |session, gpu, count| {
            let targets = targets(&session, &[gpu]);
            let mut reader = DmonReader::new(metrics.clone());
            Box::new(move || {
                targets
                    .iter()
                    .map(|t| reader.read(&session, t, count))
                    .collect()
            })
        }),
    )
}
