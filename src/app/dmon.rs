//! `nvq dmon`: nvidia-smi's scrolling per-GPU monitor.

use super::monitor::{self, Plan, Run};
use super::plan::Common;
use crate::cli::dmon::DmonArgs;
use nvq_core::error::NvqError;
use nvq_core::render::monitor::{Layout, Slot};
use nvq_core::source::dmon::{self, DmonReader};

/// Run as `nvidia-smi`, `--format csv` is nvidia-smi's own dmon CSV; run
/// as nvq, it is nvq's typed CSV (`format::Formats::Monitor`).
pub fn run(a: &DmonArgs, common: &Common<'_>) -> Result<(), NvqError> {
    let plan = Plan::new(&a.monitor, common)?;
    let metrics = monitor::selected("dmon", &dmon::TABLE, a.select.as_deref())?;
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
    let mut columns = vec![monitor::key_column("index", "The GPU's index.")];
    // MIG-level GPM rows are told apart by their GPU instance (this column
    // is unverified: no public capture of it was found).
    let mig_rows = level.mig && !gpm.is_empty();
    if mig_rows {
        columns.push(monitor::key_column(
            "gi",
            "The MIG GPU instance of the row; - for the GPU's own row.",
        ));
    }
    columns.extend(metrics.iter().map(monitor::metric_column));
    columns.extend(gpm.iter().map(|g| monitor::metric_column(&g.metric)));
    let shown = metrics.clone();
    let shown_gpm = gpm.clone();
    let layout = move |driver: monitor::Driver| layout(&shown, &shown_gpm, mig_rows, driver.major);
    let run = Run {
        common,
        plan,
        columns,
        layout: &layout,
        sub_key: mig_rows,
    };
    monitor::run_shared_readers(
        run,
        move || DmonReader::with_gpm(metrics.clone(), gpm.clone(), level),
        |reader, session, target, count| reader.read(session, target, count),
    )
}

/// nvidia-smi's dmon columns for `metrics` on a driver of this major
/// version. Before [`dmon::WIDE_LAYOUT_FROM`]: five-character columns, one
/// `temp` column (the GPU's; no memory temperature), no `jpg`, `ofa` or
/// `ccpm`, and no blank at the end of a line, as public outputs of driver
/// 352.99 show; from it on, six-character columns ending in a blank.
/// The `--gpm-metrics` columns follow, ten characters wide, after a `gi`
/// column when MIG rows are shown.
fn layout(
    metrics: &[dmon::Metric],
    gpm: &[dmon::GpmMetric],
    mig_rows: bool,
    driver: u32,
) -> Layout {
    let old = driver < dmon::WIDE_LAYOUT_FROM;
    let width = if old { 5 } else { 6 };
    let mut slots = vec![Slot::right("gpu", "Idx", "", 4, 4)];
    if mig_rows {
        slots.push(Slot::right("gi", "Idx", " ", 3, 3));
    }
    for m in metrics {
        let mut slot = Slot::right(m.name, m.unit_label, " ", width, width);
        if old {
            slot.name = if m.name == "gtemp" { "temp" } else { m.name };
            slot.hidden = matches!(m.name, "mtemp" | "jpg" | "ofa" | "ccpm");
        }
        slots.push(slot);
    }
    for g in gpm {
        slots.push(Slot::right(g.metric.name, g.metric.unit_label, " ", 10, 10));
    }
    let end = if old { "" } else { " " };
    Layout {
        slots,
        head_end: end,
        data_end: end,
    }
}
