//! `nvq dmon`'s options, spelled as nvidia-smi's `dmon` spells them.

use super::monitor::MonitorArgs;

#[derive(clap::Args, Debug, Clone, Default)]
#[command(
    about = "Scrolling per-GPU monitor: one line per GPU per sample (nvidia-smi dmon).",
    after_help = "Metric groups for -s: p power and temperatures, u utilization, c clocks, \
v power and thermal violations, m FB, BAR1 and protected memory, e ECC and PCIe replay errors, \
t PCIe throughput. GPM metric ids for --gpm-metrics: 1 graphics, 2 SM, 3 SM occupancy, 4 integer, \
5 tensor, 6 DFMA, 7 HMMA, 9 IMMA, 10 DRAM, 11 FP64, 12 FP32, 13 FP16 activity; 20/21 PCIe TX/RX; \
30-37 NVDEC, 40-47 NVJPG, 50 NVOFA, 166-169 NVENC activity; 60/61 NVLink RX/TX, 62-97 per link \
(even RX, odd TX). Example: nvq dmon -s pucvmet -c 10"
)]
pub struct DmonArgs {
    #[command(flatten)]
    pub monitor: MonitorArgs,
    /// Metric groups, any of p, u, c, v, m, e, t in the order wanted (default puc).
    #[arg(short = 's', long = "select", value_name = "GROUPS")]
    pub select: Option<String>,
    /// GPM metrics to add, by NVML metric id, comma-separated without spaces (Hopper and later).
    #[arg(long = "gpm-metrics", value_name = "IDS")]
    pub gpm_metrics: Option<String>,
    /// Whose GPM metrics: d the GPU (default), m its MIG GPU instances, dm both.
    #[arg(long = "gpm-options", value_name = "d|m|dm")]
    pub gpm_options: Option<String>,
}
