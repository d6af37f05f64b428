//! The one plan every mode and sub-command starts from: the options they
//! all share (GPU selection, loop interval and count, output file, format,
//! the scripting flags, the NVML library), parsed and checked once, before
//! NVML is touched, whether they stand before a sub-command's name or after
//! it.
//!
//! A sub-command says which of the shared options it takes, and gives its
//! own spellings of them, in its `cli::sub::SubCommand` entry. Run as
//! `nvq`, a shared option given before the sub-command's name applies to it
//! when the sub-command takes it (`nvq -i 0,1 dmon`), and is refused with a
//! message naming it when it does not (`nvq -l 1 topo -m`). Run as
//! `nvidia-smi`, whose sub-commands only stand first, any option before the
//! name makes the name a stray word, refused as nvidia-smi refuses one.

use crate::cli::format::{Format, Formats};
use crate::cli::sub::{Own, Shared};
use crate::cli::{Args, Command};
use crate::output::{Sink, SinkMode};
use crate::script;
use crate::Personality;
use nvq_core::error::NvqError;
use nvq_core::nvml::{select, LibSource, Session};
use std::path::Path;
use std::time::Duration;

/// The options every mode shares, resolved once.
#[derive(Debug, Clone)]
pub struct Common<'a> {
    pub personality: Personality,
    pub lib: LibSource,
    pub id: Option<&'a str>,
    /// `--format`, read for what the mode prints (see [`Formats`]).
    pub format: Option<Format>,
    pub filename: Option<&'a Path>,
    /// `-l`/`-lms` (or a monitor's `-d`), checked.
    pub interval: Option<Duration>,
    /// `--count` (or a monitor's `-c`), checked; that it has a loop is the
    /// mode's to check (`--until` makes one).
    pub count: Option<u64>,
    pub script: script::Flags<'a>,
    /// `--timeout` as given, for messages.
    pub timeout: Option<&'a str>,
    /// `--hosts` and its connection options (nvq's; global).
    pub hosts: &'a crate::cli::hosts::HostsArgs,
}

impl<'a> Common<'a> {
    /// The shared options of a mode without a sub-command (a query, the
    /// summary table, `-q`, `-L`, `--version`), whose `--format` is read as
    /// `formats` says (left unread, `None`, for a mode that takes none).
    pub fn top(
        args: &'a Args,
        personality: Personality,
        formats: Option<Formats>,
    ) -> Result<Self, NvqError> {
        let format = match (args.format.as_deref(), formats) {
            (Some(text), Some(takes)) => Some(Format::parse(text, takes, personality)?),
            _ => None,
        };
        Ok(Common {
            personality,
            lib: args.lib_source(),
            id: args.gpus.id.as_deref(),
            format,
            filename: args.out.filename.as_deref(),
            interval: args.repeat.interval()?,
            count: args.repeat.count(),
            script: args.script.flags(),
            timeout: args.script.timeout.as_ref().map(|t| t.given.as_str()),
            hosts: &args.hosts,
        })
    }

    /// The shared options of a sub-command: those given after its name,
    /// and those before it that apply to it (see the module's text).
    pub fn for_command(
        args: &'a Args,
        command: &'a Command,
        personality: Personality,
    ) -> Result<Self, NvqError> {
        let name = command.name();
        let own: Own<'a> = command.spec().own()?;
        if own.nvq_only && personality == Personality::NvidiaSmi {
            // nvq's own commands are no words of nvidia-smi's.
            return Err(NvqError::UnknownOption(name.to_string()));
        }
        let before = before_command(args);
        if let Some(first) = before.first() {
            if personality == Personality::NvidiaSmi {
                // nvidia-smi knows a sub-command only as its first word.
                return Err(NvqError::UnknownOption(name.to_string()));
            }
            if let Given::Other(flag) = first {
                return Err(NvqError::Usage(format!(
                    "{flag} does not combine with {name}; run 'nvq {name} --help' for its options."
                )));
            }
        }
        let top = Common::top(args, personality, None)?;
        if let Some(s) = before.iter().find_map(|g| match g {
            Given::Shared(s) if !own.takes.contains(s) => Some(*s),
            _ => None,
        }) {
            return Err(NvqError::Usage(format!(
                "{} does not apply to {name}; run 'nvq {name} --help' for its options.",
                s.flag()
            )));
        }
        let own_script = own.script.filter(|s| s.flags().any());
        let (script, timeout) = pick(
            Shared::Script,
            name,
            &before,
            Some((top.script, top.timeout)),
            own_script.map(|s| (s.flags(), s.timeout.as_ref().map(|t| t.given.as_str()))),
        )?
        .unwrap_or_default();
        let common = Common {
            personality,
            id: pick(Shared::Id, name, &before, top.id, own.id)?,
            format: pick(
                Shared::Format,
                name,
                &before,
                args.format.as_deref(),
                own.format,
            )?
            .map(|text| Format::parse(text, own.formats.unwrap_or(Formats::Rows), personality))
            .transpose()?,
            filename: pick(Shared::Filename, name, &before, top.filename, own.filename)?,
            interval: pick(Shared::Interval, name, &before, top.interval, own.interval)?,
            count: pick(Shared::Count, name, &before, top.count, own.count)?,
            script,
            timeout,
            lib: top.lib,
            hosts: match command {
                Command::Mem(s) | Command::Ps(s) | Command::Busy(s) if s.hosts.any() => &s.hosts,
                Command::Wait(w) if w.short.hosts.any() => &w.short.hosts,
                _ => top.hosts,
            },
        };
        Ok(common)
    }

