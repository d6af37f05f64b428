#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! `scripts/compare-with-nvidia-smi.sh --dry-run`: the real-GPU comparison
//! script run against the simulator, nvq standing in for nvidia-smi (a link
//! of that name). It checks the script itself: every mode is run, the
//! bundle holds each command's two outputs with their command lines, exit
//! codes and wall times, and the summary counts differing lines per mode.

use crate::common;

use common::{repo_root, scenario, sim_lib};

#[test]
fn dry_run_covers_every_mode_and_writes_the_bundle() {
    if common::require_tool("bash").is_none() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let bundle = dir.path().join("bundle");
    let out = common::command("bash")
        .arg(repo_root().join("scripts/compare-with-nvidia-smi.sh"))
        .args(["--dry-run", "-j", "2", "-o"])
        .arg(&bundle)
        .env("NVQ", common::nvq_bin())
        .env("NVQ_NVML_LIB", sim_lib())
        .env("NVML_SIM_SCENARIO", scenario("summary_mig.toml"))
        .env(
            "FIELDS",
            "name,memory.used,ecc.errors.uncorrected.volatile.total",
        )
        .env("QUICK", "1")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    // Both tools are nvq: the personalities differ in `--version`, dmon's
    // own CSV and nvq's own wording of some bad options, so the run reports
    // differences (exit 1).
    assert_eq!(out.status.code(), Some(1), "{stdout}\n{stderr}");
    let summary = std::fs::read_to_string(bundle.join("summary.txt")).unwrap();
    let rows: Vec<Vec<&str>> = summary
        .lines()
        .skip(1)
        .map(|l| l.split_whitespace().collect())
        .collect();
    let modes: Vec<&str> = rows.iter().map(|r| r[0]).collect();
    assert_eq!(
        modes,
        ["query", "report", "table", "dmon", "pmon", "topo", "nvlink", "mig", "vgpu", "errors"],
        "{summary}"
    );
    let differ = |mode: &str| {
        rows.iter()
            .find(|r| r[0] == mode)
            .map(|r| r[2].parse::<u32>().unwrap())
            .unwrap()
    };
    for same in ["report", "pmon", "topo", "nvlink", "mig", "vgpu"] {
        assert_eq!(differ(same), 0, "{same}:\n{summary}");
    }
    // The --query-gpu cases are the same bytes. (The list modes are not:
    // under the nvidia-smi name nvq's --help-query-compute-apps lists nvq's
    // own fields, which that name then refuses.)
    let gpu_diffs = std::fs::read_dir(bundle.join("cases"))
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| {
            let n = e.file_name().to_string_lossy().into_owned();
            n.starts_with("query.gpu-") && n.ends_with(".diff")
        })
        .count();
    assert_eq!(gpu_diffs, 0, "{summary}");
    assert!(bundle.join("cases/query.gpu-all.csv.smi").exists());
    // `--version`: nvidia-smi's banner against nvq's own.
    assert_eq!(differ("table"), 1, "{summary}");
    assert!(bundle.join("cases/table.version.diff").exists());
    // dmon --format csv: nvidia-smi's own CSV under that name.
    assert!(differ("dmon") >= 1, "{summary}");
    assert!(bundle.join("cases/dmon.format-csv.diff").exists());
    assert!(!bundle.join("cases/dmon.s-e.diff").exists());
    // Each case: the command line, the output, the exit code and wall time.
    let smi = std::fs::read_to_string(bundle.join("cases/errors.dmon-d-0.smi")).unwrap();
    let nvq = std::fs::read_to_string(bundle.join("cases/errors.dmon-d-0.nvq")).unwrap();
    assert!(smi.starts_with("$ nvidia-smi dmon -d 0\n"), "{smi}");
    assert!(nvq.starts_with("$ nvq dmon -d 0\n"), "{nvq}");
    let last = smi.lines().last().unwrap();
    assert!(
        last.starts_with("exit ") && last.ends_with(" ms") && !last.starts_with("exit 0 "),
        "{smi}"
    );
    let q = std::fs::read_to_string(bundle.join("cases/report.q.smi")).unwrap();
    assert!(q.contains("==============NVSMI LOG=============="), "{q}");
    for d in ["ECC", "ROW_REMAPPER", "POWER_PROFILES"] {
        assert!(
            bundle.join(format!("cases/report.d-{d}.nvq")).exists(),
            "{d}"
        );
    }
    for f in ["versions.txt", "pcie-links.txt", "part-numbers.txt"] {
        assert!(bundle.join(f).exists(), "{f}");
    }
    let versions = std::fs::read_to_string(bundle.join("versions.txt")).unwrap();
    assert!(versions.contains("driver: 590.48.01"), "{versions}");
    assert!(stdout.contains("== bundle: "), "{stdout}");
}
