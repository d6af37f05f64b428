//! The unit report (`-q -u`) as text, XML and nvq's JSON, from the same
//! nodes and with the same line and element rules as the GPU report.
//!
//! No public capture of a unit report was found: where the layout differs
//! from the GPU report's (`HIC Info` and `Attached Units` after the header,
//! `Unit N` blocks, `<unit id="N">`, the `nvsmi_unit` DTD) it is unverified.

use super::report::{self as text_report, COLON_COLUMN, STEP};
use super::report_xml::{self as xml_report, escape};
use crate::model::report::{Node, UnitReport};

/// The text report.
pub fn text(r: &UnitReport, out: &mut Vec<u8>) {
    let mut s = String::from("\n==============NVSMI LOG==============\n\n");
    text_report::nodes(&mut s, &r.header, 0, COLON_COLUMN);
    s.push('\n');
    match &r.hics {
        Err(why) => {
            let v = super::report::value_text(why, "");
            text_report::line(&mut s, 0, COLON_COLUMN, "HIC Info", Some(v));
        }
        // A heading with a block per card, the heading alone without any.
        Ok(hics) => {
            text_report::line(&mut s, 0, COLON_COLUMN, "HIC Info", None);
            for h in hics {
                text_report::line(&mut s, STEP, COLON_COLUMN, &format!("HIC {}", h.id), None);
                let fw = Node::entry("Firmware Version", "firmware", h.firmware.clone(), "");
                text_report::nodes(&mut s, std::slice::from_ref(&fw), 2 * STEP, COLON_COLUMN);
            }
        }
    }
    text_report::line(
        &mut s,
        0,
        COLON_COLUMN,
        "Attached Units",
        Some(r.attached.to_string()),
    );
    for (i, u) in r.units.iter().enumerate() {
        if i > 0 {
            s.push('\n');
        }
        text_report::line(&mut s, 0, COLON_COLUMN, &format!("Unit {}", u.id), None);
        text_report::nodes(&mut s, &u.items, STEP, COLON_COLUMN);
    }
    out.extend_from_slice(s.as_bytes());
}

/// One XML document, naming the unit DTD of `version` (none when `None`).
pub fn xml(r: &UnitReport, version: Option<u32>, out: &mut Vec<u8>) {
    let mut s = String::from("<?xml version=\"1.0\" ?>\n");
    if let Some(v) = version {
        s.push_str(&format!(
            "<!DOCTYPE nvidia_smi_log SYSTEM \"nvsmi_unit_v{v}.dtd\">\n"
        ));
    }
    s.push_str("<nvidia_smi_log>\n");
    xml_report::nodes(&mut s, &r.header, 1);
    match &r.hics {
        Err(why) => xml_report::element(&mut s, 1, "hic_info", &super::report::value_text(why, "")),
        Ok(hics) => {
            s.push_str("\t<hic_info>\n");
            for h in hics {
                s.push_str(&format!("\t\t<hic id=\"{}\">\n", h.id));
                xml_report::element(
                    &mut s,
                    3,
                    "firmware",
                    &super::report::value_text(&h.firmware, ""),
                );
                s.push_str("\t\t</hic>\n");
            }
            s.push_str("\t</hic_info>\n");
        }
    }
    xml_report::element(&mut s, 1, "attached_units", &r.attached.to_string());
    for u in &r.units {
        s.push_str(&format!("\t<unit id=\"{}\">\n", escape(&u.id.to_string())));
        xml_report::nodes(&mut s, &u.items, 2);
        s.push_str("\t</unit>\n\n");
    }
    s.push_str("</nvidia_smi_log>\n");
    out.extend_from_slice(s.as_bytes());
}

/// nvq's JSON: `{"timestamp":…, "hic_info":…, "attached_units":N,
/// "units":[{"id":"0", …}]}`.
pub fn json(r: &UnitReport, out: &mut Vec<u8>) {
    let mut top = r.header.clone();
    if let Err(why) = &r.hics {
        top.push(Node::entry("HIC Info", "hic_info", why.clone(), ""));
    }
    let mut head = String::new();
    super::report_json::object(&mut head, &top, &[]);
    head.pop();
    let mut s = head;
    if s.len() > 1 {
        s.push(',');
    }
    if let Ok(hics) = &r.hics {
        s.push_str("\"hic_info\":[");
        for (i, h) in hics.iter().enumerate() {
            if i > 0 {
                s.push(',');
            }
            let fw = Node::entry("", "firmware", h.firmware.clone(), "");
            super::report_json::object(&mut s, &[fw], &[("id", &h.id.to_string())]);
        }
        s.push_str("],");
    }
    s.push_str(&format!("\"attached_units\":{},\"units\":[", r.attached));
    for (i, u) in r.units.iter().enumerate() {
        if i > 0 {
            s.push(',');
        }
        super::report_json::object(&mut s, &u.items, &[("id", &u.id.to_string())]);
    }
    s.push_str("]}\n");
    out.extend_from_slice(s.as_bytes());
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::report::UnitBlock;
    use crate::model::Value;

    fn example() -> UnitReport {
        UnitReport {
            header: vec![Node::driver_version(Value::text("1"))],
            hics: Err(Value::NotAvailable),
            attached: 1,
            units: vec![UnitBlock {
                id: 0,
                items: vec![Node::entry("Board", "board", Value::Int(30), " C")],
            }],
        }
    }

    #[test]
    fn text_layout() {
        let got = crate::render::written(|out| text(&example(), out));
        let want = format!(
            "\n==============NVSMI LOG==============\n\n{:<55}: 1\n\n{:<55}: N/A\n{:<55}: 1\nUnit 0\n{:<55}: 30 C\n",
            "Driver Version", "HIC Info", "Attached Units", "    Board"
        );
        assert_eq!(got, want);
    }

    #[test]
    fn xml_layout() {
        let t = crate::render::written(|out| xml(&example(), Some(13), out));
        assert!(t.contains("SYSTEM \"nvsmi_unit_v13.dtd\""), "{t}");
        assert!(t.contains("\t<hic_info>N/A</hic_info>\n\t<attached_units>1</attached_units>\n\t<unit id=\"0\">\n\t\t<board>30 C</board>\n"), "{t}");
    }

    #[test]
    fn json_layout() {
        let mut out = Vec::new();
        json(&example(), &mut out);
        let v: serde_json::Value = serde_json::from_slice(&out).unwrap_or_default();
        assert_eq!(v["attached_units"], 1);
        assert_eq!(v["units"][0]["board"], 30);
        assert_eq!(v["units"][0]["id"], "0");
        assert!(v["hic_info"].is_null());
    }
}
