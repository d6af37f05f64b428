//! `nvq run -- CMD` (issue 51) under the simulator's live processes: a real
//! program (`nvml-sim/workload.py`) declares the GPU memory of its PID, and
//! nvq reports the job's peak per GPU, its processes, the others on the
//! GPU, and passes the command's status and signals through.

use crate::common::{
    command, h100, repo_root, sim_command, sim_lib, wait_for_lines, write_scenario, SIM_HEAD,
};
use std::io::{BufRead, BufReader};
use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::{Output, Stdio};
use std::time::{Duration, Instant};

const GIB: u64 = 1 << 30;

/// Two H100s with 1 GiB used; on GPU 1 another user's process (PID 999999,
/// 5 GiB); live processes in `dir`.
pub(crate) fn machine(dir: &Path) -> tempfile::NamedTempFile {
    write_scenario(&format!(
        "{SIM_HEAD}{}{}\n[[device.process]]\npid = 999999\nname = \"bob-train\"\nused_memory = {}\n\n[live]\ndir = \"{}\"\n",
        h100(0, 1 << 30),
        h100(1, 1 << 30),
        5 * GIB,
        dir.display()
    ))
}

/// [`machine`]'s two H100s without the other process, GPU 0 with accounting
/// mode on (an administrator's choice); live processes in `dir`.
pub(crate) fn accounting_machine(dir: &Path) -> tempfile::NamedTempFile {
    write_scenario(&format!(
        "{SIM_HEAD}{}accounting_mode = 1\n{}\n[live]\ndir = \"{}\"\n",
        h100(0, 1 << 30),
        h100(1, 1 << 30),
        dir.display()
    ))
}

/// The arguments of `nvq run [opts] -- python3 workload.py --dir DIR ARGS`.
pub(crate) fn workload_args(dir: &Path, opts: &[&str], args: &str) -> Vec<String> {
    let wl = repo_root().join("nvml-sim/workload.py");
    let mut a: Vec<String> = vec!["run".into()];
    a.extend(opts.iter().map(|s| s.to_string()));
    a.extend(["--", "python3"].map(String::from));
    a.push(wl.display().to_string());
    a.extend(["--dir".to_string(), dir.display().to_string()]);
    a.extend(args.split(' ').map(String::from));
    a
}

/// `nvq run [opts] -- python3 workload.py --dir DIR ARGS`, run to its end.
pub(crate) fn run_workload(sc: &Path, dir: &Path, opts: &[&str], args: &str) -> Output {
    sim_command(Some(sc), &workload_args(dir, opts, args))
        .output()
        .unwrap()
}

