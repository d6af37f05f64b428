//! Live processes: real PIDs that declare their GPU memory in the control directory
//! (`[live] dir` or `NVML_SIM_LIVE_DIR`), read at each call; accounting keeps each PID's most.

use super::{in_child, nvml};
use nvml_sim::scenario::Scenario;
use nvml_wrapper::enums::device::UsedGpuMemory;
use nvml_wrapper::error::NvmlError;
use nvml_wrapper::{Device, Nvml};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const GIB: u64 = 1 << 30;

/// Two 80 GiB GPUs with 1 GiB used by nobody listed; accounting on on GPU 0 only; a static
/// process 4242 on GPU 0; the live processes in `dir`, read at most every `every` ms.
fn scenario(dir: &Path, every: u64) -> String {
    format!(
        r#"
[live]
dir = "{}"
every_ms = {every}

[[device]]
name = "NVIDIA H100 80GB HBM3"
accounting_mode = 1
memory = {{ total = 85899345920, used = 1073741824 }}
[[device.process]]
pid = 4242
name = "static"
used_memory = 536870912

[[device]]
name = "NVIDIA H100 80GB HBM3"
accounting_mode = 0
memory = {{ total = 85899345920, used = 1073741824 }}
"#,
        dir.display(),
    )
}

/// A fresh control directory for a test (in the parent; the child finds it in the scenario).
fn control_dir(test: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("nvml-sim-live-{}-{test}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// The child's control directory, from the scenario it was given.
fn child_dir() -> PathBuf {
    Scenario::from_env().unwrap().live_dir().unwrap()
}

fn append(dir: &Path, pid: u32, text: &str) {
    std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(dir.join(pid.to_string()))
        .unwrap()
        .write_all(text.as_bytes())
        .unwrap();
}

fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64
}

fn sleeper() -> Child {
    Command::new("sleep").arg("60").spawn().unwrap()
}

/// (pid, bytes) of a GPU's compute processes, through `_v3` (nvml-wrapper's newest).
fn compute(d: &Device) -> Vec<(u32, u64)> {
    d.running_compute_processes()
        .unwrap()
        .into_iter()
        .map(|p| match p.used_gpu_memory {
            UsedGpuMemory::Used(b) => (p.pid, b),
            UsedGpuMemory::Unavailable => (p.pid, u64::MAX),
        })
        .collect()
}

#[test]
fn live_processes_follow_their_control_files() {
    const NAME: &str = "live::live_processes_follow_their_control_files";
    let dir = control_dir("follow");
    in_child(NAME, Some(&scenario(&dir, 0)), || {
        let dir = child_dir();
        let nvml = nvml().unwrap();
        let (g0, g1) = (
            nvml.device_by_index(0).unwrap(),
            nvml.device_by_index(1).unwrap(),
        );
        assert_eq!(compute(&g0), [(4242, 512 << 20)], "no live process yet");

        let mut a = sleeper();
        let mut b = sleeper();
        let t = now_ms();
        append(&dir, a.id(), &format!("{t} 0 {}\n", 2 * GIB));
        append(&dir, b.id(), &format!("{t} 1 {}\n", GIB));
        assert_eq!(compute(&g0), [(4242, 512 << 20), (a.id(), 2 * GIB)]);
        assert_eq!(compute(&g1), [(b.id(), GIB)]);
        assert_eq!(
            g0.memory_info().unwrap().used,
            3 * GIB,
            "1 GiB + the live 2 GiB"
        );
        assert_eq!(nvml.sys_process_name(a.id(), 64).unwrap(), "sleep");

        // A spike between two reads: the list shows the last value, accounting the most.
        append(
            &dir,
            a.id(),
            &format!("{} 0 {}\n{} 0 {}\n", t + 1, 10 * GIB, t + 2, 3 * GIB),
        );
        append(&dir, a.id(), "garbage line\n");
        append(&dir, a.id(), &format!("{} 0 {}", t + 3, 70 * GIB)); // no newline yet
        assert_eq!(compute(&g0)[1], (a.id(), 3 * GIB));
        assert!(g0.is_accounting_enabled().unwrap());
        assert!(g0.accounting_pids().unwrap().contains(&a.id()));
        let s = g0.accounting_stats_for(a.id()).unwrap();
        assert_eq!(s.max_memory_usage, Some(10 * GIB));
        assert!(s.is_running);
        assert_eq!(s.time, 0, "NVML reports 0 while the process runs");
        assert_eq!(s.start_time, t * 1000);
        // GPU 1's accounting is off: no record of the live process there.
        assert!(!g1.accounting_pids().unwrap().contains(&b.id()));
        assert!(matches!(
            g1.accounting_stats_for(b.id()),
            Err(NvmlError::NotFound)
        ));

        // The process ends: out of the lists and the used memory, still accounted.
        a.kill().unwrap();
        a.wait().unwrap();
        assert_eq!(compute(&g0), [(4242, 512 << 20)]);
        assert_eq!(g0.memory_info().unwrap().used, GIB);
        assert!(matches!(
            nvml.sys_process_name(a.id(), 64),
            Err(NvmlError::NotFound)
        ));
        let s = g0.accounting_stats_for(a.id()).unwrap();
        assert!(!s.is_running);
        assert_eq!(
            s.max_memory_usage,
            Some(10 * GIB),
            "the unfinished 70 GiB line never counted"
        );

        // A zombie (exited, not reaped) holds no memory either.
        b.kill().unwrap();
        let deadline = Instant::now() + Duration::from_secs(30);
        while !compute(&g1).is_empty() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(20));
        }
        assert_eq!(compute(&g1), [], "a zombie is gone from the list");
        b.wait().unwrap();
    });
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_live_directory_may_come_from_the_environment() {
    const NAME: &str = "live::the_live_directory_may_come_from_the_environment";
    if std::env::var(super::CHILD_ENV).as_deref() != Ok(NAME) {
        let dir = control_dir("env");
        super::in_child_with(NAME, None, &[("NVML_SIM_LIVE_DIR", &dir)], || {});
        let _ = std::fs::remove_dir_all(&dir);
        return;
    }
    // The built-in default scenario, whose GPUs list three static processes.
    let dir = PathBuf::from(std::env::var("NVML_SIM_LIVE_DIR").unwrap());
    let nvml = nvml().unwrap();
    let g1 = nvml.device_by_index(1).unwrap();
    let before = compute(&g1).len();
    let mut a = sleeper();
    append(&dir, a.id(), &format!("{} 1 {}\n", now_ms(), 5 * GIB));
    // Read at most every 10 ms (the default `every_ms`): asked again until it shows.
    until("the live process on GPU 1", || {
        compute(&g1).len() == before + 1
    });
    let after = compute(&g1);
    assert_eq!(after.last(), Some(&(a.id(), 5 * GIB)));
    a.kill().unwrap();
    a.wait().unwrap();
}

