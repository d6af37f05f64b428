//! `nvq plot` on logs nvq wrote against the simulator: the drawn points are the log's values (read back from the
//! SVG's polylines), a leak is marked with its rate and time to full and nothing else is, the PNG decodes,
//! `rsvg-convert` renders the SVG, a reused PID is a new line, and bad logs get a clear message and exit 2 without
//! a picture.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;
use common::{run_on_time, scenario, TREND};

use assert_cmd::Command;
use std::path::{Path, PathBuf};

pub(crate) fn plot(args: &[&str]) -> std::process::Output {
    Command::from_std(common::nvq_command())
        .arg("plot")
        .args(args)
        .output()
        .unwrap()
}

pub(crate) fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("nvq-plot-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d.join(name)
}

/// A log of the trend scenario (GPU 0 leaks 1 GiB a minute), written by nvq with -f.
fn trend_log(name: &str, format: &str) -> PathBuf {
    let log = tmp(name);
    let fields = "--query-gpu=timestamp,index,uuid,memory.used,memory.total";
    let f = format!("--format={format}");
    // The scenario's values follow the clock: a sample is a point of the
    // curves, read on time (common::on_time).
    let out = run_on_time(
        &scenario("trend.toml"),
        &[
            fields,
            &f,
            "-lms",
            common::VALUE_LMS,
            "--count",
            "40",
            "-f",
            log.to_str().unwrap(),
        ],
    );
    assert!(out.success(), "{}", out.stderr);
    log
}

/// The data polylines of an SVG (stroke width 2), with their colour and points.
pub(crate) fn polylines(svg: &str) -> Vec<(String, Vec<(f64, f64)>)> {
    svg.split("<polyline")
        .skip(1)
        .filter(|p| p.contains("stroke-width=\"2\""))
        .map(|p| {
            let attr = |name: &str| {
                let k = format!("{name}=\"");
                let start = p.find(&k).unwrap() + k.len();
                p[start..start + p[start..].find('"').unwrap()].to_string()
            };
            let pts = attr("points")
                .split_whitespace()
                .map(|xy| {
                    let (x, y) = xy.split_once(',').unwrap();
                    (x.parse().unwrap(), y.parse().unwrap())
                })
                .collect();
            (attr("stroke"), pts)
        })
        .collect()
}

/// The log's (seconds, MiB) of GPU `gpu`, from nvq's CSV with units.
fn csv_series(log: &Path, gpu: u32) -> Vec<(f64, f64)> {
    let text = std::fs::read_to_string(log).unwrap();
    let prefix = format!(", {gpu}, ");
    text.lines()
        .skip(1)
        .filter(|l| l.contains(&prefix))
        .map(|l| {
            let c: Vec<&str> = l.split(", ").collect();
            let t = seconds_of_day(c[0]);
            (t, c[3].trim_end_matches(" MiB").parse().unwrap())
        })
        .collect()
}

/// A log timestamp (`2026/12/01 20:11:08.691`) as seconds of its day.
fn seconds_of_day(timestamp: &str) -> f64 {
    let hms: Vec<f64> = timestamp
        .split(' ')
        .nth(1)
        .unwrap()
        .split(':')
        .map(|x| x.parse().unwrap())
        .collect();
    hms[0] * 3600.0 + hms[1] * 60.0 + hms[2]
}

/// One PID's rows of a `--query-compute-apps=timestamp,gpu_uuid,pid,process_name,used_memory` CSV log, as
/// (seconds of the day, MiB).
fn app_series(log: &Path, pid: u32) -> Vec<(f64, f64)> {
    let text = std::fs::read_to_string(log).unwrap();
    text.lines()
        .skip(1)
        .map(|l| l.split(", ").collect::<Vec<&str>>())
        .filter(|c| c.len() == 5 && c[2] == pid.to_string())
        .map(|c| {
            let t = seconds_of_day(c[0]);
            (t, c[4].trim_end_matches(" MiB").parse().unwrap())
        })
        .collect()
}

