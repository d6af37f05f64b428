//! The output formats (json, ndjson, table, prometheus) end to end: nvq runs
//! against the NVML simulator with `tests/scenarios/formats.toml` (a healthy
//! GPU, one with unsupported and refused values, one that falls off the bus).
//!
//! Snapshots live in `tests/snapshots/formats/` and are compared exactly;
//! regenerate them with `NVQ_UPDATE_SNAPSHOTS=1 cargo test --test tests formats::`
//! (and review the diff).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;
use common::{parsed_scenario, run, scenario};
use nvq_core::source::time::is_timestamp;

use nvml_sim::scenario::{Scenario, Series};
use serde_json::Value as Json;
use std::path::PathBuf;
use std::sync::LazyLock;

const FIELDS: &str = "index,name,uuid,pci.bus_id,serial,driver_version,count,memory.total,memory.reserved,memory.used,memory.free,utilization.gpu,utilization.memory,temperature.gpu,power.draw";

const MIB: u64 = 1 << 20;

/// The scenario of these tests: a healthy GPU, one with unsupported and
/// refused values, one that falls off the bus.
static FORMATS: LazyLock<PathBuf> = LazyLock::new(|| scenario("formats.toml"));

fn root() -> PathBuf {
    common::repo_root()
}

/// Query the test fields in `format`; the run must succeed.
fn query(format: &str) -> String {
    let r = run(
        &FORMATS,
        &[
            &format!("--query-gpu={FIELDS}"),
            &format!("--format={format}"),
        ],
    );
    assert_eq!(r.code, Some(0), "--format={format}: {}", r.stderr);
    assert!(r.stderr.is_empty(), "{}", r.stderr);
    r.stdout
}

/// Compare with (or, under NVQ_UPDATE_SNAPSHOTS=1, write) a snapshot.
fn snapshot(name: &str, actual: &str) {
    let path = root().join("tests/snapshots/formats").join(name);
    let regen = "NVQ_UPDATE_SNAPSHOTS=1 cargo test --test tests formats::";
    if let Err(e) = nvq_test_support::check_snapshot(&path, actual, regen) {
        panic!("{e}");
    }
}

/// Replace each line's `"timestamp":"..."` (checked first) and
/// `"timestamp.epoch":...` (second) by placeholders.
fn mask_timestamps(text: &str) -> String {
    const KEY: &str = "{\"timestamp\":\"";
    text.lines()
        .map(|line| {
            let rest = line
                .strip_prefix(KEY)
                .unwrap_or_else(|| panic!("no leading timestamp: {line}"));
            let (ts, tail) = rest.split_at(23);
            assert!(is_timestamp(ts), "bad timestamp {ts:?}");
            assert!(tail.starts_with('"'), "{line}");
            // Then the same moment in seconds since the epoch.
            const EPOCH: &str = "\",\"timestamp.epoch\":";
            let rest = tail
                .strip_prefix(EPOCH)
                .unwrap_or_else(|| panic!("no epoch after the timestamp: {line}"));
            let end = rest.find(',').unwrap_or(rest.len());
            let secs: f64 = rest[..end].parse().unwrap();
            assert!(secs > 1.6e9, "{line}");
            format!("{KEY}<timestamp>{EPOCH}<epoch>{}\n", &rest[end..])
        })
        .collect()
}

#[test]
fn csv_snapshot_is_the_baseline() {
    snapshot("csv.txt", &query("csv"));
}

#[test]
fn json_snapshot() {
    let out = query("json");
    assert_eq!(out.lines().count(), 1, "one document per sample, one line");
    snapshot("json.json", &out);
}

#[test]
fn ndjson_snapshot() {
    let out = query("ndjson");
    assert_eq!(out.lines().count(), 3, "one line per GPU");
    snapshot("ndjson.ndjson", &mask_timestamps(&out));
}

#[test]
fn table_snapshots() {
    let out = query("table");
    assert!(
        !out.contains('\x1b'),
        "no colour when stdout is not a terminal"
    );
    assert!(out.lines().all(|l| !l.ends_with(' ')));
    snapshot("table.txt", &out);
    snapshot(
        "table-noheader-nounits.txt",
        &query("table,noheader,nounits"),
    );
}

#[test]
fn prometheus_snapshot() {
    snapshot("prometheus.prom", &query("prometheus"));
}

/// The device's single value of a scenario series.
fn one<T: Copy>(v: &Option<Series<T>>) -> Option<T> {
    v.as_ref().and_then(Series::first)
}

