//! `nvq run`'s verdicts (issue 51) under the simulator's live processes: a
//! leak, a caching allocator's sawtooth and a run too short to judge; an
//! out-of-memory death with the other processes named and its bundle; a
//! hung GPU that stalls neither the job nor the other GPU's samples.

use crate::common::{command, h100, repo_root, sim_command, write_scenario, SIM_HEAD};
use crate::run::{err, machine, run_workload};
use std::path::Path;
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

const GIB: u64 = 1 << 30;

/// Short trend settings, so that runs of seconds can be judged.
const QUICK: [&str; 4] = ["--rising-for", "1s", "--min-rise", "64MiB"];

fn json_report(o: &std::process::Output) -> serde_json::Value {
    let e = err(o);
    serde_json::from_str(&e).unwrap_or_else(|x| panic!("{x}: {e}"))
}

#[test]
fn a_leak_is_named_with_its_rate_and_a_sawtooth_is_not() {
    let dir = tempfile::tempdir().unwrap();
    let sc = machine(dir.path());
    let mut opts = vec!["-lms", "50", "--report=json"];
    opts.extend(QUICK);
    // 1 GiB a second for 4 s.
    let o = run_workload(
        sc.path(),
        dir.path(),
        &opts,
        "--start 2GiB --grow 1GiB --duration 4",
    );
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    let v = json_report(&o);
    let l = &v["leaks"]["0"];
    assert_eq!(l["verdict"], "leak", "{v}");
    let rate = l["rate_per_s"].as_f64().unwrap() / GIB as f64;
    assert!((0.5..2.0).contains(&rate), "{rate} GiB/s: {v}");
    assert!(l["time_to_full_s"].as_f64().unwrap() > 10.0, "{v}");
    let summary = v["summary"].as_str().unwrap();
    assert!(
        summary.contains("; leak +") && summary.contains("/min on GPU 0, full in "),
        "{summary}"
    );
    // A caching allocator's sawtooth, 2 GiB every 200 ms, on a flat floor: no leak.
    let mut opts = vec!["-lms", "50"];
    opts.extend(QUICK);
    let o = run_workload(
        sc.path(),
        dir.path(),
        &opts,
        "--start 4GiB --saw 2GiB --saw-ms 200 --duration 4",
    );
    let e = err(&o);
    assert_eq!(o.status.code(), Some(0), "{e}");
    let first = e.lines().next().unwrap_or("");
    assert!(first.ends_with("; no leak; exit 0"), "{e}");
    assert!(e.contains("    no leak: not rising steadily over "), "{e}");
}

#[test]
fn a_run_too_short_to_judge_says_so_without_a_rate() {
    let dir = tempfile::tempdir().unwrap();
    let sc = machine(dir.path());
    // The default settings: a leak must rise for 5 minutes.
    let o = run_workload(
        sc.path(),
        dir.path(),
        &["-lms", "50"],
        "--start 2GiB --grow 1GiB --duration 1.5",
    );
    let e = err(&o);
    assert_eq!(o.status.code(), Some(0), "{e}");
    let first = e.lines().next().unwrap_or("");
    assert!(
        first.ends_with("; too short to judge a leak; exit 0"),
        "{e}"
    );
    assert!(
        e.contains("leak: too short to judge (") && e.contains("a leak must rise for 5m00s)"),
        "{e}"
    );
    assert!(
        !e.contains("/min"),
        "no rate beside a verdict it cannot give: {e}"
    );
}

/// Two H100s; on GPU 0 another user's process (PID 999999, 5 GiB; 6 GiB
/// used with the driver's 1 GiB) and live processes in `dir`.
fn crowded(dir: &Path) -> tempfile::NamedTempFile {
    write_scenario(&format!(
        "{SIM_HEAD}{}\n[[device.process]]\npid = 999999\nname = \"bob-train\"\nused_memory = {}\n{}\n[live]\ndir = \"{}\"\n",
        h100(0, 6 << 30),
        5 * GIB,
        h100(1, 1 << 30),
        dir.display()
    ))
}

/// A workload outside the job (another process of this user on GPU 0).
fn neighbour(dir: &Path, args: &str) -> Child {
    let mut c = command("python3");
    c.arg(repo_root().join("nvml-sim/workload.py"))
        .arg("--dir")
        .arg(dir)
        .args(args.split(' '));
    started(c)
}

