//! The detail report (`-q`): a tree of sections and entries, one per GPU,
//! under a header. Sources build it; the text, XML and JSON renderers read
//! it. A node carries its label as nvidia-smi prints it in the text view and
//! the value already read; how a value looks (unit, brackets) is the
//! renderer's business.

use super::Value;

/// One line of the report, or a section holding more lines.
#[derive(Debug, Clone, PartialEq)]
pub enum Node {
    /// A `Label : value` line.
    Entry(Entry),
    /// A heading with lines under it.
    Section(Section),
    /// A value on a line of its own (`None` inside `<mig_devices>`).
    Bare(Value),
}

/// `Label : value unit`.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    /// The label as the text report prints it, before the colon (`Total`).
    pub label: &'static str,
    /// The element's name in the XML report.
    pub xml: &'static str,
    /// The value read, unformatted; a failed read is a [`Value::Error`].
    pub value: Value,
    /// Printed after a value (never after `N/A` or an error): `" MiB"`,
    /// `" %"`, `"x"`, `"%"`. Empty for none.
    pub unit: &'static str,
}

/// A heading and the nodes under it, indented one step further.
#[derive(Debug, Clone, PartialEq)]
pub struct Section {
    /// The heading as the text report prints it (`FB Memory Usage`).
    pub label: &'static str,
    /// The element's name in the XML report (`fb_memory_usage`).
    pub xml: &'static str,
    /// The nodes under the heading, in print order.
    pub items: Vec<Node>,
    /// A value printed on the heading's own line (`HW Slowdown : Not Active`
    /// above its two causes; `Remapped Rows : N/A` with no lines under it).
    pub value: Option<Value>,
    /// The label column of the section's own lines, when it differs from the
    /// report's (nvidia-smi's process list is narrower).
    pub width: Option<usize>,
    /// In XML the children sit at the section's own depth, not one deeper
    /// (`<mig_device>` inside `<mig_devices>` from driver 580 on).
    pub xml_flat: bool,
}

/// One GPU's part of the report.
#[derive(Debug, Clone, PartialEq)]
pub struct GpuReport {
    /// `GPU 00000000:83:00.0`.
    pub bus_id: String,
    /// The GPU's sections and entries, in print order.
    pub items: Vec<Node>,
}

/// The whole report of one sample.
#[derive(Debug, Clone, PartialEq)]
pub struct Report {
    /// The header's entries (timestamp, driver and CUDA versions, ...).
    pub header: Vec<Node>,
    /// `Attached GPUs`: every GPU NVML sees, selected or not.
    pub attached: u32,
    /// The selected GPUs' parts, in the order they are printed.
    pub gpus: Vec<GpuReport>,
    /// The text view's colon column: where labels (with their indentation)
    /// end. It depends on the driver (`source::report::colon_column`).
    pub colon: usize,
}

/// One S-class unit's block of the unit report (`-q -u`): `Unit 0` in
/// text, `<unit id="0">` in XML.
#[derive(Debug, Clone, PartialEq)]
pub struct UnitBlock {
    /// The unit's index (`Unit 0`).
    pub id: u32,
    /// The unit's sections and entries, in print order.
    pub items: Vec<Node>,
}

/// A host interface card: `<hic id="0"><firmware>…</firmware></hic>`.
#[derive(Debug, Clone, PartialEq)]
pub struct Hic {
    /// The card's index (`<hic id="0">`).
    pub id: u32,
    /// Its firmware version (`nvmlSystemGetHicVersion`), or why it could not be read.
    pub firmware: Value,
}

/// The unit report (`-q -u`): the header, the host interface cards, the
/// number of units and one block a unit.
#[derive(Debug, Clone, PartialEq)]
pub struct UnitReport {
    /// The header's entries (timestamp, driver version).
    pub header: Vec<Node>,
    /// `HIC Info`: the host interface cards (none on any machine that is not
    /// an S-class system), or why NVML could not list them.
    pub hics: Result<Vec<Hic>, Value>,
    /// `Attached Units`: every unit NVML sees, selected or not.
    pub attached: u32,
    /// The selected units' blocks, in order.
    pub units: Vec<UnitBlock>,
}

/// Which form a report is built for: the text and the XML report differ in
/// a few lines (hexadecimal PCI numbers, retired pages, supported clocks).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum View {
    /// The text report (`-q`).
    Text,
    /// The XML report (`-q -x`).
    Xml,
}

impl Node {
    /// A `Label : value unit` line; `unit` is printed as given, `""` for none.
    pub fn entry(label: &'static str, xml: &'static str, value: Value, unit: &'static str) -> Self {
        Node::Entry(Entry {
            label,
            xml,
            value,
            unit,
        })
    }

    /// The header's `Driver Version` line, both reports' first (`driver_version`).
    pub fn driver_version(value: Value) -> Self {
        Node::entry("Driver Version", "driver_version", value, "")
    }

    /// A section of these nodes, with no value of its own, the report's label column and nested XML.
    pub fn section(label: &'static str, xml: &'static str, items: Vec<Node>) -> Self {
        Node::Section(Section {
            label,
            xml,
            items,
            value: None,
            width: None,
            xml_flat: false,
        })
    }

    /// A section with a value on its own line and nothing under it
    /// (`Remapped Rows : N/A`, `<remapped_rows>N/A</remapped_rows>`).
    pub fn collapsed(label: &'static str, xml: &'static str, value: Value) -> Self {
        Node::Section(Section {
            label,
            xml,
            items: Vec::new(),
            value: Some(value),
            width: None,
            xml_flat: false,
        })
    }
}

/// A small report with one node of each kind, for the renderers' tests.
#[cfg(test)]
pub fn example() -> Report {
    use super::NvmlCode;
    let total = Node::entry("Total", "total", Value::Bytes(1 << 20), " MiB");
    let pid = Node::entry("PID", "pid", Value::Int(7), "");
    Report {
        header: vec![Node::driver_version(Value::text("1<2"))],
        attached: 1,
        gpus: vec![GpuReport {
            bus_id: "00000000:01:00.0".into(),
            items: vec![
                Node::section("FB Memory Usage", "fb_memory_usage", vec![total]),
                Node::entry(
                    "Fan Speed",
                    "fan_speed",
                    Value::err(NvmlCode::NOT_SUPPORTED),
                    " %",
                ),
                Node::collapsed("Remapped Rows", "remapped_rows", Value::NotAvailable),
                Node::section(
                    "MIG Devices",
                    "mig_devices",
                    vec![Node::Bare(Value::text("None"))],
                ),
                Node::section(
                    "Processes",
                    "processes",
                    vec![Node::section("Process", "process_info", vec![pid])],
                ),
            ],
        }],
        colon: 55,
    }
}
