//! One deadline per sample (issue #17): hung or slow GPUs, a hung handle
//! lookup, the summary-table loop, stop signals during a hang and during a
//! blocked write, and `--until --timeout`, all on the simulator's
//! `delay_ms` faults. The time bounds are generous (a 2-core machine with
//! both cores busy beside the tests, issue #55: loops sample every 500 ms,
//! a 450 ms deadline) but far below what the old behaviour took; the tight
//! figures are measured in benches/loop_bench.sh.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;
use common::{delay, h100s, sim_command, write_scenario};

use std::io::Read;
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

/// The call a hung GPU of these tests hangs in.
const HUNG_CALL: &str = "nvmlDeviceGetTemperature";

/// Wait for `child` up to `limit`; kill it if it is still running then.
fn wait_for(child: &mut Child, limit: Duration) -> Option<std::process::ExitStatus> {
    let t0 = Instant::now();
    while t0.elapsed() < limit {
        if let Some(s) = child.try_wait().unwrap() {
            return Some(s);
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    let _ = child.kill();
    let _ = child.wait();
    None
}

/// Run to the end (at most two minutes); (exit code, stdout, wall time).
fn run_timed(scenario: &tempfile::NamedTempFile, args: &[&str]) -> (Option<i32>, String, Duration) {
    let t0 = Instant::now();
    let mut child = sim_command(Some(scenario.path()), args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut out = String::new();
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut out)
        .unwrap();
    let status = wait_for(&mut child, Duration::from_secs(120));
    (status.and_then(|s| s.code()), out, t0.elapsed())
}

fn parse_ts(s: &str) -> f64 {
    // "YYYY/MM/DD HH:MM:SS.mmm": seconds within the day are enough here.
    let t = &s[11..];
    let h: f64 = t[0..2].parse().unwrap();
    let m: f64 = t[3..5].parse().unwrap();
    let sec: f64 = t[6..].parse().unwrap();
    h * 3600.0 + m * 60.0 + sec
}

/// `hung` GPUs whose temperature call hangs, then one healthy GPU (the
/// last, behind all of them), at `-lms 100`: every sample comes out on its
/// tick, the healthy GPU's row in each, `[Timeout]` for the hung ones.
fn hung_gpus_at_2_hz(hung: usize) {
    let sc = h100s(hung + 1)
        .on(0..hung, &delay(HUNG_CALL, 60_000))
        .write();
    let samples = 6;
    let (code, out, wall) = run(
        &sc,
        &[
            "--query-gpu=index,timestamp,temperature.gpu",
            "--format=csv,noheader",
            "-lms",
            "500",
            "--count",
            &samples.to_string(),
        ],
    );
    assert_eq!(code, Some(0), "{out}");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), samples * (hung + 1), "{out}");
    let mut healthy = Vec::new();
    let mut on_time = 0;
    for line in &lines {
        let cells: Vec<&str> = line.split(", ").collect();
        let index: usize = cells[0].parse().unwrap();
        if index == hung {
            if cells[2] == "54" {
                on_time += 1;
            } else {
                assert_eq!(cells[2], "[Timeout]", "{line}");
            }
            healthy.push(parse_ts(cells[1]));
        } else {
            assert_eq!(cells[2], "[Timeout]", "{line}");
        }
    }
    assert_eq!(healthy.len(), samples);
    // The healthy GPU keeps its samples: on a machine whose cores are busy
    // one of its reads may miss the 450 ms deadline too, most may not.
    assert!(
        on_time * 2 > samples,
        "{hung} hung: the healthy GPU was read on time in {on_time} of {samples} samples\n{out}"
    );
    // Six ticks 500 ms apart span 2.5 s; the old code needed a second or
    // more per sample on top (8.5 s at least).
    let span = healthy[samples - 1] - healthy[0];
    assert!(
        span < 5.0,
        "{hung} hung: the healthy rows span {span:.3} s\n{out}"
    );
    // 2.5 s of ticks, start-up and a margin for a busy machine; the old code
    // spent at least a second more in each sample.
    assert!(wall < Duration::from_secs(7), "{hung} hung: {wall:?}");
}

#[test]
fn one_hung_gpu_at_2_hz() {
    let _turn = one_at_a_time();
    hung_gpus_at_2_hz(1);
}

#[test]
fn eight_hung_gpus_at_2_hz() {
    let _turn = one_at_a_time();
    hung_gpus_at_2_hz(8);
}

