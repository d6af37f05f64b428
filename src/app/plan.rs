//! The one plan every mode and sub-command starts from: the options they
//! all share (GPU selection, loop interval and count, output file, format,
//! the scripting flags, the NVML library), parsed and checked once, before
//! NVML is touched, whether they stand before a sub-command's name or after
//! it.
//!
//! A sub-command says which of the shared options it takes, and gives its
//! own spellings of them, in `own` (one arm per sub-command). Run as
//! `nvq`, a shared option given before the sub-command's name applies to it
//! when the sub-command takes it (`nvq -i 0,1 dmon`), and is refused with a
//! message naming it when it does not (`nvq -l 1 topo -m`). Run as
//! `nvidia-smi`, whose sub-commands only stand first, any option before the
//! name makes the name a stray word, refused as nvidia-smi refuses one.

use crate::cli::short::ShortArgs;
use crate::cli::top::TopArgs;
use crate::cli::MonitorArgs;
use crate::cli::{self, Args, Command, ScriptArgs};
use crate::error::NvqError;
use crate::nvml::{select, LibSource, Session};
use crate::output::{Sink, SinkMode};
use crate::script;
use crate::Personality;
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

/// What a sub-command gives of the shared options after its name, and which
/// of them it takes at all.
#[derive(Debug, Default, Clone)]
pub struct Own<'a> {
    pub takes: &'static [Shared],
    pub id: Option<&'a str>,
    pub format: Option<&'a str>,
    pub filename: Option<&'a Path>,
    /// Already parsed (dmon's `-d`, or `-l`/`-lms` after the name).
    pub interval: Option<Duration>,
    pub count: Option<u64>,
    pub script: Option<&'a ScriptArgs>,
}

impl<'a> Own<'a> {
    /// A sub-command that takes `takes` of the shared options and gives `-i`
    /// (`id`) after its name, nothing else yet.
    fn with_id(takes: &'static [Shared], id: &'a Option<String>) -> Self {
        Own {
            takes,
            id: id.as_deref(),
            ..Own::default()
        }
    }
}

/// The options every mode shares, resolved once.
#[derive(Debug, Clone)]
pub struct Common<'a> {
    pub personality: Personality,
    pub lib: LibSource,
    pub id: Option<&'a str>,
    pub format: Option<&'a str>,
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
    pub hosts: &'a cli::hosts::HostsArgs,
}

