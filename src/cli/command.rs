//! nvidia-smi's sub-commands that nvq implements.

use super::dmon::DmonArgs;
use super::pmon::PmonArgs;

/// A sub-command (`nvq dmon`, `nvq pmon`).
#[derive(clap::Subcommand, Debug, Clone)]
pub enum Command {
    /// Scrolling per-GPU monitor: one line per GPU per sample.
    Dmon(DmonArgs),
    /// Scrolling per-process monitor: one line per process per GPU per sample.
    Pmon(PmonArgs),
}

/// The sub-command names, as they start a command line.
pub const NAMES: &[&str] = &["dmon", "pmon"];