/// `c` started, once it said it is ready (its first line).
fn started(mut c: std::process::Command) -> Child {
    let mut child = c
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let ready = crate::common::wait_for_lines(stdout, "ready", 1, Duration::from_secs(60));
    assert_eq!(ready, 1, "the process said it was ready");
    child
}

fn me() -> String {
    // SAFETY: geteuid(2) only returns this process's effective uid.
    let uid = unsafe { libc::geteuid() };
    nvq_core::source::procinfo::user_name(uid).unwrap_or_else(|| uid.to_string())
}

#[test]
fn an_out_of_memory_death_is_said_with_who_held_the_rest_and_its_bundle_kept() {
    let dir = tempfile::tempdir().unwrap();
    let sc = crowded(dir.path());
    let mut other = neighbour(dir.path(), "--start 3GiB --duration 60");
    let bundle = dir.path().join("bundle");
    // 1 + 5 + 3 GiB held by others: GPU 0 (79.6 GiB) is full near 70.6 GiB
    // of the job's, which dies on reaching 71 GiB.
    let o = run_workload(
        sc.path(),
        dir.path(),
        &["-lms", "50", "--bundle", bundle.to_str().unwrap()],
        "--start 66GiB --grow 2GiB --oom-at 71GiB",
    );
    let _ = other.kill();
    let _ = other.wait();
    let e = err(&o);
    assert_eq!(o.status.code(), Some(1), "{e}");
    // The job's own stderr first, then the report.
    let report = &e[e.find("nvq run: ").unwrap_or(0)..];
    let first = report.lines().next().unwrap_or("");
    let who = format!("PID {} python3, user {}: 3.0 GiB", other.id(), me());
    assert!(
        first.starts_with("nvq run: exit 1 at ")
            && first
                .contains(" of 79.6 GiB on GPU 0: out of memory; other processes held 8.0 GiB (")
            && first.contains("PID 999999 bob-train: 5.0 GiB")
            && first.contains(&who),
        "{e}"
    );
    // The peak line follows, and the job's own stderr is untouched.
    assert!(
        report
            .lines()
            .nth(1)
            .unwrap_or("")
            .starts_with("nvq run: peak "),
        "{e}"
    );
    assert!(
        e.contains("workload: CUDA out of memory at 71.0 GiB on GPU 0"),
        "{e}"
    );
    assert!(
        e.contains(&format!("nvq run: bundle kept in {}", bundle.display())),
        "{e}"
    );
    // The bundle: the report twice, the samples, the table at the peak, the XID events.
    let read = |name: &str| std::fs::read_to_string(bundle.join(name)).unwrap();
    assert!(read("report.txt").starts_with("nvq run: exit 1 at "));
    let v: serde_json::Value = serde_json::from_str(&read("report.json")).unwrap();
    assert_eq!(v["oom"]["reasons"][0], "gpu_full", "{v}");
    assert_eq!(v["oom"]["fullest"]["gpu"], 0, "{v}");
    assert_eq!(v["others"]["999999"]["name"], "bob-train", "{v}");
    let rows: Vec<serde_json::Value> = read("samples.ndjson")
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|x| panic!("{x}: {l}")))
        .collect();
    assert!(rows
        .iter()
        .any(|r| r["job"] == true && r["used_memory"].as_u64() > Some(68 * 1024)));
    assert!(rows.iter().any(|r| r["pid"] == 999999 && r["job"] == false));
    assert!(
        rows.iter().all(|r| r["gpu_index"] == 0),
        "only the job's GPUs"
    );
    let table = read("table.txt");
    assert!(
        table.contains("NVIDIA H100 80GB HBM3") && table.contains("bob-train"),
        "{table}"
    );
    let xid: serde_json::Value = serde_json::from_str(&read("xid.json")).unwrap();
    assert!(xid["events"].is_array(), "{xid}");
    // A run that does not die of it keeps no bundle.
    let calm = dir.path().join("calm");
    let o = run_workload(
        sc.path(),
        dir.path(),
        &["-lms", "50", "--bundle", calm.to_str().unwrap()],
        "--start 2GiB --duration 1 --exit 1",
    );
    let e = err(&o);
    assert_eq!(o.status.code(), Some(1), "{e}");
    assert!(e.starts_with("nvq run: peak 2.0 GiB"), "{e}");
    assert!(!calm.join("report.txt").exists());
}

