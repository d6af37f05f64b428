#![warn(missing_docs)]
//! Sources: NVML in, model out. Each query mode's fields and the code that
//! reads them.
//!
//! - [`mode_def`]: what a query mode is ([`ModeDef`]: option, fields,
//!   collector); [`mode`]: the table of them, which the command line, help,
//!   man page, completion and dispatch all read;
//! - [`gpu`]: `--query-gpu`, the field registry and its getters;
//! - [`list_mode`]: what the five list modes share, and one file each;
//! - [`target`]: the selected GPUs, their handles and identities;
//! - [`ctx`]: a GPU's per-sample context, the cache every reader reads from;
//! - [`smi_table`], [`listing`]: plain `nvq`'s table, `-L` and `--version`;
//! - [`procinfo`], [`time`]: the host's `/proc` and the sample clock;
//! - [`sysmem`]: the system's memory, which a unified-memory GPU shares.
//!
//! A field's declaration (`model::FieldDef`) holds everything known about it
//! (`model::FieldInfo`) and its getter; adding a field means adding one entry.

pub mod ctx;
pub mod gpm;
pub mod gpu;
pub mod job;
pub mod list_mode;
pub mod listing;
pub mod log;
pub mod mig;
pub mod mode;
pub mod mode_def;
pub mod nvlink;
pub mod procinfo;
pub mod report;
pub mod smi_table;
pub mod sysmem;
pub mod target;
pub mod time;
pub mod top;
pub mod topo;
pub mod vgpu;
pub mod vgpu_vm;
pub mod xid;

pub mod dmon;
pub mod monitor;
pub mod pmon;

pub mod accounted_apps;
pub mod compute_apps;
pub mod remapped_rows;
pub mod retired_pages;
pub mod supported_clocks;

/// A map by process ID, as the per-sample readers keep them (pmon's names
/// and rows, `top`'s host facts): hashed with foldhash (randomly seeded),
/// a few instructions a key where the standard SipHash takes about a hundred,
/// and tens of lookups a sample.
pub type PidMap<V> = std::collections::HashMap<u32, V, foldhash::fast::RandomState>;

pub use mode::QueryMode;
pub use mode_def::{ModeDef, Request};
pub use target::{targets, Target};
