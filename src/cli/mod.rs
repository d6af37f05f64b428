//! Command-line parsing: nvidia-smi's options (with its quirks, such as the
//! multi-letter short option `-lms`) plus nvq's extensions.

pub mod command;
pub mod dmon;
pub mod format;
pub mod hosts;
pub mod mig;
mod monitor;
pub mod nvlink;
pub mod plot;
pub mod pmon;
pub mod run;
pub mod serve;
pub mod shared;
pub mod short;
pub mod sub;
pub mod top;
pub mod topo;
pub mod trend;
pub mod value;
pub mod vgpu;

pub use command::Command;
pub use monitor::MonitorArgs;

pub use serve::ServeArgs;

use nvq_core::error::NvqError;
use nvq_core::source::QueryMode;
use std::ffi::OsString;
use std::path::PathBuf;

/// nvq's arguments. Values are kept as text here and validated by the
/// library, so that every bad value gets nvidia-smi's message and exit code.
#[derive(clap::Args, Debug, Default, Clone)]
#[command(
    name = "nvq",
    about = "A fast, scriptable, nvidia-smi-compatible GPU query tool.",
    disable_version_flag = true,
    no_binary_name = true,
    after_help = "Field lists: --help-query-gpu, --help-query-compute-apps, ... Exit codes: see `man nvq`.\n\
No GPU? --simulate loads nvq's NVML simulator; NVML_SIM_SCENARIO=FILE.toml picks the GPUs it shows \
(or a built-in machine: dgx_h100_8gpu, pcie_8gpu_2numa)."
)]
pub struct Args {
    /// The `--query-*` options given, with their field lists (arguments
    /// generated from [`QueryMode::ALL`]; see [`command()`]).
    #[arg(skip)]
    pub queries: Vec<(QueryMode, String)>,
    /// The `--help-query-*` option given, if any.
    #[arg(skip)]
    pub help_query: Option<QueryMode>,

    /// Output format: csv[,noheader][,nounits] (mandatory with a query); nvq also
    /// offers json, ndjson, table[,noheader][,nounits] and prometheus.
    // (This comment is the --help text: its brackets are not doc links.)
    #[allow(rustdoc::broken_intra_doc_links)]
    #[arg(long, value_name = "FORMAT", help_heading = "Selective query")]
    pub format: Option<String>,
    /// `-i`, `-f`, `-l`, `-lms`, `--count` (clap keeps the heading for the
    /// three; `--count` has its own).
    #[command(flatten, next_help_heading = "Selective query")]
    pub gpus: shared::Gpus,
    #[command(flatten)]
    pub out: shared::OutFile,
    #[command(flatten)]
    pub repeat: shared::Repeat,

    /// `--where`, `--assert`, `--until`, `--until-all`, `--timeout`, `--summary`.
    #[command(flatten)]
    pub script: ScriptArgs,

    /// Print the detail report of the GPUs (also spelled -a); -d limits it to some sections.
    #[arg(
        short = 'q',
        long = "query",
        short_alias = 'a',
        action = clap::ArgAction::Count,
        help_heading = "Detail report"
    )]
    pub query: u8,
    /// With -q: only these sections (MEMORY, UTILIZATION, ECC, TEMPERATURE, POWER, CLOCK, ...; any case).
    #[arg(
        short = 'd',
        long = "display",
        value_name = "TYPE[,TYPE]",
        value_parser = display_values(),
        value_delimiter = ',',
        ignore_case = true,
        help_heading = "Detail report"
    )]
    pub display: Option<Vec<String>>,
    /// With -q: the report as XML, in the element layout of the driver's DTD.
    #[arg(
        short = 'x',
        long = "xml-format",
        action = clap::ArgAction::Count,
        help_heading = "Detail report"
    )]
    pub xml: u8,
    /// With -q -x: embed a DTD of the document; alone: print that DTD and exit.
    #[arg(long, help_heading = "Detail report")]
    pub dtd: bool,
    /// With -q: report the S-class units (enclosures) instead of the GPUs; -i picks a unit.
    #[arg(short = 'u', long = "unit", help_heading = "Detail report")]
    pub unit: bool,

    /// Print one line per GPU: index, name and UUID (MIG devices below their GPU).
    #[arg(short = 'L', long = "list-gpus", help_heading = "Summary")]
    pub list_gpus: bool,
    /// Print nvq's version with the NVML, driver and CUDA versions (as nvidia-smi: its banner).
    #[arg(long, help_heading = "Summary")]
    pub version: bool,

    /// `--hosts` and how to reach the nodes.
    #[command(flatten)]
    pub hosts: hosts::HostsArgs,

    /// nvq: load this NVML library instead of libnvidia-ml.so.1.
    #[arg(
        long = "nvml-lib",
        env = NVML_LIB_ENV,
        value_name = "PATH",
        global = true,
        help_heading = "NVML (nvq)"
    )]
    pub nvml_lib: Option<PathBuf>,
    /// nvq: load the NVML simulator installed next to nvq (no GPU needed).
    #[arg(long, global = true, help_heading = "NVML (nvq)")]
    pub simulate: bool,

    /// nvidia-smi's sub-commands (`dmon`, `pmon`, `topo`, `nvlink`, `mig`).
    #[command(subcommand)]
    pub command: Option<Command>,
}

