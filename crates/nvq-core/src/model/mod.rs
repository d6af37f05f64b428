#![warn(missing_docs)]

//! The leaf of nvq: the data every other layer speaks.
//!
//! Values and their failure tokens, rows and columns, a GPU's identity,
//! what is known about a field, and NVML's return codes. Nothing here calls
//! NVML, does I/O or imports another module of the crate: sources produce
//! these types, renderers consume them.

mod code;
pub mod fact;
mod field;
pub mod gpm;
pub mod history;
mod id;
pub mod job;
pub mod job_verdict;
pub mod listing;
pub mod log;
pub mod mig;
pub mod nvlink;
pub mod pods;
pub mod report;
mod row;
pub mod smi_table;
pub mod suggest;
pub mod top;
pub mod topo;
pub mod trend;
mod value;
pub mod vgpu;
pub mod wire;

pub use code::NvmlCode;
pub use fact::Fact;
pub use field::{FieldDef, FieldInfo, FieldKind, Quantity, Section, Unit, UNITS};
pub use id::{ColumnId, ListField};
pub use row::{Column, GpuIdent, Row, XidCount};
pub use value::{Token, Value};
