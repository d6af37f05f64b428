//! The detail report as XML (`-q -x`): nvidia-smi's element layout, one tab
//! per level, the DOCTYPE of the driver's DTD generation, and with `--dtd`
//! a DTD written from the elements of the document itself.

use super::report::value_text;
use crate::model::report::{Node, Report};

/// Which DTD a driver's nvidia-smi names: `None` before 430 (418 printed no
/// DOCTYPE). Boundaries come from the XML documents seen: 418 none, 510-516
/// v11, 525-570 v12, 595 v13; 430 and 495 from the documentation.
pub fn dtd_version(driver_major: u32) -> Option<u32> {
    match driver_major {
        0..=429 => None,
        430..=494 => Some(10),
        495..=519 => Some(11),
        520..=579 => Some(12),
        _ => Some(13),
    }
}

/// Does nvq write `c` in an XML document (`-q -x`, `nvq plot`'s SVG) as it
/// is? Not what XML 1.0's `Char` production leaves out (C0 controls but tab,
/// U+FFFE, U+FFFF; a Rust string holds no surrogate), nor the other control
/// characters, which it discourages: those are written as `?`.
pub fn xml_allows(c: char) -> bool {
    !((c.is_control() && c != '\t') || matches!(c, '\u{FFFE}' | '\u{FFFF}'))
}

/// Text with `?` for each character [`xml_allows`] refuses, its markup left
/// as it is (for a writer that escapes markup itself, as plotters' SVG does).
pub fn xml_chars(s: &str) -> std::borrow::Cow<'_, str> {
    if s.chars().all(xml_allows) {
        return s.into();
    }
    s.chars()
        .map(|c| if xml_allows(c) { c } else { '?' })
        .collect::<String>()
        .into()
}

/// `&`, `<`, `>` and `"` as entities, and `?` for a character XML 1.0 does
/// not allow ([`xml_allows`]): any text is safe in an element or an attribute.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            c if !xml_allows(c) => out.push('?'),
            c => out.push(c),
        }
    }
    out
}

fn tabs(out: &mut String, depth: usize) {
    for _ in 0..depth {
        out.push('\t');
    }
}

pub(super) fn element(out: &mut String, depth: usize, name: &str, text: &str) {
    tabs(out, depth);
    out.push_str(&format!("<{name}>{}</{name}>\n", escape(text)));
}

pub(super) fn nodes(out: &mut String, items: &[Node], depth: usize) {
    for n in items {
        match n {
            Node::Entry(e) if !e.xml.is_empty() => {
                element(out, depth, e.xml, &value_text(&e.value, e.unit))
            }
            Node::Section(s) if !s.xml.is_empty() => match &s.value {
                // A value on the heading: one element; what the text view
                // nests under it (HW Slowdown's causes) follows as siblings.
                Some(v) => {
                    element(out, depth, s.xml, &value_text(v, ""));
                    nodes(out, &s.items, depth);
                }
                None => {
                    tabs(out, depth);
                    out.push_str(&format!("<{}>\n", s.xml));
                    nodes(out, &s.items, depth + child_step(s));
                    tabs(out, depth);
                    out.push_str(&format!("</{}>\n", s.xml));
                }
            },
            Node::Bare(v) => {
                tabs(out, depth);
                out.push_str(&escape(&value_text(v, "")));
                out.push('\n');
            }
            Node::Entry(_) | Node::Section(_) => {}
        }
    }
}

/// How much deeper a section's children go: one level, or none where the
/// source says nvidia-smi writes them flat (see `Section::xml_flat`).
fn child_step(s: &crate::model::report::Section) -> usize {
    usize::from(!s.xml_flat)
}

/// One XML document. `dtd`: `None` names the DTD file of `version` in the
/// DOCTYPE line (none at all when `version` is `None`), `Some(text)` embeds
/// that DTD.
pub fn xml(r: &Report, version: Option<u32>, dtd: Option<&str>, out: &mut Vec<u8>) {
    let mut s = String::from("<?xml version=\"1.0\" ?>\n");
    match (dtd, version) {
        (Some(d), _) => s.push_str(&format!("<!DOCTYPE nvidia_smi_log [\n{d}]>\n")),
        (None, Some(v)) => s.push_str(&format!(
            "<!DOCTYPE nvidia_smi_log SYSTEM \"nvsmi_device_v{v}.dtd\">\n"
        )),
        (None, None) => {}
    }
    s.push_str("<nvidia_smi_log>\n");
    nodes(&mut s, &r.header, 1);
    element(&mut s, 1, "attached_gpus", &r.attached.to_string());
    for g in &r.gpus {
        s.push_str(&format!("\t<gpu id=\"{}\">\n", escape(&g.bus_id)));
        nodes(&mut s, &g.items, 2);
        s.push_str("\t</gpu>\n\n");
    }
    s.push_str("</nvidia_smi_log>\n");
    out.extend_from_slice(s.as_bytes());
}

/// What an element holds, for the DTD.
#[derive(PartialEq)]
enum Content {
    Text,
    /// The content model: `a, b*, c`.
    Children(String),
    /// Seen with two shapes (`N/A` in one GPU, children in another).
    Any,
}

