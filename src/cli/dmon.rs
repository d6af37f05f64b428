//! `nvq dmon`'s options, spelled as nvidia-smi's `dmon` spells them.

use super::monitor::MonitorArgs;

#[derive(clap::Args, Debug, Clone, Default)]
#[command(
    about = "Scrolling per-GPU monitor: one line per GPU per sample (nvidia-smi dmon).",
    after_help = "Metric groups for -s: p power and temperatures, u utilization, c clocks, \
v power and thermal violations, m FB, BAR1 and protected memory, e ECC and PCIe replay errors, \
t PCIe throughput. Example: nvq dmon -s pucvmet -c 10"
)]
pub struct DmonArgs {
    #[command(flatten)]
    pub monitor: MonitorArgs,
    /// Metric groups, any of p, u, c, v, m, e, t in the order wanted (default puc).
    #[arg(short = 's', long = "select", value_name = "GROUPS")]
    pub select: Option<String>,
}
