//! nvq's short everyday commands (`nvq mem`, `nvq ps`, `nvq busy`,
//! `nvq wait`): each is a query declared once in `app::short`, and takes
//! the options every query takes.

use super::format::Formats;
use super::monitor::LOOP_SPELLINGS;
use super::sub::{Own, Refusals, Shared, SubCommand, EVERY};
use nvq_core::error::NvqError;

use super::shared::{Gpus, OutFile, Repeat};
use super::ScriptArgs;
use std::ffi::OsString;

/// The options of a short command: the shared ones, as the queries spell them.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct ShortArgs {
    #[command(flatten)]
    pub gpus: Gpus,
    /// Output format: table, csv, json, ndjson or prometheus (default: a table on a terminal, csv into a
    /// pipe or file, or $NVQ_FORMAT).
    #[arg(long, value_name = "FORMAT")]
    pub format: Option<String>,
    #[command(flatten)]
    pub out: OutFile,
    #[command(flatten, next_help_heading = "Loops (nvq)")]
    pub repeat: Repeat,
    #[command(flatten)]
    pub script: ScriptArgs,
    #[command(flatten)]
    pub hosts: super::hosts::HostsArgs,
}

/// `nvq wait`: the short options, then the command to run once the GPUs are free.
#[derive(clap::Args, Debug, Clone, Default)]
#[command(
    after_help = "Without --until/--until-all, waits until every selected GPU runs no compute process. \
Exit status: the command's (128+N if it died of signal N), 21 if --timeout runs out first, \
128+N if signal N stops the wait (the command is not run then), 127 if it is not found, 126 if it \
cannot be executed. While it runs, SIGINT, SIGTERM and SIGHUP are passed on to it. \
Example: nvq wait -i 1 --timeout 2h -- python train.py"
)]
pub struct WaitArgs {
    #[command(flatten)]
    pub short: ShortArgs,
    /// The command to run, after `--`, with its arguments.
    #[arg(last = true, value_name = "COMMAND")]
    pub command: Vec<OsString>,
}

/// `nvq stat`: one line per GPU with its processes.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct StatArgs {
    #[command(flatten)]
    pub gpus: Gpus,
    #[command(flatten)]
    pub out: OutFile,
}

impl SubCommand for ShortArgs {
    /// A short command takes every shared option.
    fn own(&self) -> Result<Own<'_>, NvqError> {
        Ok(Own {
            nvq_only: true,
            takes: EVERY,
            formats: Some(Formats::Rows),
            id: self.gpus.id.as_deref(),
            format: self.format.as_deref(),
            filename: self.out.filename.as_deref(),
            interval: self.repeat.interval()?,
            count: self.repeat.count(),
            script: Some(&self.script),
        })
    }

    fn refusals() -> Option<Refusals> {
        Some(LOOP_SPELLINGS)
    }
}

impl SubCommand for WaitArgs {
    fn own(&self) -> Result<Own<'_>, NvqError> {
        self.short.own()
    }

    fn refusals() -> Option<Refusals> {
        Some(LOOP_SPELLINGS)
    }
}

impl SubCommand for StatArgs {
    fn own(&self) -> Result<Own<'_>, NvqError> {
        Ok(Own {
            nvq_only: true,
            filename: self.out.filename.as_deref(),
            ..Own::with_id(&[Shared::Id, Shared::Filename], &self.gpus.id)
        })
    }
}