fn collect_dtd(items: &[Node], seen: &mut Vec<(&'static str, Content)>) -> Vec<&'static str> {
    let mut names = Vec::new();
    let add = |seen: &mut Vec<(&'static str, Content)>, name: &'static str, c: Content| {
        match seen.iter_mut().find(|(n, _)| *n == name) {
            // An element seen with two shapes (`N/A` here, children there)
            // is declared as holding anything.
            Some((_, old)) if *old != c => *old = Content::Any,
            Some(_) => {}
            None => seen.push((name, c)),
        }
    };
    for n in items {
        match n {
            Node::Entry(e) if !e.xml.is_empty() => {
                add(seen, e.xml, Content::Text);
                names.push(e.xml);
            }
            Node::Section(s) if !s.xml.is_empty() => {
                if s.value.is_some() {
                    add(seen, s.xml, Content::Text);
                    names.push(s.xml);
                    names.extend(collect_dtd(&s.items, seen));
                } else {
                    let kids = collect_dtd(&s.items, seen);
                    let c = if kids.is_empty() || s.items.iter().any(|i| matches!(i, Node::Bare(_)))
                    {
                        Content::Text
                    } else {
                        Content::Children(sequence(&kids))
                    };
                    add(seen, s.xml, c);
                    names.push(s.xml);
                }
            }
            _ => {}
        }
    }
    names
}

/// A DTD for this document, written from its elements: each element with
/// the children it holds (repeated ones with `*`), or text.
pub fn dtd(r: &Report) -> String {
    let mut seen: Vec<(&'static str, Content)> = Vec::new();
    let header = collect_dtd(&r.header, &mut seen);
    let mut gpu_kids: Vec<&'static str> = Vec::new();
    for g in &r.gpus {
        let kids = collect_dtd(&g.items, &mut seen);
        if gpu_kids.is_empty() {
            gpu_kids = kids;
        }
    }
    let mut out = String::new();
    let mut top: Vec<&str> = header.clone();
    top.push("attached_gpus");
    out.push_str(&format!(
        "<!ELEMENT nvidia_smi_log ({}, gpu*)>\n",
        top.join(", ")
    ));
    out.push_str("<!ELEMENT attached_gpus (#PCDATA)>\n");
    out.push_str(&format!("<!ELEMENT gpu ({})>\n", sequence(&gpu_kids)));
    out.push_str("<!ATTLIST gpu id CDATA #REQUIRED>\n");
    for (name, content) in &seen {
        match content {
            Content::Text => out.push_str(&format!("<!ELEMENT {name} (#PCDATA)>\n")),
            Content::Any => out.push_str(&format!("<!ELEMENT {name} ANY>\n")),
            Content::Children(k) => out.push_str(&format!("<!ELEMENT {name} ({k})>\n")),
        }
    }
    out
}

/// Children in order; a run of the same name becomes `name*`.
fn sequence(kids: &[&str]) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut i = 0;
    while i < kids.len() {
        let mut j = i;
        while j < kids.len() && kids[j] == kids[i] {
            j += 1;
        }
        parts.push(if j - i > 1 {
            format!("{}*", kids[i])
        } else {
            kids[i].to_string()
        });
        i = j;
    }
    if parts.is_empty() {
        return "#PCDATA".to_string();
    }
    parts.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn characters_xml_forbids_become_question_marks() {
        assert_eq!(escape("a\u{FFFE}b\u{FFFF}c\u{1}\u{1F}\td"), "a?b?c??\td");
        assert_eq!(
            escape("\u{FFFD}\u{10000}\u{D7FF}\u{E000}"),
            "\u{FFFD}\u{10000}\u{D7FF}\u{E000}"
        );
    }

    #[test]
    fn layout_escaping_and_dtd() {
        let r = crate::model::report::example();
        let t = crate::render::written(|out| xml(&r, Some(13), None, out));
        assert_eq!(
            t,
            "<?xml version=\"1.0\" ?>\n<!DOCTYPE nvidia_smi_log SYSTEM \"nvsmi_device_v13.dtd\">\n\
             <nvidia_smi_log>\n\t<driver_version>1&lt;2</driver_version>\n\t<attached_gpus>1</attached_gpus>\n\
             \t<gpu id=\"00000000:01:00.0\">\n\t\t<fb_memory_usage>\n\t\t\t<total>1 MiB</total>\n\
             \t\t</fb_memory_usage>\n\t\t<fan_speed>N/A</fan_speed>\n\t\t<remapped_rows>N/A</remapped_rows>\n\
             \t\t<mig_devices>\n\t\t\tNone\n\t\t</mig_devices>\n\t\t<processes>\n\t\t\t<process_info>\n\
             \t\t\t\t<pid>7</pid>\n\t\t\t</process_info>\n\t\t</processes>\n\t</gpu>\n\n</nvidia_smi_log>\n"
        );
        let d = dtd(&r);
        assert!(d.contains("<!ELEMENT gpu (fb_memory_usage, fan_speed, remapped_rows, mig_devices, processes)>"), "{d}");
        assert!(d.contains("<!ELEMENT processes (process_info)>"), "{d}");
        assert_eq!(sequence(&["a", "b", "b", "c"]), "a, b*, c");
        assert_eq!(dtd_version(418), None);
        assert_eq!(dtd_version(535), Some(12));
        assert_eq!(dtd_version(595), Some(13));
    }
}
