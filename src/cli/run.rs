//! `nvq run [OPTIONS] -- CMD`: run a command and report its GPU memory
//! from start to end (nvq's own sub-command; `app::run` runs it).

use super::monitor::LOOP_SPELLINGS;
use super::shared::Gpus;
use super::sub::{Own, Refusals, Shared, SubCommand};
use crate::error::NvqError;
use std::ffi::OsString;
use std::path::PathBuf;

/// `nvq run`'s options, then the command.
#[derive(clap::Args, Debug, Clone, Default)]
#[command(
    after_help = "Starts COMMAND at once, with the terminal and its streams untouched, and \
samples the GPU memory of its whole process tree every 100 ms (-l/-lms). At the end a report goes \
to stderr: the job's peak per GPU and when, the room left then and who held the rest, each \
process's peak, whether the job leaked (after a warm-up) and, when it failed with a GPU full, that \
it ran out of memory and who held the rest. Exit status: the command's (128+N if it died of signal N), 127 if it is not \
found, 126 if it cannot be executed. SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2 and \
SIGWINCH are passed on to it. Example: nvq run -- python train.py"
)]
pub struct RunArgs {
    /// The GPUs to watch (all by default): index, UUID, PCI bus id or serial; comma list allowed.
    #[command(flatten)]
    pub gpus: Gpus,
    /// Sample every SEC seconds (default: every 100 ms).
    #[arg(
        short = 'l',
        long = "loop",
        value_name = "SEC",
        allow_negative_numbers = true
    )]
    pub loop_sec: Option<super::value::LoopSecs>,
    /// Sample every MS milliseconds (also spelled -lms; default 100).
    #[arg(long = "loop-ms", value_name = "MS", allow_negative_numbers = true)]
    pub loop_ms: Option<super::value::LoopMillis>,
    /// The end report's form: text (default) or json.
    #[arg(long, value_name = "FORM")]
    pub report: Option<String>,
    /// Write the end report to FILE instead of stderr (-f's rules for links apply).
    #[arg(long = "report-file", value_name = "FILE")]
    pub report_file: Option<PathBuf>,
    /// Write every sample to FILE as NDJSON: per GPU and process, with the GPU's totals (-f's rules apply).
    #[arg(long, value_name = "FILE")]
    pub log: Option<PathBuf>,
    /// Fail the run (exit 24) when the job's memory on a GPU passes SIZE (16GiB, 512MiB, or 50% of the GPU).
    #[arg(long, value_name = "SIZE")]
    pub budget: Option<String>,
    /// What passing --budget does: fail (once the command ended; default) or stop (SIGTERM, SIGKILL 10 s on).
    #[arg(long = "budget-action", value_name = "ACTION", requires = "budget")]
    pub budget_action: Option<String>,
    /// Ask the job's PyTorch too: allocated, cached and outside PyTorch for each process
    /// (a module on PYTHONPATH; see docs/run.md).
    #[arg(long)]
    pub torch: bool,
    /// With --torch: record PyTorch's allocator history from CUDA's start and, on an
    /// out-of-memory error, keep its snapshot in the --bundle DIR (for pytorch.org/memory_viz).
    #[arg(long = "torch-snapshot", requires = "bundle")]
    pub torch_snapshot: bool,
    /// When the command dies of out-of-memory, keep a bundle in DIR (created if missing):
    /// the last 60 s of samples, the report, the table at the peak, the XID events,
    /// --torch-snapshot's snapshots.
    #[arg(long, value_name = "DIR")]
    pub bundle: Option<PathBuf>,
    /// The leak verdict's settings (default: the whole run after a warm-up, rising for 5m, by 256MiB).
    #[command(flatten)]
    pub trend: super::trend::TrendArgs,
    /// The command to run, after `--`, with its arguments.
    #[arg(last = true, required = true, value_name = "COMMAND")]
    pub command: Vec<OsString>,
}

/// The end report's form.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReportForm {
    Text,
    Json,
}

/// `--budget`: bytes, or a share of each GPU's memory.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Budget {
    Bytes(u64),
    /// A fraction of the GPU's total (0.5 for 50%).
    Share(f64),
}

