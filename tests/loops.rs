//! Loops against the NVML simulator: `-l`, `-lms`, `--count`, Ctrl+C,
//! closed pipes, `-f` files, lost GPUs and values that change per sample.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;
use common::{ran, scenario, sim_assert_cmd, sim_command, NO_ARGS};

use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

/// The uid and gid of `nobody` on Debian (and most Linux systems).
const NOBODY: u32 = 65534;

/// nvq on the simulator, with `scenario` (or the built-in default), spawned
/// with its output piped.
fn nvq_spawn(scenario_file: Option<&str>, args: &[&str]) -> Child {
    let file = scenario_file.map(scenario);
    common::sim_command(file.as_deref(), args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// How many GPUs a single (non-loop) query reports on this scenario.
fn gpu_rows(scenario_file: Option<&Path>) -> usize {
    ran(sim_command(
        scenario_file,
        &["--query-gpu=index", "--format=csv,noheader"],
    ))
    .ok()
    .lines()
    .count()
}

fn cells(line: &str) -> Vec<&str> {
    line.split(", ").collect()
}

/// Wait for a child to end, up to `deadline`; `None` if it is still running
/// (it is then killed).
fn wait_until(child: &mut Child, deadline: Duration) -> Option<std::process::ExitStatus> {
    let t0 = Instant::now();
    loop {
        if let Some(st) = child.try_wait().unwrap() {
            return Some(st);
        }
        if t0.elapsed() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            return None;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

const FIELDS: &str = "--query-gpu=timestamp,index,name,uuid,temperature.gpu,memory.used";

#[test]
fn header_once_and_exactly_count_samples() {
    let gpus = gpu_rows(None);
    assert!(gpus >= 1);
    let out = ran(sim_command(
        None,
        &[
            FIELDS,
            "--format=csv",
            "-lms",
            common::VALUE_LMS,
            "--count",
            "4",
        ],
    ))
    .ok();
    let lines: Vec<&str> = out.lines().collect();
    let header = lines[0];
    assert!(header.starts_with("timestamp, index, name"), "{header}");
    assert_eq!(lines.iter().filter(|l| **l == header).count(), 1);
    assert_eq!(lines.len(), 1 + 4 * gpus, "{out}");
    // Each sample lists the GPUs in order.
    for (i, l) in lines[1..].iter().enumerate() {
        assert_eq!(cells(l)[1], (i % gpus).to_string(), "{out}");
    }
    // noheader: no header at all, still N samples.
    let out = ran(sim_command(
        None,
        &[
            FIELDS,
            "--format=csv,noheader",
            "--loop-ms=10",
            "--count",
            "3",
        ],
    ))
    .ok();
    assert_eq!(out.lines().count(), 3 * gpus);
    assert!(!out.contains("timestamp"));
}

#[test]
fn every_loop_spelling_is_accepted() {
    // A fast loop, each sample under its deadline: on time (common::on_time).
    let _on_time = common::on_time();
    let gpus = gpu_rows(None);
    for args in [
        &["-lms", "10", "--count", "2"][..],
        &["-lms=10", "--count=2"],
        &["--loop-ms=10", "--count", "2"],
        &["--loop-ms", "10", "--count", "2"],
        &["-l", "1", "--count", "1"],
        &["--loop=1", "--count", "1"],
        // -l without a value: the default interval; one sample ends it.
        &["--count", "1", "-l"],
    ] {
        let c = sim_command(
            None,
            &[&["--query-gpu=index", "--format=csv,noheader"][..], args].concat(),
        );
        let want = args
            .iter()
            .position(|a| a.starts_with("--count"))
            .and_then(|i| {
                args[i]
                    .strip_prefix("--count=")
                    .or(args.get(i + 1).copied())
            })
            .unwrap()
            .parse::<usize>()
            .unwrap();
        assert_eq!(ran(c).ok().lines().count(), want * gpus, "{args:?}");
    }
}

#[test]
fn bad_loop_values_are_refused() {
    for args in [
        &["-lms", "0"][..],
        &["-l", "x"],
        &["--count", "3"],
        &["-lms", "10", "--count", "0"],
        &["-l", "1", "-lms", "10"],
    ] {
        sim_assert_cmd(None)
            .args(["--query-gpu=index", "--format=csv"])
            .args(args)
            .assert()
            .code(2)
            .stdout("");
    }
}

/// Read stdout on a thread, returning everything once the pipe closes;
/// `lines` counts lines as they arrive.
fn drain(
    child: &mut Child,
) -> (
    std::sync::Arc<std::sync::atomic::AtomicUsize>,
    std::thread::JoinHandle<Vec<u8>>,
) {
    use std::sync::atomic::{AtomicUsize, Ordering};
    let lines = std::sync::Arc::new(AtomicUsize::new(0));
    let mut out = child.stdout.take().unwrap();
    let seen = lines.clone();
    let h = std::thread::spawn(move || {
        let mut all = Vec::new();
        let mut buf = [0u8; 4096];
        loop {
            match out.read(&mut buf) {
                Ok(0) | Err(_) => return all,
                Ok(n) => {
                    all.extend_from_slice(&buf[..n]);
                    seen.store(
                        all.iter().filter(|b| **b == b'\n').count(),
                        Ordering::SeqCst,
                    );
                }
            }
        }
    });
    (lines, h)
}

fn stop_with(signal: i32) {
    // A fast loop, each sample under its deadline: on time (common::on_time).
    let _on_time = common::on_time();
    let gpus = gpu_rows(None);
    let mut child = nvq_spawn(None, &[FIELDS, "--format=csv", "-lms", "50"]);
    let (lines, reader) = drain(&mut child);
    let t0 = Instant::now();
    while lines.load(std::sync::atomic::Ordering::SeqCst) < 1 + 3 * gpus {
        assert!(
            t0.elapsed() < Duration::from_secs(30),
            "no output from the loop"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    // SAFETY: signalling the child we spawned.
    assert_eq!(unsafe { libc::kill(child.id() as libc::pid_t, signal) }, 0);
    let status = wait_until(&mut child, Duration::from_secs(30)).expect("nvq kept running");
    let out = String::from_utf8(reader.join().unwrap()).unwrap();
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    assert_eq!(status.code(), Some(0), "signal {signal}: {err}");
    assert_eq!(err, "");
    assert!(out.ends_with('\n'), "a half-written line: {out:?}");
    let lines: Vec<&str> = out.lines().collect();
    let width = cells(lines[0]).len();
    assert!(lines.iter().all(|l| cells(l).len() == width), "{out}");
    // Whole samples only: every GPU of the last sample is there.
    assert_eq!((lines.len() - 1) % gpus, 0, "{out}");
}

#[test]
fn ctrl_c_ends_the_loop_after_whole_lines_with_exit_0() {
    stop_with(libc::SIGINT);
}

#[test]
fn sigterm_ends_the_loop_after_whole_lines_with_exit_0() {
    stop_with(libc::SIGTERM);
}

fn head_1(interval: &[&str]) {
    let mut args = vec![FIELDS, "--format=csv,noheader"];
    args.extend_from_slice(interval);
    let mut child = nvq_spawn(None, &args);
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    out.read_line(&mut line).unwrap();
    assert!(line.ends_with('\n'));
    drop(out);
    // A generous deadline: the point is that nvq ends on its own.
    let status = wait_until(&mut child, Duration::from_secs(20))
        .unwrap_or_else(|| panic!("{interval:?}: nvq kept running after its reader left"));
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    assert_eq!(status.code(), Some(0), "{interval:?}: {err}");
    assert_eq!(err, "", "{interval:?}: no Broken pipe message");
}

#[test]
fn a_closed_pipe_ends_the_loop_quietly() {
    // A fast loop, each sample under its deadline: on time (common::on_time).
    let _on_time = common::on_time();
    head_1(&["-lms", "100"]);
}

#[test]
fn a_closed_pipe_ends_a_long_sleep_at_once() {
    // With a 10-minute interval, nvq can only end within the deadline if it
    // notices the reader leaving while it sleeps.
    head_1(&["-l", "600"]);
}

#[test]
fn filename_is_truncated_then_appended_to() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("log.csv");
    std::fs::write(&path, "junk that must disappear\n".repeat(1000)).unwrap();
    let q = "--query-gpu=index,name,uuid";
    // A second apart: the two runs are compared byte for byte, so no sample
    // may miss its deadline ([Timeout]) on a busy machine.
    let lms = "1000";
    sim_assert_cmd(None)
        .args([q, "--format=csv", "-lms", lms, "--count", "3", "-f"])
        .arg(&path)
        .assert()
        .success()
        .stdout("");
    let file = std::fs::read_to_string(&path).unwrap();
    let want = ran(sim_command(
        None,
        &[q, "--format=csv", "-lms", lms, "--count", "3"],
    ))
    .ok();
    assert_eq!(file, want);
    assert!(!file.contains("junk"));
}

#[test]
fn write_errors_exit_22_with_a_message() {
    // A fast loop, each sample under its deadline: on time (common::on_time).
    let _on_time = common::on_time();
    let dir = tempfile::tempdir().unwrap();
    let mut targets = vec![
        dir.path().join("no/such/folder/log.csv"),
        dir.path().to_path_buf(),
    ];
    if Path::new("/dev/full").exists() {
        targets.push(PathBuf::from("/dev/full"));
    }
    // A folder the writer may not write into. Mode bits do not stop root
    // (CAP_DAC_OVERRIDE): as root, the writes into it are made by `nobody`,
    // from copies of nvq and the simulator in a folder `nobody` can read.
    use std::os::unix::fs::PermissionsExt;
    // SAFETY: geteuid has no preconditions.
    let root = unsafe { libc::geteuid() } == 0;
    let ro = dir.path().join("ro");
    std::fs::create_dir(&ro).unwrap();
    std::fs::set_permissions(&ro, std::fs::Permissions::from_mode(0o555)).unwrap();
    let as_nobody = root.then(|| {
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
        let copies = dir.path().join("bin");
        std::fs::create_dir(&copies).unwrap();
        std::fs::set_permissions(&copies, std::fs::Permissions::from_mode(0o755)).unwrap();
        let (bin, lib) = (copies.join("nvq"), copies.join("libnvml_sim.so"));
        std::fs::copy(common::nvq_bin(), &bin).unwrap();
        std::fs::copy(common::sim_lib(), &lib).unwrap();
        for f in [&bin, &lib] {
            std::fs::set_permissions(f, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
        (bin, lib)
    });
    let denied = ro.join("log.csv");
    targets.push(denied.clone());
    for t in &targets {
        for extra in [&["--count", "1", "-lms", "10"][..], &[]] {
            let mut cmd = match (&as_nobody, *t == denied) {
                (Some((bin, lib)), true) => {
                    use std::os::unix::process::CommandExt;
                    let mut c = common::command(bin);
                    c.arg("--nvml-lib").arg(lib).uid(NOBODY).gid(NOBODY);
                    c
                }
                _ => sim_command(None, NO_ARGS),
            };
            cmd.args(["--query-gpu=index,name", "--format=csv"])
                .args(extra)
                .arg("-f")
                .arg(t);
            let out = ran(cmd);
            let err = out.stderr;
            assert_eq!(out.code, Some(22), "{t:?}: {err}");
            assert!(err.contains(&*t.to_string_lossy()), "{t:?}: {err}");
        }
    }
}

#[test]
fn a_gpu_lost_in_the_middle_of_a_loop() {
    let sc = scenario("loops_lost.toml");
    let gpus = gpu_rows(Some(&sc));
    assert_eq!(gpus, 2);
    let out = ran(sim_command(
        Some(&sc),
        &[
            "--query-gpu=index,name,temperature.gpu,power.draw",
            "--format=csv,noheader",
            "-lms",
            common::VALUE_LMS,
            "--count",
            "8",
        ],
    ))
    .ok();
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 8 * gpus, "the loop goes on: {out}");
    let lost = "[GPU is lost]";
    let (gpu0, gpu1): (Vec<&str>, Vec<&str>) = lines.iter().partition(|l| l.starts_with("0, "));
    assert!(gpu0.iter().all(|l| !l.contains(lost)), "{out}");
    assert!(!gpu1[0].contains(lost), "lost from the first sample: {out}");
    assert_eq!(cells(gpu1[7]), ["1", lost, lost, lost], "{out}");
    // Once lost, a cell stays lost.
    for w in gpu1.windows(2) {
        for (a, b) in cells(w[0]).iter().zip(cells(w[1])) {
            assert!(*a != lost || b == lost, "{out}");
        }
    }
}

#[test]
fn every_sample_reads_fresh_values() {
    let file = "loops_series.toml";
    let sc = common::parsed_scenario(&scenario(file));
    let n = 5;
    let out = ran(sim_command(
        Some(&scenario(file)),
        &[
            "--query-gpu=index,temperature.gpu,power.draw",
            "--format=csv,noheader,nounits",
            "-lms",
            common::VALUE_LMS,
            "--count",
            &n.to_string(),
        ],
    ))
    .ok();
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), n * sc.device.len());
    for (gi, dev) in sc.device.iter().enumerate() {
        let rows: Vec<Vec<&str>> = lines
            .iter()
            .map(|l| cells(l))
            .filter(|c| c[0] == gi.to_string())
            .collect();
        let temps: Vec<String> = rows.iter().map(|c| c[1].to_string()).collect();
        let series = dev.temperature.gpu.as_ref().unwrap();
        let want: Vec<String> = (0..n).map(|k| series.at(k).unwrap().to_string()).collect();
        assert_eq!(temps, want, "GPU {gi}");
        let power = dev.power.usage.as_ref().unwrap();
        let watts: Vec<String> = rows.iter().map(|c| c[2].to_string()).collect();
        let want: Vec<String> = (0..n)
            .map(|k| format!("{:.2}", f64::from(power.at(k).unwrap()) / 1000.0))
            .collect();
        assert_eq!(watts, want, "GPU {gi}");
    }
}

#[test]
fn an_overrunning_sample_skips_ticks_instead_of_bunching() {
    // A sample waits for a slow driver call (250 ms) up to its deadline,
    // at least 50 ms, at a 20 ms interval: the first sample overruns, so the
    // next one must start at least three ticks later, never on a tick
    // already past. (The samples while the call is still in flight do not
    // wait for it: see tests/deadline.rs.)
    let mut c = sim_command(
        Some(&scenario("loops_slow.toml")),
        &[
            "--query-gpu=index,temperature.gpu",
            "--format=csv,noheader",
            "-lms",
            "20",
            "--count",
            "4",
        ],
    );
    c.env("NVQ_TRACE_SCHEDULE", "1");
    let out = ran(c);
    assert!(out.success());
    let err = out.stderr;
    let ticks: Vec<u64> = err
        .lines()
        .filter_map(|l| l.strip_prefix("nvq-trace "))
        .map(|l| {
            l.split(' ')
                .find_map(|kv| kv.strip_prefix("tick="))
                .unwrap()
                .parse()
                .unwrap()
        })
        .collect();
    assert_eq!(ticks.len(), 4, "{err}");
    assert_eq!(ticks[0], 0);
    assert!(ticks[1] >= 3, "ticks bunched up: {ticks:?}");
    for w in ticks.windows(2) {
        assert!(w[1] > w[0], "ticks bunched up: {ticks:?}");
    }
    assert_eq!(out.stdout.lines().count(), 4);
}

/// The Prometheus file (`--format=prometheus -f`) is replaced whole by each
/// sample. Until that format is merged this checks the Sink API directly.
#[test]
fn a_replaced_file_is_never_seen_half_written() {
    use nvq::output::{Sink, SinkMode};
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("nvq.prom");
    let mut sink = Sink::open_with(Some(&path), SinkMode::ReplaceEachSample).unwrap();
    assert!(sink.replaces_each_sample());
    let body = |k: usize| {
        let n = 1 + (k * 53) % 700;
        let mut s = format!("# rows {n}\n");
        for i in 0..n {
            s.push_str(&format!("nvq_gpu_temperature_celsius{{gpu=\"{i}\"}} {k}\n"));
        }
        s + "# eof\n"
    };
    let whole = |s: &str| {
        let n: usize = s
            .lines()
            .next()
            .and_then(|l| l.strip_prefix("# rows "))
            .and_then(|n| n.parse().ok())
            .unwrap_or(usize::MAX);
        s.ends_with("# eof\n") && s.lines().count() == n.saturating_add(2)
    };
    assert!(whole(&body(7)) && !whole(&body(7)[..100]));
    sink.write(body(0).as_bytes()).unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let reader = {
        let (stop, path) = (stop.clone(), path.clone());
        std::thread::spawn(move || {
            let mut torn = 0;
            let mut reads = 0;
            while !stop.load(Ordering::SeqCst) {
                let s = std::fs::read_to_string(&path).unwrap();
                torn += usize::from(!whole(&s));
                reads += 1;
            }
            (reads, torn)
        })
    };
    for k in 1..300 {
        sink.write(body(k).as_bytes()).unwrap();
    }
    stop.store(true, Ordering::SeqCst);
    let (reads, torn) = reader.join().unwrap();
    assert!(reads > 0);
    assert_eq!(torn, 0, "{torn} of {reads} reads saw a partial file");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), body(299));
    assert_eq!(
        std::fs::read_dir(dir.path()).unwrap().count(),
        1,
        "temp file left"
    );
}

/// The same through nvq, once `--format=prometheus` exists.
#[test]
fn prometheus_file_holds_exactly_one_sample() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("gpu.prom");
    std::fs::write(&path, "junk\n".repeat(100)).unwrap();
    let mut c = sim_command(
        None,
        &[
            "--query-gpu=temperature.gpu,power.draw",
            "--format=prometheus",
            "-lms",
            common::VALUE_LMS,
            "--count",
            "5",
            "-f",
        ],
    );
    c.arg(&path);
    let out = ran(c);
    assert!(out.success(), "{}", out.stderr);
    let single = ran(sim_command(
        None,
        &[
            "--query-gpu=temperature.gpu,power.draw",
            "--format=prometheus",
        ],
    ))
    .ok();
    let file = std::fs::read_to_string(&path).unwrap();
    assert!(!file.contains("junk"));
    assert_eq!(file.lines().count(), single.lines().count(), "{file}");
}