pub(crate) fn err(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn the_status_passes_and_the_report_gives_the_peak() {
    let dir = tempfile::tempdir().unwrap();
    let sc = machine(dir.path());
    let o = run_workload(
        sc.path(),
        dir.path(),
        &["-lms", "50"],
        "--start 2GiB --duration 1.5 --exit 3",
    );
    let e = err(&o);
    assert_eq!(o.status.code(), Some(3), "{e}");
    // The job's own output is untouched, on its stdout.
    assert!(String::from_utf8_lossy(&o.stdout).contains("workload: pid"));
    let first = e.lines().next().unwrap_or("");
    assert!(
        first.starts_with("nvq run: peak 2.0 GiB of 79.6 GiB on GPU 0 at ")
            && first.ends_with("; exit 3"),
        "{e}"
    );
}

#[test]
fn the_job_is_the_whole_tree_with_reparented_workers_and_others_are_named() {
    let dir = tempfile::tempdir().unwrap();
    let sc = machine(dir.path());
    let wl = repo_root().join("nvml-sim/workload.py");
    let mut child = sim_command(
        Some(sc.path()),
        &["run", "-lms", "50", "--report=json", "--", "python3"],
    )
    .arg(wl)
    .arg("--dir")
    .arg(dir.path())
    .args(
        "--start 3GiB --workers 2 --worker-gpu 1 --worker-mem 1GiB --orphan-workers --worker-rank-base 0"
            .split(' '),
    )
    .stdout(Stdio::piped())
    .stderr(Stdio::piped())
    .spawn()
    .unwrap();
    // Until the job and both workers (re-parented: grandchildren whose
    // parent exited) hold their memory, then a while for a few samples.
    let stdout = child.stdout.take().unwrap();
    // Three whole lines: a line cut in two by another writer would be lost.
    let ready = wait_for_lines(stdout, "ready", 3, Duration::from_secs(60));
    assert_eq!(
        ready, 3,
        "the job and both workers said they hold their memory"
    );
    std::thread::sleep(Duration::from_millis(800));
    // SAFETY: signalling the nvq this test started.
    unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
    let o = child.wait_with_output().unwrap();
    let e = err(&o);
    assert_eq!(o.status.code(), Some(143), "{e}");
    let v: serde_json::Value = serde_json::from_str(&e).unwrap_or_else(|x| panic!("{x}: {e}"));
    assert_eq!(v["exit"], 143);
    assert_eq!(v["track"]["gpus"]["0"]["peak"], 3 * GIB, "{e}");
    assert_eq!(v["track"]["gpus"]["1"]["peak"], 2 * GIB, "{e}");
    // The other user's process on GPU 1 is not the job's, and is named.
    assert_eq!(
        v["track"]["gpus"]["1"]["others_at_peak"][0],
        serde_json::json!([999999, 5 * GIB]),
        "{e}"
    );
    assert_eq!(v["track"]["procs"].as_object().unwrap().len(), 3, "{e}");
    assert!(v["summary"].as_str().unwrap().starts_with("peak 3.0 GiB"));
    // The workers carry RANK 0 and 1: two ranks of 1 GiB each, no skew.
    let ranks: Vec<u64> = v["ranks"]
        .as_object()
        .unwrap()
        .values()
        .map(|r| r.as_u64().unwrap())
        .collect();
    assert_eq!(ranks.len(), 2, "{e}");
    assert_eq!(v["skew"]["ranks"], 2, "{e}");
    assert_eq!(v["skew"]["max"], GIB, "{e}");
    assert_eq!(v["skew"]["skew"], 0, "{e}");
}

#[test]
fn the_report_file_takes_the_report_and_stderr_stays_the_jobs() {
    let dir = tempfile::tempdir().unwrap();
    let sc = machine(dir.path());
    let file = dir.path().join("report.json");
    let o = run_workload(
        sc.path(),
        dir.path(),
        &[
            "-lms",
            "50",
            "--report=json",
            "--report-file",
            file.to_str().unwrap(),
        ],
        "--start 1GiB --duration 1",
    );
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    assert_eq!(err(&o), "");
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
    assert_eq!(v["track"]["gpus"]["0"]["peak"], GIB);
}

#[test]
fn without_nvml_the_job_still_runs_and_the_report_says_so() {
    let o = command(crate::common::nvq_bin())
        .args([
            "--nvml-lib",
            "/nonexistent/libnvidia-ml.so.1",
            "run",
            "--",
            "sh",
            "-c",
            "echo ran; exit 5",
        ])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(5), "{}", err(&o));
    assert_eq!(String::from_utf8_lossy(&o.stdout), "ran\n");
    assert!(err(&o).contains("NVML could not be loaded"), "{}", err(&o));
}

