//! What nvq knows of a sub-command beside its clap options ([`SubCommand`]):
//! whether it is nvq's own, which of the shared options it takes and its
//! own spellings of them ([`Own`]), and what it refuses ([`Refusals`]). Each
//! sub-command's file of `cli/` implements it; `cli::command` lists them.

use super::format::Formats;
use super::ScriptArgs;
use nvq_core::error::NvqError;
use std::path::Path;
use std::time::Duration;

/// An option every mode may share.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shared {
    /// `-i/--id`: which GPUs.
    Id,
    /// `--format`.
    Format,
    /// `-f/--filename`.
    Filename,
    /// `-l/--loop`, `-lms/--loop-ms` (dmon and pmon: also `-d`).
    Interval,
    /// `--count` (dmon and pmon: also `-c`).
    Count,
    /// `--where`, `--assert`, `--until`, `--until-all`, `--timeout`, `--summary`.
    Script,
}

impl Shared {
    /// How messages name the option.
    pub fn flag(self) -> &'static str {
        match self {
            Shared::Id => "-i/--id",
            Shared::Format => "--format",
            Shared::Filename => "-f/--filename",
            Shared::Interval => "-l/--loop (or -lms)",
            Shared::Count => "--count",
            Shared::Script => "the scripting flags (--where, --assert, --until, --summary)",
        }
    }
}

/// Every shared option: what the monitors and the short commands take.
pub const EVERY: &[Shared] = &[
    Shared::Id,
    Shared::Format,
    Shared::Filename,
    Shared::Interval,
    Shared::Count,
    Shared::Script,
];

/// What a sub-command takes of the shared options, and what it gives of
/// them after its name (`app::plan::Common` puts them together with those
/// given before it).
#[derive(Debug, Default, Clone)]
pub struct Own<'a> {
    /// nvq's own sub-command, no word of nvidia-smi's: under the name
    /// `nvidia-smi` it is an unknown option.
    pub nvq_only: bool,
    pub takes: &'static [Shared],
    /// The `--format` values it takes, if it takes `--format`.
    pub formats: Option<Formats>,
    pub id: Option<&'a str>,
    pub format: Option<&'a str>,
    pub filename: Option<&'a Path>,
    /// Read by clap (`-d`, or `-l`/`-lms` after the name).
    pub interval: Option<Duration>,
    pub count: Option<u64>,
    pub script: Option<&'a ScriptArgs>,
}

impl<'a> Own<'a> {
    /// A sub-command that takes `takes` of the shared options and gives `-i`
    /// (`id`) after its name, nothing else yet.
    pub fn with_id(takes: &'static [Shared], id: &'a Option<String>) -> Self {
        Own {
            takes,
            id: id.as_deref(),
            ..Own::default()
        }
    }
}

/// nvidia-smi's options that a sub-command refuses or respells, applied
/// to the words after its name before clap reads them.
#[derive(Debug, Clone, Copy, Default)]
pub struct Refusals {
    /// Options nvidia-smi has that nvq lacks (exit 2, "does not implement").
    pub lacking: &'static [&'static str],
    /// Options that would change the GPU's state (exit 2, nvq only reads).
    pub changing: &'static [&'static str],
    /// nvidia-smi's spellings that clap cannot read as they are, and what
    /// they become (`-lms` → `--loop-ms`).
    pub spellings: &'static [(&'static str, &'static str)],
}

impl Refusals {
    /// nvidia-smi's options that nvq lacks, those that change state, and
    /// the spellings to rewrite.
    pub const fn of(
        lacking: &'static [&'static str],
        changing: &'static [&'static str],
        spellings: &'static [(&'static str, &'static str)],
    ) -> Self {
        Refusals {
            lacking,
            changing,
            spellings,
        }
    }
}

/// What nvq knows of a sub-command beside its clap options: one `impl` per
/// arguments type, in the sub-command's file of `cli/`.
pub trait SubCommand {
    /// Whether it is nvq's own, which of the shared options it takes, and
    /// its own values of them.
    fn own(&self) -> Result<Own<'_>, NvqError>;

    /// What it refuses or respells after its name (`None`: the words after
    /// its name are read as the top level's are).
    fn refusals() -> Option<Refusals>
    where
        Self: Sized,
    {
        None
    }
}
