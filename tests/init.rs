//! Loading NVML and initialising it: the library-level failures, each with
//! nvidia-smi's message and exit code (issue: the workspace and the simulator).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;
use common::{bare, ran, run_on, sim_command, Ran, NO_ARGS};

#[test]
fn simulate_prints_the_default_gpus() {
    // --simulate looks next to the nvq binary; cargo puts the simulator there.
    let out = bare(&[
        "--simulate",
        "--query-gpu=index,name,memory.used,memory.total",
        "--format=csv",
    ]);
    assert!(out.success(), "{}", out.stderr);
    let text = out.stdout;
    let mut lines = text.lines();
    assert_eq!(
        lines.next(),
        Some("index, name, memory.used [MiB], memory.total [MiB]")
    );
    let rows: Vec<&str> = lines.collect();
    assert_eq!(rows.len(), 2, "{text}");
    assert!(rows[0].starts_with("0, NVIDIA H100"), "{text}");
    assert!(rows[1].starts_with("1, NVIDIA H100"), "{text}");
    assert!(rows.iter().all(|r| r.ends_with(" MiB")), "{text}");
}

#[test]
fn a_library_that_cannot_be_loaded_exits_12() {
    let out = bare(&[
        "--nvml-lib",
        "/nonexistent/libnvidia-ml.so.1",
        "--query-gpu=index",
        "--format=csv",
    ]);
    assert_eq!(out.code, Some(12));
    assert!(out.stdout.is_empty());
    let err = out.stderr;
    // Under its own name nvq says why, and what to do (issue #30).
    assert!(
        err.starts_with("nvq: cannot load NVML from /nonexistent/libnvidia-ml.so.1: "),
        "{err}"
    );
    assert!(
        err.contains("LD_LIBRARY_PATH") && err.contains("nvq --simulate"),
        "{err}"
    );
}

#[test]
fn no_driver_library_on_the_system_exits_12() {
    let has_driver = std::process::Command::new("sh")
        .args([
            "-c",
            "ldconfig -p 2>/dev/null | grep -q 'libnvidia-ml.so.1'",
        ])
        .status()
        .map(|s| s.success())
        .unwrap_or(false);
    if has_driver {
        common::cannot_run(
            common::REQUIRE_NO_DRIVER,
            "a real libnvidia-ml.so.1 is installed (the no-driver case needs a machine without one)",
        );
        return;
    }
    let mut c = common::nvq_command();
    c.env("LD_LIBRARY_PATH", "/nonexistent")
        .args(["--query-gpu=index", "--format=csv"]);
    let out = ran(c);
    assert_eq!(out.code, Some(12), "{}", out.stderr);
}

#[test]
fn driver_not_loaded_exits_9_with_nvidia_smi_text() {
    let out = run_on(
        "init_fault = \"DRIVER_NOT_LOADED\"\n",
        &["--query-gpu=index", "--format=csv"],
    );
    assert_eq!(out.code, Some(9));
    assert!(out.stdout.is_empty());
    assert_eq!(
        out.stderr,
        "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. \
         Make sure that the latest NVIDIA driver is installed and running.\n"
    );
}

#[test]
fn version_mismatch_prints_the_library_version_like_nvidia_smi() {
    let out = run_on(
        "init_fault = \"LIB_RM_VERSION_MISMATCH\"\nnvml_version = \"535.161.07\"\n",
        &["--query-gpu=index", "--format=csv"],
    );
    assert_eq!(out.code, Some(18));
    assert_eq!(
        out.stderr,
        "Failed to initialize NVML: Driver/library version mismatch\nNVML library version: 535.161\n"
    );
    if let Some(cap) =
        common::read_shared("nvidia-smi/captures/63_nvml-version-mismatch_exit18.txt")
    {
        assert!(cap.starts_with("Failed to initialize NVML: Driver/library version mismatch\nNVML library version: 535.161"));
    }
}

#[test]
fn other_init_failures_map_to_their_codes() {
    let cases = [
        (
            "LIB_RM_VERSION_MISMATCH",
            18,
            "Failed to initialize NVML: Driver/library version mismatch\n",
        ),
        (
            "NO_PERMISSION",
            4,
            "Failed to initialize NVML: Insufficient Permissions\n",
        ),
        ("UNKNOWN", 255, "Failed to initialize NVML: Unknown Error\n"),
    ];
    for (fault, code, start) in cases {
        let out = run_on(
            &format!("init_fault = \"{fault}\"\n"),
            &["--query-gpu=index", "--format=csv"],
        );
        assert_eq!(out.code, Some(code), "{fault}");
        assert!(out.stdout.is_empty(), "{fault}");
        let err = out.stderr;
        assert!(err.starts_with(start), "{fault}: {err}");
    }
}