/// nvq's scripting flags, shared by the queries and `pmon`, all under one
/// help heading. clap leaves that heading set after the flattened flags:
/// an option declared after them needs a `help_heading` of its own.
#[derive(clap::Args, Debug, Default, Clone)]
#[command(next_help_heading = "Scripting (nvq)")]
pub struct ScriptArgs {
    /// nvq: print only the rows for which EXPR holds, e.g. 'memory.free >= 20GiB && utilization.gpu < 10'.
    #[arg(long = "where", value_name = "EXPR", allow_hyphen_values = true)]
    pub where_expr: Option<String>,
    /// nvq: check every row against EXPR; if a row fails, print as usual, say why on stderr and exit 20.
    #[arg(long = "assert", value_name = "EXPR", allow_hyphen_values = true)]
    pub assert_expr: Option<String>,
    /// nvq: loop (every second unless -l/-lms is given) until EXPR holds for at least one row.
    #[arg(long, value_name = "EXPR", allow_hyphen_values = true)]
    pub until: Option<String>,
    /// nvq: like --until, but EXPR must hold for every row.
    #[arg(long = "until-all", value_name = "EXPR", allow_hyphen_values = true)]
    pub until_all: Option<String>,
    /// nvq: give up waiting for --until after DURATION (500ms, 30s, 5m, 1h) and exit 21.
    #[arg(long, value_name = "DURATION")]
    pub timeout: Option<value::Span>,
    /// nvq: when the run ends, print each GPU's (pmon: each process's) min, max and mean of every column.
    #[arg(long)]
    pub summary: bool,
    /// nvq: keep the last N samples of each GPU for rate(), time_to_full() and --summary's trends (default 3600).
    #[arg(long, value_name = "N")]
    pub history: Option<usize>,
    #[command(flatten)]
    pub trend: trend::TrendArgs,
}

impl ScriptArgs {
    /// The flags as the scripting language takes them.
    pub fn flags(&self) -> crate::script::Flags<'_> {
        crate::script::Flags {
            where_: self.where_expr.as_deref(),
            assert: self.assert_expr.as_deref(),
            until: self.until.as_deref(),
            until_all: self.until_all.as_deref(),
            timeout: self.timeout.as_ref().map(|t| t.duration),
            summary: self.summary,
            history: self.history,
            trend_window: self.trend.window(),
            rising_for: self.trend.rising(),
            min_rise: self.trend.min_rise,
        }
    }
}

impl Args {
    /// The scripting flags (`--where`, `--assert`, `--until`, ...).
    pub fn script_flags(&self) -> crate::script::Flags<'_> {
        self.script.flags()
    }

    /// Which NVML library to load.
    pub fn lib_source(&self) -> nvq_core::nvml::LibSource {
        use nvq_core::nvml::LibSource;
        if self.simulate {
            LibSource::Simulator
        } else if let Some(p) = &self.nvml_lib {
            LibSource::Path(p.clone())
        } else {
            LibSource::System
        }
    }
}

