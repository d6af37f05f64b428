//! nvq-core: nvq without its command line. It reads NVIDIA GPUs through
//! NVML and turns what it read into nvidia-smi's text and nvq's formats,
//! in layers (see `ARCHITECTURE.md`):
//! - [`model`]: the leaf: cells, rows, columns, GPU facts, units, codes;
//! - [`error`]: errors and the exit code each maps to;
//! - [`nvml`]: loading NVML, device selection, the raw NVML layer;
//! - [`source`]: NVML in, model out: the query modes and their fields;
//! - [`render`]: model in, bytes out, no I/O;
//! - [`trust`]: the files nvq may load, run or read as its own when it runs
//!   as root (no other user can write them).
//!
//! Its dependencies are nvml-wrapper (with its -sys crate), serde (with
//! serde_json), thiserror, libc, jiff (dates and times), foldhash (hash
//! maps), itoa (numbers in logs), strsim ("did you mean") and
//! unicode-properties (what a terminal may show): no command line, no
//! server, no terminal, no pictures.

#![warn(missing_docs)]

pub mod error;
pub mod model;
pub mod nvml;
pub mod render;
pub mod source;
pub mod trust;

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
