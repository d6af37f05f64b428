//! Memory over time against the simulator (`tests/scenarios/trend.toml`, whose memory follows the clock): the
//! leak on GPU 0 (1 GiB a minute) is found with its rate and time to full; the sawtooth (GPU 1), the warm-up jump
//! (GPU 2) and the plateaus (GPUs 3-7) are not flagged. The window is shortened to seconds so that a run is short;
//! the method is the same at any scale (its unit tests in `crates/nvq-core/src/model/trend.rs` use minutes).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;
use common::{nvq, scenario};

const TREND: [&str; 6] = [
    "--trend-window",
    "4s",
    "--rising-for",
    "2s",
    "--min-rise",
    "32MiB",
];

fn run(extra: &[&str]) -> std::process::Output {
    let mut args = vec![
        "--query-gpu=index,memory.used",
        "--format=csv,noheader,nounits",
        "-lms",
        "100",
    ];
    args.extend_from_slice(&TREND);
    args.extend_from_slice(extra);
    nvq(&scenario("trend.toml"), &args)
}

/// "1h 18m", "12m 30s", "45s" in minutes.
fn minutes(s: &str) -> f64 {
    s.split_whitespace()
        .map(|p| {
            let (n, u) = p.split_at(p.len() - 1);
            let n: f64 = n.parse().unwrap();
            match u {
                "s" => n / 60.0,
                "m" => n,
                "h" => n * 60.0,
                "d" => n * 1440.0,
                _ => panic!("unit of {p}"),
            }
        })
        .sum()
}

#[test]
fn summary_gives_the_leaks_rate_and_time_to_full_and_flags_nothing_else() {
    let out = run(&["--count", "40", "--summary"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let samples = String::from_utf8(out.stdout).unwrap();
    let summary = String::from_utf8(out.stderr).unwrap();
    let last_used: f64 = samples
        .lines()
        .filter(|l| l.starts_with("0, "))
        .map(|l| l[3..].trim().parse::<f64>().unwrap())
        .fold(0.0, f64::max);
    let row = |gpu: u32, stat: &str| -> String {
        let prefix = format!("{gpu}, {stat}, ");
        let line = summary
            .lines()
            .find(|l| l.starts_with(&prefix))
            .unwrap_or_else(|| panic!("{prefix}\n{summary}"));
        line.rsplit(", ").next().unwrap().to_string()
    };
    // GPU 0: 1 GiB a minute = 1024 MiB/min, within 5 %.
    let rate: f64 = row(0, "rate/min").parse().unwrap();
    assert!(
        (rate - 1024.0).abs() < 52.0,
        "rate {rate} MiB/min\n{summary}"
    );
    // Full when memory.used reaches memory.total (80 GiB), at 1 GiB a minute.
    let expected = (81920.0 - last_used) / 1024.0;
    let ttf = minutes(&row(0, "time_to_full"));
    assert!(
        (ttf - expected).abs() < expected * 0.05,
        "time to full {ttf} min, expected {expected}\n{summary}"
    );
    for gpu in 1..8 {
        assert_eq!(
            row(gpu, "time_to_full"),
            "not rising",
            "GPU {gpu}\n{summary}"
        );
    }
    for gpu in 2..8 {
        let r: f64 = row(gpu, "rate/min").parse().unwrap();
        assert!(r.abs() < 1.0, "GPU {gpu} rate {r}");
    }
}

#[test]
fn assert_on_time_to_full_fails_for_the_leaking_gpu_only() {
    let out = run(&[
        "--count",
        "40",
        "--assert",
        "time_to_full(memory.used) > 2h",
    ]);
    assert_eq!(
        out.status.code(),
        Some(20),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("GPU 0"), "{err}");
    for gpu in 1..8 {
        assert!(!err.contains(&format!("GPU {gpu}:")), "{err}");
    }
    // A bound the leak does not reach in time passes.
    let ok = run(&[
        "--count",
        "30",
        "--assert",
        "time_to_full(memory.used) > 30m",
    ]);
    assert!(
        ok.status.success(),
        "{}",
        String::from_utf8_lossy(&ok.stderr)
    );
}

#[test]
fn until_waits_for_the_leak_to_be_seen_and_where_picks_the_rising_gpu() {
    let out = run(&[
        "--until",
        "time_to_full(memory.used) < 2h",
        "--timeout",
        "20s",
        "--where",
        "rate(memory.used, 1min) > 512MiB && time_to_full(memory.used) < 2h",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    let rows: Vec<&str> = text.lines().collect();
    assert!(!rows.is_empty());
    assert!(rows.iter().all(|l| l.starts_with("0, ")), "{text}");
}

#[test]
fn history_functions_explain_their_errors() {
    let cases: [(&[&str], &str); 5] = [
        (
            &["--assert", "time_to_full(utilization.gpu) > 1h"],
            "needs a capacity",
        ),
        (&["--assert", "rate(name) > 0"], "measured field"),
        (
            &["--assert", "slope(memory.used) > 0"],
            "unknown function \"slope\"",
        ),
        (
            &["--assert", "rate(memory.used, 5GiB) > 0"],
            "is a duration",
        ),
        (
            &["--history", "0", "--summary"],
            "--history needs at least 1",
        ),
    ];
    for (args, want) in cases {
        let mut all = vec!["--query-gpu=memory.used", "--format=csv"];
        all.extend_from_slice(args);
        let out = nvq(&scenario("trend.toml"), &all);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let msg = String::from_utf8_lossy(&out.stdout).to_string()
            + &String::from_utf8_lossy(&out.stderr);
        assert!(msg.contains(want), "{args:?}: {msg}");
    }
    let out = nvq(
        &scenario("trend.toml"),
        &[
            "--query-compute-apps=pid,used_memory",
            "--format=csv",
            "--assert",
            "rate(used_memory) < 1GiB",
        ],
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("work with --query-gpu"));
}
