//! nvq: a fast, scriptable, nvidia-smi-compatible GPU query tool.
//!
//! The binary (`src/main.rs`) only parses arguments, calls [`app::run`] and
//! maps errors to exit codes. Everything else lives here, in layers (see
//! `ARCHITECTURE.md`), over the `nvq-core` crate's (named `nvq_core::…`
//! where they are used: `model`, `error`, `nvml`, `source`, `render`,
//! `trust`):
//! - [`plot`]: `nvq plot`'s pictures; [`pods`]: the kubelet's pod-resources API;
//! - [`schedule`]: loops, signals, the per-sample deadline;
//! - [`output`]: writing to stdout or a file;
//! - [`child`]: a command nvq starts and supervises (`nvq wait`, `nvq run`);
//! - [`script`]: `--where`, `--assert`, `--until`, `--summary`;
//! - [`serve`]: `nvq serve`'s HTTP server; [`hosts`]: reading other nodes' `nvq serve`;
//! - [`cli`], [`app`]: arguments, and the glue that runs a request.

pub mod app;
pub mod child;
pub mod cli;
pub mod hosts;
pub mod output;
pub mod plot;
pub mod pods;
pub mod schedule;
pub mod script;
pub mod serve;
pub mod tui;

/// What the unit tests share with `tests/` (the dev-only crate
/// `nvq-test-support`), under the path they name it by.
#[cfg(test)]
use nvq_test_support as test_support;

/// The CLI-free layers, from the `nvq-core` crate, under the paths they
/// have always had (`nvq_core::model`, `nvq_core::source`, ...).
pub use nvq_core::{error, model, nvml, render, source, trust};
pub use nvq_core::{ExitCode, NvqError, Personality};
