//! Plain `nvq`, the summary table, in the layout of each driver branch:
//! public `nvidia-smi` tables people committed (tests/summary_public/, one
//! file each, sources in its SOURCES.md and in each file's `% ` line), each
//! reproduced byte for byte from a scenario of its machine. A capture that
//! kept its date line has it compared by shape; one that did not is
//! compared from the banner's rule on.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;

use common::*;

/// (capture, scenario): the captures of every layout, oldest driver first.
const CAPTURES: &[(&str, &str)] = &[
    ("t_440_rtx2070", "sp_440_rtx2070"),
    ("t_460_rtx2070", "sp_460_rtx2070"),
    ("t_470_rtx3080laptop", "sp_470_rtx3080laptop"),
    ("t_470_gtx680", "q_gtx680_470"),
    ("t_520_a2000laptop", "sp_520_a2000laptop"),
    ("t_525_a2000laptop", "sp_525_a2000laptop"),
    ("t_535_gtx1050ti", "q_gtx1050ti_535"),
    ("t_550_a10", "q_a10_550"),
    ("t_550_rtx2000ada", "sp_550_rtx2000ada"),
    ("t_550_v100x8", "sp_550_v100x8"),
    ("t_555_a100x4", "sp_555_a100x4"),
    ("t_560_rtx3090x2", "q_rtx3090x2_560"),
    ("t_560_a2000laptop", "sp_560_a2000laptop"),
    ("t_565_h100x8", "sp_565_h100x8"),
    ("t_570_rtx5090", "sp_570_rtx5090"),
    ("t_580_rtx2000ada", "sp_580_rtx2000ada"),
];

/// `Sat Sep  6 12:38:38 2025` and the spaces after it.
fn is_date_line(s: &str) -> bool {
    const DAYS: [&str; 7] = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"];
    s.len() >= 24 && DAYS.contains(&&s[..3]) && s.as_bytes()[13] == b':' && s.as_bytes()[16] == b':'
}

/// The capture without its `% ` source lines, ending in a newline.
fn capture(name: &str) -> String {
    let path = repo_root().join(format!("tests/summary_public/{name}.txt"));
    let text = std::fs::read_to_string(&path).unwrap();
    text.lines()
        .filter(|l| !l.starts_with("% "))
        .map(|l| format!("{l}\n"))
        .collect()
}

/// nvq's table for `scenario_name` and the capture, both from the line
/// after the date (the capture's date line, when it has one, only has to
/// be a date).
fn compared(capture_name: &str, scenario_name: &str) -> (String, String) {
    let expected = capture(capture_name);
    let actual = nvq_ok(&scenario(&format!("{scenario_name}.toml")), &[] as &[&str]);
    let (date, rest) = actual.split_once('\n').unwrap();
    assert!(is_date_line(date), "date line {date:?}");
    let expected = match expected.split_once('\n') {
        Some((first, tail)) if is_date_line(first) => {
            assert_eq!(first.len(), date.len(), "{capture_name}: date line width");
            tail.to_string()
        }
        _ => expected,
    };
    (rest.to_string(), expected)
}

#[test]
fn every_public_table_is_reproduced_in_its_drivers_layout() {
    let mut failed = Vec::new();
    for (capture_name, scenario_name) in CAPTURES {
        let (actual, expected) = compared(capture_name, scenario_name);
        if actual != expected {
            let line = actual
                .lines()
                .zip(expected.lines())
                .position(|(a, e)| a != e);
            failed.push(format!(
                "{capture_name} ({scenario_name}), first differing line {line:?}\n--- capture\n{expected}--- nvq\n{actual}"
            ));
        }
    }
    assert!(failed.is_empty(), "{}", failed.join("\n"));
}

#[test]
fn each_layout_has_its_width() {
    // 79 columns up to 525, 89 on 535, 91 from 550: every line of the box
    // (the spacer after the GPU boxes is 89 spaces on 550 to 575).
    for (capture_name, width) in [
        ("t_440_rtx2070", 79),
        ("t_525_a2000laptop", 79),
        ("t_535_gtx1050ti", 89),
        ("t_560_a2000laptop", 91),
        ("t_580_rtx2000ada", 91),
    ] {
        let (actual, _) = compared(
            capture_name,
            CAPTURES.iter().find(|c| c.0 == capture_name).unwrap().1,
        );
        for line in actual.lines().filter(|l| l.starts_with(['|', '+'])) {
            assert_eq!(line.len(), width, "{capture_name}: {line:?}");
        }
    }
}