#[test]
fn sixty_four_hung_gpus_at_2_hz() {
    let _turn = one_at_a_time();
    hung_gpus_at_2_hz(64);
}

/// GPU 1's handle lookup hangs (every lookup after the first): GPU 0 is
/// read and printed on time, GPU 1 is `[Timeout]`.
#[test]
fn a_hung_handle_lookup_does_not_stop_the_loop() {
    let _turn = one_at_a_time();
    let mut text = h100s(2).text();
    text.push_str(
        "\n[[fault]]\nfunction = \"nvmlDeviceGetHandleByIndex_v2\"\ndelay_ms = 30000\nafter_calls = 1\n",
    );
    let sc = write_scenario(&text);
    let (code, out, wall) = run(
        &sc,
        &[
            "--query-gpu=index,temperature.gpu",
            "--format=csv,noheader",
            "-lms",
            "500",
            "--count",
            "5",
        ],
    );
    assert_eq!(code, Some(0), "{out}");
    // GPU 0 is read on time (but, on a busy machine, a sample that misses
    // its deadline too), GPU 1 never.
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 10, "{out}");
    for pair in lines.chunks(2) {
        assert!(["0, 54", "0, [Timeout]"].contains(&pair[0]), "{out}");
        assert_eq!(pair[1], "1, [Timeout]", "{out}");
    }
    assert!(out.matches("0, 54\n").count() >= 3, "{out}");
    // 2 s of ticks; the hang is 30 s.
    assert!(wall < Duration::from_secs(10), "{wall:?}");
}

/// The summary table in a loop with GPU 1 hung: every table comes out on
/// time, GPU 1's box says N/A, GPU 0's is intact.
#[test]
fn a_hung_call_in_the_summary_table_loop() {
    let _turn = one_at_a_time();
    let sc = h100s(2).on([1], &delay(HUNG_CALL, 30_000)).write();
    let (code, out, wall) = run(&sc, &["-lms", "500", "--count", "5"]);
    assert_eq!(code, Some(0), "{out}");
    assert_eq!(out.matches("NVIDIA-SMI").count(), 5, "{out}");
    // GPU 0's temperature in most tables (a busy machine may make one miss
    // its deadline).
    assert!(out.matches("54C").count() >= 3, "{out}");
    assert!(out.contains("N/A"), "{out}");
    // 2 s of ticks; the hang is 30 s.
    assert!(wall < Duration::from_secs(10), "{wall:?}");
}

/// A GPU that takes 3 s per call next to a healthy one at `-lms 500`: the
/// healthy GPU still gets a sample on at least 70% of the ticks (waiting for
/// the slow one would give it one in six).
#[test]
fn a_slow_gpu_does_not_throttle_a_healthy_one() {
    let _turn = one_at_a_time();
    let sc = h100s(2).on([1], &delay(HUNG_CALL, 3_000)).write();
    let samples = 10;
    let (code, out, _) = run(
        &sc,
        &[
            "--query-gpu=index,timestamp,temperature.gpu",
            "--format=csv,noheader",
            "-lms",
            "500",
            "--count",
            &samples.to_string(),
        ],
    );
    assert_eq!(code, Some(0), "{out}");
    let healthy: Vec<Vec<&str>> = out
        .lines()
        .map(|l| l.split(", ").collect::<Vec<_>>())
        .filter(|c| c[0] == "0")
        .collect();
    assert_eq!(healthy.len(), samples, "{out}");
    let on_time = healthy.iter().filter(|c| c[2] == "54").count();
    let ticks = (parse_ts(healthy[samples - 1][1]) - parse_ts(healthy[0][1])) / 0.5 + 1.0;
    let share = on_time as f64 / ticks;
    assert!(
        share >= 0.7,
        "the healthy GPU got {share:.2} of its ticks\n{out}"
    );
}

/// Read the child's stderr (where `--summary` goes) on a thread of its own,
/// so that neither pipe can fill while the other is read.
fn read_stderr(child: &mut Child) -> std::thread::JoinHandle<String> {
    let mut err = child.stderr.take().unwrap();
    std::thread::spawn(move || {
        let mut s = String::new();
        let _ = err.read_to_string(&mut s);
        s
    })
}