#[test]
fn a_malformed_scenario_is_a_clean_error() {
    let out = run_on(
        "driver_version = \n",
        &["--query-gpu=index", "--format=csv"],
    );
    assert_eq!(out.code, Some(255));
    assert!(out.stdout.is_empty());
    let err = out.stderr;
    assert!(err.contains("line 1"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
}

/// nvq's first stderr line: the path and the loader's reason (nvidia-smi's
/// advice about PATH is not nvq's: its next line says what to do).
fn loader_note(stderr: &str) -> Option<&str> {
    assert!(!stderr.contains("NVIDIA-SMI couldn't find"), "{stderr}");
    assert!(stderr.contains("LD_LIBRARY_PATH"), "{stderr}");
    stderr.lines().next().filter(|l| l.starts_with("nvq: "))
}

fn load(lib: &std::path::Path) -> Ran {
    let mut c = common::nvq_command();
    c.arg("--nvml-lib")
        .arg(lib)
        .args(["--query-gpu=index", "--format=csv"]);
    ran(c)
}

#[test]
fn a_library_that_will_not_load_says_why() {
    let dir = tempfile::tempdir().unwrap();
    let cases: Vec<(std::path::PathBuf, &str)> = vec![
        ("/etc/passwd".into(), "invalid ELF header"),
        (dir.path().to_path_buf(), "Is a directory"),
        ("/nonexistent-nvq/libnvidia-ml.so.1".into(), "No such file"),
    ];
    for (lib, reason) in cases {
        let out = load(&lib);
        assert_eq!(out.code, Some(12), "{lib:?}");
        assert!(out.stdout.is_empty(), "{lib:?}");
        let err = out.stderr;
        let note = loader_note(&err).unwrap_or_else(|| panic!("no reason line: {err}"));
        let want = format!("nvq: cannot load NVML from {}: ", lib.display());
        assert!(note.starts_with(&want), "{note}");
        assert!(note.contains(reason), "{note}");
        assert_eq!(err.matches("nvq: ").count(), 1, "{err}");
    }
}

#[test]
fn a_library_without_nvml_names_the_missing_symbol() {
    // glibc's libm, wherever the distribution keeps it.
    let libm = [
        "/lib/x86_64-linux-gnu/libm.so.6",
        "/usr/lib/x86_64-linux-gnu/libm.so.6",
        "/lib/aarch64-linux-gnu/libm.so.6",
        "/usr/lib/aarch64-linux-gnu/libm.so.6",
        "/usr/lib64/libm.so.6",
        "/lib64/libm.so.6",
        "/usr/lib/libm.so.6",
        "/lib/libm.so.6",
    ]
    .iter()
    .map(std::path::Path::new)
    .find(|p| p.is_file())
    .expect("no libm.so.6 in the usual places");
    let out = load(libm);
    assert_eq!(out.code, Some(12));
    let err = out.stderr;
    let note = loader_note(&err).unwrap_or_else(|| panic!("no reason line: {err}"));
    assert!(
        note.starts_with(&format!("nvq: cannot load NVML from {}: ", libm.display())),
        "{note}"
    );
    assert!(note.contains("nvmlInit_v2"), "{note}");
}

#[test]
fn simulate_without_the_simulator_names_where_it_looked() {
    let dir = tempfile::tempdir().unwrap();
    let exe = dir.path().join("nvq");
    common::copy_executable(&common::nvq_bin(), &exe);
    let mut c = common::command(&exe);
    c.args(["--simulate", "--query-gpu=index", "--format=csv"]);
    let out = ran(c);
    assert_eq!(out.code, Some(12));
    let err = out.stderr;
    let note = loader_note(&err).unwrap_or_else(|| panic!("no reason line: {err}"));
    assert!(note.contains("libnvml_sim.so"), "{note}");
    assert!(note.contains(&dir.path().display().to_string()), "{note}");
}

#[test]
fn nvidia_smi_mode_keeps_the_exact_text() {
    let (_dir, link) = common::nvidia_smi_link();
    let mut c = common::command(&link);
    c.args([
        "--nvml-lib",
        "/etc/passwd",
        "--query-gpu=index",
        "--format=csv",
    ]);
    let out = ran(c);
    assert_eq!(out.code, Some(12));
    assert_eq!(
        out.stdout,
        "NVIDIA-SMI couldn't find libnvidia-ml.so library in your system. Please make sure that \
         the NVIDIA Display Driver is properly installed and present in your system.\nPlease also \
         try adding directory that contains libnvidia-ml.so to your system PATH.\n"
    );
}

#[test]
fn an_empty_nvq_nvml_lib_means_unset() {
    let mut c = common::nvq_command();
    c.env("NVQ_NVML_LIB", "")
        .args(["--simulate", "--query-gpu=index", "--format=csv,noheader"]);
    let out = ran(c);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    assert_eq!(out.stdout, "0\n1\n");
    // An empty value typed on the command line is still a missing value.
    let out = bare(&["--nvml-lib=", "--query-gpu=index", "--format=csv"]);
    // Under its own name nvq exits 2 for any usage error (issue #30).
    assert_eq!(out.code, Some(2));
    assert!(out
        .stderr
        .starts_with("nvq: option --nvml-lib needs a value"));
}

#[test]
fn the_default_scenario_has_ecc_counters_on_every_gpu() {
    let out = ran(sim_command(
        None,
        &[
            "--query-gpu=ecc.mode.current,ecc.errors.uncorrected.volatile.total",
            "--format=csv,noheader",
        ],
    ));
    assert!(out.success());
    assert_eq!(out.stdout, "Enabled, 0\nEnabled, 0\n");
    let table = ran(sim_command(None, NO_ARGS)).ok();
    let ecc_cells: Vec<&str> = table
        .lines()
        .filter(|l| l.contains("00000000:"))
        .map(|l| {
            l.trim_end_matches('|')
                .rsplit('|')
                .next()
                .unwrap_or("")
                .trim()
        })
        .collect();
    assert_eq!(ecc_cells, ["0", "0"], "{table}");
}
