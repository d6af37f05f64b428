//! `nvq pmon`'s options, spelled as nvidia-smi's `pmon` spells them.

use super::monitor::LOOP_SPELLINGS;
use super::sub::{Own, Refusals, SubCommand};
use nvq_core::error::NvqError;

use super::monitor::{MonitorArgs, Pmon};

#[derive(clap::Args, Debug, Clone, Default)]
#[command(
    about = "Scrolling per-process monitor: one line per process per GPU per sample (nvidia-smi pmon).",
    after_help = "Metric groups for -s: u utilization (sm, mem, enc, dec, jpg, ofa), m memory (fb, ccpm). \
Scripting: --where 'sm > 50', --summary (each process's min, max and mean; \
the peak fb is the max). Example: nvq pmon -s um -c 5"
)]
pub struct PmonArgs {
    #[command(flatten)]
    pub monitor: MonitorArgs<Pmon>,
    /// Metric groups: u, m or um (default u).
    #[arg(short = 's', long = "select", value_name = "GROUPS")]
    pub select: Option<String>,
    /// `--where`, `--assert`, `--until`, `--summary` over pmon's columns.
    #[command(flatten)]
    pub script: super::ScriptArgs,
}

impl SubCommand for PmonArgs {
    fn own(&self) -> Result<Own<'_>, NvqError> {
        self.monitor.own(&self.script)
    }

    fn refusals() -> Option<Refusals> {
        Some(LOOP_SPELLINGS)
    }
}
