//! `nvq run --torch` (issue 51) with the fake torch of `tests/fixtures/torch`
//! (backed by the simulator's live processes, so that NVML and "PyTorch"
//! agree), per-process utilization, and the report without the host's PID
//! namespace.

use crate::common::{
    command, h100, nvq_bin, repo_root, sim_command, sim_lib, write_scenario, SIM_HEAD,
};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};

const GIB: u64 = 1 << 30;
const MIB: u64 = 1 << 20;

/// Two H100s, live processes in `dir` (with `live` added to `[live]`).
pub(crate) fn machine(dir: &Path, live: &str) -> tempfile::NamedTempFile {
    write_scenario(&format!(
        "{SIM_HEAD}{}{}\n[live]\ndir = \"{}\"\n{live}",
        h100(0, 1 << 30),
        h100(1, 1 << 30),
        dir.display()
    ))
}

fn fixtures() -> PathBuf {
    repo_root().join("tests/fixtures/torch")
}

/// `nvq run --torch [opts] -- python3 torch_job.py ARGS` with the fake torch
/// on the path (after `path_first`, when given).
pub(crate) fn torch_run(
    sc: &Path,
    dir: &Path,
    opts: &[&str],
    args: &str,
    path_first: Option<&Path>,
) -> std::process::Command {
    let mut c = sim_command(Some(sc), &["run", "--torch", "-lms", "50"]);
    c.args(opts)
        .arg("--")
        .arg("python3")
        .arg(fixtures().join("torch_job.py"));
    c.args(args.split(' ').filter(|a| !a.is_empty()));
    let mut path = std::ffi::OsString::new();
    if let Some(p) = path_first {
        path.push(p);
        path.push(":");
    }
    path.push(fixtures());
    c.env("PYTHONPATH", path).env("NVML_SIM_LIVE_DIR", dir).env(
        "FAKE_TORCH_UUIDS",
        "GPU-00000000-0000-4000-8000-000000000000,GPU-00000000-0000-4000-8000-000000000001",
    );
    c
}

