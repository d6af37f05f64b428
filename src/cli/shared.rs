//! The options that modes share (`cli::sub::Shared`), declared once with
//! one help text each: which GPUs (`-i`), the output file (`-f`) and the
//! loop (`-l`, `-lms`, `--count`). The queries (`cli::Args`) and nvq's own
//! commands flatten them. nvidia-smi's sub-commands keep the help they had:
//! its listings (`nvlink`, `mig`, `vgpu`) share [`ShownGpus`], the monitors
//! declare theirs in `monitor.rs`, and `topo`'s `-i` (one GPU, or a pair)
//! means something else. The loop's values are typed by clap
//! (`cli::value`); `-i` is text, resolved against NVML by `nvml::select`.

use super::value::{Count, LoopMillis, LoopSecs};
use nvq_core::error::NvqError;
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
    pub loop_sec: Option<LoopSecs>,
    /// Repeat every MS milliseconds until Ctrl+C (also spelled -lms).
    #[arg(long = "loop-ms", value_name = "MS", allow_negative_numbers = true)]
    pub loop_ms: Option<LoopMillis>,
    /// nvq: stop a loop after N samples.
    #[arg(long, value_name = "N", help_heading = "Loops (nvq)")]
    pub count: Option<Count>,
}

impl Repeat {
    /// Was `-l` or `-lms` given?
    pub fn loops(&self) -> bool {
        self.loop_sec.is_some() || self.loop_ms.is_some()
    }

    /// `-l[SEC]` / `-lms MS` (both at once is an invalid combination).
    pub fn interval(&self) -> Result<Option<Duration>, NvqError> {
        super::value::loop_interval(self.loop_sec, self.loop_ms)
    }

    /// `--count N`.
    pub fn count(&self) -> Option<u64> {
        self.count.map(|c| c.0)
    }
}
