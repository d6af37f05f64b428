//! `nvq plot` of a run's log (`nvq run --log`, issue 51) and of several logs on one time axis (issue 53): the
//! job's processes stacked per GPU under the job's line, its peak as the report gives it, the other processes
//! apart, the start and the end; a hostile run log still makes a bounded, valid picture; logs of several nodes
//! share one time axis, each series named by its host and GPU.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common::{sim_command, wait_for_lines};
use crate::hostile_users::xml_char;
use crate::plot::{plot, polylines, tmp};
use crate::run::machine;
use std::process::{Output, Stdio};

const MIB: u64 = 1 << 20;

/// `nvq run OPTS -- python3 workload.py --dir DIR ARGS` (no `--duration`): once the workload and its `workers`
/// have said they hold their memory, and a few samples later, nvq gets SIGTERM (which it passes on: the run
/// ends with 143). On a loaded machine a run of fixed length may end before its workers start.
pub(crate) fn run_until_ready(
    sc: &std::path::Path,
    dir: &std::path::Path,
    opts: &[&str],
    args: &str,
    workers: usize,
) -> Output {
    let mut child = sim_command(Some(sc), &crate::run::workload_args(dir, opts, args))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // The job and its workers say "ready" (at most a minute: see
    // common::wait_for_lines).
    let stdout = child.stdout.take().unwrap();
    let ready = wait_for_lines(
        stdout,
        "ready",
        workers + 1,
        std::time::Duration::from_secs(60),
    );
    assert_eq!(ready, workers + 1, "the job and its workers said ready");
    std::thread::sleep(std::time::Duration::from_millis(600));
    // SAFETY: signalling the nvq this test started.
    unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
    child.wait_with_output().unwrap()
}

/// The polygons of an SVG (a run's bands), each as its points.
fn polygons(svg: &str) -> Vec<Vec<(f64, f64)>> {
    svg.split("<polygon")
        .skip(1)
        .map(|p| {
            let start = p.find("points=\"").unwrap() + "points=\"".len();
            let end = start + p[start..].find('"').unwrap();
            p[start..end]
                .split_whitespace()
                .map(|xy| {
                    let (x, y) = xy.split_once(',').unwrap();
                    (x.parse().unwrap(), y.parse().unwrap())
                })
                .collect()
        })
        .collect()
}

/// `nvq plot ARGS`, asserting success: the SVG's text.
fn plot_ok(args: &[&str], svg: &std::path::Path) -> String {
    let mut all: Vec<&str> = args.to_vec();
    all.extend(["-o", svg.to_str().unwrap()]);
    let out = plot(&all);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(svg).unwrap();
    let bad: Vec<char> = text.chars().filter(|c| !xml_char(*c)).collect();
    assert!(bad.is_empty(), "the SVG holds {bad:?}");
    text
}

/// Debian's librsvg renders the picture, where it is installed.
fn renders(svg: &std::path::Path) {
    if let Some(rsvg) = crate::common::require_tool("rsvg-convert") {
        let png = svg.with_extension("png");
        let s = crate::common::command(rsvg)
            .arg("-o")
            .arg(&png)
            .arg(svg)
            .status()
            .unwrap();
        assert!(s.success(), "rsvg-convert {}", svg.display());
    }
}