/// Start a loop, wait `after`, then send `signal`.
fn spawn_and_signal(
    sc: &tempfile::NamedTempFile,
    args: &[&str],
    signal: i32,
    after: Duration,
) -> (Child, Instant) {
    spawn_and_signal_after(sc, args, signal, after, None)
}

/// [`spawn_and_signal`], first reading `first` from nvq's output when given.
fn spawn_and_signal_after(
    sc: &tempfile::NamedTempFile,
    args: &[&str],
    signal: i32,
    after: Duration,
    first: Option<&str>,
) -> (Child, Instant) {
    let mut child = sim_command(Some(sc.path()), args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    if let Some(first) = first {
        let mut got = vec![0u8; first.len()];
        child.stdout.as_mut().unwrap().read_exact(&mut got).unwrap();
        assert_eq!(got, first.as_bytes());
    }
    std::thread::sleep(after);
    let sent = Instant::now();
    // SAFETY: signalling the child we spawned.
    assert_eq!(unsafe { libc::kill(child.id() as libc::pid_t, signal) }, 0);
    (child, sent)
}

/// While 8 GPUs hang (from the first sample on), a stop signal ends the
/// loop within one deadline (90 ms here; 1.5 s allowed), exit 0, with the
/// summary.
fn stop_during_a_hang(signal: i32) {
    let sc = h100s(9).on(1..9, &delay(HUNG_CALL, 60_000)).write();
    let args = [
        "--query-gpu=index,temperature.gpu",
        "--format=csv",
        "-lms",
        "100",
        "--summary",
    ];
    let (mut child, sent) = spawn_and_signal(&sc, &args, signal, Duration::from_millis(400));
    let stderr = read_stderr(&mut child);
    let mut out = String::new();
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut out)
        .unwrap();
    let status = wait_for(&mut child, Duration::from_secs(30));
    let summary = stderr.join().unwrap();
    let took = sent.elapsed();
    assert_eq!(
        status.and_then(|s| s.code()),
        Some(0),
        "signal {signal}: {status:?}"
    );
    assert!(
        took < Duration::from_millis(1500),
        "signal {signal}: {took:?}"
    );
    // The summary is on stderr, apart from the data.
    assert!(
        summary.contains("\ngpu, statistic, index, temperature.gpu"),
        "{summary}"
    );
    assert!(!out.contains("statistic"), "{out}");
    assert!(out.ends_with('\n'), "{out}");
}

#[test]
fn ctrl_c_during_a_hang() {
    let _turn = one_at_a_time();
    stop_during_a_hang(libc::SIGINT);
}

#[test]
fn sigterm_during_a_hang() {
    let _turn = one_at_a_time();
    stop_during_a_hang(libc::SIGTERM);
}

#[test]
fn sighup_during_a_hang() {
    let _turn = one_at_a_time();
    stop_during_a_hang(libc::SIGHUP);
}

/// Long enough to fill the pipe and block in a write.
const FILL: Duration = Duration::from_millis(1500);

/// Rows of ~24 KB (a field asked for 1000 times), four GPUs: the first
/// sample is larger than a pipe and nvq blocks in a write. One sample a
/// second, so one deadline is 0.9 s.
fn wide_args() -> Vec<String> {
    let mut fields = vec!["index", "temperature.gpu"];
    fields.extend(std::iter::repeat("name").take(1000));
    vec![
        format!("--query-gpu={}", fields.join(",")),
        "--format=csv".into(),
        "-lms".into(),
        "1000".into(),
        "--summary".into(),
    ]
}

/// What [`spawn_blocked_and_signal`] reads before it lets the pipe fill:
/// the first bytes of the CSV header.
const FIRST: &str = "index";

/// Start nvq, wait until its output has begun (on a loaded machine start-up
/// alone can take longer than [`FILL`]), let it fill the pipe and block on
/// a write, then send `signal`. The bytes read first are [`FIRST`].
fn spawn_blocked_and_signal(
    sc: &tempfile::NamedTempFile,
    args: &[&str],
    signal: i32,
) -> (Child, Instant) {
    spawn_and_signal_after(sc, args, signal, FILL, Some(FIRST))
}

