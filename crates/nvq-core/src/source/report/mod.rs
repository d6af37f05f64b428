//! The detail report (`-q`): its declaration (`decl`), the getters only it
//! needs (`get`), and the reader that turns the declaration into a
//! [`Report`] for the selected GPUs.
//!
//! A line whose value is also a `--query-gpu` field names that field, so the
//! value is read and formatted by the field's own getter, in one place.

mod decl;
mod get;
pub mod unit;

pub use decl::{colon_column, Display, DISPLAY_NAMES};

use super::gpu::{GpuCtx, FACTS};
use super::Target;
use crate::model::report::{GpuReport, Node, Report, Section, View};
use crate::model::{Fact, Value};
use crate::nvml::{raw, Session};

/// How a line's value is read.
#[derive(Clone, Copy)]
pub enum Read {
    /// The fact, through its one reader (the `--query-gpu` field's getter).
    Field(Fact),
    /// A getter of the report's own.
    Fn(fn(&GpuCtx) -> Value),
    /// The fact, printed in hexadecimal, without its `0x` (the XML form of
    /// the PCI numbers).
    Hex(Fact),
}

/// One node of the declaration.
pub enum Decl {
    /// `Label : value unit`.
    Entry {
        /// The text report's label (left of the `:`).
        label: &'static str,
        /// The XML element's name (`-x`).
        xml: &'static str,
        /// The unit printed after the value (empty: none).
        unit: &'static str,
        /// How the value is read.
        read: Read,
    },
    /// A heading and what is under it.
    Section {
        /// The heading in the text report.
        label: &'static str,
        /// The XML element that holds the section.
        xml: &'static str,
        /// The entries and subsections under the heading, in order.
        items: &'static [Decl],
    },
    /// Lines printed only when `-d` asks for sections (the sampled
    /// min/max/avg blocks).
    Asked(&'static [Decl]),
    /// Lines declared under a name of their own.
    Part(&'static [Decl]),
    /// Lines printed by drivers from this major version on.
    Since(u32, &'static [Decl]),
    /// Lines printed by drivers before this major version.
    Before(u32, &'static [Decl]),
    /// Lines printed by drivers from the third major version on, and by the
    /// drivers of the first (a long-lived branch) from its release numbered
    /// by the second on: a change taken back into an older branch.
    Backported(u32, u32, u32, &'static [Decl]),
    /// Lines that drivers before this major version named otherwise:
    /// (name from that version on, older name), labels and elements alike.
    Renamed(
        u32,
        &'static [(&'static str, &'static str)],
        &'static [Decl],
    ),
    /// Lines whose values are all `N/A` where the first says so, whatever
    /// NVML returns for them (the ECC counts of a GPU without an ECC mode).
    Masked(fn(&GpuCtx) -> bool, &'static [Decl]),
    /// Lines of the text report only.
    Text(&'static [Decl]),
    /// Lines of the XML report only.
    Xml(&'static [Decl]),
    /// A part whose shape depends on the GPU or the driver (nvidia-smi
    /// prints different lines for them): the declaration to use.
    Pick(fn(&GpuCtx, View) -> &'static [Decl]),
    /// A part built by code (the process list).
    Build(fn(&GpuCtx, View) -> Node),
    /// Any number of nodes built by code (the MIG devices).
    Many(fn(&GpuCtx, View) -> Vec<Node>),
}

impl Read {
    fn read(self, c: &GpuCtx) -> Value {
        match self {
            Read::Field(fact) => c.fact(fact),
            Read::Fn(f) => f(c),
            Read::Hex(fact) => match Read::Field(fact).read(c) {
                Value::Text(t) => Value::text(t.trim_start_matches("0x")),
                other => other,
            },
        }
    }
}

fn build(decls: &[Decl], c: &GpuCtx, view: View, asked: bool, out: &mut Vec<Node>) {
    for d in decls {
        match d {
            Decl::Entry {
                label,
                xml,
                unit,
                read,
            } => out.push(Node::entry(label, xml, read.read(c), unit)),
            Decl::Section { label, xml, items } => {
                let mut inner = Vec::new();
                build(items, c, view, asked, &mut inner);
                out.push(Node::section(label, xml, inner));
            }
            Decl::Text(items) if view == View::Text => build(items, c, view, asked, out),
            Decl::Xml(items) if view == View::Xml => build(items, c, view, asked, out),
            Decl::Text(_) | Decl::Xml(_) => {}
            Decl::Part(items) => build(items, c, view, asked, out),
            Decl::Asked(items) if asked => build(items, c, view, asked, out),
            Decl::Asked(_) => {}
            Decl::Since(v, items) if c.driver_major() >= *v => build(items, c, view, asked, out),
            Decl::Before(v, items) if c.driver_major() < *v => build(items, c, view, asked, out),
            Decl::Since(..) | Decl::Before(..) => {}
            Decl::Backported(branch, minor, since, items) => {
                let (major, m) = release(c);
                if major >= *since || (major == *branch && m >= *minor) {
                    build(items, c, view, asked, out);
                }
            }
            Decl::Renamed(v, names, items) => {
                let start = out.len();
                build(items, c, view, asked, out);
                if c.driver_major() < *v {
                    rename(&mut out[start..], names);
                }
            }
            Decl::Masked(hide, items) => {
                let start = out.len();
                build(items, c, view, asked, out);
                if hide(c) {
                    mask(&mut out[start..]);
                }
            }
            Decl::Pick(f) => build(f(c, view), c, view, asked, out),
            Decl::Build(f) => out.push(f(c, view)),
            Decl::Many(f) => out.extend(f(c, view)),
        }
    }
}

/// The driver's major version and release within it (`550.90.12`: 550, 90);
/// 0 for what is unknown.
fn release(c: &GpuCtx) -> (u32, u32) {
    let v = c.session.driver_version().unwrap_or("");
    let minor = v
        .split('.')
        .nth(1)
        .and_then(|m| m.parse().ok())
        .unwrap_or(0);
    (c.driver_major(), minor)
}

/// Every value of the nodes (and of those under them) becomes `N/A`.
fn mask(nodes: &mut [Node]) {
    for n in nodes {
        match n {
            Node::Entry(e) => e.value = Value::NotAvailable,
            Node::Section(s) => {
                if s.value.is_some() {
                    s.value = Some(Value::NotAvailable);
                }
                mask(&mut s.items);
            }
            Node::Bare(v) => *v = Value::NotAvailable,
        }
    }
}

/// Gives the nodes (and those under them) their older names.
fn rename(nodes: &mut [Node], names: &[(&'static str, &'static str)]) {
    let old = |n: &'static str| {
        names
            .iter()
            .find(|(new, _)| *new == n)
            .map_or(n, |(_, o)| *o)
    };
    for n in nodes {
        match n {
            Node::Entry(e) => {
                e.label = old(e.label);
                e.xml = old(e.xml);
            }
            Node::Section(s) => {
                s.label = old(s.label);
                s.xml = old(s.xml);
                rename(&mut s.items, names);
            }
            Node::Bare(_) => {}
        }
    }
}

/// Does the report declare a section for this `-d` type yet?
pub fn shows(d: Display) -> bool {
    decl::GPU.iter().any(|(types, _)| types.contains(&d))
}

/// One GPU's part of the report, limited to the `-d` types in `show`
/// (all of them when empty).
pub fn gpu_report(c: &GpuCtx, show: &[Display], view: View) -> GpuReport {
    // Every field value the report may show, in one nvmlDeviceGetFieldValues
    // call instead of one call a line.
    let mut ids: Vec<(u32, u32)> = FACTS.iter().filter_map(|f| f.get.field_value()).collect();
    ids.extend_from_slice(crate::source::gpu::report_get::FIELD_VALUES);
    c.prefetch_field_values(&ids);
    let mut items = Vec::new();
    for (types, part) in decl::GPU {
        let asked_only = *types == decl::ONLY_ASKED || *types == decl::ONLY_ASKED_TARGET_TEMP;
        let whole = show.is_empty() && (view == View::Xml || !asked_only);
        if whole || types.iter().any(|t| show.contains(t)) {
            build(part, c, view, !show.is_empty(), &mut items);
        }
    }
    let bus_id = c.pci().map(|p| p.bus_id.clone()).unwrap_or_default();
    GpuReport { bus_id, items }
}

/// The header: timestamp, driver and CUDA versions.
pub fn header(session: &Session, now: std::time::SystemTime, view: View) -> Vec<Node> {
    let mut stamp = super::smi_table::date_line(now).trim_end().to_string();
    let version = session.driver_version();
    if view == View::Xml && !xml_day_padded(version.as_deref().unwrap_or("")) {
        stamp = stamp.replacen("  ", " ", 1);
    }
    let driver = match version {
        Ok(v) => Value::text(v),
        Err(code) => Value::err(code),
    };
    let cuda = match raw::cuda_driver_version(session) {
        Ok(v) => Value::text(format!("{}.{}", v / 1000, (v % 1000) / 10)),
        Err(code) => Value::err(code),
    };
    let mut h = vec![Node::entry(
        "Timestamp",
        "timestamp",
        Value::text(stamp),
        "",
    )];
    if session.driver_major() >= decl::KMD_NAMED_FROM {
        // 610 renames both lines and keeps the old ones with a warning.
        let warn = |v: &Value, new: &str| match v {
            Value::Text(t) => Value::text(format!(
                "{t} [Deprecated; will be removed in CUDA 14.0. Use {new} instead]"
            )),
            other => other.clone(),
        };
        let (old_driver, old_cuda) = (
            warn(&driver, "KMD Version"),
            warn(&cuda, "CUDA UMD Version"),
        );
        h.push(Node::driver_version(old_driver));
        h.push(Node::entry("CUDA Version", "cuda_version", old_cuda, ""));
        h.push(Node::entry("KMD Version", "kmd_version", driver, ""));
        h.push(Node::entry(
            "CUDA UMD Version",
            "cuda_umd_version",
            cuda,
            "",
        ));
    } else {
        h.push(Node::driver_version(driver));
        h.push(Node::entry("CUDA Version", "cuda_version", cuda, ""));
    }
    h
}

/// The drivers whose XML timestamp does not pad the day of the month
/// (`Mon Aug 7`, not `Fri Aug  4`): the 525.147 and 535.54 documents pad
/// it, the 535.86 and 570.124 ones do not, a 595.84 one pads it again
/// (`Thu Aug  6`). Where between 570 and 595 padding came back is not known
/// (580, where the DTD went to v13, is assumed: unverified), and the
/// public documents may have been edited by hand; the real-GPU script
/// (`scripts/compare-with-nvidia-smi.sh`) settles it.
const XML_DAY_UNPADDED: std::ops::Range<(u32, u32)> = (535, 86)..(580, 0);

/// Does this driver's XML timestamp pad the day of the month? An unknown
/// version counts as a new one.
fn xml_day_padded(version: &str) -> bool {
    let mut parts = version.split('.').map(|p| p.parse::<u32>().ok());
    match (parts.next().flatten(), parts.next().flatten()) {
        (Some(major), Some(minor)) => !XML_DAY_UNPADDED.contains(&(major, minor)),
        _ => true,
    }
}

/// How a one-shot report reads its GPUs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reads {
    /// One GPU per thread: the report costs about one GPU's latency.
    Parallel,
    /// One after another (what nvidia-smi does; kept for measurements).
    Serial,
}

/// The whole report for these GPUs.
pub fn collect(
    session: &Session,
    targets: &[Target],
    show: &[Display],
    view: View,
    reads: Reads,
) -> Report {
    let attached = session.device_count().unwrap_or(0);
    let now = std::time::SystemTime::now();
    let read = move |index: u32| gpu_report(&GpuCtx::new(session, index, attached), show, view);
    let gpus = match reads {
        Reads::Serial => targets.iter().map(|t| read(t.index)).collect(),
        Reads::Parallel => std::thread::scope(|s| {
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
        }),
    };
    Report {
        header: header(session, now, view),
        attached,
        gpus,
        colon: colon_column(session.driver_major()),
    }
}

/// `HW Slowdown : Active` with its two causes under it.
fn hw_slowdown(c: &GpuCtx, _: View) -> Node {
    Node::Section(Section {
        label: "HW Slowdown",
        xml: "clocks_event_reason_hw_slowdown",
        value: Some(c.fact(Fact::ClocksEventReasonsHwSlowdown)),
        items: vec![
            Node::entry(
                "HW Thermal Slowdown",
                "clocks_event_reason_hw_thermal_slowdown",
                c.fact(Fact::ClocksEventReasonsHwThermalSlowdown),
                "",
            ),
            Node::entry(
                "HW Power Brake Slowdown",
                "clocks_event_reason_hw_power_brake_slowdown",
                c.fact(Fact::ClocksEventReasonsHwPowerBrakeSlowdown),
                "",
            ),
        ],
        width: None,
        xml_flat: false,
    })
}

#[cfg(test)]
mod tests {
    use super::xml_day_padded;

    #[test]
    fn day_padding_by_driver() {
        assert!(xml_day_padded("418.43"));
        assert!(xml_day_padded("525.147.05"));
        assert!(xml_day_padded("535.54.03"));
        assert!(!xml_day_padded("535.86.05"));
        assert!(!xml_day_padded("536.40"));
        assert!(!xml_day_padded("570.124.04"));
        assert!(xml_day_padded("595.84"));
        assert!(xml_day_padded("610.57.04"));
        assert!(xml_day_padded(""));
    }
}
