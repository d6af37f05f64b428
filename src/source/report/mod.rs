//! The detail report (`-q`): its declaration ([`decl`]), the getters only it
//! needs ([`get`]), and the reader that turns the declaration into a
//! [`Report`] for the selected GPUs.
//!
//! A line whose value is also a `--query-gpu` field names that field, so the
//! value is read and formatted by the field's own getter, in one place.

mod decl;
mod get;

pub use decl::{Display, DISPLAY_NAMES};

use super::gpu::{GpuCtx, FIELDS};
use super::Target;
use crate::model::report::{GpuReport, Node, Report, Section};
use crate::model::{NvmlCode, Value};
use crate::nvml::{raw, Session};

/// How a line's value is read.
#[derive(Clone, Copy)]
pub enum Read {
    /// The `--query-gpu` field of this name.
    Field(&'static str),
    /// A getter of the report's own.
    Fn(fn(&GpuCtx) -> Value),
}

/// One node of the declaration.
pub enum Decl {
    /// `Label : value unit`.
    Entry {
        label: &'static str,
        unit: &'static str,
        read: Read,
    },
    /// A heading and what is under it.
    Section {
        label: &'static str,
        items: &'static [Decl],
    },
    /// A part whose shape depends on the GPU or the driver (nvidia-smi
    /// prints different lines for them): the declaration to use.
    Pick(fn(&GpuCtx) -> &'static [Decl]),
    /// A part built by code (the process list).
    Build(fn(&GpuCtx) -> Node),
}

impl Read {
    fn read(self, c: &GpuCtx) -> Value {
        match self {
            Read::Field(name) => FIELDS
                .iter()
                .find(|f| f.info.name == name)
                .map_or(Value::err(NvmlCode::NOT_SUPPORTED), |f| f.get.read(c)),
            Read::Fn(f) => f(c),
        }
    }
}

fn build(decls: &[Decl], c: &GpuCtx, out: &mut Vec<Node>) {
    for d in decls {
        match d {
            Decl::Entry { label, unit, read } => out.push(Node::entry(label, read.read(c), unit)),
            Decl::Section { label, items } => {
                let mut inner = Vec::new();
                build(items, c, &mut inner);
                out.push(Node::section(label, inner));
            }
            Decl::Pick(f) => build(f(c), c, out),
            Decl::Build(f) => out.push(f(c)),
        }
    }
}

/// Does the report declare a section for this `-d` type yet?
pub fn shows(d: Display) -> bool {
    decl::GPU.iter().any(|(types, _)| types.contains(&d))
}

/// One GPU's part of the report, limited to the `-d` types in `show`
/// (all of them when empty).
pub fn gpu_report(c: &GpuCtx, show: &[Display]) -> GpuReport {
    let mut items = Vec::new();
    for (types, part) in decl::GPU {
        if show.is_empty() || types.iter().any(|t| show.contains(t)) {
            build(part, c, &mut items);
        }
    }
    let bus_id = c.pci().map(|p| p.bus_id.clone()).unwrap_or_default();
    GpuReport { bus_id, items }
}

/// The header: timestamp, driver and CUDA versions.
pub fn header(session: &Session, now: std::time::SystemTime) -> Vec<Node> {
    let stamp = super::smi_table::date_line(now).trim_end().to_string();
    let driver = match session.driver_version() {
        Ok(v) => Value::text(v),
        Err(code) => Value::err(code),
    };
    let cuda = match raw::cuda_driver_version(session) {
        Ok(v) => Value::text(format!("{}.{}", v / 1000, (v % 1000) / 10)),
        Err(code) => Value::err(code),
    };
    let mut h = vec![Node::entry("Timestamp", Value::text(stamp), "")];
    if session.driver_major() >= decl::KMD_NAMED_FROM {
        // 610 renames both lines and keeps the old ones with a warning.
        let warn = |v: &Value, new: &str| match v {
            Value::Text(t) => Value::text(format!(
                "{t} [Deprecated; will be removed in CUDA 14.0. Use {new} instead]"
            )),
            other => other.clone(),
        };
        h.push(Node::entry(
            "Driver Version",
            warn(&driver, "KMD Version"),
            "",
        ));
        h.push(Node::entry(
            "CUDA Version",
            warn(&cuda, "CUDA UMD Version"),
            "",
        ));
        h.push(Node::entry("KMD Version", driver, ""));
        h.push(Node::entry("CUDA UMD Version", cuda, ""));
    } else {
        h.push(Node::entry("Driver Version", driver, ""));
        h.push(Node::entry("CUDA Version", cuda, ""));
    }
    h
}

/// The whole report for these GPUs, read one GPU per thread: a one-shot
/// report costs about one GPU's latency, however many GPUs there are.
pub fn collect(session: &Session, targets: &[Target], show: &[Display]) -> Report {
    let attached = session.device_count().unwrap_or(0);
    let now = std::time::SystemTime::now();
    let gpus = std::thread::scope(|s| {
        let read = move |index: u32| gpu_report(&GpuCtx::new(session, index, attached), show);
        let lanes: Vec<_> = targets
            .iter()
            .map(|t| {
                let i = t.index;
                (i, s.spawn(move || read(i)))
            })
            .collect();
        lanes
            .into_iter()
            // A lane that panicked is read again on this thread.
            .map(|(index, h)| h.join().unwrap_or_else(|_| read(index)))
            .collect()
    });
    Report {
        header: header(session, now),
        attached,
        gpus,
    }
}

/// A section printed as one line (`Remapped Rows : N/A`) when its probe
/// fails, else with its lines.
fn collapsed(label: &'static str, value: Value) -> Node {
    Node::Section(Section {
        label,
        items: Vec::new(),
        value: Some(value),
        width: None,
    })
}

/// `HW Slowdown : Active` with its two causes under it.
fn hw_slowdown(c: &GpuCtx) -> Node {
    let bit = |b| crate::source::gpu::get::reason_bit(c, b);
    Node::Section(Section {
        label: "HW Slowdown",
        value: Some(bit(0x8)),
        items: vec![
            Node::entry("HW Thermal Slowdown", bit(0x40), ""),
            Node::entry("HW Power Brake Slowdown", bit(0x80), ""),
        ],
        width: None,
    })
}