/// Every drawn point is the log's point through one straight mapping per axis (within a pixel: the SVG's
/// coordinates are whole pixels).
fn assert_drawn_as_logged(drawn: &[(f64, f64)], logged: &[(f64, f64)]) {
    assert_eq!(
        drawn.len(),
        logged.len(),
        "one drawn point per logged point"
    );
    let fit = |a: (f64, f64), b: (f64, f64)| {
        let k = (b.1 - a.1) / (b.0 - a.0);
        move |x: f64| a.1 + k * (x - a.0)
    };
    let (lo, hi) = logged.iter().enumerate().fold((0, 0), |(lo, hi), (i, p)| {
        (
            if p.1 < logged[lo].1 { i } else { lo },
            if p.1 > logged[hi].1 { i } else { hi },
        )
    });
    let n = logged.len() - 1;
    let x_of = fit((logged[0].0, drawn[0].0), (logged[n].0, drawn[n].0));
    let y_of = fit((logged[lo].1, drawn[lo].1), (logged[hi].1, drawn[hi].1));
    for (d, l) in drawn.iter().zip(logged) {
        assert!((x_of(l.0) - d.0).abs() <= 1.5, "x of {l:?}: drawn {d:?}");
        assert!((y_of(l.1) - d.1).abs() <= 1.5, "y of {l:?}: drawn {d:?}");
    }
}

