//! Every way nvq can fail, each with the exit code it maps to.
//!
//! The texts are nvidia-smi's where nvidia-smi has one, so that a script that
//! greps for them keeps working.

use crate::model::NvmlCode;
use std::path::PathBuf;

/// The exit statuses nvq uses. They equal nvidia-smi's, which equal the NVML
/// return codes, plus nvq's own codes for its scripting extensions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExitCode {
    /// Everything asked was done.
    Success = 0,
    /// A bad option, field, format or value on the command line.
    InvalidArgument = 2,
    /// The GPU or driver cannot do what was asked.
    NotSupported = 3,
    /// NVML refused: not enough privilege.
    NoPermission = 4,
    /// `-i` named no GPU (or NVML found none).
    NotFound = 6,
    /// The NVIDIA kernel driver is not running.
    DriverNotLoaded = 9,
    /// libnvidia-ml.so could not be loaded.
    LibraryNotFound = 12,
    /// The NVML library lacks a function the command needs.
    FunctionNotFound = 13,
    /// A GPU fell off the bus or stopped answering.
    GpuLost = 15,
    /// The NVML library and the kernel driver are of different versions.
    VersionMismatch = 18,
    /// nvq: an `--assert` expression failed for at least one row.
    AssertFailed = 20,
    /// nvq: `--until` did not hold before `--timeout`.
    Timeout = 21,
    /// nvq: writing the output failed (disk full, no permission, ...).
    OutputError = 22,
    /// nvq: a node of `--hosts` could not be read (the others' rows were printed).
    HostsFailed = 23,
    /// nvq: `nvq run --budget`: the job's memory on a GPU passed the budget.
    BudgetExceeded = 24,
    /// Anything else, nvq's own internal errors included.
    Other = 255,
}

impl ExitCode {
    /// Every exit code with a one-line meaning, for the man page and README.
    pub const ALL: &'static [(ExitCode, &'static str)] = &[
        (ExitCode::Success, "Success."),
        (
            ExitCode::InvalidArgument,
            "A supplied argument, field, format or flag is invalid.",
        ),
        (
            ExitCode::NotSupported,
            "The requested operation is not available on the target device.",
        ),
        (
            ExitCode::NoPermission,
            "The current user may not access the device or perform the operation.",
        ),
        (
            ExitCode::NotFound,
            "No GPU matched (\"No devices were found\").",
        ),
        (
            ExitCode::DriverNotLoaded,
            "The NVIDIA driver is not loaded.",
        ),
        (
            ExitCode::LibraryNotFound,
            "The NVML library (libnvidia-ml.so.1) could not be found or loaded.",
        ),
        (
            ExitCode::FunctionNotFound,
            "The NVML library lacks a function that the request needs.",
        ),
        (
            ExitCode::GpuLost,
            "A GPU has fallen off the bus or is otherwise inaccessible.",
        ),
        (
            ExitCode::VersionMismatch,
            "The NVML library and the kernel driver have different versions.",
        ),
        (
            ExitCode::AssertFailed,
            "nvq: at least one row failed an --assert expression.",
        ),
        (
            ExitCode::Timeout,
            "nvq: --until did not hold before --timeout ran out.",
        ),
        (
            ExitCode::OutputError,
            "nvq: the output could not be written (-f target, full disk, ...).",
        ),
        (
            ExitCode::HostsFailed,
            "nvq: a --hosts node could not be read (the other nodes' rows were printed).",
        ),
        (
            ExitCode::BudgetExceeded,
            "nvq: nvq run's job passed its --budget of GPU memory.",
        ),
        (
            ExitCode::Other,
            "Any other error, including an internal error of nvq or the driver.",
        ),
    ];

    /// The number the process exits with.
    pub fn code(self) -> i32 {
        self as i32
    }
}

/// A failure that ends a command: its message is nvidia-smi's (or nvq's own
/// words, as [`NvqError::nvq_text`] gives them) and it maps to one
/// [`ExitCode`].
#[derive(Debug, thiserror::Error)]
pub enum NvqError {
    /// An unknown field in a `--query-*` list. nvidia-smi follows the line
    /// with an empty line (captures/50).
    /// The second part: the nearest names, "did you mean ...?" (stderr,
    /// see [`NvqError::hint`]).
    #[error("Field \"{0}\" is not a valid field to query.\n\n")]
    InvalidField(String, Option<String>),

