#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! `-q` (the detail report): nvq against the simulator reproduces the `-q`
//! captures in `../shared/nvidia-smi/captures/sections/`, read at test time,
//! from the scenarios of the same machines that the `--query-gpu` tests use.

mod common;

use common::*;

const H200: &str = "nvidia-smi/captures/sections/linux-x86_64__nvidia-h200__590.48.01";

/// Lines nvq cannot reproduce yet: nvidia-smi prints a value, nvq `N/A`
/// because it knows no public NVML function for it.
const GAPS: &[&str] = &[
    "GPU PDI",
    "GPU Part Number",
    "Sparse Operation Mode",
    "Channel Repair Pending",
    "TPC Repair Pending",
    "Unrepairable Memory",
    "EGM",
];

/// The H200 idle `-q` capture was taken a moment after capture 01 (the
/// `--query-gpu` one of `h200_590_idle.toml`): only the power readings moved.
const H200_IDLE_Q_MOMENT: &[(&str, &str)] = &[
    ("\"185:0\" = 77710", "\"185:0\" = 77670"),
    ("\"186:0\" = 78210", "\"186:0\" = 77880"),
];

fn check(capture: &str, scenario: &std::path::Path, args: &[&str]) {
    let Some(expected) = read_shared(capture) else {
        return;
    };
    let actual = nvq_ok(scenario, args);
    let diffs = report_differences(&actual, &expected, GAPS);
    assert!(
        diffs.is_empty(),
        "{capture}:\n{}\n--- nvq:\n{actual}",
        diffs.join("\n")
    );
}

#[test]
fn h200_idle_report_is_the_capture() {
    let s = scenario_at("h200_590_idle.toml", H200_IDLE_Q_MOMENT);
    check(&format!("{H200}/idle_query_q.txt"), s.path(), &["-q"]);
}

#[test]
fn query_and_a_are_q() {
    let s = scenario_at("h200_590_idle.toml", H200_IDLE_Q_MOMENT);
    for spelling in ["--query", "-a"] {
        check(&format!("{H200}/idle_query_q.txt"), s.path(), &[spelling]);
    }
}

/// The gap rule itself: a line outside the list, or a gap line with a value
/// other than N/A, is a difference.
#[test]
fn differences_are_found() {
    let cap = "Timestamp : x\n    GPU PDI : 0x1\n    Serial Number : 1\n";
    assert!(report_differences(
        "Timestamp : y\n    GPU PDI : N/A\n    Serial Number : 1\n",
        cap,
        GAPS
    )
    .is_empty());
    assert_eq!(
        report_differences(
            "Timestamp : y\n    GPU PDI : 0x2\n    Serial Number : 1\n",
            cap,
            GAPS
        )
        .len(),
        1
    );
    assert_eq!(
        report_differences(
            "Timestamp : y\n    GPU PDI : N/A\n    Serial Number : N/A\n",
            cap,
            GAPS
        )
        .len(),
        1
    );
}
