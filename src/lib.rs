//! nvq: a fast, scriptable, nvidia-smi-compatible GPU query tool.
//!
//! The binary (`src/main.rs`) only parses arguments, calls [`app::run`] and
//! maps errors to exit codes. Everything else lives here, in layers (see
//! `ARCHITECTURE.md`); the first six are the `nvq-core` crate, re-exported:
//! - [`model`]: the leaf: cells, rows, columns, field facts, units, codes;
//! - [`error`]: errors and their exit codes;
//! - [`nvml`]: loading NVML, device selection, the raw NVML layer;
//! - [`source`]: NVML in, model out: the query-mode table and its fields;
//! - [`render`]: model in, bytes out, no I/O;
//! - [`trust`]: files root may load, run or read (no other user can write them);
//! - [`plot`]: `nvq plot`'s pictures; [`pods`]: the kubelet's pod-resources API;
//! - [`schedule`]: loops, signals, the per-sample deadline;
//! - [`output`]: writing to stdout or a file;
//! - [`script`]: `--where`, `--assert`, `--until`, `--summary`;
//! - [`serve`]: `nvq serve`'s HTTP server; [`hosts`]: reading other nodes' `nvq serve`;
//! - [`cli`], [`app`]: arguments, and the glue that runs a request.

pub mod app;
pub mod cli;
pub mod hosts;
pub mod output;
pub mod plot;
pub mod pods;
pub mod schedule;
pub mod script;
pub mod serve;
#[doc(hidden)]
pub mod test_support;
pub mod tui;

/// The CLI-free layers, from the `nvq-core` crate, under the paths they
/// have always had (`nvq::model`, `crate::source`, ...).
pub use nvq_core::{error, model, nvml, render, source, trust};
pub use nvq_core::{ExitCode, NvqError, Personality};