/// Run the workload program shipped beside the simulator.
fn workload(args: &[&str], more: &[&str], dir: &Path) -> Child {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("workload.py");
    Command::new("python3")
        .arg(script)
        .args(args)
        .args(more)
        .env("NVML_SIM_LIVE_DIR", dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("python3 runs the workload program (nvml-sim/workload.py)")
}

/// Poll until `f` holds (a busy machine gets 60 s).
fn until(what: &str, mut f: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(60);
    while !f() {
        assert!(Instant::now() < deadline, "timed out waiting for: {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn the_workload_spikes_forks_workers_and_dies_of_out_of_memory() {
    const NAME: &str = "live::the_workload_spikes_forks_workers_and_dies_of_out_of_memory";
    let dir = control_dir("workload");
    in_child(NAME, Some(&scenario(&dir, 10)), || {
        let nvml: Nvml = nvml().unwrap();
        let dir = child_dir();
        let (g0, g1) = (
            nvml.device_by_index(0).unwrap(),
            nvml.device_by_index(1).unwrap(),
        );

        // 2 GiB with a 20 GiB spike of 200 ms at 0.5 s, for 1.5 s: never read during the
        // spike, yet accounting keeps it.
        let mut job = workload(
            &[
                "--start",
                "2GiB",
                "--spike",
                "20GiB",
                "--spike-at",
                "0.5",
                "--spike-ms",
                "200",
            ],
            &["--duration", "1.5"],
            &dir,
        );
        let pid = job.id();
        until("the job on GPU 0", || {
            compute(&g0).contains(&(pid, 2 * GIB))
        });
        assert_eq!(job.wait().unwrap().code(), Some(0));
        until("the job gone", || compute(&g0) == [(4242, 512 << 20)]);
        let s = g0.accounting_stats_for(pid).unwrap();
        assert_eq!(s.max_memory_usage, Some(20 * GIB));
        assert!(!s.is_running);
        assert!(s.time >= 1000, "ran 1.5 s: {} ms", s.time);

        // 2 GiB, +1 GiB a second, two ranked workers with 1 GiB each on GPU 1, out of memory
        // on reaching 6 GiB (about 4 s in).
        let mut job = workload(
            &[
                "--start",
                "2GiB",
                "--grow",
                "1GiB",
                "--oom-at",
                "6GiB",
                "--workers",
                "2",
            ],
            &[
                "--worker-gpu",
                "1",
                "--worker-mem",
                "1GiB",
                "--worker-rank-base",
                "1",
            ],
            &dir,
        );
        let pid = job.id();
        until("the job on GPU 0", || {
            compute(&g0).iter().any(|p| p.0 == pid)
        });
        until("two workers on GPU 1", || compute(&g1).len() == 2);
        let workers = compute(&g1);
        let mut ranks = Vec::new();
        for (w, bytes) in &workers {
            assert!(*w != pid && *bytes == GIB, "{workers:?}");
            let env = std::fs::read(format!("/proc/{w}/environ")).unwrap_or_default();
            ranks.extend(
                env.split(|&b| b == 0)
                    .filter_map(|v| v.strip_prefix(b"RANK="))
                    .map(|r| String::from_utf8_lossy(r).into_owned()),
            );
        }
        ranks.sort();
        assert_eq!(ranks, ["1", "2"]);
        let status = job.wait().unwrap();
        let mut err = String::new();
        std::io::Read::read_to_string(job.stderr.as_mut().unwrap(), &mut err).unwrap();
        assert_eq!(status.code(), Some(1), "{err}");
        assert!(err.contains("out of memory at 6.0 GiB on GPU 0"), "{err}");
        until("the job and its workers gone", || {
            compute(&g0) == [(4242, 512 << 20)] && compute(&g1).is_empty()
        });
        let s = g0.accounting_stats_for(pid).unwrap();
        let max = s.max_memory_usage.unwrap();
        assert!(
            (5 * GIB..6 * GIB).contains(&max),
            "grew to just under 6 GiB: {max}"
        );
    });
    let _ = std::fs::remove_dir_all(&dir);
}