/// Check one row object against the scenario's device `i`.
fn check_row(obj: &Json, i: usize, sc: &Scenario) {
    let d = &sc.device[i];
    let ctx = format!("GPU {i}: {obj}");
    assert_eq!(obj["index"].as_u64(), Some(i as u64), "{ctx}");
    assert_eq!(obj["count"].as_u64(), Some(sc.device.len() as u64), "{ctx}");
    assert_eq!(obj["name"].as_str(), d.name.as_deref(), "{ctx}");
    assert_eq!(obj["uuid"].as_str(), d.uuid.as_deref(), "{ctx}");
    assert_eq!(
        obj["driver_version"].as_str(),
        sc.driver_version.as_deref(),
        "{ctx}"
    );
    let lost = d.lost_after_calls.is_some();
    let errors = &obj["_errors"];
    // A field without a value is null, and says why.
    let missing = |field: &str, reason: &str| {
        assert!(obj[field].is_null(), "{field} should be null: {ctx}");
        let want = if lost { "gpu_lost" } else { reason };
        assert_eq!(errors[field], want, "{field}: {ctx}");
    };
    if lost {
        assert!(
            obj["serial"].is_null() && errors["serial"] == "gpu_lost",
            "{ctx}"
        );
    } else {
        assert_eq!(obj["serial"].as_str(), d.serial.as_deref(), "{ctx}");
    }

    let total = one(&d.memory.total).unwrap();
    let reserved = one(&d.memory.reserved).unwrap_or(0);
    let used = one(&d.memory.used).unwrap();
    let mem = [
        ("memory.total", total),
        ("memory.reserved", reserved),
        ("memory.used", used),
        ("memory.free", total - reserved - used),
    ];
    for (field, bytes) in mem {
        if lost {
            missing(field, "gpu_lost");
        } else {
            // MiB, rounded up, as nvidia-smi's CSV.
            assert_eq!(
                obj[field].as_u64(),
                Some(bytes.div_ceil(MIB)),
                "{field}: {ctx}"
            );
        }
    }
    let ints = [
        ("utilization.gpu", one(&d.utilization.gpu), "not_supported"),
        (
            "utilization.memory",
            one(&d.utilization.memory),
            "not_supported",
        ),
        ("temperature.gpu", one(&d.temperature.gpu), "no_permission"),
    ];
    for (field, want, reason) in ints {
        let refused = field == "temperature.gpu"
            && d.fault
                .iter()
                .any(|f| f.function == "nvmlDeviceGetTemperature");
        match want {
            Some(v) if !lost && !refused => {
                assert_eq!(obj[field].as_u64(), Some(u64::from(v)), "{field}: {ctx}")
            }
            _ => missing(field, reason),
        }
    }
    match one(&d.power.usage) {
        Some(mw) if !lost => {
            let w = obj["power.draw"].as_f64().unwrap();
            assert_eq!(w, f64::from(mw) / 1000.0, "{ctx}");
        }
        _ => missing("power.draw", "not_supported"),
    }
    if obj["_errors"].is_object() {
        for (field, _) in obj["_errors"].as_object().unwrap() {
            assert!(
                obj[field.as_str()].is_null(),
                "{field} has a reason but a value: {ctx}"
            );
        }
    } else {
        assert!(obj.get("_errors").is_none(), "{ctx}");
    }
}

#[test]
fn json_and_ndjson_round_trip_to_the_scenario_values() {
    let sc = parsed_scenario(&FORMATS);
    assert_eq!(sc.device.len(), 3);
    // The scenario holds what this test is about.
    assert!(sc.device.iter().any(|d| d.lost_after_calls.is_some()));
    assert!(sc.device.iter().any(|d| one(&d.power.usage).is_none()));

    let doc: Json = serde_json::from_str(&query("json")).unwrap();
    let rows = doc.as_array().unwrap();
    assert_eq!(rows.len(), sc.device.len());
    for (i, obj) in rows.iter().enumerate() {
        check_row(obj, i, &sc);
        let mut keys: Vec<&str> = obj
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        let mut want: Vec<&str> = FIELDS.split(',').collect();
        if obj.get("_errors").is_some() {
            want.push("_errors");
        }
        keys.sort_unstable();
        want.sort_unstable();
        assert_eq!(keys, want);
    }

    let text = query("ndjson");
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), sc.device.len());
    for (i, line) in lines.iter().enumerate() {
        let obj: Json = serde_json::from_str(line).unwrap();
        check_row(&obj, i, &sc);
        assert!(is_timestamp(obj["timestamp"].as_str().unwrap()), "{line}");
    }
}

#[test]
fn json_keys_follow_the_query_order() {
    let out = query("json");
    let mut at = 0;
    for field in FIELDS.split(',') {
        let key = format!("\"{field}\":");
        let pos = out[at..]
            .find(&key)
            .unwrap_or_else(|| panic!("{key} out of order"));
        at += pos + key.len();
    }
}