/// The `-d` types, for completion; any case is accepted and checked later.
fn display_values() -> clap::builder::PossibleValuesParser {
    let names = nvq_core::source::report::DISPLAY_NAMES
        .iter()
        .map(|(_, n)| *n);
    clap::builder::PossibleValuesParser::new(names)
}

/// The clap id of a mode's `--help-query-*` flag.
fn help_id(mode: QueryMode) -> String {
    format!("help-{}", mode.option())
}

/// nvq's command line: [`Args`] plus one `--query-X=FIELDS` option and one
/// `--help-query-X` flag per query mode, from the mode table.
pub fn command() -> clap::Command {
    // The mode options first, so that `--help` lists them at the head of
    // their section; the `--help-query-*` flags come after the derived ones.
    // nvidia-smi has no `help` sub-command; `nvq dmon -h` names itself `nvq dmon`.
    let mut cmd = clap::Command::new("nvq")
        .bin_name("nvq")
        .disable_help_subcommand(true);
    for mode in QueryMode::ALL {
        let def = mode.def();
        cmd = cmd.arg(
            clap::Arg::new(def.option)
                .long(def.option)
                .value_name("FIELDS")
                .help(def.about)
                .help_heading("Selective query"),
        );
    }
    let mut cmd = <Args as clap::Args>::augment_args(cmd);
    for mode in QueryMode::ALL {
        cmd = cmd.arg(
            clap::Arg::new(help_id(mode))
                .long(help_id(mode))
                .action(clap::ArgAction::SetTrue)
                .help(format!("Describe every --{} field", mode.option()))
                .help_heading("Field help"),
        );
    }
    // dmon's GPM ids come from its table; pmon's delay has a limit.
    cmd = cmd.mut_subcommand("dmon", |d| {
        d.mut_arg("gpm_metrics", |a| {
            a.long_help(self::dmon::gpm_metrics_help())
        })
    });
    cmd = cmd.mut_subcommand("pmon", |d| {
        d.mut_arg("delay", |a| {
            a.help("Seconds between samples, 1 to 10 (default 1).")
        })
    });
    // The NVML section stays last.
    for id in ["nvml_lib", "simulate"] {
        cmd = cmd.mut_arg(id, |a| a.display_order(usize::MAX));
    }
    cmd
}

/// [`Args`] from clap's matches, with the mode options read from the table.
fn args_from(m: &clap::ArgMatches) -> Result<Args, clap::Error> {
    let mut args = <Args as clap::FromArgMatches>::from_arg_matches(m)?;
    args.queries = QueryMode::ALL
        .into_iter()
        .filter_map(|mode| {
            m.get_one::<String>(mode.option())
                .map(|v| (mode, v.clone()))
        })
        .collect();
    args.help_query = QueryMode::ALL
        .into_iter()
        .find(|&mode| m.get_flag(&help_id(mode)));
    Ok(args)
}

/// nvidia-smi options and sub-commands that nvq knows of but does not
/// implement. They are refused with exit code 2, never ignored.
pub const NOT_IMPLEMENTED: &[&str] = &[
    "-B",
    "--list-excluded-gpus",
    "--debug",
    "-pm",
    "--persistence-mode",
    "-e",
    "--ecc-config",
    "-p",
    "--reset-ecc-errors",
    "-c",
    "--compute-mode",
    "-r",
    "--gpu-reset",
    "-vm",
    "--virt-mode",
    "-lgc",
    "--lock-gpu-clocks",
    "-rgc",
    "--reset-gpu-clocks",
    "-lmc",
    "--lock-memory-clocks",
    "-rmc",
    "--reset-memory-clocks",
    "-ac",
    "--applications-clocks",
    "-rac",
    "--reset-applications-clocks",
    "-acp",
    "--applications-clocks-permission",
    "-pl",
    "--power-limit",
    "-cc",
    "--cuda-clocks",
    "-am",
    "--accounting-mode",
    "-caa",
    "--clear-accounted-apps",
    "-mig",
    "--multi-instance-gpu",
    "-gtt",
    "--gpu-target-temp",
    "-t",
    "--toggle-led",
    "--show-all-processes",
    "drain",
    "clocks",
    "encodersessions",
    "fbcsessions",
    "conf-compute",
    "boost-slider",
    "power-hint",
    "gpm",
    "c2c",
    "event-log",
    "cper",
    "pci",
    "power-smoothing",
    "power-profiles",
    "debugdump",
    // In nvidia-smi -h (590, 610) too.
    "-col",
    "--columns",
    "--gom",
    "-m",
    "--mode",
    "-lmci",
    "--lock-memory-clocks-info",
    "-lmcd",
    "--lock-memory-clocks-deferred",
    "-rmcd",
    "--reset-memory-clocks-deferred",
    "-svfd",
    "--set-vf-derate",
    "-gvfd",
    "--get-vf-derate-info",
    "-sc",
    "--scope",
    "--auto-boost-default",
    "--auto-boost-permission",
    "-den",
    "--dram-encryption",
    "--set-hostname",
    "--get-hostname",
    "-eow",
    "--error-on-warning",
    "daemon",
    "replay",
    "compute-policy",
    "base-clocks",
    "rusd",
    "prm",
    "soc",
];