fn err(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn json(o: &Output) -> serde_json::Value {
    let e = err(o);
    // The report is the last line (the job may have written before it).
    let last = e.lines().last().unwrap_or("");
    serde_json::from_str(last).unwrap_or_else(|x| panic!("{x}: {e}"))
}

/// The one process of the job in a JSON report: (PID, its entry).
fn only_proc(v: &serde_json::Value) -> serde_json::Value {
    let procs = v["track"]["procs"].as_object().unwrap();
    assert_eq!(procs.len(), 1, "{v}");
    procs.values().next().unwrap().clone()
}

#[test]
fn the_breakdown_splits_each_processs_memory_into_allocated_cached_and_outside() {
    let dir = tempfile::tempdir().unwrap();
    let sc = machine(dir.path(), "");
    // 3 GiB allocated, then 1 GiB freed: the allocator keeps it (cached);
    // the CUDA context (512 MiB) is outside PyTorch.
    let o = torch_run(
        sc.path(),
        dir.path(),
        &["--report=json"],
        &format!("--alloc {} --free {} --hold 1.5", 3 * GIB, GIB),
        None,
    )
    .output()
    .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    let v = json(&o);
    let p = only_proc(&v);
    assert_eq!(p["peak"], 3 * GIB + 512 * MIB, "{v}");
    let t = &p["torch"];
    assert_eq!(t["allocated"], 2 * GIB, "{v}");
    assert_eq!(t["cached"], GIB, "{v}");
    assert_eq!(t["outside"], 512 * MIB, "{v}");
    assert_eq!(t["max_allocated"], 3 * GIB, "{v}");
    assert_eq!(v["torch"]["processes"].as_array().unwrap().len(), 1, "{v}");
    // The same in words.
    let o = torch_run(
        sc.path(),
        dir.path(),
        &[],
        &format!("--alloc {} --free {} --hold 1.5", 3 * GIB, GIB),
        None,
    )
    .output()
    .unwrap();
    let e = err(&o);
    assert!(
        e.contains(
            "    PyTorch then: allocated 2.0 GiB, cached by its allocator 1.0 GiB, outside \
             PyTorch 512 MiB (CUDA context, libraries); most allocated 3.0 GiB"
        ),
        "{e}"
    );
}

#[test]
fn pytorchs_devices_are_nvmls_gpus_by_uuid_not_by_ordinal() {
    let dir = tempfile::tempdir().unwrap();
    let sc = machine(dir.path(), "");
    // CUDA_VISIBLE_DEVICES=1: the process's device 0 is NVML's GPU 1.
    let o = torch_run(
        sc.path(),
        dir.path(),
        &["--report=json"],
        &format!("--alloc {} --hold 1.5", 2 * GIB),
        None,
    )
    .env("FAKE_TORCH_VISIBLE", "1")
    .env(
        "FAKE_TORCH_UUIDS",
        "GPU-00000000-0000-4000-8000-000000000001",
    )
    .output()
    .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    let v = json(&o);
    let p = only_proc(&v);
    assert_eq!(p["gpu"], 1, "{v}");
    assert_eq!(p["torch"]["allocated"], 2 * GIB, "{v}");
    assert_eq!(p["torch"]["outside"], 512 * MIB, "{v}");
}

#[test]
fn hostile_data_on_the_channel_is_refused_and_the_job_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let sc = machine(dir.path(), "");
    let mut child = torch_run(
        sc.path(),
        dir.path(),
        &["--report=json"],
        &format!(
            "--alloc {} --hold 2 --hostile long,junk,pid,flood --exit 7",
            2 * GIB
        ),
        None,
    )
    .stdout(Stdio::piped())
    .stderr(Stdio::piped())
    .spawn()
    .unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    out.read_line(&mut line).unwrap();
    // A process outside the job connects too.
    let socket = line
        .split_whitespace()
        .find_map(|w| w.strip_prefix("socket="))
        .unwrap_or_else(|| panic!("{line}"));
    let mut s = std::os::unix::net::UnixStream::connect(socket).unwrap();
    let _ = s.write_all(
        br#"{"kind":"sample","pid":1,"devices":[{"index":0,"allocated":1,"reserved":1,"max_allocated":1}]}
"#,
    );
    let o = child.wait_with_output().unwrap();
    assert_eq!(
        o.status.code(),
        Some(7),
        "the job's own status: {}",
        err(&o)
    );
    let v = json(&o);
    let notes: Vec<&str> = v["notes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_str().unwrap())
        .collect();
    for want in [
        "connections from processes outside the job refused",
        "lines longer than 16 KiB",
        "lines that are not the module's messages refused",
        "messages with numbers or texts out of range refused",
        "messages naming another process refused",
        "floods of lines",
    ] {
        assert!(notes.iter().any(|n| n.contains(want)), "{want}: {notes:?}");
    }
    // The module's own counters still came through (its most allocated: the
    // split itself is taken at the peak's sample, which may fall while the
    // job's own flood of valid counters, 1 byte allocated, was the latest).
    assert_eq!(only_proc(&v)["torch"]["max_allocated"], 2 * GIB, "{v}");
}

#[test]
fn a_users_sitecustomize_runs_after_the_module_and_a_broken_one_does_not_break_the_job() {
    let dir = tempfile::tempdir().unwrap();
    let sc = machine(dir.path(), "");
    let user = tempfile::tempdir().unwrap();
    std::fs::write(
        user.path().join("sitecustomize.py"),
        "print('user sitecustomize ran', flush=True)\n",
    )
    .unwrap();
    let o = torch_run(
        sc.path(),
        dir.path(),
        &["--report=json"],
        &format!("--alloc {} --hold 1", GIB),
        Some(user.path()),
    )
    .output()
    .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    assert!(String::from_utf8_lossy(&o.stdout).starts_with("user sitecustomize ran\n"));
    assert_eq!(only_proc(&json(&o))["torch"]["allocated"], GIB);
    std::fs::write(
        user.path().join("sitecustomize.py"),
        "raise ValueError('broken on purpose')\n",
    )
    .unwrap();
    let o = torch_run(
        sc.path(),
        dir.path(),
        &[],
        &format!("--alloc {} --hold 1 --exit 3", GIB),
        Some(user.path()),
    )
    .output()
    .unwrap();
    let e = err(&o);
    assert_eq!(o.status.code(), Some(3), "{e}");
    // Python's own words for it, as without nvq.
    assert!(
        e.contains("Error in sitecustomize; set PYTHONVERBOSE for traceback:\nValueError: broken on purpose"),
        "{e}"
    );
    assert!(e.contains("PyTorch then: allocated 1.0 GiB"), "{e}");
}

#[test]
fn without_torch_or_without_cuda_the_module_does_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let sc = machine(dir.path(), "");
    for (args, devices) in [("--no-torch --hold 0.3", "1"), ("--hold 0.3", "0")] {
        let o = torch_run(sc.path(), dir.path(), &[], args, None)
            .env("FAKE_TORCH_DEVICES", devices)
            .output()
            .unwrap();
        let e = err(&o);
        assert_eq!(o.status.code(), Some(0), "{e}");
        let out = String::from_utf8_lossy(&o.stdout);
        // No thread of the module's, and torch only where the job imported it.
        let torch = if args.starts_with("--no-torch") {
            "False"
        } else {
            "True"
        };
        assert!(
            out.starts_with(&format!("ready torch={torch} threads=MainThread socket=")),
            "{out}"
        );
        assert!(
            e.contains("--torch: no process of the job sent PyTorch's counters"),
            "{e}"
        );
    }
}