#[test]
fn memory_used_is_a_number_for_jq() {
    let r = run(
        &FORMATS,
        &["--format=json", "--query-gpu=index,memory.used"],
    );
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    let doc: Json = serde_json::from_str(&r.stdout).unwrap();
    assert!(doc[0]["memory.used"].is_u64(), "{}", r.stdout);

    // Without jq, checked with serde only.
    let Some(jq) = crate::common::require_tool("jq") else {
        return;
    };
    let mut jq = std::process::Command::new(jq)
        .arg(".[0][\"memory.used\"]")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    jq.stdin
        .take()
        .unwrap()
        .write_all(r.stdout.as_bytes())
        .unwrap();
    let out = jq.wait_with_output().unwrap();
    assert!(out.status.success());
    let printed = String::from_utf8(out.stdout).unwrap();
    let sc = parsed_scenario(&FORMATS);
    let used = one(&sc.device[0].memory.used).unwrap();
    assert_eq!(printed.trim(), used.div_ceil(MIB).to_string());
}

#[test]
fn header_options_are_refused_by_formats_without_a_header() {
    for format in [
        "json,noheader",
        "ndjson,nounits",
        "prometheus,noheader",
        "nounits,json",
    ] {
        let r = run(
            &FORMATS,
            &["--query-gpu=index", &format!("--format={format}")],
        );
        assert_eq!(r.code, Some(2), "{format}");
        assert!(r.stdout.is_empty(), "{format}: {}", r.stdout);
        assert!(r.stderr.starts_with("ERROR: "), "{format}: {}", r.stderr);
        assert!(r.stderr.contains("csv and table"), "{format}: {}", r.stderr);
    }
}

#[test]
fn loops_json_one_document_per_sample_ndjson_one_line_per_row() {
    let loop_args = ["--loop-ms=10", "--count=3", "--query-gpu=index,memory.used"];
    let json = run(&FORMATS, &[&loop_args[..], &["--format=json"]].concat());
    assert_eq!(json.code, Some(0), "{}", json.stderr);
    let docs: Vec<Json> = json
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(docs.len(), 3);
    assert!(docs.iter().all(|d| d.as_array().unwrap().len() == 3));

    let nd = run(&FORMATS, &[&loop_args[..], &["--format=ndjson"]].concat());
    assert_eq!(nd.code, Some(0), "{}", nd.stderr);
    assert_eq!(nd.stdout.lines().count(), 9);

    let table = run(&FORMATS, &[&loop_args[..], &["--format=table"]].concat());
    assert_eq!(table.code, Some(0), "{}", table.stderr);
    let samples: Vec<&str> = table.stdout.split("\n\n").collect();
    assert_eq!(samples.len(), 3, "{}", table.stdout);
    assert!(samples
        .iter()
        .all(|s| s.starts_with("index  memory.used [MiB]")));
}

/// promtool accepts the exposition for this scenario and the default one.
/// (scripts/promtool-check.sh does the same from the shell.)
#[test]
fn promtool_accepts_the_prometheus_output() {
    if crate::common::require_tool("promtool").is_none() {
        return;
    }
    let default = root().join("nvml-sim/scenarios/default.toml");
    for sc in [FORMATS.to_path_buf(), default] {
        let r = run(
            &sc,
            &[&format!("--query-gpu={FIELDS}"), "--format=prometheus"],
        );
        assert_eq!(r.code, Some(0), "{}", r.stderr);
        let said = promtool_says(&r.stdout).unwrap();
        assert!(said.is_empty(), "{}: {said}", sc.display());
    }
}