    /// An argument nvidia-smi does not know.
    #[error("ERROR: Option {0} is not recognized. Please run 'nvidia-smi -h' for help.\n")]
    UnknownOption(String),

    /// An option that needs a value got none; an empty line follows (captures/27).
    #[error("ERROR: Option {0} is missing its value. Please run 'nvidia-smi -h' for help.\n\n")]
    MissingValue(String),

    /// An nvidia-smi option nvq does not implement.
    #[error("ERROR: Option {0} is an nvidia-smi option that nvq does not implement. Run 'nvq --help' for what nvq supports.\n")]
    NotImplemented(String),

    /// An nvidia-smi option that changes the GPU's state (nvq only reads).
    #[error("ERROR: Option {0} changes the GPU's state, and nvq only reads it. Use nvidia-smi for that.\n")]
    ChangesState(String),

    /// Options that cannot be used together, or `--format` without a query.
    #[error("Invalid combination of input arguments. Please run 'nvidia-smi -h' for help.\n")]
    InvalidCombination,

    /// [`NvqError::InvalidCombination`] with the reason nvq gives under
    /// its own name (nvidia-smi's text is the same).
    #[error("Invalid combination of input arguments. Please run 'nvidia-smi -h' for help.\n")]
    Conflict(String),

    /// A wrong combination that nvidia-smi explains in its own words (for
    /// example `topo -m -i 0`); the text is nvidia-smi's, without a prefix.
    #[error("{0}\n")]
    Refused(&'static str),

    /// Any other bad argument, with a message that says what is wrong.
    #[error("ERROR: {0}\n")]
    Usage(String),

    #[error("NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that the latest NVIDIA driver is installed and running.\n")]
    /// NVML answered that the kernel driver is not loaded.
    DriverNotLoaded,

    /// `detail` names the path and the loader's reason; nvq (not the
    /// nvidia-smi personality) prints it as one more stderr line, see
    /// [`NvqError::nvq_text`].
    #[error("NVIDIA-SMI couldn't find libnvidia-ml.so library in your system. Please make sure that the NVIDIA Display Driver is properly installed and present in your system.\nPlease also try adding directory that contains libnvidia-ml.so to your system PATH.\n")]
    LibraryNotFound {
        /// The library tried and why the loader refused it.
        detail: String,
    },

    /// A library nvq finds by itself (`--simulate`'s `libnvml_sim.so`)
    /// fails the rule of [`crate::trust`]: another user owns it, or could
    /// write it or a folder above it. `why` names the file.
    #[error("ERROR: {what}: refusing to load the library: {why}\n")]
    UntrustedLibrary {
        /// Which option looked for it.
        what: &'static str,
        /// The rule's answer, naming the file.
        why: String,
    },

    /// The library and the kernel driver disagree on their version.
    #[error("Failed to initialize NVML: Driver/library version mismatch\nNVML library version: {nvml_version}\n")]
    VersionMismatch {
        /// The library's own version, read without initialising it.
        nvml_version: String,
    },

    /// NVML initialisation failed for another reason.
    #[error("Failed to initialize NVML: {}\n", .0.message())]
    Init(NvmlCode),

    /// NVML lists no GPU at all.
    #[error("No devices were found\n")]
    NoDevices,

    /// A device-level NVML call that the whole command depends on failed.
    #[error("Unable to query GPU {index}: {}\n", .code.message())]
    Device {
        /// The GPU's NVML index.
        index: u32,
        /// What NVML answered.
        code: NvmlCode,
    },

    /// A system-wide NVML question the whole command depends on failed
    /// (`topo -c`: the GPUs near a CPU).
    #[error("Unable to query {what}: {}\n", .code.message())]
    System {
        /// What was asked, as the message names it.
        what: String,
        /// What NVML answered.
        code: NvmlCode,
    },

    /// Writing the output (stdout or `-f`) failed.
    #[error("ERROR: could not write to {path}: {source}\n")]
    Output {
        /// Where the bytes were going.
        path: PathBuf,
        /// The system's reason.
        #[source]
        source: std::io::Error,
    },

    /// `-f` with `--format=prometheus` names something that is not a
    /// regular file (nor a link to one): replacing it would destroy it.
    #[error("ERROR: refusing to replace {path}: it is {kind}, not a regular file.\n")]
    NotRegular {
        /// The `-f` path.
        path: PathBuf,
        /// What it is instead ("a directory", "a FIFO", ...).
        kind: &'static str,
    },

    /// `-f` goes through a symlink that another user owns, in a sticky
    /// world-writable folder (`/tmp`): the kernel's `protected_symlinks`
    /// rule, which nvq applies itself (it renames onto the link's target).
    #[error(
        "ERROR: refusing to write {path}: it goes through the symlink {link}, which another user owns in a \
         world-writable sticky folder.\n"
    )]
    UntrustedLink {
        /// The `-f` path.
        path: PathBuf,
        /// The symlink on the way that another user owns.
        link: PathBuf,
    },

    /// `--assert` failed; the text says for which rows.
    #[error("{0}\n")]
    AssertFailed(String),

    /// `--until` did not hold before `--timeout`; the text says what was waited for.
    #[error("{0}\n")]
    Timeout(String),

    /// `nvq serve` could not start or keep serving (the address is taken, no
    /// runtime, ...): what failed and why.
    #[error("ERROR: nvq serve: {0}\n")]
    Serve(String),

    /// `--hosts`: nodes that could not be read (each was named on stderr).
    #[error("ERROR: {0}\n")]
    Hosts(String),

    /// nvq could not start what a loop or `nvq top` runs on (a thread, the
    /// GPU readers, a timer): the system refused it, not the command line.
    #[error("ERROR: {0}\n")]
    Start(String),

    /// `nvq top` could not take the terminal or draw on it (the output of
    /// a screen could not be written).
    #[error("ERROR: {0}\n")]
    Terminal(String),

    /// `nvq wait -- CMD`: the command ran and exited with this status,
    /// which nvq passes on as its own (nothing is printed).
    #[error("")]
    ChildExit(i32),

    /// `nvq run --budget`: the job's memory passed the budget (the text says
    /// where and when).
    #[error("{0}\n")]
    Budget(String),

    /// A command nvq was to start was cancelled by this signal before it
    /// started (it is never run): exit 128 + the signal, nothing printed.
    #[error("")]
    Cancelled(i32),

    /// A command nvq was to start could not be: exit 127 when it was not
    /// found, 126 when it was found but could not be executed, as shells do.
    #[error("nvq: {program}: {reason}\n")]
    CannotRun {
        /// The command's name or path, as it may be shown on a terminal.
        program: String,
        /// Why, as the system said (`Permission denied`, `command not found`).
        reason: String,
        /// Not found (127) rather than not executable (126).
        not_found: bool,
    },
}

