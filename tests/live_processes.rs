//! nvq under the simulator's live processes (nvml-sim/README.md, "Live processes"): a real
//! program (`nvml-sim/workload.py`) declares the GPU memory of its PID, and nvq shows it as it
//! would show a CUDA job's: in the compute apps, in the GPU's used memory, in accounting.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common::{command, h100, repo_root, run, write_scenario, SIM_HEAD};
use std::path::Path;
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

/// Two H100s with 1 GiB used, accounting on on GPU 0, live processes in `dir`.
fn machine(dir: &Path) -> tempfile::NamedTempFile {
    write_scenario(&format!(
        "{SIM_HEAD}{}accounting_mode = 1\n{}\n[live]\ndir = \"{}\"\n",
        h100(0, 1 << 30),
        h100(1, 1 << 30),
        dir.display()
    ))
}

/// The workload program with `args` (split at spaces).
fn workload(dir: &Path, args: &str) -> Child {
    command("python3")
        .arg(repo_root().join("nvml-sim/workload.py"))
        .arg("--dir")
        .arg(dir)
        .args(args.split(' '))
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("python3 runs nvml-sim/workload.py")
}

/// Ask again until `f` holds (60 s for a busy machine).
fn until(what: &str, mut ask: impl FnMut() -> String, f: impl Fn(&str) -> bool) -> String {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let got = ask();
        if f(&got) {
            return got;
        }
        assert!(
            Instant::now() < deadline,
            "timed out waiting for {what}; last:\n{got}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn a_running_programs_memory_is_in_the_compute_apps_until_it_ends() {
    let dir = tempfile::tempdir().unwrap();
    let sc = machine(dir.path());
    let mut job = workload(
        dir.path(),
        "--start 2GiB --workers 2 --worker-mem 1GiB --duration 60",
    );
    let apps = || {
        run(
            sc.path(),
            &[
                "--query-compute-apps=gpu_bus_id,pid,used_memory",
                "--format=csv,noheader",
            ],
        )
        .ok()
    };
    let rows = until("the job and its two workers", apps, |s| {
        s.lines().count() == 3
    });
    let job_row = format!("00000000:01:00.0, {}, 2048 MiB", job.id());
    assert!(rows.lines().any(|l| l == job_row), "{rows}");
    let workers: Vec<&str> = rows
        .lines()
        .filter(|l| l.starts_with("00000000:02:00.0, "))
        .collect();
    assert_eq!(workers.len(), 2, "{rows}");
    assert!(workers.iter().all(|l| l.ends_with(", 1024 MiB")), "{rows}");
    let used = run(
        sc.path(),
        &["--query-gpu=memory.used", "--format=csv,noheader"],
    )
    .ok();
    assert_eq!(
        used, "3072 MiB\n3072 MiB\n",
        "1 GiB + the job's 2, 1 GiB + two workers' 1"
    );
    terminate(job.id());
    job.wait().unwrap();
    until("no process left", apps, str::is_empty);
}

/// SIGTERM to a child this test started.
fn terminate(pid: u32) {
    let pid = libc::pid_t::try_from(pid).unwrap();
    // SAFETY: kill(2) on a child of this process that has not been waited for.
    assert_eq!(unsafe { libc::kill(pid, libc::SIGTERM) }, 0);
}

#[test]
fn accounting_keeps_a_spike_that_no_sample_saw() {
    let dir = tempfile::tempdir().unwrap();
    let sc = machine(dir.path());
    // 2 GiB with 10 GiB for 200 ms at 0.5 s, for 1.5 s; nvq asks only once it has ended.
    let mut job = workload(
        dir.path(),
        "--start 2GiB --spike 10GiB --spike-at 0.5 --spike-ms 200 --duration 1.5",
    );
    let status = job.wait().unwrap();
    assert!(status.success());
    let apps = run(
        sc.path(),
        &["--query-compute-apps=pid", "--format=csv,noheader"],
    )
    .ok();
    assert_eq!(apps, "", "the job has ended");
    let accounted = run(
        sc.path(),
        &[
            "--query-accounted-apps=gpu_bus_id,pid,max_memory_usage",
            "--format=csv,noheader",
        ],
    )
    .ok();
    assert_eq!(
        accounted,
        format!("00000000:01:00.0, {}, 10240 MiB\n", job.id())
    );
}

#[test]
fn a_spike_is_declared_even_when_the_workload_wakes_after_it() {
    // On a busy machine the workload may sleep past its whole spike; it is
    // stopped here across it, which is the same, and must still declare it.
    let dir = tempfile::tempdir().unwrap();
    let sc = machine(dir.path());
    let mut job = workload(
        dir.path(),
        "--start 1GiB --spike 4GiB --spike-at 0.3 --spike-ms 50 --duration 1",
    );
    let file = dir.path().join(job.id().to_string());
    let deadline = Instant::now() + Duration::from_secs(60);
    // Its first line is written after its clock started.
    while std::fs::metadata(&file).map_or(true, |m| m.len() == 0) {
        assert!(Instant::now() < deadline, "the workload never started");
        std::thread::sleep(Duration::from_millis(5));
    }
    let pid = libc::pid_t::try_from(job.id()).unwrap();
    // SAFETY: kill(2) on a child of this process that has not been waited for.
    unsafe { libc::kill(pid, libc::SIGSTOP) };
    std::thread::sleep(Duration::from_millis(600));
    // SAFETY: as above.
    unsafe { libc::kill(pid, libc::SIGCONT) };
    assert!(job.wait().unwrap().success());
    let accounted = run(
        sc.path(),
        &[
            "--query-accounted-apps=max_memory_usage",
            "--format=csv,noheader",
        ],
    )
    .ok();
    assert_eq!(accounted, "4096 MiB\n");
}
