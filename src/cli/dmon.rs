//! `nvq dmon`'s options, spelled as nvidia-smi's `dmon` spells them.

use std::path::PathBuf;

/// Values stay text here; `app::dmon` checks them, so that every bad value
/// gets one message and exit code.
#[derive(clap::Args, Debug, Clone, Default)]
#[command(
    about = "Scrolling per-GPU monitor: one line per GPU per sample (nvidia-smi dmon).",
    after_help = "Metric groups for -s: p power and temperatures, u utilization, c clocks, \
v power and thermal violations, m FB, BAR1 and protected memory, e ECC and PCIe replay errors, \
t PCIe throughput. Example: nvq dmon -s pucvmet -c 10"
)]
pub struct DmonArgs {
    /// GPUs to watch: index, UUID or PCI bus id; comma list allowed.
    #[arg(short = 'i', long = "id", value_name = "ID")]
    pub id: Option<String>,
    /// Seconds between samples (default 1).
    #[arg(
        short = 'd',
        long = "delay",
        value_name = "SEC",
        allow_negative_numbers = true
    )]
    pub delay: Option<String>,
    /// Stop after COUNT samples.
    #[arg(
        short = 'c',
        long = "count",
        value_name = "COUNT",
        allow_negative_numbers = true
    )]
    pub count: Option<String>,
    /// Metric groups, any of p, u, c, v, m, e, t (default puc).
    #[arg(short = 's', long = "select", value_name = "GROUPS")]
    pub select: Option<String>,
    /// Add a date (D), a time (T) or both (DT) column.
    #[arg(short = 'o', long = "options", value_name = "D|T|DT")]
    pub options: Option<String>,
    /// Output format: nvidia-smi's columns by default; csv, json, ndjson, table or prometheus.
    #[arg(long, value_name = "FORMAT")]
    pub format: Option<String>,
    /// Write to FILE instead of stdout.
    #[arg(short = 'f', long = "filename", value_name = "FILE")]
    pub filename: Option<PathBuf>,
}
