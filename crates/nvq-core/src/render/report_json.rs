//! The detail report as nvq's own JSON (`nvq -q --format=json`): the XML
//! report's tree as typed JSON, one document per sample on one line.
//!
//! Keys are the XML element names, in the report's order. Numbers are JSON
//! numbers in the unit the report shows, named in the enclosing object's
//! `"_units"`; text stays text. A line without a value is `null`, and the
//! enclosing object's `"_errors"` says why (the reasons of `--format=json`).
//! Elements that repeat (`process_info`, `supported_mem_clock`,
//! `supported_graphics_clock`, `mig_device`, `accounted_process_info`)
//! become arrays.

use super::json::missing_reason;
use crate::model::report::{Node, Report};
use crate::model::Value;

fn string(out: &mut String, s: &str) {
    out.push_str(&serde_json::to_string(s).unwrap_or_else(|_| "\"\"".to_string()));
}

fn scalar(out: &mut String, v: &Value) {
    match v {
        Value::Int(i) => out.push_str(&i.to_string()),
        Value::Float { value, .. } if value.is_finite() => out.push_str(&value.to_string()),
        Value::Bytes(b) => out.push_str(&Value::mib_ceil(*b).to_string()),
        Value::Text(t) => string(out, t),
        Value::Float { .. } | Value::NotAvailable | Value::Error(_) => out.push_str("null"),
    }
}

/// What one key of an object holds.
enum Item<'a> {
    Value(&'a Value, &'a str),
    Object(&'a [Node]),
}

/// The (key, item) pairs of a list of nodes, flattened as the XML is.
fn items<'a>(nodes: &'a [Node], out: &mut Vec<(&'static str, Item<'a>)>) {
    for n in nodes {
        match n {
            Node::Entry(e) if !e.xml.is_empty() => out.push((e.xml, Item::Value(&e.value, e.unit))),
            Node::Section(s) if !s.xml.is_empty() => match (&s.value, s.items.as_slice()) {
                (Some(v), rest) => {
                    out.push((s.xml, Item::Value(v, "")));
                    items(rest, out);
                }
                (None, [Node::Bare(v)]) => out.push((s.xml, Item::Value(v, ""))),
                (None, kids) => out.push((s.xml, Item::Object(kids))),
            },
            _ => {}
        }
    }
}

fn item(out: &mut String, it: &Item<'_>) {
    match it {
        Item::Value(v, _) => scalar(out, v),
        Item::Object(kids) => object(out, kids, &[]),
    }
}

/// An object of these nodes; `first` are pairs written before them.
pub(super) fn object(out: &mut String, nodes: &[Node], first: &[(&str, &str)]) {
    let mut pairs = Vec::new();
    items(nodes, &mut pairs);
    out.push('{');
    let mut sep = "";
    for (k, v) in first {
        key(out, &mut sep, k);
        string(out, v);
    }
    let mut done: Vec<&str> = Vec::new();
    for (i, (name, _)) in pairs.iter().enumerate() {
        if done.contains(name) {
            continue;
        }
        done.push(name);
        key(out, &mut sep, name);
        let same: Vec<&Item<'_>> = pairs[i..]
            .iter()
            .filter(|(k, _)| k == name)
            .map(|(_, v)| v)
            .collect();
        if same.len() == 1 && !repeats(name) {
            item(out, same[0]);
        } else {
            out.push('[');
            for (j, it) in same.iter().enumerate() {
                if j > 0 {
                    out.push(',');
                }
                item(out, it);
            }
            out.push(']');
        }
    }
    let units: Vec<(&str, &str)> = pairs
        .iter()
        .filter_map(|(k, it)| match it {
            Item::Value(v, u) if !u.trim().is_empty() && v.is_number() => Some((*k, u.trim())),
            _ => None,
        })
        .collect();
    let errors: Vec<(&str, &str)> = pairs
        .iter()
        .filter_map(|(k, it)| match it {
            Item::Value(v, _) => missing_reason(v).map(|r| (*k, r)),
            Item::Object(_) => None,
        })
        .collect();
    for (name, list) in [("_units", units), ("_errors", errors)] {
        if list.is_empty() {
            continue;
        }
        key(out, &mut sep, name);
        out.push('{');
        let mut inner = "";
        let mut seen: Vec<&str> = Vec::new();
        for (k, v) in list {
            if seen.contains(&k) {
                continue;
            }
            seen.push(k);
            key(out, &mut inner, k);
            string(out, v);
        }
        out.push('}');
    }
    out.push('}');
}

/// `"name":`, after `sep` (nothing before an object's first key); the
/// next key's `sep` is a comma.
fn key(out: &mut String, sep: &mut &str, name: &str) {
    out.push_str(sep);
    *sep = ",";
    string(out, name);
    out.push(':');
}

/// Elements that are lists even when they hold one item.
fn repeats(key: &str) -> bool {
    matches!(
        key,
        "process_info"
            | "supported_mem_clock"
            | "supported_graphics_clock"
            | "mig_device"
            | "accounted_process_info"
    )
}

/// One sample: `{"timestamp":…, …, "attached_gpus":N, "gpus":[{"id":…, …}]}`.
pub fn json(r: &Report, out: &mut Vec<u8>) {
    let mut s = String::new();
    let mut header = String::new();
    object(&mut header, &r.header, &[]);
    // The header's members, then the GPUs.
    header.pop();
    s.push_str(&header);
    if header.len() > 1 {
        s.push(',');
    }
    s.push_str(&format!("\"attached_gpus\":{},\"gpus\":[", r.attached));
    for (i, g) in r.gpus.iter().enumerate() {
        if i > 0 {
            s.push(',');
        }
        object(&mut s, &g.items, &[("id", &g.bus_id)]);
    }
    s.push_str("]}\n");
    out.extend_from_slice(s.as_bytes());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typed_tree() {
        let t = crate::render::written(|out| json(&crate::model::report::example(), out));
        assert_eq!(
            t,
            "{\"driver_version\":\"1<2\",\"attached_gpus\":1,\"gpus\":[{\"id\":\"00000000:01:00.0\",\
             \"fb_memory_usage\":{\"total\":1,\"_units\":{\"total\":\"MiB\"}},\"fan_speed\":null,\
             \"remapped_rows\":null,\"mig_devices\":\"None\",\"processes\":{\"process_info\":[{\"pid\":7}]},\
             \"_errors\":{\"fan_speed\":\"not_supported\",\"remapped_rows\":\"not_available\"}}]}\n"
        );
        let parsed: serde_json::Value = serde_json::from_str(&t).unwrap_or_default();
        assert_eq!(parsed["gpus"][0]["fb_memory_usage"]["total"], 1);
    }
}