    /// Load NVML (`--nvml-lib`, `--simulate` or the system's library). A
    /// loop's stop signals are armed first, so that a stop asked while NVML
    /// loads is not lost (`schedule::signals::arm`).
    pub fn session(&self) -> Result<Session, NvqError> {
        if self.interval.is_some() {
            crate::schedule::signals::arm();
        }
        Session::open(&self.lib)
    }

    /// The GPUs `-i` selects (all without it), in NVML order.
    pub fn gpus(&self, session: &Session) -> Result<Vec<u32>, NvqError> {
        select::select(session, self.id)
    }

    /// Stdout, or the `-f` file, in `mode`.
    pub fn sink(&self, mode: SinkMode) -> Result<Sink, NvqError> {
        Sink::open_with(self.filename, mode)
    }
}

/// Shared option `s` of sub-command `name`: `top`, its value given before
/// the name, where `before` lists it, else `own`, given after the name; an
/// option given both before and after is an error.
fn pick<T>(
    s: Shared,
    name: &str,
    before: &[Given],
    top: Option<T>,
    own: Option<T>,
) -> Result<Option<T>, NvqError> {
    if !before.contains(&Given::Shared(s)) {
        return Ok(own);
    }
    if own.is_some() {
        return Err(NvqError::Usage(format!(
            "{} is given both before and after {name}; give it once.",
            s.flag()
        )));
    }
    Ok(top)
}

/// A top-level option given before a sub-command's name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Given {
    Shared(Shared),
    /// One that no sub-command takes (a query, `-q`, `-L`, ...).
    Other(&'static str),
}

/// The top-level options set while a sub-command is given: clap hands the
/// words after a sub-command's name to it, so these stood before it (the
/// NVML options, which go anywhere, are not counted).
fn before_command(args: &Args) -> Vec<Given> {
    let shared = [
        (args.gpus.id.is_some(), Shared::Id),
        (args.format.is_some(), Shared::Format),
        (args.out.filename.is_some(), Shared::Filename),
        (args.repeat.loops(), Shared::Interval),
        (args.repeat.count.is_some(), Shared::Count),
        (args.script.flags().any(), Shared::Script),
    ];
    let query = args.queries.first().map(|(m, _)| m.option());
    let other = [
        (query.is_some(), "a --query-* option"),
        (args.help_query.is_some(), "a --help-query-* option"),
        (args.query > 0, "-q/--query"),
        (args.display.is_some(), "-d/--display"),
        (args.xml > 0, "-x/--xml-format"),
        (args.dtd, "--dtd"),
        (args.unit, "-u/--unit"),
        (args.list_gpus, "-L/--list-gpus"),
        (args.version, "--version"),
    ];
    let mut out: Vec<Given> = other
        .iter()
        .filter(|(on, _)| *on)
        .map(|(_, f)| Given::Other(f))
        .collect();
    out.extend(
        shared
            .iter()
            .filter(|(on, _)| *on)
            .map(|(_, s)| Given::Shared(*s)),
    );
    out
}