impl Budget {
    /// The budget in bytes on a GPU of `total` bytes.
    pub fn on(self, total: u64) -> u64 {
        match self {
            Budget::Bytes(b) => b,
            Budget::Share(f) => (total as f64 * f) as u64,
        }
    }

    /// Read `16GiB`, `512 MiB`, `1.5TB`, `50%`.
    pub fn parse(text: &str) -> Result<Self, NvqError> {
        let t = text.trim();
        let bad = || {
            NvqError::Usage(format!(
                "run: invalid --budget \"{}\"; give a size with its unit (16GiB, 512MiB) or a \
                 percent of the GPU (50%).",
                crate::model::suggest::clip(text)
            ))
        };
        if let Some(p) = t.strip_suffix('%') {
            let v: f64 = p.trim().parse().map_err(|_| bad())?;
            return if v.is_finite() && v > 0.0 && v <= 100.0 {
                Ok(Budget::Share(v / 100.0))
            } else {
                Err(bad())
            };
        }
        let split = t
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .ok_or_else(bad)?;
        let (num, unit) = t.split_at(split);
        let v: f64 = num.parse().map_err(|_| bad())?;
        let unit = unit.trim();
        let size = crate::model::UNITS
            .iter()
            .filter(|u| u.quantity == crate::model::Quantity::Size)
            .find(|u| u.symbol == unit)
            .or_else(|| {
                crate::model::UNITS
                    .iter()
                    .filter(|u| u.quantity == crate::model::Quantity::Size)
                    .find(|u| u.symbol.eq_ignore_ascii_case(unit))
            });
        match size {
            Some(u) if v.is_finite() && v > 0.0 => {
                let bytes = v * u.in_base;
                (bytes < u64::MAX as f64)
                    .then_some(Budget::Bytes(bytes as u64))
                    .ok_or_else(bad)
            }
            _ => Err(bad()),
        }
    }
}

/// What passing the budget does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BudgetAction {
    /// The run fails once the command has ended.
    Fail,
    /// The command is stopped at once.
    Stop,
}

impl RunArgs {
    /// `--budget` and `--budget-action`, checked.
    pub fn budget(&self) -> Result<Option<(Budget, BudgetAction)>, NvqError> {
        let Some(b) = self.budget.as_deref() else {
            return Ok(None);
        };
        let action = match self.budget_action.as_deref() {
            None | Some("fail") => BudgetAction::Fail,
            Some("stop") => BudgetAction::Stop,
            Some(other) => {
                return Err(NvqError::Usage(format!(
                    "run: \"{}\" is not a --budget-action; give fail or stop.",
                    crate::model::suggest::clip(other)
                )))
            }
        };
        Ok(Some((Budget::parse(b)?, action)))
    }

    /// `--report`, checked.
    pub fn report_form(&self) -> Result<ReportForm, NvqError> {
        match self.report.as_deref() {
            None | Some("text") => Ok(ReportForm::Text),
            Some("json") => Ok(ReportForm::Json),
            Some(other) => Err(NvqError::Usage(format!(
                "run: \"{}\" is not a report form; give --report=text or --report=json.",
                crate::model::suggest::clip(other)
            ))),
        }
    }
}

impl SubCommand for RunArgs {
    fn own(&self) -> Result<Own<'_>, NvqError> {
        Ok(Own {
            nvq_only: true,
            interval: super::value::loop_interval(self.loop_sec, self.loop_ms)?,
            ..Own::with_id(&[Shared::Id, Shared::Interval], &self.gpus.id)
        })
    }

    fn refusals() -> Option<Refusals> {
        Some(LOOP_SPELLINGS)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn budgets() {
        assert_eq!(Budget::parse("16GiB").unwrap(), Budget::Bytes(16 << 30));
        assert_eq!(Budget::parse("512 MiB").unwrap(), Budget::Bytes(512 << 20));
        assert_eq!(Budget::parse("50%").unwrap().on(80 << 30), 40 << 30);
        for bad in ["", "12", "12W", "0GiB", "150%", "x%", "GiB", "1e999GiB"] {
            assert!(Budget::parse(bad).is_err(), "{bad}");
        }
    }
}
