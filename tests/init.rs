//! Loading NVML and initialising it: the library-level failures, each with
//! nvidia-smi's message and exit code (issue: the workspace and the simulator).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;
use common::sim_lib;

use assert_cmd::Command;

fn scenario(text: &str) -> tempfile::NamedTempFile {
    let mut f = tempfile::Builder::new().suffix(".toml").tempfile().unwrap();
    std::io::Write::write_all(&mut f, text.as_bytes()).unwrap();
    f
}

fn nvq_with(scenario_text: Option<&str>) -> (Command, Option<tempfile::NamedTempFile>) {
    let mut cmd = Command::cargo_bin("nvq").unwrap();
    cmd.arg("--nvml-lib")
        .arg(sim_lib())
        .env_remove("NVQ_NVML_LIB");
    let file = scenario_text.map(scenario);
    match &file {
        Some(f) => cmd.env("NVML_SIM_SCENARIO", f.path()),
        None => cmd.env_remove("NVML_SIM_SCENARIO"),
    };
    (cmd, file)
}

#[test]
fn simulate_prints_the_default_gpus() {
    let mut cmd = Command::cargo_bin("nvq").unwrap();
    cmd.env_remove("NVML_SIM_SCENARIO")
        .env_remove("NVQ_NVML_LIB");
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
    let mut cmd = Command::cargo_bin("nvq").unwrap();
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
    assert!(
        err.starts_with("NVIDIA-SMI couldn't find libnvidia-ml.so library in your system."),
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
        eprintln!("skipped: this machine has a real libnvidia-ml.so.1");
        return;
    }
    let out = Command::cargo_bin("nvq")
        .unwrap()
        .env_remove("NVQ_NVML_LIB")
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
    let (mut cmd, _f) = nvq_with(Some("init_fault = \"DRIVER_NOT_LOADED\"\n"));
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
    let (mut cmd, _f) = nvq_with(Some(
        "init_fault = \"LIB_RM_VERSION_MISMATCH\"\nnvml_version = \"535.161.07\"\n",
    ));
    let out = cmd
        .args(["--query-gpu=index", "--format=csv"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(18));
    assert_eq!(
        String::from_utf8(out.stderr).unwrap(),
        "Failed to initialize NVML: Driver/library version mismatch\nNVML library version: 535.161\n"
    );
    if let Ok(cap) =
        std::fs::read_to_string("../shared/nvidia-smi/captures/63_nvml-version-mismatch_exit18.txt")
    {
        assert!(cap.starts_with("Failed to initialize NVML: Driver/library version mismatch\nNVML library version: 535.161"));
    } else {
        eprintln!("note: ../shared is absent; the capture comparison is skipped");
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
        let (mut cmd, _f) = nvq_with(Some(&format!("init_fault = \"{fault}\"\n")));
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
    let (mut cmd, _f) = nvq_with(Some("driver_version = \n"));
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

#[test]
fn the_default_scenario_has_ecc_counters_on_every_gpu() {
    let (mut cmd, _f) = nvq_with(None);
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
    let (mut cmd, _f) = nvq_with(None);
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
