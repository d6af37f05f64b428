//! The options `dmon` and `pmon` share, spelled as nvidia-smi spells them.

use super::format::Formats;
use super::sub::{Own, Refusals, EVERY};
use super::value::loop_interval;
use super::ScriptArgs;
use nvq_core::error::NvqError;

use super::value::{Delay, LoopMillis, LoopSecs, Monitor, MonitorCount};
use std::path::PathBuf;

/// The options of monitor `M` (`dmon`, `pmon`): its values' messages name it.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct MonitorArgs<M: Monitor> {
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
    pub delay: Option<Delay<M>>,
    /// nvq: seconds between samples, as the queries spell it (same as -d).
    #[arg(
        short = 'l',
        long = "loop",
        value_name = "SEC",
        allow_negative_numbers = true
    )]
    pub loop_sec: Option<LoopSecs>,
    /// nvq: milliseconds between samples (also spelled -lms).
    #[arg(long = "loop-ms", value_name = "MS", allow_negative_numbers = true)]
    pub loop_ms: Option<LoopMillis>,
    /// Stop after COUNT samples (also spelled --count).
    #[arg(
        short = 'c',
        long = "count",
        value_name = "COUNT",
        allow_negative_numbers = true
    )]
    pub count: Option<MonitorCount<M>>,
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

/// The monitors' and short commands' refusals: none of their own options
/// is refused; nvidia-smi's `-lms 500` is read as `--loop-ms 500`.
pub const LOOP_SPELLINGS: Refusals = Refusals {
    lacking: &[],
    changing: &[],
    spellings: &[("-lms", "--loop-ms")],
};

/// `dmon`, as its values' messages name it.
#[derive(Debug, Clone, Default)]
pub struct Dmon;

impl Monitor for Dmon {
    const NAME: &'static str = "dmon";
    const MAX_DELAY: Option<u64> = None;
    const SMI_CSV: bool = true;
}

/// `pmon`, as its values' messages name it: nvidia-smi's pmon waits at most
/// 10 s between samples.
#[derive(Debug, Clone, Default)]
pub struct Pmon;

impl Monitor for Pmon {
    const NAME: &'static str = "pmon";
    const MAX_DELAY: Option<u64> = Some(10);
    const SMI_CSV: bool = false;
}

impl<M: Monitor> MonitorArgs<M> {
    /// The monitor's own spellings of the shared options: `-d` or
    /// `-l`/`-lms` (the interval), `-c`/`--count`, `-i`, `--format`, `-f`,
    /// and `script`, the scripting flags (a monitor takes every shared
    /// option).
    pub fn own<'a>(&'a self, script: &'a ScriptArgs) -> Result<Own<'a>, NvqError> {
        let delay = self.delay.as_ref().map(|d| d.0);
        let looped = loop_interval(self.loop_sec, self.loop_ms)?;
        if delay.is_some() && looped.is_some() {
            return Err(NvqError::Usage(format!(
                "{}: -d and -l/-lms both set the interval; give one.",
                M::NAME
            )));
        }
        Ok(Own {
            id: self.id.as_deref(),
            format: self.format.as_deref(),
            filename: self.filename.as_deref(),
            interval: delay.or(looped),
            count: self.count.as_ref().map(|c| c.0),
            takes: EVERY,
            formats: Some(Formats::Monitor {
                smi_csv: M::SMI_CSV,
            }),
            script: Some(script),
            nvq_only: false,
        })
    }
}
