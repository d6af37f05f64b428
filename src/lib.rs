//! nvq: a fast, scriptable, nvidia-smi-compatible GPU query tool.
//!
//! The binary (`src/main.rs`) only parses arguments, calls [`app::run`] and
//! maps errors to exit codes. Everything else lives here, in layers (see
//! `ARCHITECTURE.md`):
//! - [`model`]: the leaf: cells, rows, columns, field facts, units, codes;
//! - [`nvml`]: loading NVML, device selection, the raw NVML layer;
//! - [`source`]: NVML in, model out: the query-mode table and its fields;
//! - [`render`]: model in, bytes out, no I/O;
//! - [`schedule`]: loops, signals, the per-sample deadline;
//! - [`output`]: writing to stdout or a file;
//! - [`script`]: `--where`, `--assert`, `--until`, `--summary`;
//! - [`cli`], [`app`]: arguments, and the glue that runs a request.

pub mod app;
pub mod cli;
pub mod error;
pub mod model;
pub mod nvml;
pub mod output;
pub mod render;
pub mod schedule;
pub mod script;
pub mod serve;
pub mod source;
pub mod tui;

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