/// A stop signal while a write is blocked on a full pipe: with a reader
/// that reads again, the sample is finished and the summary follows, exit 0;
/// with a reader that never reads again, nvq still ends within one deadline
/// (0.9 s; 2.5 s allowed), exit 0.
fn stop_during_a_blocked_write(signal: i32) {
    let sc = h100s(4).write();
    let args = wide_args();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    // The reader reads again.
    let (mut child, sent) = spawn_blocked_and_signal(&sc, &args, signal);
    let stderr = read_stderr(&mut child);
    let mut out = String::new();
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut out)
        .unwrap();
    let out = format!("{FIRST}{out}");
    let status = wait_for(&mut child, Duration::from_secs(30));
    let summary = stderr.join().unwrap();
    assert_eq!(
        status.and_then(|s| s.code()),
        Some(0),
        "signal {signal}: {status:?}"
    );
    assert!(
        sent.elapsed() < Duration::from_millis(2500),
        "signal {signal}"
    );
    assert!(
        summary.starts_with("\ngpu, statistic, index, temperature.gpu"),
        "no summary: {}",
        summary.len()
    );
    assert!(out.ends_with('\n'));
    // The reader never reads again (stderr is drained: it is not the pipe
    // under test).
    let (mut child, sent) = spawn_blocked_and_signal(&sc, &args, signal);
    let _stderr = read_stderr(&mut child);
    let status = wait_for(&mut child, Duration::from_secs(10));
    let took = sent.elapsed();
    assert_eq!(
        status.and_then(|s| s.code()),
        Some(0),
        "signal {signal}: {status:?}"
    );
    assert!(
        took < Duration::from_millis(2500),
        "signal {signal}: {took:?}"
    );
}

#[test]
fn ctrl_c_during_a_blocked_write() {
    let _turn = blocked_writes_one_at_a_time();
    stop_during_a_blocked_write(libc::SIGINT);
}

#[test]
fn sigterm_during_a_blocked_write() {
    let _turn = blocked_writes_one_at_a_time();
    stop_during_a_blocked_write(libc::SIGTERM);
}

#[test]
fn sighup_during_a_blocked_write() {
    let _turn = blocked_writes_one_at_a_time();
    stop_during_a_blocked_write(libc::SIGHUP);
}

/// `--until` with `--timeout 3s` while 8 GPUs hang (for a minute) ends on
/// time: after its 3 s, and well before the hang or a second 3 s would end
/// (under 6 s, a margin that holds beside a CPU hog, issue #55; the exact
/// overrun is a figure for benches/, not a test).
#[test]
fn until_timeout_ends_on_time_while_gpus_hang() {
    let _turn = one_at_a_time();
    let sc = h100s(9).on(1..9, &delay(HUNG_CALL, 60_000)).write();
    let (code, out, wall) = run(
        &sc,
        &[
            "--query-gpu=index,temperature.gpu",
            "--format=csv,noheader",
            "--until",
            "temperature.gpu > 100",
            "--timeout",
            "3s",
        ],
    );
    assert_ne!(code, Some(0), "{out}");
    assert!(
        wall >= Duration::from_secs(3),
        "ended before its timeout: {wall:?}\n{out}"
    );
    assert!(wall < Duration::from_secs(6), "{wall:?}\n{out}");
    assert!(out.contains("0, 54\n1, [Timeout]\n"), "{out}");
}

fn run(scenario: &tempfile::NamedTempFile, args: &[&str]) -> (Option<i32>, String, Duration) {
    let r = run_timed(scenario, args);
    eprintln!("{args:?}: {:?}", r.2);
    r
}

/// The tests of this file time nvq against deadlines of 0.1 to 0.9 s while
/// 8 to 64 simulated GPUs hang: run them one at a time, so that one test's
/// load cannot make another miss its deadline on a small machine.
fn one_at_a_time() -> (std::sync::MutexGuard<'static, ()>, common::OnTime) {
    static TURN: std::sync::Mutex<()> = std::sync::Mutex::new(());
    (
        TURN.lock().unwrap_or_else(|e| e.into_inner()),
        common::on_time(),
    )
}

/// The three tests that block nvq in a write take turns of their own, beside
/// the others: each spends about four seconds waiting on a full pipe and a
/// signal, with almost no CPU (the whole file uses under half a second of
/// CPU), so they cannot load the others, and one lane for all thirteen made
/// the file a 23-second chain that every test binary run waited for.
fn blocked_writes_one_at_a_time() -> (std::sync::MutexGuard<'static, ()>, common::OnTime) {
    static TURN: std::sync::Mutex<()> = std::sync::Mutex::new(());
    (
        TURN.lock().unwrap_or_else(|e| e.into_inner()),
        common::on_time(),
    )
}

