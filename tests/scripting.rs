//! The scripting flags against the simulator: `--where`, `--assert`,
//! `--until`/`--until-all`/`--timeout` and `--summary`, on a scenario whose
//! readings change every sample (`tests/scenarios/script_run.toml`).
//! Expected values are computed from the scenario file, not written here.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;
use common::{bare, parsed_scenario, run, scenario};

use nvml_sim::scenario::{Device, Scenario, Series};
use std::path::PathBuf;
use std::sync::LazyLock;

const MIB: u64 = 1 << 20;

/// The scenario of these tests, whose readings change every sample.
static SCRIPT_RUN: LazyLock<PathBuf> = LazyLock::new(|| scenario("script_run.toml"));

fn at<T: Copy>(s: &Option<Series<T>>, sample: usize) -> T {
    s.as_ref().unwrap().at(sample).unwrap()
}

/// What a GPU reads at a 0-based sample, in the units nvq prints.
struct Reading {
    used_mib: u64,
    free_mib: u64,
    util: u32,
    temp: u32,
    /// Watts, or `None` where the scenario has no power reading.
    power: Option<f64>,
}

fn reading(d: &Device, i: usize) -> Reading {
    let total = at(&d.memory.total, i);
    let reserved = d.memory.reserved.as_ref().map_or(0, |s| s.at(i).unwrap());
    let used = at(&d.memory.used, i);
    Reading {
        used_mib: used.div_ceil(MIB),
        free_mib: (total - reserved - used).div_ceil(MIB),
        util: at(&d.utilization.gpu, i),
        temp: at(&d.temperature.gpu, i),
        power: d
            .power
            .usage
            .as_ref()
            .map(|s| f64::from(s.at(i).unwrap()) / 1000.0),
    }
}

/// The first 0-based sample at which `pred` holds for any (or every) GPU.
fn first_sample(s: &Scenario, all: bool, pred: impl Fn(&Reading) -> bool) -> usize {
    (0..100)
        .find(|&i| {
            let mut it = s.device.iter().map(|d| pred(&reading(d, i)));
            if all {
                it.all(|b| b)
            } else {
                it.any(|b| b)
            }
        })
        .expect("the scenario never satisfies the condition")
}

/// The GPUs' indices as CSV without a header, every `VALUE_LMS` for
/// `count` samples, and `more`.
fn indices_for<'a>(count: &'a str, more: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec![
        "--query-gpu=index",
        "--format=csv,noheader",
        "-lms",
        common::VALUE_LMS,
        "--count",
        count,
    ];
    args.extend_from_slice(more);
    args
}

fn lines(s: &str) -> Vec<&str> {
    s.lines().collect()
}

#[test]
fn where_keeps_only_matching_rows_in_every_sample() {
    let s = parsed_scenario(&SCRIPT_RUN);
    let n = 8;
    let count = n.to_string();
    let o = run(
        &SCRIPT_RUN,
        &indices_for(
            &count,
            &["--where", "memory.free >= 20GiB && utilization.gpu < 10"],
        ),
    );
    assert!(o.success(), "{}", o.stderr);
    let want: Vec<String> = (0..n)
        .flat_map(|i| {
            s.device.iter().enumerate().filter_map(move |(k, d)| {
                let r = reading(d, i);
                (r.free_mib >= 20 * 1024 && r.util < 10).then(|| k.to_string())
            })
        })
        .collect();
    assert!(!want.is_empty() && want.len() < n * s.device.len());
    assert_eq!(lines(&o.stdout), want);
}

#[test]
fn where_reads_fields_without_printing_them() {
    let o = run(
        &SCRIPT_RUN,
        &[
            "--query-gpu=index,name",
            "--format=csv",
            "--where",
            "temperature.gpu < 65 && !available(power.draw)",
        ],
    );
    assert!(o.success(), "{}", o.stderr);
    let s = parsed_scenario(&SCRIPT_RUN);
    let d = &s.device[1];
    assert_eq!(
        o.stdout,
        format!("index, name\n1, {}\n", d.name.as_deref().unwrap())
    );
}

