//! Scenario files: the TOML description of the machine the simulator pretends to be.
//!
//! Every value is in NVML's own units (bytes, milliwatts, millijoules, MHz, °C, raw enum
//! numbers, bitmasks). A value that is absent makes the NVML function that reads it return
//! `NVML_ERROR_NOT_SUPPORTED`. Any numeric value written as a list is a *series*: the n-th call
//! of the function that reads it on that device gets element n (the last one repeats).
//! See `nvml-sim/README.md` for the full reference.

mod device;
mod load;
mod machine;
mod tables;
mod validate;
mod values;

pub use device::*;
pub use load::*;
pub use machine::*;
pub use tables::*;
pub use values::*;
