//! nvq's short everyday commands (`nvq mem`, `nvq ps`, `nvq busy`,
//! `nvq wait`): each is a query declared once in `app::short`, and takes
//! the options every query takes.

use super::ScriptArgs;
use std::ffi::OsString;
use std::path::PathBuf;

/// The options of a short command: the shared ones, as the queries spell them.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct ShortArgs {
    /// GPUs: index, UUID, PCI bus id or serial; comma list allowed.
    #[arg(short = 'i', long = "id", value_name = "ID")]
    pub id: Option<String>,
    /// Output format: table, csv, json, ndjson or prometheus (default: a table on a terminal, csv into a
    /// pipe or file, or $NVQ_FORMAT).
    #[arg(long, value_name = "FORMAT")]
    pub format: Option<String>,
    /// Write to FILE instead of stdout.
    #[arg(short = 'f', long = "filename", value_name = "FILE")]
    pub filename: Option<PathBuf>,
    /// Repeat every SEC seconds (default 5).
    #[arg(
        short = 'l',
        long = "loop",
        value_name = "SEC",
        num_args = 0..=1,
        default_missing_value = "5",
        allow_negative_numbers = true
    )]
    pub loop_sec: Option<String>,
    /// Repeat every MS milliseconds (also spelled -lms).
    #[arg(long = "loop-ms", value_name = "MS", allow_negative_numbers = true)]
    pub loop_ms: Option<String>,
    /// Stop a loop after N samples.
    #[arg(long, value_name = "N")]
    pub count: Option<String>,
    #[command(flatten)]
    pub script: ScriptArgs,
}

/// `nvq wait`: the short options, then the command to run once the GPUs are free.
#[derive(clap::Args, Debug, Clone, Default)]
#[command(
    after_help = "Without --until/--until-all, waits until every selected GPU runs no compute process. \
Exit status: the command's, or 21 if --timeout runs out first (the command is not run). \
Example: nvq wait -i 1 --timeout 2h -- python train.py"
)]
pub struct WaitArgs {
    #[command(flatten)]
    pub short: ShortArgs,
    /// The command to run, after `--`, with its arguments.
    #[arg(last = true, value_name = "COMMAND")]
    pub command: Vec<OsString>,
}
