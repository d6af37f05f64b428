//! The layout `cargo install` produces: `PREFIX/bin/nvq`, with the simulator
//! installed as `PREFIX/lib/nvq/libnvml_sim.so` (docs/install.md), and an
//! `nvidia-smi` symlink elsewhere pointing at the installed nvq. The Debian
//! package uses the same layout with PREFIX=/usr (scripts/deb-check.sh).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;
use common::sim_lib;

use assert_cmd::cargo::cargo_bin;
use std::path::Path;
use std::process::{Command, Output};

fn run(exe: &Path, args: &[&str]) -> Output {
    Command::new(exe)
        .args(args)
        .env_remove("NVQ_NVML_LIB")
        .env_remove("NVML_SIM_SCENARIO")
        .output()
        .unwrap()
}

const QUERY: &[&str] = &["--simulate", "--query-gpu=index", "--format=csv,noheader"];

#[test]
fn simulate_finds_the_simulator_in_prefix_lib_nvq() {
    let prefix = tempfile::tempdir().unwrap();
    let nvq = prefix.path().join("bin/nvq");
    std::fs::create_dir_all(nvq.parent().unwrap()).unwrap();
    std::fs::copy(cargo_bin("nvq"), &nvq).unwrap();

    // Not installed yet: nvidia-smi's "library not found", exit 12.
    let out = run(&nvq, QUERY);
    assert_eq!(
        out.status.code(),
        Some(12),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );

    let lib = prefix.path().join("lib/nvq/libnvml_sim.so");
    std::fs::create_dir_all(lib.parent().unwrap()).unwrap();
    std::fs::copy(sim_lib(), &lib).unwrap();
    let out = run(&nvq, QUERY);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let rows = String::from_utf8(out.stdout).unwrap();
    assert!(
        !rows.is_empty() && rows.lines().all(|l| l.parse::<u32>().is_ok()),
        "{rows}"
    );

    // A symlink named nvidia-smi in another directory finds it too.
    let bin = tempfile::tempdir().unwrap();
    let smi = bin.path().join("nvidia-smi");
    std::os::unix::fs::symlink(&nvq, &smi).unwrap();
    let via_link = run(&smi, QUERY);
    assert!(via_link.status.success());
    assert_eq!(String::from_utf8(via_link.stdout).unwrap(), rows);
}
