//! Loading NVML and initialising it: the library-level failures, each with
//! nvidia-smi's message and exit code (issue: the workspace and the simulator).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;
use common::{sim_assert_cmd, write_scenario};

use assert_cmd::Command;

#[test]
fn simulate_prints_the_default_gpus() {
    let mut cmd = Command::from_std(common::nvq_command());
    // --simulate looks next to the nvq binary; cargo puts the simulator there.
    let out = cmd
        .args([
            "--simulate",
            "--query-gpu=index,name,memory.used,memory.total",
            "--format=csv",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
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
    let mut cmd = Command::from_std(common::nvq_command());
    let out = cmd
        .args([
            "--nvml-lib",
            "/nonexistent/libnvidia-ml.so.1",
            "--query-gpu=index",
            "--format=csv",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(12));
    assert!(out.stdout.is_empty());
    let err = String::from_utf8(out.stderr).unwrap();
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
    let out = Command::from_std(common::nvq_command())
        .env("LD_LIBRARY_PATH", "/nonexistent")
        .args(["--query-gpu=index", "--format=csv"])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(12),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn driver_not_loaded_exits_9_with_nvidia_smi_text() {
    let sc = write_scenario("init_fault = \"DRIVER_NOT_LOADED\"\n");
    let mut cmd = sim_assert_cmd(Some(sc.path()));
    let out = cmd
        .args(["--query-gpu=index", "--format=csv"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(9));
    assert!(out.stdout.is_empty());
    assert_eq!(
        String::from_utf8(out.stderr).unwrap(),
        "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. \
         Make sure that the latest NVIDIA driver is installed and running.\n"
    );
}

#[test]
fn version_mismatch_prints_the_library_version_like_nvidia_smi() {
    let sc =
        write_scenario("init_fault = \"LIB_RM_VERSION_MISMATCH\"\nnvml_version = \"535.161.07\"\n");
    let mut cmd = sim_assert_cmd(Some(sc.path()));
    let out = cmd
        .args(["--query-gpu=index", "--format=csv"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(18));
    assert_eq!(
        String::from_utf8(out.stderr).unwrap(),
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
        let sc = write_scenario(&format!("init_fault = \"{fault}\"\n"));
        let mut cmd = sim_assert_cmd(Some(sc.path()));
        let out = cmd
            .args(["--query-gpu=index", "--format=csv"])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(code), "{fault}");
        assert!(out.stdout.is_empty(), "{fault}");
        let err = String::from_utf8(out.stderr).unwrap();
        assert!(err.starts_with(start), "{fault}: {err}");
    }
}

#[test]
fn a_malformed_scenario_is_a_clean_error() {
    let sc = write_scenario("driver_version = \n");
    let mut cmd = sim_assert_cmd(Some(sc.path()));
    let out = cmd
        .args(["--query-gpu=index", "--format=csv"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(255));
    assert!(out.stdout.is_empty());
    let err = String::from_utf8(out.stderr).unwrap();
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

fn load(lib: &std::path::Path) -> std::process::Output {
    Command::from_std(common::nvq_command())
        .arg("--nvml-lib")
        .arg(lib)
        .args(["--query-gpu=index", "--format=csv"])
        .output()
        .unwrap()
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
        assert_eq!(out.status.code(), Some(12), "{lib:?}");
        assert!(out.stdout.is_empty(), "{lib:?}");
        let err = String::from_utf8(out.stderr).unwrap();
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
    assert_eq!(out.status.code(), Some(12));
    let err = String::from_utf8(out.stderr).unwrap();
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
    let out = common::command(&exe)
        .args(["--simulate", "--query-gpu=index", "--format=csv"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(12));
    let err = String::from_utf8(out.stderr).unwrap();
    let note = loader_note(&err).unwrap_or_else(|| panic!("no reason line: {err}"));
    assert!(note.contains("libnvml_sim.so"), "{note}");
    assert!(note.contains(&dir.path().display().to_string()), "{note}");
}

#[test]
fn nvidia_smi_mode_keeps_the_exact_text() {
    let (_dir, link) = common::nvidia_smi_link();
    let out = common::command(&link)
        .args([
            "--nvml-lib",
            "/etc/passwd",
            "--query-gpu=index",
            "--format=csv",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(12));
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        "NVIDIA-SMI couldn't find libnvidia-ml.so library in your system. Please make sure that \
         the NVIDIA Display Driver is properly installed and present in your system.\nPlease also \
         try adding directory that contains libnvidia-ml.so to your system PATH.\n"
    );
}

#[test]
fn an_empty_nvq_nvml_lib_means_unset() {
    let out = Command::from_std(common::nvq_command())
        .env("NVQ_NVML_LIB", "")
        .args(["--simulate", "--query-gpu=index", "--format=csv,noheader"])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(String::from_utf8(out.stdout).unwrap(), "0\n1\n");
    // An empty value typed on the command line is still a missing value.
    let out = Command::from_std(common::nvq_command())
        .args(["--nvml-lib=", "--query-gpu=index", "--format=csv"])
        .output()
        .unwrap();
    // Under its own name nvq exits 2 for any usage error (issue #30).
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8(out.stderr)
        .unwrap()
        .starts_with("nvq: option --nvml-lib needs a value"));
}

#[test]
fn the_default_scenario_has_ecc_counters_on_every_gpu() {
    let mut cmd = sim_assert_cmd(None);
    let out = cmd
        .args([
            "--query-gpu=ecc.mode.current,ecc.errors.uncorrected.volatile.total",
            "--format=csv,noheader",
        ])
        .output()
        .unwrap();
    assert!(out.status.success());
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        "Enabled, 0\nEnabled, 0\n"
    );
    let mut cmd = sim_assert_cmd(None);
    let table = String::from_utf8(cmd.output().unwrap().stdout).unwrap();
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
