//! The detail report (`-q`) as nvidia-smi's text: a banner, the header, then
//! one block per GPU, sections indented four spaces a level, values after a
//! colon in one column (whose place depends on the driver: `Report::colon`).

use crate::model::report::{Node, Report};
use crate::model::{NvmlCode, Value};

/// The unit report's colon column (the GPU report carries its own, by driver).
pub(super) const COLON_COLUMN: usize = 55;
pub(super) const STEP: usize = 4;

/// A value as the text view prints it: failures without brackets (`N/A`,
/// `Requested functionality has been deprecated`), numbers with their unit.
pub fn value_text(v: &Value, unit: &str) -> String {
    match v {
        Value::Error(t) if t.code == NvmlCode::NOT_SUPPORTED => "N/A".to_string(),
        Value::Error(t) => t.code.message().to_string(),
        Value::NotAvailable => "N/A".to_string(),
        Value::Text(s) => super::printable(s).into_owned(),
        other => format!("{other}{unit}"),
    }
}

pub(super) fn line(
    out: &mut String,
    indent: usize,
    width: usize,
    label: &str,
    value: Option<String>,
) {
    let mut l = " ".repeat(indent);
    l.push_str(label);
    if let Some(v) = value {
        let pad = width.saturating_sub(l.len());
        l.push_str(&" ".repeat(pad));
        l.push_str(": ");
        l.push_str(&v);
    }
    out.push_str(&l);
    out.push('\n');
}

pub(super) fn nodes(out: &mut String, items: &[Node], indent: usize, width: usize) {
    for n in items {
        match n {
            Node::Entry(e) => line(
                out,
                indent,
                width,
                e.label,
                Some(value_text(&e.value, e.unit)),
            ),
            Node::Section(s) => {
                let v = s.value.as_ref().map(|v| value_text(v, ""));
                line(out, indent, width, s.label, v);
                nodes(out, &s.items, indent + STEP, s.width.unwrap_or(width));
            }
            Node::Bare(v) => line(out, indent, width, &value_text(v, ""), None),
        }
    }
}

/// The whole report of one sample.
pub fn text(r: &Report, out: &mut Vec<u8>) {
    let mut s = String::from("\n==============NVSMI LOG==============\n\n");
    nodes(&mut s, &r.header, 0, r.colon);
    s.push('\n');
    line(
        &mut s,
        0,
        r.colon,
        "Attached GPUs",
        Some(r.attached.to_string()),
    );
    for (i, g) in r.gpus.iter().enumerate() {
        if i > 0 {
            s.push('\n');
        }
        line(&mut s, 0, r.colon, &format!("GPU {}", g.bus_id), None);
        nodes(&mut s, &g.items, STEP, r.colon);
    }
    // nvidia-smi ends the report with an empty line (every `-q` seen, 535 to 610).
    s.push('\n');
    out.extend_from_slice(s.as_bytes());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout() {
        let t = crate::render::written(|out| text(&crate::model::report::example(), out));
        let want = format!(
            "\n==============NVSMI LOG==============\n\n{:<55}: 1<2\n\n{:<55}: 1\n\
             GPU 00000000:01:00.0\n    FB Memory Usage\n{:<55}: 1 MiB\n{:<55}: N/A\n{:<55}: N/A\n\
             \x20   MIG Devices\n        None\n    Processes\n        Process\n{:<55}: 7\n\n",
            "Driver Version",
            "Attached GPUs",
            "        Total",
            "    Fan Speed",
            "    Remapped Rows",
            "            PID"
        );
        assert_eq!(t, want);
    }
}
