//! The test binary itself: every file of `tests/` is one of its modules
//! (with `autotests = false` a forgotten `mod` line would silently drop a
//! whole file of tests), and every test starts nvq through `common`, so
//! that all of them run it in the one environment of `common::test_env`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common::repo_root;

/// The `.rs` files directly in `tests/`, without the extension.
fn test_files() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(repo_root().join("tests"))
        .unwrap()
        .filter_map(|e| {
            let p = e.unwrap().path();
            (p.extension()? == "rs").then(|| p.file_stem()?.to_str().map(String::from))?
        })
        .collect();
    names.sort();
    names
}

#[test]
fn every_test_file_is_a_module_of_the_binary() {
    let index = std::fs::read_to_string(repo_root().join("tests/tests.rs")).unwrap();
    let mods: Vec<&str> = index
        .lines()
        .filter_map(|l| l.strip_prefix("mod ")?.strip_suffix(';'))
        .collect();
    let files = test_files();
    assert!(files.len() >= 30, "only {} test files", files.len());
    let missing: Vec<String> = files
        .iter()
        .filter(|f| *f != "tests" && !mods.contains(&f.as_str()))
        .map(|f| format!("tests/{f}.rs"))
        .collect();
    assert!(
        missing.is_empty(),
        "{}: add its `mod` line to tests/tests.rs, or its tests never run",
        missing.join(", ")
    );
}

#[test]
fn every_test_starts_nvq_through_common() {
    // The ways to name nvq's binary, and an assert_cmd shortcut to it.
    let direct = [
        concat!("CARGO_BIN_EXE", "_nvq"),
        concat!("cargo_bin(", "\"nvq\")"),
    ];
    let mut offenders = Vec::new();
    for f in test_files() {
        let text = std::fs::read_to_string(repo_root().join(format!("tests/{f}.rs"))).unwrap();
        for (n, line) in text.lines().enumerate() {
            if direct.iter().any(|d| line.contains(d)) {
                offenders.push(format!("tests/{f}.rs:{}: {}", n + 1, line.trim()));
            }
        }
    }
    assert!(
        offenders.is_empty(),
        "start nvq with common::sim_command / nvq_command / nvq_bin instead:\n{}",
        offenders.join("\n")
    );
}

/// A test that cannot check everything here skips through `common`
/// (`require_tool`, `require_root`, the `../shared` readers, `cannot_run`),
/// which records the skip for the banner or fails where CI requires it; a
/// note on stderr and an early return would skip silently, in CI too.
#[test]
fn every_skip_goes_through_common() {
    let mut offenders = Vec::new();
    for f in test_files() {
        let text = std::fs::read_to_string(repo_root().join(format!("tests/{f}.rs"))).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        for (n, line) in lines.iter().enumerate() {
            let t = line.trim();
            if !(t.starts_with("return") || t.contains("=> return") || t.contains("None =>")) {
                continue;
            }
            let before = &lines[n.saturating_sub(4)..n];
            if before.iter().any(|l| l.contains("eprintln!")) {
                offenders.push(format!("tests/{f}.rs:{}: {t}", n + 1));
            }
        }
    }
    assert!(
        offenders.is_empty(),
        "skip with common::require_tool / require_root / cannot_run, not a note and a return:\n{}",
        offenders.join("\n")
    );
}

/// Each file runs nvq and names its scenarios through `common` (`run`,
/// `run_on`, `bare`, `nvq`, `sim_command`, `scenario`, `h100s`, ...), not
/// through a runner of its own: a change to how every test runs nvq (its
/// environment, its time limit, reading its output as text) is made once.
#[test]
fn no_file_has_a_runner_of_its_own() {
    let mut offenders = Vec::new();
    for f in test_files() {
        let text = std::fs::read_to_string(repo_root().join(format!("tests/{f}.rs"))).unwrap();
        for (n, line) in text.lines().enumerate() {
            if ["fn nvq(", "fn scenario("]
                .iter()
                .any(|own| line.starts_with(own))
            {
                offenders.push(format!("tests/{f}.rs:{}: {}", n + 1, line.trim()));
            }
        }
    }
    assert!(
        offenders.is_empty(),
        "run nvq with common::run / run_on / bare / sim_command and find scenarios with common::scenario / h100s / write_scenario:\n{}",
        offenders.join("\n")
    );
}