/// Threads of process `pid` now (its `/proc/PID/task` entries).
fn threads_of(pid: u32) -> usize {
    std::fs::read_dir(format!("/proc/{pid}/task")).map_or(0, |d| d.count())
}

/// Issue 54, item 16: under scheduling delays, lanes were split and added
/// faster than the threads of dropped lanes ended, and a 1 ms loop over 8
/// GPUs grew to thousands of threads. The bound of docs/loops.md (a worker
/// per GPU, plus the main thread) holds beside CPU hogs, with the whole
/// process stopped and continued at random moments (a scheduler that does
/// not run it for up to 80 ms, more than the 50 ms deadline), and with one
/// slow GPU that makes every sample split its lane.
#[test]
fn threads_stay_bounded_beside_a_cpu_hog_and_random_stalls() {
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;
    let _turn = one_at_a_time();
    let gpus = 8;
    let sc = h100s(gpus)
        .on([3], &delay("nvmlDeviceGetMemoryInfo_v2", 20))
        .write();
    let mut child = sim_command(
        Some(sc.path()),
        &[
            "--query-gpu=index,memory.used,utilization.gpu",
            "--format=csv,noheader",
            "-lms",
            "1",
            "--count",
            "300",
        ],
    )
    .stdout(Stdio::piped())
    .stderr(Stdio::null())
    .spawn()
    .unwrap();
    let pid = child.id();
    let mut stdout = child.stdout.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut out = String::new();
        stdout.read_to_string(&mut out).unwrap();
        out
    });
    let done = Arc::new(AtomicBool::new(false));
    // One core of a two-core machine kept busy: enough beside the stalls
    // (which alone gave the old code thousands of threads), without
    // starving the tests that run beside this one.
    let hogs: Vec<_> = (0..1)
        .map(|_| {
            let done = Arc::clone(&done);
            std::thread::spawn(move || {
                let mut x = 0u64;
                while !done.load(Ordering::Relaxed) {
                    x = std::hint::black_box(x.wrapping_mul(6364136223846793005).wrapping_add(1));
                }
            })
        })
        .collect();
    // The stalls, each a wait (0-39 ms) then a stop (5-79 ms), drawn by
    // proptest from its fixed seed: the same schedule on every run.
    let schedule = {
        use proptest::strategy::{Strategy, ValueTree};
        proptest::collection::vec((0..40u64, 5..80u64), 64)
            .new_tree(&mut proptest::test_runner::TestRunner::deterministic())
            .expect("a schedule")
            .current()
    };
    let stalls = {
        let done = Arc::clone(&done);
        std::thread::spawn(move || {
            let mut stalls = 0;
            for (wait, stop) in schedule.iter().cycle() {
                if done.load(Ordering::Relaxed) {
                    break;
                }
                std::thread::sleep(Duration::from_millis(*wait));
                // SAFETY: signals to our own child, which is continued at once after.
                unsafe { libc::kill(pid as i32, libc::SIGSTOP) };
                std::thread::sleep(Duration::from_millis(*stop));
                // SAFETY: as above.
                unsafe { libc::kill(pid as i32, libc::SIGCONT) };
                stalls += 1;
            }
            stalls
        })
    };
    let mut most = 0;
    let until = Instant::now() + Duration::from_secs(120);
    let status = loop {
        most = most.max(threads_of(pid));
        if let Some(s) = child.try_wait().unwrap() {
            break Some(s);
        }
        if Instant::now() > until {
            let _ = child.kill();
            break None;
        }
        std::thread::sleep(Duration::from_millis(2));
    };
    done.store(true, Ordering::Relaxed);
    let stalls = stalls.join().unwrap();
    for h in hogs {
        h.join().unwrap();
    }
    // SAFETY: a last SIGCONT, should the child be stopped still.
    unsafe { libc::kill(pid as i32, libc::SIGCONT) };
    let _ = child.wait();
    let out = reader.join().unwrap();
    eprintln!("{stalls} stalls, at most {most} threads");
    assert!(status.is_some_and(|s| s.success()), "{status:?}");
    assert_eq!(out.lines().count(), 300 * gpus, "{out}");
    // One worker per GPU and the main thread; one more, a worker that has
    // ended and that the kernel has not yet taken out of /proc.
    assert!(
        most <= gpus + 2,
        "{most} threads for {gpus} GPUs ({stalls} stalls)"
    );
}