#[test]
fn unavailable_values_never_match() {
    // GPU 1 has no power reading: neither the comparison nor its negation holds.
    for expr in ["power.draw > 0W", "!(power.draw > 0W)", "power.draw != 1"] {
        let o = run(
            &SCRIPT_RUN,
            &[
                "--query-gpu=index",
                "--format=csv,noheader",
                "--where",
                expr,
            ],
        );
        assert!(o.success(), "{}", o.stderr);
        assert!(!o.stdout.contains('1'), "{expr}: {}", o.stdout);
    }
    let o = run(
        &SCRIPT_RUN,
        &[
            "--query-gpu=index",
            "--format=csv,noheader",
            "--where",
            "!available(power.draw) || power.draw > 1kW",
        ],
    );
    assert_eq!(o.stdout, "1\n");
}

#[test]
fn until_stops_at_the_first_sample_where_any_row_holds() {
    let s = parsed_scenario(&SCRIPT_RUN);
    let k = first_sample(&s, false, |r| r.free_mib >= 20 * 1024);
    assert!(k > 0, "the scenario should not start free");
    let o = run(
        &SCRIPT_RUN,
        &[
            "--query-gpu=index,memory.free",
            "--format=csv,noheader",
            "-lms",
            common::VALUE_LMS,
            "--until",
            "memory.free >= 20GiB",
        ],
    );
    assert!(o.success(), "{}", o.stderr);
    let out = o.stdout;
    assert_eq!(lines(&out).len(), (k + 1) * s.device.len(), "{out}");
    // The last sample is the one that satisfied the condition.
    let last = reading(&s.device[0], k);
    assert!(out.contains(&format!("0, {} MiB\n", last.free_mib)));
}

#[test]
fn until_all_needs_every_row() {
    let s = parsed_scenario(&SCRIPT_RUN);
    let any = first_sample(&s, false, |r| r.temp >= 62);
    let all = first_sample(&s, true, |r| r.temp >= 62);
    assert!(all > any);
    for (flag, k) in [("--until", any), ("--until-all", all)] {
        let o = run(
            &SCRIPT_RUN,
            &[
                "--query-gpu=index",
                "--format=csv,noheader",
                "-lms",
                common::VALUE_LMS,
                flag,
                "temperature.gpu >= 62C",
            ],
        );
        assert!(o.success(), "{}", o.stderr);
        assert_eq!(lines(&o.stdout).len(), (k + 1) * s.device.len(), "{flag}");
    }
}

#[test]
fn until_without_a_loop_still_loops() {
    // It holds at once: one sample, exit 0 (the default interval is 1 s).
    let o = run(
        &SCRIPT_RUN,
        &[
            "--query-gpu=index",
            "--format=csv,noheader",
            "--until",
            "index == 1",
        ],
    );
    assert!(o.success(), "{}", o.stderr);
    assert_eq!(o.stdout, "0\n1\n");
}

#[test]
fn until_that_never_holds_times_out_with_exit_21() {
    let o = run(
        &SCRIPT_RUN,
        &[
            "--query-gpu=index",
            "--format=csv,noheader",
            "-lms",
            "20",
            "--until",
            "index == 7",
            "--timeout",
            "100ms",
        ],
    );
    assert_eq!(o.code, Some(21), "{}", o.stderr);
    assert_eq!(
        o.stderr,
        "nvq: --until 'index == 7' did not hold within --timeout 100ms.\n"
    );
    assert!(o.stdout.starts_with("0\n1\n"));
    // With --count, running out of samples is the same failure.
    let o = run(
        &SCRIPT_RUN,
        &indices_for("3", &["--until-all", "index == 0"]),
    );
    assert_eq!(o.code, Some(21));
    assert_eq!(lines(&o.stdout).len(), 3 * 2);
    assert!(o.stderr.contains("within --count 3 samples"));
}