#[test]
fn the_svg_draws_the_logs_values_and_marks_only_the_leak() {
    let log = trend_log("run.csv", "csv");
    let svg_path = tmp("run.svg");
    let out = plot(&[
        log.to_str().unwrap(),
        "-o",
        svg_path.to_str().unwrap(),
        TREND[0],
        TREND[1],
        TREND[2],
        TREND[3],
        TREND[4],
        TREND[5],
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let svg = std::fs::read_to_string(&svg_path).unwrap();
    let lines = polylines(&svg);
    // GPU 1 (the sawtooth) is the second line, in the second colour; GPU 0 the first.
    for (gpu, colour) in [(0, "#1F77B4"), (1, "#FF7F0E")] {
        let (_, pts) = lines
            .iter()
            .find(|(c, _)| c.eq_ignore_ascii_case(colour))
            .unwrap();
        assert_drawn_as_logged(pts, &csv_series(&log, gpu));
    }
    // The leak's words: its rate within 5 % of 1 GiB a minute, and a time to full; no other GPU leaks.
    let leak = svg.split("GPU 0: leak +").nth(1).unwrap();
    // In MiB/min, or in GiB/min from 1 GiB a minute on (as the plot words it).
    let mut words = leak.split(' ');
    let rate: f64 = words.next().unwrap().parse().unwrap();
    let rate = match words.next().unwrap() {
        u if u.starts_with("GiB/min") => rate * 1024.0,
        u if u.starts_with("MiB/min") => rate,
        u => panic!("leak rate in {u}: {leak}"),
    };
    assert!((rate - 1024.0).abs() < 52.0, "{rate} MiB/min: {leak}");
    assert!(
        leak.split('<').next().unwrap().contains("full in 1h"),
        "{leak}"
    );
    for gpu in 1..8 {
        assert!(!svg.contains(&format!("GPU {gpu}: leak")), "GPU {gpu}");
    }
    // Each line is named, the peaks and the total are written.
    assert!(svg.contains("GPU 7"));
    assert!(svg.contains("peak 30720 MiB"), "the warm-up jump's peak");
    assert!(svg.contains("total 81920 MiB"));
    // Debian's librsvg renders it.
    let png = tmp("rsvg.png");
    if let Some(rsvg) = crate::common::require_tool("rsvg-convert") {
        let s = crate::common::command(rsvg)
            .arg("-o")
            .arg(&png)
            .arg(&svg_path)
            .status()
            .unwrap();
        assert!(s.success());
        let img = image::open(&png).unwrap();
        assert_eq!((img.width(), img.height()), (1200, 400));
    }
}

#[test]
fn png_decodes_and_ndjson_and_unitless_csv_logs_draw_the_same_values() {
    // The two logs are eight seconds of loop each: written side by side.
    let (log, unitless) = std::thread::scope(|s| {
        let unitless = s.spawn(|| trend_log("nounits.csv", "csv,nounits"));
        let log = trend_log("run.ndjson", "ndjson");
        (log, unitless.join().unwrap())
    });
    let png = tmp("run.png");
    let out = plot(&[log.to_str().unwrap(), "-o", png.to_str().unwrap()]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let img = image::load_from_memory(&std::fs::read(&png).unwrap()).unwrap();
    assert_eq!((img.width(), img.height()), (1200, 400));
    let svg = tmp("nounits.svg");
    assert!(
        plot(&[unitless.to_str().unwrap(), "-o", svg.to_str().unwrap()])
            .status
            .success()
    );
    // A line per GPU with a point per logged row of that GPU (40, or fewer
    // where a busy machine made the loop skip a sample).
    let lines = polylines(&std::fs::read_to_string(&svg).unwrap());
    let logged = std::fs::read_to_string(&unitless).unwrap();
    let mut rows: Vec<usize> = (0..8)
        .map(|gpu| {
            logged
                .lines()
                .filter(|l| l.split(", ").nth(1) == Some(&gpu.to_string()))
                .count()
        })
        .collect();
    let mut points: Vec<usize> = lines.iter().map(|(_, p)| p.len()).collect();
    rows.sort_unstable();
    points.sort_unstable();
    assert_eq!(points, rows, "a point per logged row, a line per GPU");
    assert!(rows.iter().all(|&n| n > 20), "{rows:?}");
}

#[test]
fn a_reused_pid_is_a_new_process_and_a_growing_one_is_a_leak() {
    let log = tmp("apps.csv");
    let q = "--query-compute-apps=timestamp,gpu_uuid,pid,process_name,used_memory";
    // Growth a sample, judged over time: the samples are read on time.
    let out = run_on_time(
        &scenario("trend_pid_reuse.toml"),
        &[
            q,
            "--format=csv",
            "-lms",
            common::VALUE_LMS,
            "--count",
            "12",
            "-f",
            log.to_str().unwrap(),
        ],
    );
    assert!(out.success(), "{}", out.stderr);
    let svg = tmp("apps.svg");
    let args = [
        log.to_str().unwrap(),
        "-o",
        svg.to_str().unwrap(),
        "--trend-window",
        "2s",
        "--rising-for",
        "1s",
        "--min-rise",
        "1GiB",
    ];
    let out = plot(&args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(&svg).unwrap();
    assert!(text.contains("PID 4242 train"), "the first process");
    assert!(
        text.contains("PID 4242 eval (#2)"),
        "the PID's new process is its own line"
    );
    assert_eq!(polylines(&text).len(), 3);
    // 5150 grows 1 GiB a sample (5 GiB/s at -lms 200, less when samples run late): a leak at the rate its logged
    // rows show, first to last; 4242's short rise is not.
    let leak = text
        .split("PID 5150 serve: leak +")
        .nth(1)
        .expect("5150 leaks");
    let rate: f64 = leak.split(' ').next().unwrap().parse().unwrap();
    let logged = app_series(&log, 5150);
    let ((t0, m0), (t1, m1)) = (logged[0], logged[logged.len() - 1]);
    let expected = (m1 - m0) / 1024.0 / (t1 - t0) * 60.0;
    assert!(
        (rate - expected).abs() < expected * 0.1,
        "{rate} GiB/min drawn, {expected} logged"
    );
    assert!(!text.contains("PID 4242 train: leak"));
}

#[test]
fn bad_logs_exit_2_with_a_message_and_no_picture() {
    let good = "timestamp, index, memory.used [MiB]\n2026/12/01 20:11:08.691, 0, 100 MiB\n";
    let cases: [(&str, &str, &str); 5] = [
        ("empty.csv", "", "empty"),
        ("cut.csv", "timestamp, index, memory.used [MiB]\n2026/12/01 20:11:08.691, 0, 100 MiB\n2026/12/01 20:11:09.691, 0, 1", "cut short"),
        ("mixed.csv", "timestamp, index, memory.used [MiB]\n2026/12/01 20:11:08.691, 0, 100 MiB\n{\"timestamp\":\"2026/12/01 20:11:09.691\"}\n", "one log, one format"),
        ("text.csv", "timestamp, name, uuid\n2026/12/01 20:11:08.691, H100, GPU-1\n", "no numeric column"),
        ("nots.csv", "index, memory.used [MiB]\n0, 100 MiB\n", "no timestamp"),
    ];
    for (name, text, want) in cases {
        let log = tmp(name);
        std::fs::write(&log, text).unwrap();
        let svg = tmp(&format!("{name}.svg"));
        let out = plot(&[log.to_str().unwrap(), "-o", svg.to_str().unwrap()]);
        assert_eq!(out.status.code(), Some(2), "{name}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(want) && err.contains(name), "{name}: {err}");
        assert!(!svg.exists(), "{name}: no picture");
    }
    // A picture already there is left whole when the log is bad.
    let log = tmp("good.csv");
    std::fs::write(&log, good).unwrap();
    let svg = tmp("kept.svg");
    assert!(plot(&[log.to_str().unwrap(), "-o", svg.to_str().unwrap()])
        .status
        .success());
    let before = std::fs::read(&svg).unwrap();
    std::fs::write(&log, "").unwrap();
    assert_eq!(
        plot(&[log.to_str().unwrap(), "-o", svg.to_str().unwrap()])
            .status
            .code(),
        Some(2)
    );
    assert_eq!(std::fs::read(&svg).unwrap(), before);
    // Neither .svg nor .png: refused before anything is read.
    let out = plot(&[log.to_str().unwrap(), "-o", tmp("x.gif").to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains(".svg or .png"));
    let out = plot(&[tmp("missing.csv").to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot read"));
}

/// A day-long log is more points than the picture is wide: each line is thinned to each pixel column's lowest
/// and highest point. Every drawn point is still one of the log's, and the drawn points of each pixel column
/// span every logged point that falls in it (the min/max envelope: no peak or trough is lost).
#[test]
fn a_long_log_is_thinned_to_each_columns_lowest_and_highest_point() {
    let log = tmp("long.csv");
    let mut text = String::from("timestamp, index, uuid, memory.used [MiB], memory.total [MiB]\n");
    let n = 6000;
    for i in 0..n {
        let (h, m, s) = (i / 3600, i / 60 % 60, i % 60);
        // A jagged series, its lowest point first and its highest last (so both ends are drawn), a lone spike.
        let v = match i {
            0 => 0,
            i if i == n - 1 => 90_000,
            2345 => 80_000,
            i => 20_000 + (i * 7919 % 104) * 100 + i * 5,
        };
        text.push_str(&format!(
            "2026/12/01 {h:02}:{m:02}:{s:02}.000, 0, GPU-long, {v} MiB, 98304 MiB\n"
        ));
    }
    std::fs::write(&log, text).unwrap();
    let svg_path = tmp("long.svg");
    let out = plot(&[
        log.to_str().unwrap(),
        "-o",
        svg_path.to_str().unwrap(),
        "--field",
        "memory.used",
        "--width",
        "600",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let lines = polylines(&std::fs::read_to_string(&svg_path).unwrap());
    assert_eq!(lines.len(), 1);
    let drawn = &lines[0].1;
    let logged = csv_series(&log, 0);
    assert!(
        drawn.len() <= 2 * 600 + 2 && drawn.len() > 600,
        "{} points",
        drawn.len()
    );
    // The mapping of each axis, from the two ends (the lowest and the highest point).
    let (a, b) = (logged[0], logged[n - 1]);
    let (da, db) = (drawn[0], drawn[drawn.len() - 1]);
    let x_of = |t: f64| da.0 + (t - a.0) * (db.0 - da.0) / (b.0 - a.0);
    let y_of = |v: f64| da.1 + (v - a.1) * (db.1 - da.1) / (b.1 - a.1);
    // Every drawn point is a logged one (within the SVG's whole pixels).
    for d in drawn {
        assert!(
            logged
                .iter()
                .any(|l| (x_of(l.0) - d.0).abs() <= 1.0 && (y_of(l.1) - d.1).abs() <= 1.0),
            "drawn {d:?} is no logged point"
        );
    }
    // Every logged point lies within the drawn points of its pixel column (a pixel either side for rounding).
    for l in &logged {
        let (x, y) = (x_of(l.0), y_of(l.1));
        let near: Vec<f64> = drawn
            .iter()
            .filter(|d| (d.0 - x).abs() <= 1.5)
            .map(|d| d.1)
            .collect();
        let (lo, hi) = near
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &v| {
                (lo.min(v), hi.max(v))
            });
        assert!(
            y >= lo - 1.0 && y <= hi + 1.0,
            "logged {l:?} at y {y} outside [{lo}, {hi}]"
        );
    }
    // The spike is drawn at its height.
    assert!(drawn.iter().any(|d| (d.1 - y_of(80_000.0)).abs() <= 1.0));
}