#[test]
fn a_bundle_that_cannot_be_kept_is_refused_before_the_command_starts() {
    let dir = tempfile::tempdir().unwrap();
    let marker = dir.path().join("ran");
    // exit 22, and the command never ran.
    let refused = |bundle: &Path| {
        let o = sim_command(
            None,
            &[
                "run",
                "--bundle",
                bundle.to_str().unwrap(),
                "--",
                "touch",
                marker.to_str().unwrap(),
            ],
        )
        .output()
        .unwrap();
        assert_eq!(o.status.code(), Some(22), "{}", err(&o));
        assert!(!marker.exists(), "the command ran");
    };
    // A regular file where the folder goes.
    let file = dir.path().join("a-file");
    std::fs::write(&file, "x").unwrap();
    refused(&file);
    // A FIFO where a bundle file goes.
    let b = dir.path().join("b");
    std::fs::create_dir(&b).unwrap();
    let fifo = std::ffi::CString::new(b.join("report.txt").to_str().unwrap()).unwrap();
    // SAFETY: mkfifo(3) with a NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o600) }, 0);
    refused(&b);
}

#[test]
fn a_hung_gpu_stalls_neither_the_job_nor_the_other_gpu() {
    let dir = tempfile::tempdir().unwrap();
    // GPU 1's memory call hangs (30 s) from its fourth call on.
    let sc = write_scenario(&format!(
        "{SIM_HEAD}{}{}\n[[device.fault]]\nfunction = \"nvmlDeviceGetMemoryInfo_v2\"\ndelay_ms = 30000\nafter_calls = 3\n\n[live]\ndir = \"{}\"\n",
        h100(0, 1 << 30),
        h100(1, 1 << 30),
        dir.path().display()
    ));
    let t0 = Instant::now();
    let o = run_workload(
        sc.path(),
        dir.path(),
        &["-lms", "100", "--report=json"],
        "--start 1GiB --grow 1GiB --duration 3",
    );
    let took = t0.elapsed();
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    let v = json_report(&o);
    // GPU 0 was read to the end: the job's peak is near 4 GiB, not the first samples' 1 GiB.
    let peak = v["track"]["gpus"]["0"]["peak"].as_u64().unwrap();
    assert!(peak > 3 * GIB, "{v}");
    let notes = v["notes"].to_string();
    assert!(notes.contains("GPU 1 stopped answering at "), "{v}");
    assert!(
        took < Duration::from_secs(25),
        "nvq waited for the hung call: {took:?}"
    );
}

#[test]
fn another_processs_hostile_name_is_shown_safely_and_kept_exact_in_json() {
    let dir = tempfile::tempdir().unwrap();
    let sc = crowded(dir.path());
    // A neighbour whose name (comm) holds an escape sequence and a
    // right-to-left override, holding 3 GiB on GPU 0.
    let script = "import ctypes, os, sys, time\n\
        ctypes.CDLL(None).prctl(15, 'ev\\x1b[2Jil\\u202e'.encode(), 0, 0, 0)\n\
        fd = os.open(os.path.join(sys.argv[1], str(os.getpid())), os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)\n\
        os.write(fd, f'{int(time.time() * 1000)} 0 {3 << 30}\\n'.encode())\n\
        print('ready', flush=True)\n\
        time.sleep(60)\n";
    let mut c = command("python3");
    c.args(["-c", script]).arg(dir.path());
    let mut other = started(c);
    let text = run_workload(
        sc.path(),
        dir.path(),
        &["-lms", "50"],
        "--start 2GiB --duration 1.5",
    );
    let json = run_workload(
        sc.path(),
        dir.path(),
        &["-lms", "50", "--report=json"],
        "--start 2GiB --duration 1.5",
    );
    let _ = other.kill();
    let _ = other.wait();
    let e = err(&text);
    let named = e
        .lines()
        .find(|l| l.contains("other processes then:"))
        .unwrap_or_else(|| panic!("{e}"));
    assert!(named.contains(&format!("PID {} ev", other.id())), "{e}");
    assert!(named.contains("[2Jil?, user "), "{e}");
    assert!(
        !e.chars().any(|c| c == '\u{1b}' || c == '\u{202e}'),
        "a hidden character reached the terminal: {e:?}"
    );
    let v = json_report(&json);
    let name = v["others"][other.id().to_string()]["name"]
        .as_str()
        .unwrap_or("");
    assert!(name.ends_with("[2Jil\u{202e}"), "{v}");
}
