//! The options that modes share (`app::plan::Shared`), declared once with
//! one help text each: which GPUs (`-i`), the output file (`-f`) and the
//! loop (`-l`, `-lms`, `--count`). The queries (`cli::Args`) and nvq's own
//! commands flatten them. nvidia-smi's sub-commands keep the help they had:
//! its listings (`nvlink`, `mig`, `vgpu`) share [`ShownGpus`], the monitors
//! declare theirs in `monitor.rs`, and `topo`'s `-i` (one GPU, or a pair)
//! means something else. Values stay text here; they are checked in one
//! place ([`Repeat::interval`], [`Repeat::count`], `nvml::select`).

use crate::error::NvqError;
use std::path::PathBuf;
use std::time::Duration;

/// `-i/--id`: which GPUs.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct Gpus {
    /// Target GPUs: index, UUID, PCI bus id or board serial; comma list allowed.
    #[arg(short = 'i', long = "id", value_name = "ID")]
    pub id: Option<String>,
}

/// `-i/--id` of nvidia-smi's listings (`nvlink`, `mig`, `vgpu`), in their help's words.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct ShownGpus {
    /// GPUs to show (index, UUID, PCI bus id or serial; comma list allowed).
    #[arg(short = 'i', long = "id", value_name = "ID")]
    pub id: Option<String>,
}

/// `-f/--filename`: where the output goes.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct OutFile {
    /// Write the output to FILE instead of stdout (the file is truncated first).
    #[arg(short = 'f', long = "filename", value_name = "FILE")]
    pub filename: Option<PathBuf>,
}

/// `-l/--loop`, `-lms/--loop-ms`, `--count`: repeat, and how often.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct Repeat {
    /// Repeat every SEC seconds (default 5) until Ctrl+C.
    #[arg(
        short = 'l',
        long = "loop",
        value_name = "SEC",
        num_args = 0..=1,
        default_missing_value = "5",
        allow_negative_numbers = true
    )]
    pub loop_sec: Option<String>,
    /// Repeat every MS milliseconds until Ctrl+C (also spelled -lms).
    #[arg(long = "loop-ms", value_name = "MS", allow_negative_numbers = true)]
    pub loop_ms: Option<String>,
    /// nvq: stop a loop after N samples.
    #[arg(long, value_name = "N", help_heading = "Loops (nvq)")]
    pub count: Option<String>,
}

impl Repeat {
    /// Was `-l` or `-lms` given?
    pub fn loops(&self) -> bool {
        self.loop_sec.is_some() || self.loop_ms.is_some()
    }

    /// `-l[SEC]` / `-lms MS`, checked.
    pub fn interval(&self) -> Result<Option<Duration>, NvqError> {
        super::interval::loop_interval(self.loop_sec.as_deref(), self.loop_ms.as_deref())
    }

    /// `--count N`, checked.
    pub fn count(&self) -> Result<Option<u64>, NvqError> {
        self.count.as_deref().map(super::parse_count).transpose()
    }
}
