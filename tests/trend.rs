//! Memory over time against the simulator (`tests/scenarios/trend.toml`, whose memory follows the clock): the
//! leak on GPU 0 (1 GiB a minute) is found with its rate and time to full; the sawtooth (GPU 1), the warm-up jump
//! (GPU 2) and the plateaus (GPUs 3-7) are not flagged. The window is shortened to seconds so that a run is short;
//! the method is the same at any scale (its unit tests in `crates/nvq-core/src/model/trend.rs` use minutes).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;
// nvq runs on time (`common::run_on_time`): these scenarios' memory follows
// the clock and the windows are seconds long, so a sample that misses its
// deadline on a busy machine is a point missing from the trend.
use common::{run_on_time, scenario, Ran, TREND};

fn run(extra: &[&str]) -> Ran {
    let mut args = vec![
        "--query-gpu=index,memory.used",
        "--format=csv,noheader,nounits",
        "-lms",
        "100",
    ];
    args.extend_from_slice(&TREND);
    args.extend_from_slice(extra);
    run_on_time(&scenario("trend.toml"), &args)
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
    assert!(out.success(), "{}", out.stderr);
    let samples = out.stdout;
    let summary = out.stderr;
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
    assert_eq!(out.code, Some(20), "{}", out.stderr);
    let err = out.stderr;
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
    assert!(ok.success(), "{}", ok.stderr);
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
    assert!(out.success(), "{}", out.stderr);
    let text = out.stdout;
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
        let out = run_on_time(&scenario("trend.toml"), &all);
        assert_eq!(out.code, Some(2), "{args:?}");
        let msg = out.stdout.clone() + &out.stderr;
        assert!(msg.contains(want), "{args:?}: {msg}");
    }
    // A list mode whose rows are neither GPUs nor processes has nothing to follow.
    let out = run_on_time(
        &scenario("trend.toml"),
        &[
            "--query-supported-clocks=memory,graphics",
            "--format=csv",
            "-l",
            "1",
            "--assert",
            "rate(graphics) < 1GHz",
        ],
    );
    assert_eq!(out.code, Some(2));
    assert!(
        out.stderr
            .contains("work with --query-gpu and --query-compute-apps"),
        "{}",
        out.stderr
    );
}

/// The summary's lines (after its blank line) as cells, for a CSV run.
fn summary_rows(stderr: &str) -> Vec<Vec<String>> {
    stderr
        .lines()
        .skip_while(|l| !l.is_empty())
        .filter(|l| !l.is_empty())
        .map(|l| l.split(", ").map(str::to_string).collect())
        .collect()
}

/// The summary row `stat` of the row whose cell `at` is `key`: its cells.
fn stat_row<'a>(rows: &'a [Vec<String>], stat: &str, at: usize, key: &str) -> &'a [String] {
    rows.iter()
        .find(|r| r.get(1).is_some_and(|s| s == stat) && r.get(at).is_some_and(|k| k == key))
        .unwrap_or_else(|| panic!("no {stat} row for {key}: {rows:?}"))
}

/// A number of MiB as the summary prints it, with or without its unit.
fn mib(cell: &str) -> f64 {
    cell.trim_end_matches(" MiB").parse().unwrap()
}

/// tests/scenarios/trend_pid_reuse.toml: PID 4242 ("train", 8 GiB growing 1 GiB a sample) exits after four
/// samples; four samples later a new process, "eval", holding 2 GiB, gets its PID. PID 5150 grows 1 GiB a
/// sample throughout. At -lms 100 that is 10 GiB/s (614,400 MiB/min), a little less when samples run late.
const PER_SAMPLE_MIB_PER_MIN: f64 = 1024.0 * 600.0;
const SHORT_TREND: [&str; 6] = [
    "--trend-window",
    "2s",
    "--rising-for",
    "0.5s",
    "--min-rise",
    "1MiB",
];

/// A loop over the processes, 12 samples.
const APPS: [&str; 6] = [
    "--query-compute-apps=pid,used_memory",
    "--format=csv,noheader,nounits",
    "-lms",
    "100",
    "--count",
    "12",
];

fn process_loop(args: &[&str]) -> Ran {
    let mut all: Vec<&str> = args.to_vec();
    all.extend_from_slice(&SHORT_TREND);
    run_on_time(&scenario("trend_pid_reuse.toml"), &all)
}

