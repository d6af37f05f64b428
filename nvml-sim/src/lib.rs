//! nvml-sim: a `libnvidia-ml.so` stand-in driven by TOML scenario files.
//!
//! Built as a `cdylib` (SONAME `libnvidia-ml.so.1`) it exports every symbol of
//! nvml-wrapper-sys 0.10's NVML table with the exact C signature; the functions nvq and the
//! common Python clients use return the values of the scenario selected by `NVML_SIM_SCENARIO`
//! (or a built-in two-H100 machine), the rest return `NVML_ERROR_NOT_SUPPORTED`.
//! As an `rlib` it exposes [`scenario`] so tests can parse the same files.
#![allow(non_snake_case)]
#![deny(clippy::missing_safety_doc)]

pub mod scenario;

mod symbols;

mod call;
mod live;
mod state;

mod device;
mod events;
mod gpm;
mod instances;
mod pci;
mod procs;
mod system;
mod topo;
mod units;
mod vgpu;

mod generated;

pub use symbols::{EXTRA_SYMBOLS, STUBS, SYMBOLS};

/// The NVML symbols this library implements for real (everything in [`SYMBOLS`] not in [`STUBS`]).
pub fn implemented_symbols() -> Vec<&'static str> {
    SYMBOLS
        .iter()
        .copied()
        .filter(|s| !STUBS.contains(s))
        .chain(EXTRA_SYMBOLS.iter().copied())
        .collect()
}