#[test]
fn each_processs_sm_utilization_comes_from_nvmls_process_samples() {
    let dir = tempfile::tempdir().unwrap();
    let sc = machine(dir.path(), "");
    let o = sim_command(
        Some(sc.path()),
        &["run", "-lms", "50", "--report=json", "--", "python3"],
    )
    .arg(repo_root().join("nvml-sim/workload.py"))
    .arg("--dir")
    .arg(dir.path())
    .args(["--start", "1GiB", "--sm", "70", "--duration", "1"])
    .output()
    .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    let p = only_proc(&json(&o));
    assert_eq!(
        (p["sm_mean"].as_u64(), p["sm_peak"].as_u64()),
        (Some(70), Some(70)),
        "{p}"
    );
}

#[test]
fn without_the_hosts_pid_namespace_the_report_gives_the_gpus_totals() {
    let dir = tempfile::tempdir().unwrap();
    // The driver numbers the job's processes in the host's namespace.
    let sc = machine(dir.path(), "pid_offset = 100000\n");
    let Some(unshare) = crate::common::require_tool("unshare") else {
        return;
    };
    let mut c = command(unshare);
    c.args([
        "--user",
        "--map-root-user",
        "--pid",
        "--fork",
        "--mount-proc",
    ]);
    c.arg(nvq_bin()).arg("--nvml-lib").arg(sim_lib());
    c.args(["run", "-lms", "50", "--", "python3"]);
    c.arg(repo_root().join("nvml-sim/workload.py"))
        .arg("--dir")
        .arg(dir.path())
        .args(["--start", "2GiB", "--duration", "1.5", "--exit", "4"]);
    c.env("NVML_SIM_SCENARIO", sc.path());
    let o = c.output().unwrap();
    let e = err(&o);
    if o.status.code() != Some(4) && e.contains("unshare:") {
        // No user namespaces here (a locked-down kernel or container).
        crate::common::cannot_run(
            crate::common::REQUIRE_TOOLS,
            "unshare cannot make a user and PID namespace here",
        );
        return;
    }
    assert_eq!(o.status.code(), Some(4), "{e}");
    assert!(
        e.starts_with("nvq run: GPU 0 used at most 3.0 GiB of 79.6 GiB at "),
        "the GPU's total (1 GiB before, 2 GiB of the job), never a process: {e}"
    );
    assert!(
        e.contains("which processes are the job's cannot be told here"),
        "{e}"
    );
    assert!(!e.contains("  PID "), "no process is named: {e}");
}

#[test]
fn pytorchs_out_of_memory_error_makes_the_verdict_and_its_snapshot_goes_in_the_bundle() {
    let dir = tempfile::tempdir().unwrap();
    let sc = machine(dir.path(), "");
    let bundle = dir.path().join("bundle");
    let o = torch_run(
        sc.path(),
        dir.path(),
        &["--torch-snapshot", "--bundle", bundle.to_str().unwrap()],
        &format!("--alloc {} --hold 0.5 --oom {}", 2 * GIB, 4 * GIB),
        None,
    )
    .env("FAKE_TORCH_LIMIT", (5 * GIB).to_string())
    .output()
    .unwrap();
    let e = err(&o);
    assert_eq!(o.status.code(), Some(1), "{e}");
    // The out-of-memory verdict, though the GPU was far from full: PyTorch said so.
    assert!(
        e.lines().any(|l| l.starts_with("nvq run: exit 1 at ")
            && l.contains("out of memory (PyTorch reported it)")),
        "{e}"
    );
    // The detail line does not call the GPU full: it was not.
    assert!(
        e.lines().any(
            |l| l.starts_with("  out of memory: PyTorch reported it; GPU ")
                && l.contains(" was not near full (")
        ),
        "{e}"
    );
    assert!(!e.contains("(full: within"), "{e}");
    let line = e
        .lines()
        .find(|l| l.starts_with("nvq run: PyTorch ran out of memory in PID "))
        .unwrap_or_else(|| panic!("{e}"));
    let (_, path) = line
        .split_once(" on its CUDA device 0 (torch.cuda.OutOfMemoryError); snapshot ")
        .unwrap_or_else(|| panic!("{line}"));
    assert!(Path::new(path).starts_with(&bundle), "{line}");
    // The allocator's snapshot, as torch.cuda.memory._snapshot() gave it.
    let o = command("python3")
        .args([
            "-c",
            "import pickle,sys; print(sorted(pickle.load(open(sys.argv[1],'rb'))))",
            path,
        ])
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&o.stdout),
        "['device_traces', 'segments']\n"
    );
    // Without a bundle to keep it in, it is refused before anything runs.
    let o = sim_command(Some(sc.path()), &["run", "--torch-snapshot", "--", "true"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", err(&o));
}
