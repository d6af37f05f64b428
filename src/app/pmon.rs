//! `nvq pmon`: nvidia-smi's scrolling per-process monitor.

use super::monitor::{self, column, Options, Plan, Run};
use crate::cli::pmon::PmonArgs;
use crate::error::NvqError;
use crate::nvml::LibSource;
use crate::render::monitor::{Layout, Slot};
use crate::source::pmon::{self, PmonReader};
use crate::source::targets;
use std::sync::Arc;

/// nvidia-smi's pmon waits at most 10 s between samples.
pub const MAX_DELAY: u64 = 10;

/// The longest command name pmon prints.
pub const NAME_CHARS: usize = 15;

pub fn run(a: &PmonArgs, lib: LibSource) -> Result<(), NvqError> {
    let plan = Plan::new(&Options {
        command: "pmon",
        delay: a.delay.as_deref(),
        count: a.count.as_deref(),
        options: a.options.as_deref(),
        format: a.format.as_deref(),
        max_delay: Some(MAX_DELAY),
    })?;
    let letters = a.select.as_deref().unwrap_or(pmon::DEFAULT_GROUPS);
    let metrics = pmon::select(letters).map_err(|g| {
        NvqError::Usage(format!(
            "pmon: unknown metric group '{g}' in -s {letters}; choose from {}.",
            pmon::GROUPS
        ))
    })?;
    let mut columns = vec![
        column("index", None, "The GPU's index."),
        column("pid", None, "The process's ID."),
        column("type", None, "C compute, G graphics, C+G both, M MPS."),
    ];
    let mut slots = vec![
        Slot::right("gpu", "Idx", "", 4, 4),
        Slot::right("pid", "#", " ", 11, 10),
        Slot::right("type", "C/G", " ", 6, 5),
    ];
    for m in &metrics {
        columns.push(column(m.name, m.unit, m.help));
        let mut slot = Slot::right(m.name, m.unit_label, " ", 6, 6);
        slot.blank_zero = blank_zero(m.name);
        slots.push(slot);
    }
    columns.push(column("command", None, "The process's name."));
    let mut name = Slot::left("command", "name", "    ", NAME_CHARS);
    name.head_width = 0;
    name.max_chars = Some(NAME_CHARS);
    slots.push(name);
    let layout = Layout {
        slots,
        head_end: " ",
        data_end: "",
    };
    let run = Run {
        lib,
        id: a.id.as_deref(),
        filename: a.filename.as_deref(),
        plan,
        columns,
        layout,
        script: Some(a.script.flags()),
        script_timeout: a.script.timeout.as_deref(),
    };
    monitor::run(
        run,
        Arc::new(move |session, gpu, count| {
            let targets = targets(&session, &[gpu]);
            let mut reader = PmonReader::new(metrics.clone());
            Box::new(move || {
                targets
                    .iter()
                    .flat_map(|t| reader.read(&session, t, count))
                    .collect()
            })
        }),
    )
}

/// Which zeros nvidia-smi's pmon prints as `-` (seen in captures of drivers
/// 590 and 610): `sm` and `mem` together when both are 0, each engine
/// column on its own.
fn blank_zero(name: &str) -> Option<u8> {
    match name {
        "sm" | "mem" => Some(1),
        "enc" => Some(2),
        "dec" => Some(3),
        "jpg" => Some(4),
        "ofa" => Some(5),
        _ => None,
    }
}
