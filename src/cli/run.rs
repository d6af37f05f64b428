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
process's peak. Exit status: the command's (128+N if it died of signal N), 127 if it is not \
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

impl RunArgs {
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
