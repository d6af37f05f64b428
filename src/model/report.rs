//! The detail report (`-q`): a tree of sections and entries, one per GPU,
//! under a header. Sources build it; the text, XML and JSON renderers read
//! it. A node carries its label as nvidia-smi prints it in the text view and
//! the value already read; how a value looks (unit, brackets) is the
//! renderer's business.

use super::Value;

/// One line of the report, or a section holding more lines.
#[derive(Debug, Clone, PartialEq)]
pub enum Node {
    Entry(Entry),
    Section(Section),
}

/// `Label : value unit`.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    pub label: &'static str,
    pub value: Value,
    /// Printed after a value (never after `N/A` or an error): `" MiB"`,
    /// `" %"`, `"x"`, `"%"`. Empty for none.
    pub unit: &'static str,
}

/// A heading and the nodes under it, indented one step further.
#[derive(Debug, Clone, PartialEq)]
pub struct Section {
    pub label: &'static str,
    pub items: Vec<Node>,
    /// A value printed on the heading's own line (`HW Slowdown : Not Active`
    /// above its two causes; `Remapped Rows : N/A` with no lines under it).
    pub value: Option<Value>,
    /// The label column of the section's own lines, when it differs from the
    /// report's (nvidia-smi's process list is narrower).
    pub width: Option<usize>,
}

/// One GPU's part of the report.
#[derive(Debug, Clone, PartialEq)]
pub struct GpuReport {
    /// `GPU 00000000:83:00.0`.
    pub bus_id: String,
    pub items: Vec<Node>,
}

/// The whole report of one sample.
#[derive(Debug, Clone, PartialEq)]
pub struct Report {
    /// The header's entries (timestamp, driver and CUDA versions, ...).
    pub header: Vec<Node>,
    /// `Attached GPUs`: every GPU NVML sees, selected or not.
    pub attached: u32,
    pub gpus: Vec<GpuReport>,
}

impl Node {
    pub fn entry(label: &'static str, value: Value, unit: &'static str) -> Self {
        Node::Entry(Entry { label, value, unit })
    }

    pub fn section(label: &'static str, items: Vec<Node>) -> Self {
        Node::Section(Section {
            label,
            items,
            value: None,
            width: None,
        })
    }

    pub fn label(&self) -> &'static str {
        match self {
            Node::Entry(e) => e.label,
            Node::Section(s) => s.label,
        }
    }
}