/// Rewrite nvidia-smi's spellings that clap cannot parse as they are.
fn normalise(argv: Vec<OsString>) -> Result<Vec<OsString>, NvqError> {
    let mut out = Vec::with_capacity(argv.len());
    let mut refused_here: Option<sub::Refusals> = None;
    let last = argv.len().saturating_sub(1);
    let mut after_dashes = false;
    for (k, a) in argv.into_iter().enumerate() {
        // Everything after `--` is a command's (`nvq wait -- CMD`), passed
        // on exactly as given.
        if after_dashes || a == "--" {
            after_dashes = true;
            out.push(a);
            continue;
        }
        let s = a.to_string_lossy();
        let name = s.split('=').next().unwrap_or("");
        if let Some(r) = refused_here {
            if let Some((_, to)) = r.spellings.iter().find(|(from, _)| *from == name) {
                out.push(OsString::from(s.replacen(name, to, 1)));
                continue;
            }
            if r.changing.contains(&name) {
                return Err(NvqError::ChangesState(name.to_string()));
            }
            if r.lacking.contains(&name) {
                return Err(NvqError::NotImplemented(name.to_string()));
            }
            out.push(a);
            continue;
        }
        // After a sub-command's name, its own refusals apply (one without
        // any goes on under the top level's rules).
        if let Some(Some(refusals)) = Command::refusals_of(&s) {
            refused_here = Some(refusals);
            out.push(a);
            continue;
        }
        // `-m` (`--mode`, for --lock-gpu-clocks) needs a value: nvidia-smi
        // names it missing first (captures/27); with one, nvq refuses it.
        if (s == "-m" && k == last) || s == "--mode=" || (s == "--mode" && k == last) {
            return Err(NvqError::MissingValue(name.to_string()));
        }
        if s == "-lms" {
            out.push(OsString::from("--loop-ms"));
        } else if let Some(v) = s.strip_prefix("-lms=") {
            out.push(OsString::from(format!("--loop-ms={v}")));
        } else if s.len() > 4 && s.starts_with("-lms") {
            // clap would read `-lms100` as `-l` with the value "ms100".
            let v = &s[4..];
            return Err(NvqError::Usage(format!(
                "\"{s}\" runs the value into the option; write \"-lms {v}\" or \"-lms={v}\"."
            )));
        } else if let Some(rest) = s.strip_prefix("-d=") {
            out.push(OsString::from(format!("--display={rest}")));
        } else if let Some(rest) = s.strip_prefix("-l=") {
            out.push(OsString::from(format!("--loop={rest}")));
        } else {
            if NOT_IMPLEMENTED.contains(&name) {
                return Err(NvqError::NotImplemented(name.to_string()));
            }
            out.push(a);
        }
    }
    Ok(out)
}

