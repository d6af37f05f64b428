//! `nvq pmon`'s options, spelled as nvidia-smi's `pmon` spells them.

use std::path::PathBuf;

/// Values stay text here; `app::pmon` checks them.
#[derive(clap::Args, Debug, Clone, Default)]
#[command(
    about = "Scrolling per-process monitor: one line per process per GPU per sample (nvidia-smi pmon).",
    after_help = "Metric groups for -s: u utilization (sm, mem, enc, dec, jpg, ofa), m memory (fb, ccpm). \
Scripting: --where 'sm > 50', --summary (each process's min, max and mean; \
the peak fb is the max). Example: nvq pmon -s um -c 5"
)]
pub struct PmonArgs {
    /// GPUs to watch: index, UUID or PCI bus id; comma list allowed.
    #[arg(short = 'i', long = "id", value_name = "ID")]
    pub id: Option<String>,
    /// Seconds between samples, 1 to 10 (default 1).
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
    /// Metric groups: u, m or um (default u).
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
    /// `--where`, `--assert`, `--until`, `--summary` over pmon's columns.
    #[command(flatten)]
    pub script: super::ScriptArgs,
}