impl NvqError {
    /// The exit code this error ends the command with (as nvq; see
    /// [`NvqError::exit_code_as`] for the personality's).
    pub fn exit_code(&self) -> ExitCode {
        match self {
            NvqError::InvalidField(..)
            | NvqError::UnknownOption(_)
            | NvqError::NotImplemented(_)
            | NvqError::ChangesState(_)
            | NvqError::InvalidCombination
            | NvqError::Conflict(_)
            | NvqError::Refused(_)
            | NvqError::Usage(_) => ExitCode::InvalidArgument,
            NvqError::MissingValue(_) => ExitCode::Other,
            NvqError::DriverNotLoaded => ExitCode::DriverNotLoaded,
            NvqError::LibraryNotFound { .. } | NvqError::UntrustedLibrary { .. } => {
                ExitCode::LibraryNotFound
            }
            NvqError::VersionMismatch { .. } => ExitCode::VersionMismatch,
            NvqError::Init(code)
            | NvqError::Device { code, .. }
            | NvqError::System { code, .. } => code_exit(*code),
            NvqError::NoDevices => ExitCode::NotFound,
            NvqError::Output { .. }
            | NvqError::NotRegular { .. }
            | NvqError::UntrustedLink { .. }
            | NvqError::Terminal(_) => ExitCode::OutputError,
            NvqError::AssertFailed(_) => ExitCode::AssertFailed,
            NvqError::Timeout(_) => ExitCode::Timeout,
            NvqError::Hosts(_) => ExitCode::HostsFailed,
            NvqError::Budget(_) => ExitCode::BudgetExceeded,
            NvqError::Serve(_)
            | NvqError::Start(_)
            | NvqError::ChildExit(_)
            | NvqError::Cancelled(_)
            | NvqError::CannotRun { .. } => ExitCode::Other,
        }
    }