#[test]
fn a_runs_log_stacks_the_jobs_processes_under_its_peak_between_start_and_end() {
    let dir = tempfile::tempdir().unwrap();
    let sc = machine(dir.path());
    let log = dir.path().join("run.ndjson");
    let report = dir.path().join("report.json");
    let o = run_until_ready(
        sc.path(),
        dir.path(),
        &[
            "-lms",
            "50",
            "--log",
            log.to_str().unwrap(),
            "--report=json",
            "--report-file",
            report.to_str().unwrap(),
        ],
        "--start 2GiB --workers 2 --worker-gpu 1 --worker-mem 1GiB",
        2,
    );
    assert_eq!(
        o.status.code(),
        Some(143),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let r: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    let svg_path = dir.path().join("run.svg");
    let svg = plot_ok(&[log.to_str().unwrap()], &svg_path);
    renders(&svg_path);
    // A panel per GPU the job held memory on, the start and the end with the command's status.
    assert!(svg.contains("GPU 0 memory [MiB]") && svg.contains("GPU 1 memory [MiB]"));
    assert!(svg.contains("\nstart\n"), "the start is marked");
    assert!(svg.contains("\nend: exit 143\n"), "the end is marked");
    assert!(svg.contains("job: python3 "), "the command is named");
    // The job's peak on each GPU, as the report gives it, with when it was.
    for gpu in ["0", "1"] {
        let peak = r["track"]["gpus"][gpu]["peak"].as_u64().unwrap() / MIB;
        assert!(
            svg.contains(&format!("peak {peak} MiB at ")),
            "GPU {gpu}'s peak {peak} MiB"
        );
    }
    // Each of the job's processes is a band, named by its PID; the other user's process is apart.
    for pid in r["track"]["procs"].as_object().unwrap().keys() {
        assert!(svg.contains(&format!("PID {pid}")), "PID {pid} is named");
    }
    assert!(svg.contains("other processes: PID 999999"));
    // GPU 0's one band, GPU 1's two (the top one drawn first); the top band's edge is the job's line, and
    // GPU 1's lower band reaches half of it (each worker holds 1 GiB of the job's 2).
    let bands = polygons(&svg);
    assert_eq!(bands.len(), 3, "one band per process of the job");
    let jobs: Vec<Vec<(f64, f64)>> = polylines(&svg)
        .into_iter()
        .filter(|(c, _)| c.eq_ignore_ascii_case("#000000"))
        .map(|(_, p)| p)
        .collect();
    assert_eq!(jobs.len(), 2, "a job line per GPU");
    // A band begins when its process first holds memory: each point of its edge is a point of the job's line.
    let edge = |b: &[(f64, f64)]| b[..b.len() - 2].to_vec();
    let on = |band: &[(f64, f64)], job: &[(f64, f64)]| edge(band).iter().all(|p| job.contains(p));
    assert!(on(&bands[0], &jobs[0]), "GPU 0: the band is the job");
    assert!(
        on(&bands[1], &jobs[1]),
        "GPU 1: the top band's edge is the job's line"
    );
    let base = bands[2].last().unwrap().1;
    let top_of = |pts: &[(f64, f64)]| pts.iter().map(|p| p.1).fold(f64::INFINITY, f64::min);
    let (half, whole) = (top_of(&edge(&bands[2])), top_of(&jobs[1]));
    assert!(
        (half - (base + whole) / 2.0).abs() <= 1.5,
        "the lower band's top {half} is halfway between {base} and {whole}"
    );
}

/// A run log written by anyone: escapes in the command and the names, a dozen GPUs, thirty processes of the job on
/// one GPU, no end. The picture is valid XML, has at most eight panels and ten bands a GPU, and says what it left
/// out.
#[test]
fn a_hostile_runs_log_draws_bounded_and_escaped() {
    let t0 = 1_796_610_000.0;
    let mut log = format!(
        "{{\"timestamp.epoch\":{t0},\"event\":\"start\",\"command\":\"train \\u001b[31m<script>&\\u0001\"}}\n"
    );
    for s in 0..20 {
        let t = t0 + 0.1 * f64::from(s + 1);
        for gpu in 0..12 {
            log.push_str(&format!(
                "{{\"timestamp.epoch\":{t},\"gpu_index\":{gpu},\"pid\":null,\"job\":null,\"used_memory\":null,\"memory.used\":40000,\"memory.total\":81559}}\n"
            ));
            let procs = if gpu == 0 { 30 } else { 1 };
            for p in 0..procs {
                log.push_str(&format!(
                    "{{\"timestamp.epoch\":{t},\"gpu_index\":{gpu},\"pid\":{},\"job\":true,\"used_memory\":{},\"name\":\"w\\u0007<{p}>\",\"memory.used\":40000,\"memory.total\":81559}}\n",
                    1000 + p,
                    100 + gpu * 10
                ));
            }
            log.push_str(&format!(
                "{{\"timestamp.epoch\":{t},\"gpu_index\":{gpu},\"pid\":99,\"job\":false,\"used_memory\":5000,\"memory.used\":40000,\"memory.total\":81559}}\n"
            ));
        }
    }
    let path = tmp("hostile-run.ndjson");
    std::fs::write(&path, log).unwrap();
    let svg_path = tmp("hostile-run.svg");
    let svg = plot_ok(&[path.to_str().unwrap()], &svg_path);
    renders(&svg_path);
    assert!(!svg.contains("<script>"), "text is escaped");
    assert!(
        svg.contains("&lt;script&gt;"),
        "the command is named, escaped"
    );
    let panels = svg.matches(" memory [MiB]").count();
    assert_eq!(panels, 8, "eight panels of twelve GPUs");
    assert!(
        svg.contains("the 8 GPUs with the job"),
        "the rest is counted"
    );
    // GPU 0: nine processes with a band each, the other 21 share the tenth; the other GPUs one band each.
    assert_eq!(polygons(&svg).len(), 10 + 7);
    assert!(svg.contains("21 more processes of the job"));
    assert!(svg.contains("PID 1000 w?&lt;0&gt;"), "a name's bell is a ?");
    assert!(svg.contains("the log has no end"));
}

/// Logs of several nodes on one time axis: a log written under --hosts names each row's host, another is named by
/// its file; each series is named by its host and GPU, and a log that began five seconds later is drawn five
/// seconds to the right.
#[test]
fn several_logs_share_one_time_axis_named_by_host_and_gpu() {
    let t0 = 1_796_610_000.0;
    let row = |t: f64, host: Option<&str>, gpu: u32, used: u32| {
        let host = host.map_or(String::new(), |h| format!("\"host\":\"{h}\","));
        format!(
            "{{{host}\"timestamp\":\"2026/12/07 01:00:00.000\",\"timestamp.epoch\":{t},\"index\":{gpu},\"memory.used\":{used},\"memory.total\":81559}}\n"
        )
    };
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("node-a.ndjson");
    let b = dir.path().join("fleet.ndjson");
    let mut text_a = String::new();
    let mut text_b = String::new();
    for i in 0..11 {
        let t = f64::from(i);
        text_a.push_str(&row(t0 + t, None, 0, 1000 + 100 * i));
        for gpu in 0..2 {
            text_b.push_str(&row(t0 + 5.0 + t, Some("node-b"), gpu, 2000 + 10 * i));
        }
    }
    std::fs::write(&a, text_a).unwrap();
    std::fs::write(&b, text_b).unwrap();
    let svg_path = dir.path().join("fleet.svg");
    let svg = plot_ok(&[a.to_str().unwrap(), b.to_str().unwrap()], &svg_path);
    renders(&svg_path);
    for name in ["node-a GPU 0", "node-b GPU 0", "node-b GPU 1"] {
        assert!(svg.contains(name), "{name} is named");
    }
    let lines = polylines(&svg);
    assert_eq!(lines.len(), 3);
    let (la, lb) = (&lines[0].1, &lines[1].1);
    assert_eq!((la.len(), lb.len()), (11, 11));
    // node-b's first point is at node-a's sixth's time.
    assert!(
        (lb[0].0 - la[5].0).abs() <= 1.0,
        "node-b starts at x {} where node-a's t+5 s is at {}",
        lb[0].0,
        la[5].0
    );
    // Two logs of one name in two folders are named by their paths.
    let (d1, d2) = (dir.path().join("r1"), dir.path().join("r2"));
    for (d, used) in [(&d1, 100), (&d2, 200)] {
        std::fs::create_dir_all(d).unwrap();
        std::fs::write(
            d.join("mem.ndjson"),
            row(t0, None, 0, used) + &row(t0 + 1.0, None, 0, used),
        )
        .unwrap();
    }
    let svg = plot_ok(
        &[
            d1.join("mem.ndjson").to_str().unwrap(),
            d2.join("mem.ndjson").to_str().unwrap(),
        ],
        &dir.path().join("same.svg"),
    );
    assert!(svg.contains("r1/mem GPU 0") && svg.contains("r2/mem GPU 0"));
}

/// The logs of a job's ranks on two nodes (`nvq run --log` each): every GPU's job memory in one panel, named by
/// its node, the processes stacked for the highest peaks, and a node whose run failed said so.
#[test]
fn the_runs_of_several_nodes_are_one_panel_of_job_memory() {
    let t0 = 1_796_610_000.0;
    let run = |start: f64, exit: i32, mib: u32| {
        let mut s = format!(
            "{{\"timestamp.epoch\":{start},\"event\":\"start\",\"command\":\"torchrun train.py\"}}\n"
        );
        for i in 1..10 {
            let t = start + f64::from(i) * 0.5;
            s.push_str(&format!("{{\"timestamp.epoch\":{t},\"gpu_index\":0,\"pid\":null,\"job\":null,\"used_memory\":null,\"memory.used\":{mib},\"memory.total\":81559}}\n"));
            s.push_str(&format!("{{\"timestamp.epoch\":{t},\"gpu_index\":0,\"pid\":42,\"job\":true,\"used_memory\":{mib},\"memory.used\":{mib},\"memory.total\":81559}}\n"));
        }
        s.push_str(&format!(
            "{{\"timestamp.epoch\":{},\"event\":\"end\",\"exit\":{exit}}}\n",
            start + 5.0
        ));
        s
    };
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("node1.ndjson");
    let b = dir.path().join("node2.ndjson");
    std::fs::write(&a, run(t0, 0, 3000)).unwrap();
    std::fs::write(&b, run(t0 + 1.0, 1, 5000)).unwrap();
    let svg_path = dir.path().join("ranks.svg");
    let svg = plot_ok(&[a.to_str().unwrap(), b.to_str().unwrap()], &svg_path);
    renders(&svg_path);
    assert!(svg.contains("job memory [MiB]"));
    assert!(svg.contains("node1 GPU 0") && svg.contains("node2 GPU 0"));
    assert!(svg.contains("peak 5000 MiB"), "node2's peak");
    assert!(svg.contains("node2 exit 1"), "the failed run is named");
    assert!(svg.contains("\nstart\n") && svg.contains("\nlast end\n"));
}