/// A "did you mean" for an error: the nearest options and sub-commands to
/// an unknown one, or the suggestion the error carries (field names).
pub fn hint(e: &NvqError) -> Option<String> {
    let NvqError::UnknownOption(word) = e else {
        return e.hint().map(str::to_string);
    };
    let typed = word.split('=').next().unwrap_or(word);
    let mut names: Vec<String> = Vec::new();
    fn walk(cmd: &clap::Command, names: &mut Vec<String>) {
        for a in cmd.get_arguments() {
            names.extend(a.get_long().map(|l| format!("--{l}")));
        }
        for sub in cmd.get_subcommands() {
            names.push(sub.get_name().to_string());
            walk(sub, names);
        }
    }
    walk(&command(), &mut names);
    names.push("-lms".into());
    // A word refused here that another command takes is no suggestion for itself.
    names.retain(|n| n != typed);
    let near = nvq_core::model::suggest::nearest(typed, names.iter().map(String::as_str));
    nvq_core::model::suggest::did_you_mean(&near)
}

/// What parsing produced: arguments to act on, or text to print and exit 0.
#[derive(Debug)]
pub enum Parsed {
    Run(Box<Args>),
    /// `-h`/`--help`: the text to print.
    Help(String),
}

/// Parse the arguments after the program name.
pub fn parse(argv: Vec<OsString>) -> Result<Parsed, NvqError> {
    let argv = normalise(argv)?;
    if let Some(args) = plain_run(&argv) {
        return Ok(Parsed::Run(Box::new(args)));
    }
    // Kept to name the culprit if clap refuses an argument that is not UTF-8
    // (paths, such as `-f`, may be any bytes; other values may not).
    let not_utf8 = argv
        .iter()
        .find(|a| a.to_str().is_none())
        .map(|a| a.to_string_lossy().into_owned());
    match parse_args(argv) {
        Ok(a) => Ok(Parsed::Run(Box::new(a))),
        Err(e) if e.kind() == clap::error::ErrorKind::InvalidUtf8 => Err(NvqError::Usage(format!(
            "argument \"{}\" is not valid UTF-8; only file paths may contain such bytes.",
            not_utf8.unwrap_or_default()
        ))),
        Err(e) => Err(clap_error(e)).or_else(|r| match r {
            ClapOutcome::Help(t) => Ok(Parsed::Help(t)),
            ClapOutcome::Err(e) => Err(e),
        }),
    }
}

/// `nvq run -- CMD` with no option but `--nvml-lib`, read without clap:
/// what clap would give (`tests::a_plain_run_reads_as_clap_reads_it`), a
/// few milliseconds sooner, so that the command starts at once (clap builds
/// every sub-command's options first). Anything else: `None`, and clap
/// reads it.
fn plain_run(argv: &[OsString]) -> Option<Args> {
    let dashes = argv.iter().position(|a| a == "--")?;
    let (words, command) = (&argv[..dashes], &argv[dashes + 1..]);
    if command.is_empty() {
        return None;
    }
    let mut lib: Option<PathBuf> = None;
    let mut run = false;
    let mut k = 0;
    while let Some(w) = words.get(k) {
        k += 1;
        let value = if w == "run" && !run {
            run = true;
            continue;
        } else if w == "--nvml-lib" {
            words.get(k).inspect(|_| k += 1)?.clone()
        } else {
            OsString::from(w.to_str()?.strip_prefix("--nvml-lib=")?)
        };
        // A second --nvml-lib, or a value clap reads otherwise: clap's.
        let plain = value
            .to_str()
            .is_some_and(|v| !v.is_empty() && !v.starts_with('-'));
        if lib.is_some() || !plain {
            return None;
        }
        lib = Some(PathBuf::from(value));
    }
    if !run {
        return None;
    }
    let lib = lib.or_else(|| {
        std::env::var_os(NVML_LIB_ENV)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    });
    Some(Args {
        nvml_lib: lib,
        command: Some(Command::Run(run::RunArgs {
            command: command.to_vec(),
            ..Default::default()
        })),
        ..Default::default()
    })
}

/// The environment variable behind `--nvml-lib`.
const NVML_LIB_ENV: &str = "NVQ_NVML_LIB";