/// The rate and time to full of each process in a summary, in columns `rate_at` of the rows keyed by the PID
/// in column `pid_at`: the reused PID's newest process (flat) is not the old one (falling into it would read as
/// memory given back); the growing one rises at its rate, and fills the GPU's 80 GiB in time.
fn check_process_summary(rows: &[Vec<String>], pid_at: usize, at: usize) {
    let flat = mib(&stat_row(rows, "rate/min", pid_at, "4242")[at]);
    assert_eq!(
        flat, 0.0,
        "the new process under PID 4242 holds 2 GiB: {rows:?}"
    );
    assert_eq!(
        stat_row(rows, "time_to_full", pid_at, "4242")[at],
        "not rising"
    );
    let rate = mib(&stat_row(rows, "rate/min", pid_at, "5150")[at]);
    assert!(
        rate > 0.3 * PER_SAMPLE_MIB_PER_MIN && rate < 1.05 * PER_SAMPLE_MIB_PER_MIN,
        "PID 5150 grows 10 GiB/s, not {rate} MiB/min: {rows:?}"
    );
    // 80 GiB less the 12 GiB it ends with, at its rate: seconds.
    let last = mib(&stat_row(rows, "max", pid_at, "5150")[at]);
    let expected = (81920.0 - last) / rate;
    let ttf = minutes(&stat_row(rows, "time_to_full", pid_at, "5150")[at]);
    assert!(
        (ttf - expected).abs() <= expected * 0.1 + 1.0 / 60.0,
        "time to full {ttf} min, expected {expected}: {rows:?}"
    );
}

#[test]
fn compute_apps_loop_follows_each_process_and_a_reused_pid_is_a_new_one() {
    let out = process_loop(&[&APPS[..], &["--summary"]].concat());
    assert!(out.success(), "{}", out.stderr);
    // gpu, statistic, pid, used_memory
    check_process_summary(&summary_rows(&out.stderr), 2, 3);
    // rate() per process: the growing ones pass the filter once they have a trend; the new process under
    // PID 4242, flat at 2 GiB, never does.
    let out = process_loop(&[&APPS[..], &["--where", "rate(used_memory) > 1GiB"]].concat());
    assert!(out.success(), "{}", out.stderr);
    let text = out.stdout;
    assert!(
        text.lines().filter(|l| l.starts_with("5150, ")).count() >= 6,
        "{text}"
    );
    assert!(!text.contains("4242, 2048"), "{text}");
}

#[test]
fn pmon_keeps_each_processs_history_for_summary_and_assert() {
    let out = process_loop(&[
        "pmon",
        "-s",
        "m",
        "-lms",
        "100",
        "-c",
        "12",
        "--summary",
        "--format",
        "csv,nounits",
    ]);
    assert!(out.success(), "{}", out.stderr);
    // gpu, statistic, index, pid, type, fb, ccpm, command
    check_process_summary(&summary_rows(&out.stderr), 3, 5);
    // The growing process fills the GPU within an hour (its fb against the GPU's memory); the other does not.
    let out = process_loop(&[
        "pmon",
        "-s",
        "m",
        "-lms",
        "100",
        "-c",
        "12",
        "--assert",
        "time_to_full(fb) > 1h",
    ]);
    assert_eq!(out.code, Some(20), "{}", out.stderr);
    let err = out.stderr;
    assert!(err.contains("pid 5150"), "{err}");
    assert!(!err.contains("pid 4242"), "{err}");
}

#[test]
fn dmon_keeps_each_gpus_history_for_summary_and_until() {
    let mut args = vec![
        "dmon",
        "-s",
        "m",
        "-lms",
        "100",
        "-c",
        "40",
        "--summary",
        "--format",
        "csv,nounits",
    ];
    args.extend_from_slice(&TREND);
    let out = run_on_time(&scenario("trend.toml"), &args);
    assert!(out.success(), "{}", out.stderr);
    let rows = summary_rows(&out.stderr);
    // gpu, statistic, index, fb, bar1, ccpm
    let rate = mib(&stat_row(&rows, "rate/min", 2, "0")[3]);
    assert!(
        (rate - 1024.0).abs() < 52.0,
        "GPU 0 leaks 1 GiB/min, not {rate}: {rows:?}"
    );
    assert_ne!(stat_row(&rows, "time_to_full", 2, "0")[3], "not rising");
    for gpu in 1..8 {
        let g = gpu.to_string();
        assert_eq!(
            stat_row(&rows, "time_to_full", 2, &g)[3],
            "not rising",
            "GPU {gpu}: {rows:?}"
        );
    }
    // --until waits for the leak, on the leaking GPU.
    let mut args = vec![
        "dmon",
        "-s",
        "m",
        "-lms",
        "100",
        "--until",
        "time_to_full(fb) < 2h",
        "--timeout",
        "20s",
    ];
    args.extend_from_slice(&TREND);
    let out = run_on_time(&scenario("trend.toml"), &args);
    assert!(out.success(), "{}", out.stderr);
}