#[test]
fn assert_passes_quietly_and_fails_with_exit_20() {
    let s = parsed_scenario(&SCRIPT_RUN);
    let ok = run(
        &SCRIPT_RUN,
        &[
            "--query-gpu=index",
            "--format=csv",
            "--assert",
            "temperature.gpu <= 90",
        ],
    );
    assert!(ok.success());
    assert_eq!(ok.stdout, "index\n0\n1\n");
    assert_eq!(ok.stderr, "");

    // In a loop, the first sample with a hot GPU ends the run.
    let k = first_sample(&s, false, |r| r.temp > 90);
    let o = run(
        &SCRIPT_RUN,
        &[
            "--query-gpu=index,temperature.gpu",
            "--format=csv,noheader",
            "-lms",
            common::VALUE_LMS,
            "--assert",
            "temperature.gpu <= 90 && memory.used <= 95% * memory.total",
        ],
    );
    assert_eq!(o.code, Some(20), "{}", o.stderr);
    assert_eq!(lines(&o.stdout).len(), (k + 1) * s.device.len());
    let r = reading(&s.device[0], k);
    let total = at(&s.device[0].memory.total, k).div_ceil(MIB);
    assert_eq!(
        o.stderr,
        format!(
            "nvq: --assert 'temperature.gpu <= 90 && memory.used <= 95% * memory.total' failed for 1 row:\n  GPU 0: temperature.gpu = {}, memory.used = {} MiB, memory.total = {total} MiB\n",
            r.temp, r.used_mib
        )
    );
}

#[test]
fn assert_on_an_unavailable_value_fails_unless_allowed() {
    let o = run(
        &SCRIPT_RUN,
        &[
            "--query-gpu=index",
            "--format=csv",
            "--assert",
            "power.draw < 800W",
        ],
    );
    assert_eq!(o.code, Some(20));
    assert!(
        o.stderr.contains("GPU 1: power.draw = [N/A]"),
        "{}",
        o.stderr
    );
    let o = run(
        &SCRIPT_RUN,
        &[
            "--query-gpu=index",
            "--format=csv",
            "--assert",
            "!available(power.draw) || power.draw < 800W",
        ],
    );
    assert!(o.success(), "{}", o.stderr);
    // --where picks the rows that --assert checks.
    let o = run(
        &SCRIPT_RUN,
        &[
            "--query-gpu=index",
            "--format=csv,noheader",
            "--where",
            "index == 0",
            "--assert",
            "power.draw < 800W",
        ],
    );
    assert!(o.success(), "{}", o.stderr);
    assert_eq!(o.stdout, "0\n");
}

/// The summary section, on stderr: the lines after its blank line.
fn summary_section(err: &str) -> Vec<Vec<String>> {
    let tail = err
        .strip_prefix('\n')
        .expect("no blank line before the summary");
    tail.lines()
        .map(|l| l.split(", ").map(str::to_string).collect())
        .collect()
}

#[test]
fn summary_reports_each_gpus_true_peak_min_and_mean() {
    let s = parsed_scenario(&SCRIPT_RUN);
    let n = 8;
    let o = run(
        &SCRIPT_RUN,
        &[
            "--query-gpu=memory.used,power.draw",
            "--format=csv,nounits",
            "-lms",
            common::VALUE_LMS,
            "--count",
            &n.to_string(),
            "--summary",
        ],
    );
    assert!(o.success(), "{}", o.stderr);
    assert!(!o.stdout.contains("statistic"));
    let table = summary_section(&o.stderr);
    assert_eq!(
        table[0],
        ["gpu", "statistic", "memory.used [MiB]", "power.draw [W]"]
    );
    // Per GPU: min, max, mean, then the trend's rate/min and time_to_full (docs/trends.md).
    assert_eq!(table.len(), 1 + 5 * s.device.len());
    for (k, d) in s.device.iter().enumerate() {
        let used: Vec<u64> = (0..n).map(|i| reading(d, i).used_mib).collect();
        let power: Vec<Option<f64>> = (0..n).map(|i| reading(d, i).power).collect();
        let mean = used.iter().sum::<u64>() as f64 / n as f64;
        let rows = &table[1 + 5 * k..6 + 5 * k];
        let gpu = k.to_string();
        assert_eq!(
            rows[0][..3],
            [
                gpu.clone(),
                "min".into(),
                used.iter().min().unwrap().to_string()
            ]
        );
        assert_eq!(
            rows[1][..3],
            [
                gpu.clone(),
                "max".into(),
                used.iter().max().unwrap().to_string()
            ]
        );
        assert_eq!(
            rows[2][..3],
            [gpu.clone(), "mean".into(), format!("{mean:.2}")]
        );
        match power.iter().copied().collect::<Option<Vec<f64>>>() {
            Some(p) => {
                let peak = p.iter().copied().fold(f64::MIN, f64::max);
                assert_eq!(rows[1][3], format!("{peak:.2}"));
            }
            None => assert_eq!(rows[1][3], "[N/A]"),
        }
    }
    // The samples are on stdout alone, untouched.
    assert_eq!(o.stdout.lines().count(), 1 + n * s.device.len());
}