#[test]
fn signals_reach_the_command_and_its_status_passes() {
    for (sig, code) in [
        (libc::SIGTERM, 143),
        (libc::SIGINT, 130),
        (libc::SIGHUP, 129),
        (libc::SIGQUIT, 131),
        (libc::SIGUSR1, 138),
        (libc::SIGUSR2, 140),
    ] {
        let mut child = sim_command(None, &["run", "--", "sh", "-c", "echo $$; exec sleep 30"])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let pid: i32 = line.trim().parse().unwrap();
        // SAFETY: signalling the nvq this test started.
        unsafe { libc::kill(child.id() as i32, sig) };
        let t0 = Instant::now();
        let st = loop {
            if let Some(st) = child.try_wait().unwrap() {
                break st;
            }
            if t0.elapsed() > Duration::from_secs(60) {
                let _ = child.kill();
                // SAFETY: the command this test's nvq started.
                unsafe { libc::kill(pid, libc::SIGKILL) };
                panic!("signal {sig}: nvq run did not end");
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        assert_eq!(st.signal(), None, "signal {sig}: nvq itself was killed");
        assert_eq!(st.code(), Some(code), "signal {sig}");
        assert!(
            !Path::new(&format!("/proc/{pid}")).exists(),
            "signal {sig}: the command outlived nvq"
        );
    }
    // SIGWINCH is passed on too: a command that traps it says so.
    let o = sim_command(
        None,
        &[
            "run",
            "--",
            "sh",
            "-c",
            "trap 'echo winch; exit 4' WINCH; kill -WINCH $PPID; while :; do sleep 0.05; done",
        ],
    )
    .output()
    .unwrap();
    assert_eq!(o.status.code(), Some(4), "{}", err(&o));
    assert_eq!(String::from_utf8_lossy(&o.stdout), "winch\n");
}

#[test]
fn a_background_sh_job_is_stopped_through_nvq() {
    // A job started by a non-interactive shell in the background has
    // SIGINT ignored; SIGTERM still reaches its command through nvq.
    let lib = sim_lib();
    let script = format!(
        "{} --nvml-lib {} run -- sh -c 'echo cmd=$$; exec sleep 30' & echo nvq=$!; wait $!; echo status=$?",
        crate::common::nvq_bin().display(),
        lib.display()
    );
    let mut sh = command("sh")
        .args(["-c", &script])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut r = BufReader::new(sh.stdout.take().unwrap());
    let (mut nvq, mut cmd) = (0i32, 0i32);
    for _ in 0..2 {
        let mut line = String::new();
        r.read_line(&mut line).unwrap();
        let (k, v) = line.trim().split_once('=').unwrap();
        *(if k == "nvq" { &mut nvq } else { &mut cmd }) = v.parse().unwrap();
    }
    // SAFETY: signalling the nvq this test's shell started.
    unsafe { libc::kill(nvq, libc::SIGTERM) };
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut r, &mut rest).unwrap();
    let _ = sh.wait();
    assert!(rest.contains("status=143"), "{rest}");
    assert!(!Path::new(&format!("/proc/{cmd}")).exists());
}

#[test]
fn a_command_that_cannot_run_and_the_nvidia_smi_name() {
    let o = sim_command(None, &["run", "--", "nvq-no-such-command-51"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(127), "{}", err(&o));
    assert!(err(&o).starts_with("nvq: nvq-no-such-command-51: command not found"));
    let o = sim_command(None, &["run", "--", "/"]).output().unwrap();
    assert_eq!(o.status.code(), Some(126), "{}", err(&o));
    // nvq's own word, not nvidia-smi's.
    let dir = tempfile::tempdir().unwrap();
    let link = dir.path().join("nvidia-smi");
    std::os::unix::fs::symlink(crate::common::nvq_bin(), &link).unwrap();
    let o = command(&link)
        .args(["run", "--", "true"])
        .env("NVQ_NVML_LIB", sim_lib())
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", err(&o));
    assert!(String::from_utf8_lossy(&o.stdout).contains("run"));
}

#[test]
fn the_log_has_every_sample_and_a_full_disk_does_not_stop_the_job() {
    let dir = tempfile::tempdir().unwrap();
    let sc = machine(dir.path());
    let log = dir.path().join("run.ndjson");
    let o = run_workload(
        sc.path(),
        dir.path(),
        &["-lms", "50", "--log", log.to_str().unwrap()],
        "--start 2GiB --duration 1.5",
    );
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    let text = std::fs::read_to_string(&log).unwrap();
    let rows: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect();
    assert!(rows
        .iter()
        .any(|r| r["job"] == true && r["used_memory"] == 2048 && r["gpu_index"] == 0));
    assert!(rows.iter().any(|r| r["pid"] == 999999 && r["job"] == false));
    // Every line is timed; the samples carry the GPU's total, the first and last lines the run's start and end.
    assert!(rows
        .iter()
        .all(|r| r["timestamp.epoch"].as_f64().unwrap() > 1.7e9));
    let samples = &rows[1..rows.len() - 1];
    assert!(samples.iter().all(|r| r["memory.total"] == 81559));
    assert_eq!(rows[0]["event"], "start", "{}", rows[0]);
    assert!(rows[0]["command"].as_str().unwrap().contains("workload.py"));
    assert_eq!(rows[rows.len() - 1]["event"], "end");
    assert_eq!(rows[rows.len() - 1]["exit"], 0);
    // A log on a full disk: the job runs on to its end, the report says so.
    let o = run_workload(
        sc.path(),
        dir.path(),
        &["-lms", "50", "--log", "/dev/full"],
        "--start 2GiB --duration 1 --exit 6",
    );
    assert_eq!(o.status.code(), Some(6), "{}", err(&o));
    assert!(
        err(&o).contains("the log could not be written"),
        "{}",
        err(&o)
    );
}

#[test]
fn a_budget_passed_fails_the_run_after_the_command_or_stops_it() {
    let dir = tempfile::tempdir().unwrap();
    let sc = machine(dir.path());
    // fail: the command runs to its end (exit 0), the run is exit 24.
    let t0 = Instant::now();
    let o = run_workload(
        sc.path(),
        dir.path(),
        &["-lms", "50", "--budget", "3GiB"],
        "--start 2GiB --spike 4GiB --spike-at 0.3 --spike-ms 400 --duration 1.5",
    );
    let e = err(&o);
    assert_eq!(o.status.code(), Some(24), "{e}");
    assert!(e.contains("passed its budget of 3.0 GiB on GPU 0"), "{e}");
    assert!(t0.elapsed() > Duration::from_millis(1500));
    // Within the budget (a share of the GPU): exit 0.
    let o = run_workload(
        sc.path(),
        dir.path(),
        &["-lms", "50", "--budget", "50%"],
        "--start 2GiB --duration 1",
    );
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    // stop: the command is stopped the moment it passes, long before its end.
    let t0 = Instant::now();
    let o = run_workload(
        sc.path(),
        dir.path(),
        &["-lms", "50", "--budget", "3GiB", "--budget-action=stop"],
        "--start 2GiB --grow 2GiB --duration 60",
    );
    let e = err(&o);
    assert_eq!(o.status.code(), Some(24), "{e}");
    assert!(e.contains("stopped (SIGTERM)"), "{e}");
    assert!(t0.elapsed() < Duration::from_secs(30), "not stopped");
    // A bad budget is refused before anything runs.
    let o = sim_command(None, &["run", "--budget", "12W", "--", "true"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", err(&o));
}

#[test]
fn a_spike_between_samples_is_caught_through_accounting_mode() {
    let dir = tempfile::tempdir().unwrap();
    let sc = accounting_machine(dir.path());
    // Samples 2 s apart; a 60 ms spike to 6 GiB half a second after the job
    // is ready. Where the job starts slowly (a busy machine) a sample can
    // land on the spike: what is tested here is a spike the samples missed,
    // so such a run is tried again (a few percent of runs at most).
    let (mut e, mut v) = (String::new(), serde_json::Value::Null);
    for _ in 0..3 {
        let o = run_workload(
            sc.path(),
            dir.path(),
            &["-l", "2", "--report=json"],
            "--start 1GiB --spike 6GiB --spike-at 0.5 --spike-ms 60 --duration 3",
        );
        e = err(&o);
        assert_eq!(o.status.code(), Some(0), "{e}");
        v = serde_json::from_str(&e).unwrap_or_else(|x| panic!("{x}: {e}"));
        if v["track"]["gpus"]["0"]["peak"] == GIB {
            break;
        }
    }
    let g = &v["track"]["gpus"]["0"];
    assert_eq!(g["peak"], GIB, "the samples missed the spike: {e}");
    assert_eq!(g["accounting"], true, "{e}");
    assert_eq!(g["accounting_peak"], 6 * GIB, "{e}");
    assert!(
        v["summary"]
            .as_str()
            .unwrap()
            .starts_with("peak 6.0 GiB of 79.6 GiB on GPU 0 (accounting mode"),
        "{e}"
    );
    // Without accounting the text report says what the interval can miss.
    let sc = machine(dir.path());
    let o = run_workload(
        sc.path(),
        dir.path(),
        &["-lms", "100"],
        "--start 1GiB --duration 1",
    );
    assert!(
        err(&o).contains("accounting mode is off: a spike shorter than 100 ms may be missed"),
        "{}",
        err(&o)
    );
}
