//! Table-wide checks of the `--query-gpu` registry against the reference
//! field table (`../shared/nvidia-smi/query-gpu-fields.tsv`, read at test
//! time; without it they skip, unless NVQ_REQUIRE_SHARED=1).

use super::*;
use crate::model::Column;
use crate::model::FieldInfo;
use crate::source::QueryMode;
use std::collections::HashSet;
use std::io::Write;
use std::path::PathBuf;

fn shared(rel: &str) -> Option<String> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared");
    // As tests/common does: without ../shared the comparisons skip, and the
    // skip is recorded for scripts/test-all.sh's banner (NVQ_SKIP_LOG) or
    // said on stderr; NVQ_REQUIRE_SHARED=1 (CI) fails instead. A file
    // missing from a ../shared that is there fails.
    if !root.is_dir() {
        let why = "../shared (real nvidia-smi captures) is not beside the checkout";
        if std::env::var("NVQ_REQUIRE_SHARED").is_ok_and(|v| v == "1") {
            panic!("{why} (NVQ_REQUIRE_SHARED=1: required here)");
        }
        let test = std::thread::current().name().unwrap_or("").to_string();
        let line = format!("{why} (with NVQ_REQUIRE_SHARED=1 this fails)\tnvq-core {test}\n");
        let wrote = match std::env::var_os("NVQ_SKIP_LOG") {
            Some(log) => std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(log)
                .and_then(|mut f| f.write_all(line.as_bytes())),
            // Past libtest's capture: it is the only record.
            None => std::io::stderr().write_all(format!("skipped: {line}").as_bytes()),
        };
        if let Err(e) = wrote {
            panic!("NVQ_SKIP_LOG: {e}");
        }
        return None;
    }
    let p = root.join(rel);
    match std::fs::read_to_string(&p) {
        Ok(s) => Some(s),
        Err(e) => panic!("{}: {e}", p.display()),
    }
}

/// (name, aliases, csv_header) of every TSV row, in file order.
fn tsv_rows() -> Option<Vec<(String, Vec<String>, String)>> {
    let text = shared("nvidia-smi/query-gpu-fields.tsv")?;
    Some(
        text.lines()
            .skip(1)
            .filter(|l| !l.is_empty())
            .map(|l| {
                let cols: Vec<&str> = l.split('\t').collect();
                let aliases = cols
                    .get(1)
                    .map(|a| {
                        a.split([',', ' '])
                            .filter(|s| !s.is_empty())
                            .map(str::to_string)
                            .collect()
                    })
                    .unwrap_or_default();
                (
                    cols[0].to_string(),
                    aliases,
                    cols.get(2).copied().unwrap_or("").to_string(),
                )
            })
            .collect(),
    )
}

fn infos() -> Vec<&'static FieldInfo> {
    QueryMode::GPU.fields()
}

fn by_name(name: &str) -> Option<&'static FieldInfo> {
    infos().into_iter().find(|f| f.name == name)
}

#[test]
fn registry_has_the_fields_the_reference_table_lacks() {
    // The TSV (checked both ways below) is driver 610's list; these come from
    // other drivers' help.
    for n in [
        "timestamp",
        "kmd_version",
        "reset_status.reset_required",
        "reset_status.drain_and_reset_recommended",
        "bbx.time_run",
    ] {
        assert!(by_name(n).is_some(), "{n} missing");
    }
}

#[test]
fn every_tsv_row_is_declared_with_its_exact_header_and_aliases() {
    let Some(rows) = tsv_rows() else { return };
    let mut names = HashSet::new();
    for (name, aliases, header) in &rows {
        names.insert(name.clone());
        let f = by_name(name).unwrap_or_else(|| panic!("{name} is not in the registry"));
        assert_eq!(&f.header(610), header, "header of {name}");
        for a in aliases {
            assert!(f.matches(a), "{name} does not accept its alias {a}");
            assert_eq!(QueryMode::GPU.lookup(a), QueryMode::GPU.lookup(name));
        }
    }
    // nvq's own fields (memory.used.percent, ...) are not nvidia-smi's.
    for f in infos().iter().filter(|f| !f.extension) {
        assert!(
            names.contains(f.name),
            "{} is not in the reference table",
            f.name
        );
    }
}

