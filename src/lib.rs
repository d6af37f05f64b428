//! nvq: a fast, scriptable, nvidia-smi-compatible GPU query tool.
//!
//! The binary (`src/main.rs`) only parses arguments, calls [`app::run`] and
//! maps errors to exit codes. Everything else lives here:
//! - [`cli`]: argument parsing;
//! - [`fields`]: the field registry (one declaration per field) and getters;
//! - [`nvml`]: loading NVML, error codes, device selection;
//! - [`format`]: pure formatters (rows in, bytes out);
//! - [`output`]: writing to stdout or a file.

pub mod app;
pub mod cli;
pub mod error;
pub mod model;
pub mod nvml;
pub mod output;
pub mod render;
pub mod schedule;
pub mod script;
pub mod source;

pub use error::{ExitCode, NvqError};

/// How nvq was invoked: as itself, or through a symlink named `nvidia-smi`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Personality {
    /// Errors go to stderr.
    Nvq,
    /// Behave as nvidia-smi, down to the stream: errors go to stdout.
    NvidiaSmi,
}

impl Personality {
    /// Decide from `argv[0]`.
    pub fn from_argv0(argv0: Option<&std::ffi::OsStr>) -> Self {
        let name = argv0
            .map(std::path::Path::new)
            .and_then(|p| p.file_name())
            .and_then(|n| n.to_str())
            .unwrap_or("nvq");
        if name.starts_with("nvidia-smi") {
            Personality::NvidiaSmi
        } else {
            Personality::Nvq
        }
    }
}
