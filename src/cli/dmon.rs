//! `nvq dmon`'s options, spelled as nvidia-smi's `dmon` spells them.

use super::monitor::LOOP_SPELLINGS;
use super::sub::{Own, Refusals, SubCommand};
use nvq_core::error::NvqError;

use super::monitor::{Dmon, MonitorArgs};

#[derive(clap::Args, Debug, Clone, Default)]
#[command(
    about = "Scrolling per-GPU monitor: one line per GPU per sample (nvidia-smi dmon).",
    after_help = "Metric groups for -s: p power and temperatures, u utilization, c clocks, \
v power and thermal violations, m FB, BAR1 and protected memory, e ECC and PCIe replay errors, \
t PCIe throughput. Scripting: --where 'sm > 50', --until 'sm < 5', --summary (each GPU's \
min, max and mean). Example: nvq dmon -s pucvmet -c 10"
)]
pub struct DmonArgs {
    #[command(flatten)]
    pub monitor: MonitorArgs<Dmon>,
    /// Metric groups, any of p, u, c, v, m, e, t in the order wanted (default puc).
    #[arg(short = 's', long = "select", value_name = "GROUPS")]
    pub select: Option<String>,
    /// GPM metrics to add, by NVML metric id, comma-separated without spaces (Hopper and later).
    #[arg(long = "gpm-metrics", value_name = "IDS")]
    pub gpm_metrics: Option<String>,
    /// Whose GPM metrics: d the GPU (default), m its MIG GPU instances, dm both.
    #[arg(long = "gpm-options", value_name = "d|m|dm")]
    pub gpm_options: Option<String>,
    /// `--where`, `--assert`, `--until`, `--summary` over dmon's columns.
    #[command(flatten)]
    pub script: super::ScriptArgs,
}

/// `--gpm-metrics`'s long help: the ids and columns of dmon's GPM table.
pub fn gpm_metrics_help() -> String {
    let ids: Vec<String> = nvq_core::source::dmon::GPM_METRICS
        .iter()
        .map(|g| format!("{} {}", g.id, g.metric.name))
        .collect();
    format!(
        "GPM metrics to add, by NVML metric id, comma-separated without spaces (Hopper and later). \
         Ids and their columns: {}.",
        ids.join(", ")
    )
}

impl SubCommand for DmonArgs {
    fn own(&self) -> Result<Own<'_>, NvqError> {
        self.monitor.own(&self.script)
    }

    fn refusals() -> Option<Refusals> {
        Some(LOOP_SPELLINGS)
    }
}