/// clap's parse, except that an empty `NVQ_NVML_LIB=` counts as unset (as
/// shells treat empty variables), not as `--nvml-lib` without a value.
fn parse_args(argv: Vec<OsString>) -> Result<Args, clap::Error> {
    let mut cmd = command();
    if std::env::var_os(NVML_LIB_ENV).is_some_and(|v| v.is_empty()) {
        cmd = cmd.mut_arg("nvml_lib", |a| a.env(None::<&'static str>));
    }
    args_from(&cmd.try_get_matches_from(argv)?)
}

enum ClapOutcome {
    Help(String),
    Err(NvqError),
}

/// Did clap refuse an option because its value is missing (`-i` last, `--format=`)?
fn empty_value(e: &clap::Error) -> bool {
    use clap::error::{ContextKind, ContextValue};
    matches!(e.get(ContextKind::InvalidValue), Some(ContextValue::String(v)) if v.is_empty())
}

/// The message of a value parser of ours, which clap keeps as its error's
/// source (every one is a usage error).
fn value_error(e: &clap::Error) -> Option<NvqError> {
    use std::error::Error;
    match e.source()?.downcast_ref::<NvqError>()? {
        NvqError::Usage(m) => Some(NvqError::Usage(m.clone())),
        _ => None,
    }
}

fn clap_error(e: clap::Error) -> ClapOutcome {
    use clap::error::{ContextKind, ContextValue, ErrorKind};
    let arg = || match e.get(ContextKind::InvalidArg) {
        Some(ContextValue::String(s)) => s.split_whitespace().next().unwrap_or("").to_string(),
        Some(ContextValue::Strings(v)) => v.first().cloned().unwrap_or_default(),
        _ => String::new(),
    };
    // A typed value that did not read (`cli::value`): nvq's message.
    if let Some(v) = value_error(&e) {
        return ClapOutcome::Err(v);
    }
    match e.kind() {
        ErrorKind::DisplayHelp => ClapOutcome::Help(e.render().to_string()),
        // `nvq topo` alone: a usage error (exit 2, docs/errors.md), with
        // the sub-command's help to say what it takes.
        ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
            ClapOutcome::Err(NvqError::Conflict(format!(
                "this sub-command needs one of its options:\n\n{}",
                e.render().to_string().trim_end()
            )))
        }
        ErrorKind::UnknownArgument => ClapOutcome::Err(NvqError::UnknownOption(arg())),
        // A stray word where a sub-command could stand.
        ErrorKind::InvalidSubcommand => {
            let word = match e.get(ContextKind::InvalidSubcommand) {
                Some(ContextValue::String(s)) => s.clone(),
                _ => arg(),
            };
            ClapOutcome::Err(NvqError::UnknownOption(word))
        }
        ErrorKind::NoEquals | ErrorKind::InvalidValue | ErrorKind::TooFewValues
            if empty_value(&e) =>
        {
            ClapOutcome::Err(NvqError::MissingValue(arg()))
        }
        ErrorKind::ArgumentConflict => ClapOutcome::Err(NvqError::Conflict(format!(
            "{}; run 'nvq --help' for nvq's options.",
            e.render()
                .to_string()
                .trim_start_matches("error: ")
                .lines()
                .next()
                .unwrap_or("these options do not go together")
        ))),
        _ => ClapOutcome::Err(NvqError::Usage(
            e.render()
                .to_string()
                .trim_start_matches("error: ")
                .lines()
                .next()
                .unwrap_or("invalid arguments")
                .to_string(),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn args(v: &[&str]) -> Result<Parsed, NvqError> {
        parse(v.iter().map(OsString::from).collect())
    }

    fn run(v: &[&str]) -> Args {
        match args(v) {
            Ok(Parsed::Run(a)) => *a,
            other => panic!("{other:?}"),
        }
    }

    /// `nvq run -- CMD` read without clap is what clap reads; anything more is left to clap.
    #[test]
    fn a_plain_run_reads_as_clap_reads_it() {
        let os = |v: &[&str]| -> Vec<OsString> { v.iter().map(OsString::from).collect() };
        for v in [
            &["run", "--", "python3", "train.py", "--lr", "0.1"][..],
            &["--nvml-lib", "/x/libnvml.so", "run", "--", "date", "+%s%N"],
            &["run", "--nvml-lib=/x/lib.so", "--", "sh", "-c", "a -- b"],
            &["--nvml-lib", "run", "run", "--", "run", "--"],
        ] {
            let plain = plain_run(&os(v)).unwrap_or_else(|| panic!("{v:?} is a plain run"));
            let clapped = parse_args(os(v)).unwrap();
            assert_eq!(format!("{plain:?}"), format!("{clapped:?}"), "{v:?}");
        }
        for v in [
            &["run", "-lms", "50", "--", "x"][..],
            &["run", "--"],
            &["run", "x", "--", "y"],
            &["--nvml-lib", "a", "--nvml-lib", "b", "run", "--", "x"],
            &["--nvml-lib=", "run", "--", "x"],
            &["--nvml-lib", "-i", "run", "--", "x"],
            &["run", "run", "--", "x"],
            &["wait", "--", "x"],
            &["--", "run"],
            &["-i", "0", "run", "--", "x"],
        ] {
            assert!(plain_run(&os(v)).is_none(), "{v:?} is clap's to read");
        }
        // Through `parse`, a command's words stay its own.
        let a = run(&["run", "--", "x", "-lms", "5"]);
        assert!(matches!(a.command, Some(Command::Run(r)) if r.command == os(&["x", "-lms", "5"])));
    }

    /// An option refused where it was given, though another command has it (`nvq top --trend-window`), is not
    /// offered back as its own suggestion; a misspelt one still gets one.
    #[test]
    fn a_refused_option_is_not_its_own_suggestion() {
        let refused = NvqError::UnknownOption("--trend-window".into());
        let said = hint(&refused).unwrap_or_default();
        assert!(!said.contains("\"--trend-window\""), "{said}");
        let typo = NvqError::UnknownOption("--trend-windw".into());
        assert!(hint(&typo).is_some_and(|h| h.contains("--trend-window")));
    }

    #[test]
    fn nvidia_smi_spellings() {
        let a = run(&["--query-gpu=index,name", "--format=csv", "-lms", "100"]);
        assert_eq!(a.queries, [(QueryMode::GPU, "index,name".to_string())]);
        assert_eq!(
            a.repeat.loop_ms.map(|v| v.0),
            Some(Duration::from_millis(100))
        );
        let a = run(&["--query-gpu", "index", "--format", "csv", "-l"]);
        assert_eq!(a.repeat.loop_sec.map(|v| v.0), Some(Duration::from_secs(5)));
        let a = run(&["-l", "2", "--query-gpu=index", "--format=csv"]);
        assert_eq!(a.repeat.loop_sec.map(|v| v.0), Some(Duration::from_secs(2)));
        let a = run(&["--loop=3", "-i", "0,1"]);
        assert_eq!(a.repeat.loop_sec.map(|v| v.0), Some(Duration::from_secs(3)));
        assert_eq!(a.gpus.id.as_deref(), Some("0,1"));
    }

    #[test]
    fn unknown_and_unimplemented() {
        let e = args(&["--bogus"]).unwrap_err();
        assert_eq!(
            e.to_string(),
            "ERROR: Option --bogus is not recognized. Please run 'nvidia-smi -h' for help.\n"
        );
        assert!(matches!(
            args(&["-B"]).unwrap_err(),
            NvqError::NotImplemented(_)
        ));
        // -u (the unit report) is an option of its own now.
        assert!(run(&["-q", "-u"]).unit);
        assert!(matches!(
            args(&["drain"]).unwrap_err(),
            NvqError::NotImplemented(_)
        ));
        let a = run(&["dmon", "-c", "5", "-s", "pucvmet", "-d", "2"]);
        let Some(Command::Dmon(d)) = a.command else {
            panic!("{a:?}")
        };
        assert_eq!(
            (
                d.monitor.count.map(|c| c.0),
                d.select.as_deref(),
                d.monitor.delay.map(|d| d.0)
            ),
            (Some(5), Some("pucvmet"), Some(Duration::from_secs(2)))
        );
        let a = run(&["pmon", "--count=1", "--id=0"]);
        assert!(matches!(a.command, Some(Command::Pmon(_))));
        // nvq's NVML options go before or after the sub-command.
        assert!(run(&["dmon", "-c", "1", "--simulate"]).simulate);
        // nvidia-smi has no `help` sub-command, and neither has nvq.
        assert!(matches!(
            args(&["help"]).unwrap_err(),
            NvqError::UnknownOption(w) if w == "help"
        ));
        assert!(matches!(
            args(&["stray"]).unwrap_err(),
            NvqError::UnknownOption(w) if w == "stray"
        ));
    }
}