/// Pipe `text` to `promtool check metrics`: `None` when promtool is missing,
/// else what it said (empty when it is content).
pub(crate) fn promtool_says(text: &str) -> Option<String> {
    use std::io::Write;
    let mut p = crate::common::command(crate::common::require_tool("promtool")?)
        .args(["check", "metrics"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    p.stdin.take().unwrap().write_all(text.as_bytes()).unwrap();
    let out = p.wait_with_output().unwrap();
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    Some(if out.status.success() {
        said.trim().to_string()
    } else {
        format!("exit {:?}: {said}", out.status.code())
    })
}

/// Every field nvidia-smi documents (read from ../shared at run time) gets a
/// metric name promtool accepts, whatever nvq's registry holds today.
#[test]
fn every_nvidia_smi_field_gets_a_clean_metric_name() {
    use nvq_core::model::{Column, FieldKind, GpuIdent, Row, Value};
    use nvq_core::render::{Formatter, Prometheus};
    let Some(text) = common::read_shared("nvidia-smi/query-gpu-fields.tsv") else {
        return;
    };
    let mut columns = Vec::new();
    let mut cells = Vec::new();
    for line in text.lines().skip(1) {
        let cols: Vec<&str> = line.split('\t').collect();
        let (name, header) = (cols[0], cols[2]);
        let unit = header
            .split_once(" [")
            .map(|(_, u)| &*Box::leak(u.trim_end_matches(']').to_string().into_boxed_str()));
        let name: &'static str = Box::leak(name.to_string().into_boxed_str());
        let mut column = Column::plain(name, unit, "A field.");
        // As the registry declares them: neither is a series.
        column.kind = match name {
            "index" => FieldKind::GpuIndex,
            "timestamp" => FieldKind::Timestamp,
            _ => FieldKind::Gauge,
        };
        columns.push(column);
        cells.push(Value::Int(1));
    }
    assert!(columns.len() > 100, "{} fields", columns.len());
    let mut row = Row::new(cells);
    row.gpu = Some(std::sync::Arc::new(GpuIdent {
        index: 0,
        uuid: "GPU-x".into(),
        name: "NVIDIA X".into(),
        pci_bus_id: "00000000:01:00.0".into(),
    }));
    let mut out = Vec::new();
    let mut f = Prometheus::new();
    f.begin(&columns, &mut out);
    f.sample(&columns, &[row], &mut out);
    let exposition = String::from_utf8(out).unwrap();
    // One family per field except index and timestamp.
    assert_eq!(
        exposition.matches("# TYPE ").count(),
        columns.len() - 2 + 1,
        "{exposition}"
    );
    // And every field as text: labels of the info metric.
    let mut text_row = Row::new(columns.iter().map(|_| Value::text("x")).collect());
    text_row.gpu = Some(std::sync::Arc::new(GpuIdent::default()));
    let mut out = Vec::new();
    f.sample(&columns, &[text_row], &mut out);
    let labels = String::from_utf8(out).unwrap();
    assert_eq!(labels.lines().count(), 3, "{labels}");
    for exposition in [exposition, labels] {
        // Without promtool (the skip is recorded), the names are not linted.
        if let Some(said) = promtool_says(&exposition) {
            assert!(said.is_empty(), "{said}");
        }
    }
}

#[test]
fn ndjson_rows_of_every_mode_carry_their_timestamp() {
    let default = root().join("nvml-sim/scenarios/default.toml");
    for query in [
        "--query-gpu=index",
        "--query-compute-apps=pid,used_gpu_memory",
        "--query-retired-pages=retired_pages.cause",
        "--query-remapped-rows=remapped_rows.correctable",
        "--query-supported-clocks=memory,graphics",
    ] {
        let out = run(&default, &[query, "--format=ndjson"]);
        assert_eq!(out.code, Some(0), "{query}: {}", out.stderr);
        assert!(!out.stdout.is_empty(), "{query}: no rows");
        for line in out.stdout.lines() {
            let obj: Json = serde_json::from_str(line).unwrap();
            let ts = obj["timestamp"].as_str().unwrap_or_default();
            assert!(is_timestamp(ts), "{query}: {line}");
        }
    }
}

#[test]
fn prometheus_labels_are_read_once_per_gpu_in_a_loop() {
    // nvmlDeviceGetUUID answers only its first call on each GPU: the labels
    // of later samples must still carry the UUID read in the first one.
    let default = std::fs::read_to_string(root().join("nvml-sim/scenarios/default.toml")).unwrap();
    let fault = "\n[[device.fault]]\nfunction = \"nvmlDeviceGetUUID\"\ncode = \"UNKNOWN\"\nafter_calls = 1\n";
    // A [[device.fault]] table belongs to the [[device]] before it: add one
    // at the end of every device's block.
    let blocks: Vec<&str> = default.split("\n[[device]]\n").collect();
    let mut text = blocks[0].to_string();
    for b in &blocks[1..] {
        text.push_str("\n[[device]]\n");
        text.push_str(b);
        text.push_str(fault);
    }
    let dir = tempfile::tempdir().unwrap();
    let sc = dir.path().join("uuid_once.toml");
    std::fs::write(&sc, text).unwrap();
    let out = run(
        &sc,
        &[
            "--query-gpu=memory.used",
            "--format=prometheus",
            "-lms",
            common::VALUE_LMS,
            "--count",
            "3",
        ],
    );
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    let samples: Vec<&str> = out
        .stdout
        .lines()
        .filter(|l| l.starts_with("nvq_memory_used_bytes{"))
        .collect();
    assert_eq!(samples.len(), 6, "{}", out.stdout);
    for l in samples {
        assert!(l.contains("uuid=\"GPU-"), "{l}");
    }
}