#[test]
fn registry_order_is_the_help_order_of_driver_610() {
    let Some(help) = shared("nvidia-smi/captures/help/help-query-gpu__610.57.04__linux.txt") else {
        return;
    };
    // Field lines of the help: a blank line, then `"name"` (or `"name" or ...`).
    let lines: Vec<&str> = help.lines().collect();
    let mut theirs = Vec::new();
    for (i, l) in lines.iter().enumerate() {
        if i > 0 && lines[i - 1].is_empty() && l.starts_with('"') {
            if let Some(name) = l.split('"').nth(1) {
                if by_name(name).is_some() {
                    theirs.push(name.to_string());
                }
            }
        }
    }
    let ours: Vec<&str> = infos()
        .iter()
        .filter(|f| !f.extension)
        .map(|f| f.name)
        .filter(|n| !n.starts_with("reset_status."))
        .collect();
    assert_eq!(ours, theirs);
    // Section headings come in the same order too.
    let their_sections: Vec<&str> = lines
        .iter()
        .filter_map(|l| {
            l.strip_prefix("Section about ")
                .and_then(|s| s.strip_suffix(" properties"))
        })
        .collect();
    let our_sections: Vec<&str> = infos()
        .iter()
        .filter_map(|f| f.heading.map(|s| s.name))
        .filter(|s| *s != "reset_status")
        .collect();
    assert_eq!(our_sections, their_sections);
}

#[test]
fn help_text_is_nvqs_own() {
    let Some(help) = shared("nvidia-smi/captures/help/help-query-gpu__610.57.04__linux.txt") else {
        return;
    };
    let theirs: HashSet<&str> = help.lines().filter(|l| l.len() > 30).collect();
    for f in infos() {
        assert!(!f.help.trim().is_empty(), "{} has no help", f.name);
        assert!(!theirs.contains(f.help), "{} copies NVIDIA's text", f.name);
        if let Some(s) = f.heading {
            assert!(
                !theirs.contains(s.help),
                "section {} copies NVIDIA's text",
                s.name
            );
        }
    }
}

#[test]
fn throttle_spelling_depends_on_the_driver() {
    let f = by_name("clocks_event_reasons.active").unwrap();
    assert_eq!(f.header(465), "clocks_throttle_reasons.active");
    assert_eq!(f.header(534), "clocks_throttle_reasons.active");
    assert_eq!(f.header(535), "clocks_event_reasons.active");
    assert_eq!(f.header(590), "clocks_event_reasons.active");
    assert!(f.matches("clocks_throttle_reasons.active"));
    assert_eq!(
        QueryMode::GPU.lookup("clocks_throttle_reasons.gpu_idle"),
        QueryMode::GPU.lookup("clocks_event_reasons.gpu_idle")
    );
}

#[test]
fn csv_header_of_all_fields_is_the_reference_header_column() {
    let Some(rows) = tsv_rows() else { return };
    let all: Vec<String> = rows.iter().map(|(n, _, _)| n.clone()).collect();
    let idx = QueryMode::GPU.resolve(&all.join(",")).unwrap();
    let fields = QueryMode::GPU.fields();
    let columns: Vec<Column> = idx
        .iter()
        .map(|&i| Column::from_info(fields[i], 610))
        .collect();
    let header: Vec<String> = columns.iter().map(Column::header).collect();
    let expected: Vec<&str> = rows.iter().map(|(_, _, h)| h.as_str()).collect();
    assert_eq!(header, expected);
}

#[test]
fn field_value_fields_declare_distinct_sources() {
    let mut seen = HashSet::new();
    for d in FIELDS {
        if let Some(fv) = d.get.field_value() {
            assert!(
                seen.insert(fv),
                "{} reads field value {fv:?} twice",
                d.info.name
            );
        }
    }
    // The power fields exist once per scope.
    assert!(seen.contains(&(185, 0)) && seen.contains(&(185, 1)));
}
