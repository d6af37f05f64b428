//! `nvq topo -m` against the simulator: nvidia-smi's captures byte for byte
//! (single-GPU machines in `../shared`, public multi-GPU outputs in
//! `tests/topo/`), NICs from a fake `/sys`, errors, and JSON.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;
use common::{read_shared, scenario, sim_lib};

use assert_cmd::Command;
use std::path::{Path, PathBuf};
use std::process::Output;

/// A `/sys` that does not exist: no NICs, whatever the host has.
fn no_sysfs() -> PathBuf {
    common::repo_root().join("tests/topo/no-such-sysfs")
}

fn topo(scenario_file: &Path, sysfs: &Path, args: &[&str]) -> Output {
    Command::cargo_bin("nvq")
        .unwrap()
        .arg("--nvml-lib")
        .arg(sim_lib())
        .arg("topo")
        .args(args)
        .env("NVML_SIM_SCENARIO", scenario_file)
        .env("NVQ_SYSFS_ROOT", sysfs)
        .output()
        .unwrap()
}

fn ok(out: Output) -> String {
    assert!(
        out.status.success(),
        "exit {:?}: {}",
        out.status.code(),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

const MACHINES: &[(&str, &str)] = &[
    ("h200", "linux-x86_64__nvidia-h200__590.48.01"),
    ("h100", "linux-x86_64__nvidia-h100-80gb-hbm3__590.48.01"),
    (
        "rtx2080s_linux",
        "linux-x86_64__nvidia-geforce-rtx-2080-super__610.57.04",
    ),
    (
        "rtx2080s_windows",
        "windows-x86_64__nvidia-geforce-rtx-2080-super__610.62",
    ),
];

#[test]
fn single_gpu_captures_byte_for_byte() {
    let mut compared = 0;
    for (key, dir) in MACHINES {
        let Some(expected) = read_shared(&format!(
            "nvidia-smi/captures/sections/{dir}/capabilities_topo_m.txt"
        )) else {
            return;
        };
        // The section files were cut without nvidia-smi's final newline.
        let expected = format!("{}\n", expected.strip_suffix('\n').unwrap_or(&expected));
        let sc = scenario(&format!("topo_{key}.toml"));
        let got = ok(topo(&sc, &no_sysfs(), &["-m"]));
        assert_eq!(got, expected, "{key}");
        assert_eq!(ok(topo(&sc, &no_sysfs(), &["--matrix"])), expected, "{key}");
        compared += 1;
    }
    assert_eq!(compared, 4);
}

/// Capture 27: nvidia-smi 591.86 on Windows had no `topo` and read `-m` as
/// `--mode`, which needs a value. nvq has `topo`, so the same message comes
/// from a bare `-m`.
#[test]
fn capture_27_missing_value() {
    let Some((_, expected)) = common::capture("27_") else {
        return;
    };
    for personality in ["nvq", "nvidia-smi"] {
        let exe = assert_cmd::cargo::cargo_bin("nvq");
        let dir = common::repo_root().join("target/topo-personality");
        std::fs::create_dir_all(&dir).unwrap();
        let link = dir.join(personality);
        let _ = std::fs::remove_file(&link);
        std::os::unix::fs::symlink(&exe, &link).unwrap();
        let out = std::process::Command::new(&link)
            .arg("-m")
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(255));
        let text = if personality == "nvq" {
            &out.stderr
        } else {
            &out.stdout
        };
        assert_eq!(String::from_utf8_lossy(text), expected, "{personality}");
    }
}

#[test]
fn dash_i_needs_n_or_p() {
    let out = topo(&scenario("topo_h200.toml"), &no_sysfs(), &["-m", "-i", "0"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "The -i command line argument must be used in conjunction with -n or -p.\n"
    );
}

#[test]
fn options_nvq_lacks_are_refused_not_ignored() {
    for opt in ["-p2p", "-mp", "-n", "-p", "-c"] {
        let out = topo(&scenario("topo_h200.toml"), &no_sysfs(), &[opt]);
        assert_eq!(out.status.code(), Some(2), "{opt}");
        assert!(
            String::from_utf8_lossy(&out.stderr).contains("does not implement"),
            "{opt}"
        );
    }
    let out = topo(
        &scenario("topo_h200.toml"),
        &no_sysfs(),
        &["-m", "--format=csv"],
    );
    assert_eq!(out.status.code(), Some(2));
}