#[test]
fn summary_covers_the_samples_until_stopped_and_the_rows_kept() {
    let s = parsed_scenario(&SCRIPT_RUN);
    let k = first_sample(&s, false, |r| r.free_mib >= 20 * 1024);
    let o = run(
        &SCRIPT_RUN,
        &[
            "--query-gpu=memory.used",
            "--format=csv,noheader",
            "-lms",
            common::VALUE_LMS,
            "--until",
            "memory.free >= 20GiB",
            "--where",
            "index == 0",
            "--summary",
        ],
    );
    assert!(o.success(), "{}", o.stderr);
    let table = summary_section(&o.stderr);
    let peak = (0..=k)
        .map(|i| reading(&s.device[0], i).used_mib)
        .max()
        .unwrap();
    assert_eq!(table.len(), 5, "noheader, one GPU: {table:?}");
    assert_eq!(table[1], ["0", "max", &format!("{peak} MiB")]);
}

#[test]
fn bad_expressions_are_usage_errors_before_nvml() {
    // The library does not exist: reaching NVML would exit 12, not 2.
    let o = bare(&[
        "--nvml-lib",
        "/nonexistent/libnvidia-ml.so.1",
        "--query-gpu=index",
        "--format=csv",
        "--where",
        "memory.fre >= 20GiB",
    ]);
    assert_eq!(o.code, Some(2));
    assert_eq!(
        o.stderr,
        "ERROR: invalid --where expression: unknown field \"memory.fre\"\n  memory.fre >= 20GiB\n  ^^^^^^^^^^ did you mean \"memory.free\"?\n"
    );
    for args in [
        &["--assert", "memory.free >= 300W"][..],
        &["--until", "index >"],
        &["--until-all", "(index == 1"],
        &["--where", "name < \"x\""],
        &["--until", "index == 1", "--until-all", "index == 1"],
        &["--timeout", "5s"],
        &["--until", "index == 1", "--timeout", "5 parsecs"],
    ] {
        let o = bare(
            &[
                &[
                    "--nvml-lib",
                    "/nonexistent/x.so",
                    "--query-gpu=index",
                    "--format=csv",
                ][..],
                args,
            ]
            .concat(),
        );
        assert_eq!(o.code, Some(2), "{args:?}: {}", o.stderr);
        assert!(o.stderr.starts_with("ERROR: "), "{args:?}");
    }
}

