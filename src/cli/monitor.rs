//! The options `dmon` and `pmon` share, spelled as nvidia-smi spells them.

use std::path::PathBuf;

/// Values stay text here; `app::monitor` checks them, so that every bad
/// value gets one message and exit code.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct MonitorArgs {
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
    /// nvq: seconds between samples, as the queries spell it (same as -d).
    #[arg(
        short = 'l',
        long = "loop",
        value_name = "SEC",
        allow_negative_numbers = true
    )]
    pub loop_sec: Option<String>,
    /// nvq: milliseconds between samples (also spelled -lms).
    #[arg(long = "loop-ms", value_name = "MS", allow_negative_numbers = true)]
    pub loop_ms: Option<String>,
    /// Stop after COUNT samples (also spelled --count).
    #[arg(
        short = 'c',
        long = "count",
        value_name = "COUNT",
        allow_negative_numbers = true
    )]
    pub count: Option<String>,
    /// Add a date (D), a time (T) or both (DT) column.
    #[arg(short = 'o', long = "options", value_name = "D|T|DT")]
    pub options: Option<String>,
    /// Output format: nvidia-smi's columns by default; csv, json, ndjson, table or prometheus
    /// (as nvidia-smi, dmon's csv[,nounit][,noheader] is nvidia-smi's own CSV).
    // (This comment is the --help text: its brackets are not doc links.)
    #[allow(rustdoc::broken_intra_doc_links)]
    #[arg(long, value_name = "FORMAT")]
    pub format: Option<String>,
    /// Write to FILE instead of stdout.
    #[arg(short = 'f', long = "filename", value_name = "FILE")]
    pub filename: Option<PathBuf>,
}

/// The monitors' spellings clap cannot read as they are (`-lms 500`).
pub const SPELLINGS: &[(&str, &str)] = &[("-lms", "--loop-ms")];
