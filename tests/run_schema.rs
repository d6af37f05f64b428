//! `nvq run --report=json` against its JSON Schema (`schemas/run-report.schema.json`, issue 51): real reports of
//! runs under the simulator's live processes (ranks and their skew, another user's process, budget notes, accounting
//! mode, PyTorch's view through the fake torch, NVML missing) are valid; the schema's objects are closed, so a field the report gains fails here until the
//! schema describes it, and a report with a field missing or of the wrong type is refused.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common::{command, nvq_bin, repo_root};
use crate::run::{accounting_machine, machine, run_workload};
use serde_json::Value;

fn validator() -> jsonschema::Validator {
    let path = repo_root().join("schemas/run-report.schema.json");
    let schema: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    jsonschema::draft202012::new(&schema).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The schema's complaints about `report`, one a line (none: valid).
fn errors(v: &jsonschema::Validator, report: &Value) -> String {
    v.iter_errors(report)
        .map(|e| format!("{} at {}\n", e, e.instance_path))
        .collect()
}

fn report_of(stderr: &[u8]) -> Value {
    let e = String::from_utf8_lossy(stderr);
    serde_json::from_str(&e).unwrap_or_else(|x| panic!("{x}: {e}"))
}

#[test]
fn real_reports_are_valid_and_a_broken_one_is_not() {
    let v = validator();
    let dir = tempfile::tempdir().unwrap();
    let sc = machine(dir.path());
    let mut reports = Vec::new();
    // Two ranks on GPU 1 beside another user's process, a budget passed (a note), stopped by SIGTERM.
    let o = crate::plot_run::run_until_ready(
        sc.path(),
        dir.path(),
        &["-lms", "50", "--report=json", "--budget", "1GiB"],
        "--start 2GiB --workers 2 --worker-gpu 1 --worker-mem 1GiB --worker-rank-base 0",
        2,
    );
    assert_eq!(o.status.code(), Some(143));
    reports.push(("ranks and a budget", report_of(&o.stderr)));
    // Accounting mode on.
    let acct = accounting_machine(dir.path());
    let o = run_workload(
        acct.path(),
        dir.path(),
        &["-lms", "100", "--report=json"],
        "--start 1GiB --duration 0.8",
    );
    assert_eq!(o.status.code(), Some(0));
    reports.push(("accounting mode", report_of(&o.stderr)));
    // PyTorch's view (--torch, the fake torch): the split of a process's memory, the processes that sent it.
    let o = crate::run_torch::torch_run(
        crate::run_torch::machine(dir.path(), "").path(),
        dir.path(),
        &["--report=json"],
        &format!("--alloc {} --free {} --hold 1", 3u64 << 30, 1u64 << 30),
        None,
    )
    .output()
    .unwrap();
    assert_eq!(o.status.code(), Some(0));
    let e = String::from_utf8_lossy(&o.stderr);
    let torch: Value =
        serde_json::from_str(e.lines().last().unwrap_or("")).unwrap_or_else(|x| panic!("{x}: {e}"));
    reports.push(("--torch", torch));
    // NVML missing: no GPU, a note.
    let o = command(nvq_bin())
        .args([
            "--nvml-lib",
            "/nonexistent/libnvidia-ml.so.1",
            "run",
            "--report=json",
            "--",
            "sh",
            "-c",
            "exit 5",
        ])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(5));
    reports.push(("NVML missing", report_of(&o.stderr)));

    for (what, r) in &reports {
        let e = errors(&v, r);
        assert!(e.is_empty(), "{what}: {e}{r}");
    }
    // What each case shows is there to be checked.
    let ranks = &reports[0].1;
    assert!(
        ranks["skew"].is_object() && !ranks["track"]["gpus"]["1"]["others_at_peak"][0].is_null()
    );
    assert_eq!(reports[1].1["track"]["gpus"]["0"]["accounting"], true);
    assert!(reports[2].1["torch"]["processes"][0].is_u64());
    assert!(reports[3].1["skew"].is_null() && !reports[3].1["notes"][0].is_null());

    // A field dropped, a field of the wrong type, a field the schema does not describe: each refused.
    let mut missing = ranks.clone();
    missing.as_object_mut().unwrap().remove("exit");
    let mut wrong = ranks.clone();
    wrong["track"]["gpus"]["0"]["peak"] = Value::from("2 GiB");
    let mut extra = ranks.clone();
    extra["track"]["procs"]
        .as_object_mut()
        .unwrap()
        .values_mut()
        .for_each(|p| p["rss"] = Value::from(1));
    for (what, bad) in [("missing", missing), ("wrong", wrong), ("extra", extra)] {
        assert!(
            !errors(&v, &bad).is_empty(),
            "{what}: the schema took {bad}"
        );
    }
}