    /// The exit status of an error about a command nvq starts, which is
    /// none of nvq's own codes: the command's status, `128 + N` for a
    /// cancelling signal N, 127 or 126 for a command that cannot run
    /// (as shells give them). `None` for every other error.
    pub fn command_status(&self) -> Option<i32> {
        match self {
            NvqError::ChildExit(s) => Some(*s),
            NvqError::Cancelled(sig) => Some(128 + sig),
            NvqError::CannotRun { not_found, .. } => Some(if *not_found { 127 } else { 126 }),
            _ => None,
        }
    }

    /// The exit code as the `personality` gives it: under its own name nvq
    /// exits 2 for every usage error, a missing option value included
    /// (nvidia-smi exits 255 there).
    pub fn exit_code_as(&self, personality: crate::Personality) -> ExitCode {
        match (self, personality) {
            (NvqError::MissingValue(_), crate::Personality::Nvq) => ExitCode::InvalidArgument,
            _ => self.exit_code(),
        }
    }

    /// The message as nvq prints it under its own name: nvq's words and
    /// nvq's help where nvidia-smi's text would point at `nvidia-smi -h`
    /// or give nvidia-smi's advice; `hint` (a "did you mean") follows.
    pub fn nvq_text(&self, hint: Option<&str>) -> String {
        const HELP: &str = "run 'nvq --help' for nvq's options";
        if matches!(self, NvqError::InvalidField(..)) && hint.is_none() {
            // nvidia-smi's own text for a field, kept: scripts look for it.
            return self.to_string();
        }
        let text = match self {
            NvqError::UnknownOption(o) => format!("nvq: unknown option or word {o}; {HELP}."),
            NvqError::MissingValue(o) => format!("nvq: option {o} needs a value; {HELP}."),
            NvqError::InvalidCombination => {
                format!("nvq: these options do not go together; {HELP}.")
            }
            NvqError::Conflict(why) => format!("nvq: {why}"),
            NvqError::LibraryNotFound { detail } => {
                let why = if detail.is_empty() {
                    "nvq: cannot load the NVML library (libnvidia-ml.so.1).".to_string()
                } else {
                    format!("nvq: {detail}")
                };
                format!(
                    "{why}\nnvq reads GPUs through libnvidia-ml.so.1, which the NVIDIA driver installs. \
                     Name it with --nvml-lib PATH (or NVQ_NVML_LIB), add its folder to LD_LIBRARY_PATH, \
                     or try nvq without a GPU: nvq --simulate."
                )
            }
            other => other.to_string().trim_end().to_string(),
        };
        match hint {
            Some(h) => format!("{text}\nnvq: {h}\n"),
            None => format!("{text}\n"),
        }
    }

    /// The suggestion the error carries itself (the nearest field names).
    pub fn hint(&self) -> Option<&str> {
        match self {
            NvqError::InvalidField(_, hint) => hint.as_deref(),
            _ => None,
        }
    }

    /// The NVML code behind the error, where there is one.
    pub fn nvml_code(&self) -> Option<NvmlCode> {
        match self {
            NvqError::DriverNotLoaded => Some(NvmlCode::DRIVER_NOT_LOADED),
            NvqError::LibraryNotFound { .. } => Some(NvmlCode::LIBRARY_NOT_FOUND),
            NvqError::VersionMismatch { .. } => Some(NvmlCode::LIB_RM_VERSION_MISMATCH),
            NvqError::Init(c) | NvqError::Device { code: c, .. } => Some(*c),
            _ => None,
        }
    }
}