#[test]
fn where_works_in_other_query_modes() {
    use nvml_sim::scenario::UsedMemory;
    let s = parsed_scenario(&SCRIPT_RUN);
    let procs: Vec<(u32, Option<u64>)> = s
        .device
        .iter()
        .flat_map(|d| &d.process)
        .map(|p| {
            let mem = match &p.used_memory {
                Some(UsedMemory::Bytes(b)) => b.at(0),
                _ => None,
            };
            (p.pid, mem)
        })
        .collect();
    let big: Vec<String> = procs
        .iter()
        .filter(|(_, m)| m.is_some_and(|b| b >= 1 << 30))
        .map(|(p, _)| p.to_string())
        .collect();
    let unknown: Vec<String> = procs
        .iter()
        .filter(|(_, m)| m.is_none())
        .map(|(p, _)| p.to_string())
        .collect();
    assert!(!big.is_empty() && !unknown.is_empty() && big.len() + unknown.len() < procs.len());
    let o = run(
        &SCRIPT_RUN,
        &[
            "--query-compute-apps=pid",
            "--format=csv,noheader",
            "--where",
            "used_memory >= 1GiB",
        ],
    );
    assert!(o.success(), "{}", o.stderr);
    assert_eq!(lines(&o.stdout), big);
    let o = run(
        &SCRIPT_RUN,
        &[
            "--query-compute-apps=pid",
            "--format=csv,noheader",
            "--where",
            "!available(used_memory) && process_name == \"python3\"",
        ],
    );
    assert_eq!(lines(&o.stdout), unknown);
}

/// A row `--where` keeps is still its own GPU's (not the n-th GPU's) in `--summary` and in `--assert`'s message:
/// with GPU 0 filtered out, GPU 1's row is the first kept.
#[test]
fn kept_rows_keep_their_gpu_in_summary_and_assert() {
    let o = run(
        &SCRIPT_RUN,
        &[
            "--query-gpu=memory.used",
            "--format=csv,noheader,nounits",
            "-lms",
            common::VALUE_LMS,
            "--count",
            "2",
            "--where",
            "index == 1",
            "--summary",
            "--assert",
            "memory.used < 1MiB",
        ],
    );
    assert_eq!(o.code, Some(20), "{}", o.stderr);
    let err = o.stderr;
    assert!(err.contains("GPU 1"), "{err}");
    assert!(!err.contains("GPU 0"), "{err}");
    let summary: Vec<&str> = err.lines().filter(|l| l.contains(", min, ")).collect();
    assert_eq!(summary.len(), 1, "{err}");
    assert!(summary[0].starts_with("1, min, "), "{err}");
}

#[test]
fn where_and_summary_in_other_formats() {
    let o = run(
        &SCRIPT_RUN,
        &[
            "--query-gpu=index,memory.used",
            "--format=json",
            "--where",
            "index == 1",
        ],
    );
    assert!(o.success(), "{}", o.stderr);
    let v: serde_json::Value = serde_json::from_str(&o.stdout).unwrap();
    let rows = v.as_array().unwrap();
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0]["index"], 1);

    let s = parsed_scenario(&SCRIPT_RUN);
    let o = run(
        &SCRIPT_RUN,
        &[
            "--query-gpu=memory.used",
            "--format=ndjson",
            "-lms",
            common::VALUE_LMS,
            "--count",
            "4",
            "--summary",
        ],
    );
    assert!(o.success(), "{}", o.stderr);
    let data = o.stdout;
    assert_eq!(data.lines().count(), 4 * 2, "the data alone: {data}");
    let out = o.stderr;
    let objs: Vec<serde_json::Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(objs.len(), 5 * 2, "no blank line in ndjson: {out}");
    let peak = (0..4)
        .map(|i| reading(&s.device[0], i).used_mib)
        .max()
        .unwrap();
    let max0 = objs
        .iter()
        .find(|o| o["gpu"] == 0 && o["statistic"] == "max")
        .unwrap();
    assert_eq!(max0["memory.used"], peak);

    let o = run(
        &SCRIPT_RUN,
        &[
            "--query-gpu=memory.used",
            "--format=prometheus",
            "--summary",
        ],
    );
    assert_eq!(o.code, Some(2));
    // The list modes summarise each row (a process) over the run.
    let o = run(
        &SCRIPT_RUN,
        &[
            "--query-compute-apps=pid,used_memory",
            "--format=csv",
            "--summary",
        ],
    );
    assert!(o.success(), "{}", o.stderr);
    let summary = o.stderr;
    assert!(summary.contains("\n0, max, 4100, "), "{summary}");
    assert!(summary.contains("\n1, mean, 4200, "), "{summary}");
}