impl<'a> Common<'a> {
    /// The shared options of a mode without a sub-command (a query, the
    /// summary table, `-q`, `-L`, `--version`).
    pub fn top(args: &'a Args, personality: Personality) -> Result<Self, NvqError> {
        Ok(Common {
            personality,
            lib: args.lib_source(),
            id: args.gpus.id.as_deref(),
            format: args.format.as_deref(),
            filename: args.out.filename.as_deref(),
            interval: args.repeat.interval()?,
            count: args.repeat.count()?,
            script: args.script.flags(),
            timeout: args.script.timeout.as_deref(),
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
        let name = command_name(command);
        let nvq_only = matches!(
            command,
            Command::Mem(_)
                | Command::Ps(_)
                | Command::Busy(_)
                | Command::Wait(_)
                | Command::Stat(_)
                | Command::Top(_)
        );
        if nvq_only && personality == Personality::NvidiaSmi {
            // nvq's own short commands are no words of nvidia-smi's.
            return Err(NvqError::UnknownOption(name.to_string()));
        }
        let own = own(command)?;
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
        let top = Common::top(args, personality)?;
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
            own_script.map(|s| (s.flags(), s.timeout.as_deref())),
        )?
        .unwrap_or_default();
        let common = Common {
            personality,
            id: pick(Shared::Id, name, &before, top.id, own.id)?,
            format: pick(Shared::Format, name, &before, top.format, own.format)?,
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

/// A sub-command's name, as typed.
pub fn command_name(command: &Command) -> &'static str {
    match command {
        Command::Dmon(_) => "dmon",
        Command::Pmon(_) => "pmon",
        Command::Topo(_) => "topo",
        Command::Nvlink(_) => "nvlink",
        Command::Mig(_) => "mig",
        Command::Vgpu(_) => "vgpu",
        Command::Serve(_) => "serve",
        Command::Top(_) => "top",
        Command::Plot(_) => "plot",
        Command::Mem(_) => "mem",
        Command::Ps(_) => "ps",
        Command::Busy(_) => "busy",
        Command::Wait(_) => "wait",
        Command::Stat(_) => "stat",
    }
}

/// What each sub-command takes of the shared options, and its own values
/// of them. A new sub-command adds one arm here.
fn own(command: &Command) -> Result<Own<'_>, NvqError> {
    use Shared::*;
    Ok(match command {
        Command::Dmon(a) => Own {
            takes: &[Id, Format, Filename, Interval, Count, Script],
            script: Some(&a.script),
            ..monitor_own("dmon", &a.monitor, None)?
        },
        Command::Pmon(a) => Own {
            takes: &[Id, Format, Filename, Interval, Count, Script],
            script: Some(&a.script),
            ..monitor_own("pmon", &a.monitor, Some(PMON_MAX_DELAY))?
        },
        Command::Topo(t) => Own {
            format: t.format.as_deref(),
            ..Own::with_id(&[Id, Format, Filename], &t.id)
        },
        Command::Nvlink(n) => Own::with_id(&[Id, Filename], &n.gpus.id),
        Command::Mig(m) => Own {
            format: m.format.as_deref(),
            ..Own::with_id(&[Id, Format, Filename], &m.gpus.id)
        },
        Command::Vgpu(v) => Own::with_id(&[Id, Filename], &v.gpus.id),
        Command::Serve(s) => Own::with_id(&[Id], &s.gpus.id),
        Command::Top(t) => Own {
            interval: top_interval(t)?,
            ..Own::with_id(&[Id, Interval], &t.gpus.id)
        },
        // A log in, a picture out: no GPU, no loop, no format.
        Command::Plot(_) => Own::default(),
        Command::Mem(s) | Command::Ps(s) | Command::Busy(s) => short_own(s)?,
        Command::Wait(w) => short_own(&w.short)?,
        Command::Stat(s) => Own {
            filename: s.out.filename.as_deref(),
            ..Own::with_id(&[Id, Filename], &s.gpus.id)
        },
    })
}

/// nvidia-smi's pmon waits at most 10 s between samples.
pub const PMON_MAX_DELAY: u64 = 10;

/// A monitor's own spellings of the shared options: `-d` or `-l`/`-lms`
/// (the interval), `-c`/`--count`, `-i`, `--format`, `-f`.
fn monitor_own<'a>(
    cmd: &str,
    o: &'a MonitorArgs,
    max_delay: Option<u64>,
) -> Result<Own<'a>, NvqError> {
    let delay = match o.delay.as_deref() {
        None => None,
        Some(d) => {
            let max = max_delay.unwrap_or(u64::MAX);
            match d.trim().parse::<u64>() {
                Ok(n) if (1..=max).contains(&n) => Some(Duration::from_secs(n)),
                _ => {
                    let range = match max_delay {
                        Some(m) => format!("a whole number of seconds from 1 to {m}"),
                        None => "a whole number of seconds, 1 or more".to_string(),
                    };
                    return Err(NvqError::Usage(format!(
                        "{cmd}: invalid delay \"{d}\" for -d; give {range}."
                    )));
                }
            }
        }
    };
    let looped = cli::loop_interval(o.loop_sec.as_deref(), o.loop_ms.as_deref())?;
    if delay.is_some() && looped.is_some() {
        return Err(NvqError::Usage(format!(
            "{cmd}: -d and -l/-lms both set the interval; give one."
        )));
    }
    let count = match o.count.as_deref() {
        None => None,
        Some(c) => match c.trim().parse::<u64>() {
            Ok(n) if n >= 1 => Some(n),
            _ => {
                return Err(NvqError::Usage(format!(
                "{cmd}: invalid count \"{c}\" for -c; give a whole number of samples, 1 or more."
            )))
            }
        },
    };
    Ok(Own {
        id: o.id.as_deref(),
        format: o.format.as_deref(),
        filename: o.filename.as_deref(),
        interval: delay.or(looped),
        count,
        ..Default::default()
    })
}

/// `top --interval` (or `-d`), checked: 0.1 s to 10 s.
pub(super) fn top_interval(a: &TopArgs) -> Result<Option<Duration>, NvqError> {
    a.interval
        .as_deref()
        .map(|s| {
            parse_seconds(s)
                .map(|secs| Duration::from_millis((secs * 1000.0).round() as u64))
                .ok_or_else(|| bad_interval(s))
        })
        .transpose()
}

pub(super) fn bad_interval(s: &str) -> NvqError {
    NvqError::Usage(format!(
        "top: invalid interval \"{s}\" for --interval; give seconds from 0.1 to 10 (e.g. 0.5, 2, 500ms)."
    ))
}

/// `1`, `0.5`, `2s`, `500ms`: seconds.
pub(super) fn parse_seconds(s: &str) -> Option<f64> {
    let s = s.trim();
    let (num, scale) = if let Some(n) = s.strip_suffix("ms") {
        (n, 0.001)
    } else if let Some(n) = s.strip_suffix('s') {
        (n, 1.0)
    } else {
        (s, 1.0)
    };
    let v: f64 = num.trim().parse().ok()?;
    (v.is_finite() && v >= 0.0).then_some(v * scale)
}

/// A short command's values of the shared options (it takes them all).
fn short_own(s: &ShortArgs) -> Result<Own<'_>, NvqError> {
    use Shared::*;
    Ok(Own {
        takes: &[Id, Format, Filename, Interval, Count, Script],
        id: s.gpus.id.as_deref(),
        format: s.format.as_deref(),
        filename: s.out.filename.as_deref(),
        interval: s.repeat.interval()?,
        count: s.repeat.count()?,
        script: Some(&s.script),
    })
}