/// The exit code nvidia-smi uses for a fatal NVML error.
pub fn code_exit(code: NvmlCode) -> ExitCode {
    match code.0 {
        2 => ExitCode::InvalidArgument,
        3 => ExitCode::NotSupported,
        4 => ExitCode::NoPermission,
        6 => ExitCode::NotFound,
        9 => ExitCode::DriverNotLoaded,
        12 => ExitCode::LibraryNotFound,
        13 => ExitCode::FunctionNotFound,
        15 => ExitCode::GpuLost,
        18 => ExitCode::VersionMismatch,
        _ => ExitCode::Other,
    }
}

/// The one line nvq prints when it panics (a bug), before exiting with
/// [`ExitCode::Other`]: where, what, and a request to report it. Newlines in
/// the panic message are flattened so that the line stays one line.
pub fn internal_error_message(location: Option<&str>, message: &str) -> String {
    let message = message.split_whitespace().collect::<Vec<_>>().join(" ");
    let at = location.map(|l| format!(" at {l}")).unwrap_or_default();
    format!("nvq: internal error{at}: {message}; this is a bug, please report it.\n")
}

/// The text of a panic's payload (`panic!("...")` gives a `&str` or a
/// `String`; anything else is unnamed).
pub fn panic_payload_text(payload: &(dyn std::any::Any + Send)) -> &str {
    payload
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| payload.downcast_ref::<String>().map(String::as_str))
        .unwrap_or("unknown panic")
}

/// Make a panic what nvq's executables all make it: a bug, told in one line
/// on stderr ([`internal_error_message`]), and the process's end at once
/// with [`ExitCode::Other`], also from a worker thread (never half a sample
/// later).
pub fn install_panic_hook() {
    std::panic::set_hook(Box::new(|info| {
        use std::io::Write;
        let location = info.location().map(|l| l.to_string());
        let text = internal_error_message(location.as_deref(), panic_payload_text(info.payload()));
        let _ = std::io::stderr().write_all(text.as_bytes());
        std::process::exit(ExitCode::Other.code());
    }));
}

#[cfg(test)]
mod panic_tests {
    use super::*;

    /// A failure of the system or the terminal is not a usage error: it
    /// does not exit 2, whatever the personality.
    #[test]
    fn runtime_failures_are_not_usage_errors() {
        for p in [crate::Personality::Nvq, crate::Personality::NvidiaSmi] {
            let start = NvqError::Start("cannot start the GPU readers: no room".into());
            assert_eq!(start.exit_code_as(p), ExitCode::Other);
            let draw = NvqError::Terminal("top: cannot draw: broken pipe".into());
            assert_eq!(draw.exit_code_as(p), ExitCode::OutputError);
        }
        assert_eq!(
            NvqError::Start("x".into()).to_string(),
            NvqError::Usage("x".into()).to_string()
        );
    }

    #[test]
    fn the_internal_error_line() {
        let m = internal_error_message(Some("src/app.rs:10:5"), "index out of\nbounds");
        assert_eq!(
            m,
            "nvq: internal error at src/app.rs:10:5: index out of bounds; this is a bug, please \
             report it.\n"
        );
        assert_eq!(m.lines().count(), 1);
        assert!(!m.contains("panicked"));
        assert_eq!(
            internal_error_message(None, ""),
            "nvq: internal error: ; this is a bug, please report it.\n"
        );
        assert_eq!(ExitCode::Other.code(), 255);
    }

    #[test]
    fn payload_text_of_real_panics() {
        let p = std::panic::catch_unwind(|| std::panic::panic_any("static text")).unwrap_err();
        assert_eq!(panic_payload_text(p.as_ref()), "static text");
        let n = 7;
        let p = std::panic::catch_unwind(|| std::panic::panic_any(format!("formatted {n}")))
            .unwrap_err();
        assert_eq!(panic_payload_text(p.as_ref()), "formatted 7");
        let p = std::panic::catch_unwind(|| std::panic::panic_any(42u8)).unwrap_err();
        assert_eq!(panic_payload_text(p.as_ref()), "unknown panic");
    }
}
