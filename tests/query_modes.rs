//! The list query modes, `-L` and `--version`, run against the NVML simulator.
//!
//! Conformance tests compare nvq's output byte for byte with real nvidia-smi
//! captures read from `../shared` (only timestamps are compared by shape);
//! without `../shared` they print a note and pass.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;
use common::{as_nvidia_smi, nvq_ok, ran, run, scenario, sim_command, sim_lib};

use nvq_core::source::time::is_timestamp;
use std::path::{Path, PathBuf};

/// A capture from `../shared/nvidia-smi/captures`, or `None` (see
/// `common::missing_shared`).
fn capture(name: &str) -> Option<String> {
    common::read_shared(&format!("nvidia-smi/captures/{name}"))
}

/// Byte-for-byte equality, except that a cell holding a timestamp in the
/// capture only needs a timestamp of the same shape in nvq's output.
fn assert_conforms(actual: &str, expected: &str) {
    let a: Vec<&str> = actual.split('\n').collect();
    let e: Vec<&str> = expected.split('\n').collect();
    assert_eq!(
        a.len(),
        e.len(),
        "line count differs\n--- nvq\n{actual}--- nvidia-smi\n{expected}"
    );
    for (la, le) in a.iter().zip(&e) {
        let ca: Vec<&str> = la.split(", ").collect();
        let ce: Vec<&str> = le.split(", ").collect();
        let same = ca.len() == ce.len()
            && ca
                .iter()
                .zip(&ce)
                .all(|(x, y)| x == y || (is_timestamp(y) && is_timestamp(x)));
        assert!(
            same,
            "line differs\n  nvq:        {la:?}\n  nvidia-smi: {le:?}\n--- nvq\n{actual}"
        );
    }
}

const ALL_COMPUTE: &str = "--query-compute-apps=timestamp,gpu_name,gpu_bus_id,gpu_serial,gpu_uuid,pid,process_name,used_gpu_memory";

#[test]
fn capture_10_compute_apps_with_processes() {
    let Some(want) = capture("10_h200_590.48.01_query-compute-apps_csv_with-processes.txt") else {
        return;
    };
    let got = nvq_ok(
        &scenario("modes_h200_load.toml"),
        &[ALL_COMPUTE, "--format=csv"],
    );
    assert_conforms(&got, &want);
}

#[test]
fn capture_11_no_processes_prints_the_header_only() {
    let Some(want) = capture("11_h200_590.48.01_query-compute-apps_csv_no-processes.txt") else {
        return;
    };
    let got = nvq_ok(
        &scenario("modes_h200_idle.toml"),
        &[ALL_COMPUTE, "--format=csv"],
    );
    assert_conforms(&got, &want);
}

#[test]
fn capture_12_unavailable_memory_is_na() {
    let Some(want) =
        capture("12_rtx2080super_591.86_windows_query-compute-apps_csv_wddm-NA-memory.txt")
    else {
        return;
    };
    let got = nvq_ok(
        &scenario("modes_rtx2080_wddm.toml"),
        &[ALL_COMPUTE, "--format=csv"],
    );
    assert_conforms(&got, &want);
}

#[test]
fn capture_15_accounted_apps_with_accounting_off() {
    let Some(want) = capture("15_h200_590.48.01_query-accounted-apps_csv_empty.txt") else {
        return;
    };
    let got = nvq_ok(
        &scenario("modes_h200_load.toml"),
        &[
            "--query-accounted-apps=timestamp,gpu_name,gpu_bus_id,gpu_serial,gpu_uuid,pid,gpu_utilization,mem_utilization,max_memory_usage,time",
            "--format=csv",
        ],
    );
    assert_conforms(&got, &want);
}

#[test]
fn capture_16_retired_pages_two_rows_per_gpu() {
    let Some(want) = capture("16_h200_590.48.01_query-retired-pages_csv.txt") else {
        return;
    };
    let got = nvq_ok(
        &scenario("modes_h200_load.toml"),
        &[
            "--query-retired-pages=timestamp,gpu_name,gpu_bus_id,gpu_serial,gpu_uuid,retired_pages.address,retired_pages.timestamp,retired_pages.cause",
            "--format=csv",
        ],
    );
    assert_conforms(&got, &want);
}

#[test]
fn capture_20_list_gpus() {
    let Some(want) = capture("20_h200_590.48.01_list-gpus_-L.txt") else {
        return;
    };
    assert_eq!(nvq_ok(&scenario("modes_h200_load.toml"), &["-L"]), want);
    assert_eq!(
        nvq_ok(&scenario("modes_h200_load.toml"), &["--list-gpus"]),
        want
    );
}

#[test]
fn capture_21_list_gpus_with_mig_devices() {
    let Some(want) = capture("21_h100mig_590.48.01_list-gpus_-L_mig.txt") else {
        return;
    };
    assert_eq!(nvq_ok(&scenario("modes_h100_mig.toml"), &["-L"]), want);
}

#[test]
fn capture_23_version_590() {
    let Some(want) = capture("23_h200_590.48.01_version.txt") else {
        return;
    };
    assert_eq!(
        as_nvidia_smi(&scenario("modes_h200_load.toml"), &["--version"]).ok(),
        want
    );
}

#[test]
fn capture_24_version_610_layout() {
    let Some(want) = capture("24_rtx2080super_610.57.04_version.txt") else {
        return;
    };
    assert_eq!(
        as_nvidia_smi(&scenario("modes_rtx2080_610.toml"), &["--version"]).ok(),
        want
    );
}

/// Under its own name, `--version` starts with nvq's version and keeps one
/// layout on both sides of the 610 branch.
#[test]
fn version_as_nvq_names_nvq() {
    for (sc, driver, nvml) in [
        ("modes_h200_load.toml", "590.48.01", "590.48"),
        ("modes_rtx2080_610.toml", "610.57.04", "610.57"),
    ] {
        let got = nvq_ok(&scenario(sc), &["--version"]);
        let lines: Vec<&str> = got.lines().collect();
        // Four versions, the library, and that the simulator answers.
        assert_eq!(lines.len(), 6, "{got}");
        assert!(lines[5].starts_with("Simulated           : yes"), "{got}");
        assert_eq!(
            lines[0],
            format!("nvq version         : {}", env!("CARGO_PKG_VERSION"))
        );
        assert_eq!(lines[1], format!("NVML version        : {nvml}"));
        assert_eq!(lines[2], format!("DRIVER version      : {driver}"));
        assert!(lines[3].starts_with("CUDA version        : "), "{got}");
        let smi = as_nvidia_smi(&scenario(sc), &["--version"]).ok();
        assert!(
            smi.starts_with(&format!("NVIDIA-SMI version  : {driver}\n")),
            "{smi}"
        );
    }
}

#[test]
fn capture_47_alias_name_prints_process_name() {
    let Some(want) = capture("47_dcgm-exporter-94_query-compute-apps_gpu_uuid,name_csv.txt") else {
        return;
    };
    let got = nvq_ok(
        &scenario("modes_vgpu_host.toml"),
        &["--query-compute-apps=gpu_uuid,name", "--format=csv"],
    );
    assert_conforms(&got, &want);
}

#[test]
fn capture_48_name_then_pid() {
    let Some(want) = capture("48_t4_535.183.01_query-compute-apps_name,pid_csv.txt") else {
        return;
    };
    let got = nvq_ok(
        &scenario("modes_t4.toml"),
        &["--query-compute-apps=name,pid", "--format=csv"],
    );
    assert_conforms(&got, &want);
}

/// The `"name" or "alias"` lines of a help text, in order.
fn help_names(text: &str) -> Vec<String> {
    text.lines()
        .filter(|l| l.starts_with('"'))
        .map(str::to_string)
        .collect()
}

/// In `--help-query-*`, as in nvidia-smi's, a line that begins with `"`
/// names a field (`"name"` or `"name" or "alias"`): scripts and tests read
/// the field list that way, so no description line may begin with a quote.
#[test]
fn only_a_fields_names_begin_a_help_line_with_a_quote() {
    for mode in nvq_core::source::QueryMode::ALL.map(|m| m.option()) {
        let help = nvq_ok(
            &scenario("modes_h200_load.toml"),
            &[&format!("--help-{mode}")],
        );
        let names = help.lines().filter(|l| l.starts_with('"'));
        let mut seen = 0;
        for line in names {
            let quoted_names = line.split(" or ").all(|w| {
                w.len() > 2
                    && w.starts_with('"')
                    && w.ends_with('"')
                    && !w[1..w.len() - 1].contains([' ', '"'])
            });
            assert!(quoted_names, "{mode}: not a field's names: {line}");
            seen += 1;
        }
        assert!(seen > 0, "{mode}: no field in\n{help}");
    }
}

#[test]
fn help_texts_follow_nvidia_smis_layout_in_our_words() {
    for (opt, file) in [
        (
            "--help-query-compute-apps",
            "help-query-compute-apps__590.48.01__linux.txt",
        ),
        (
            "--help-query-accounted-apps",
            "help-query-accounted-apps__590.48.01__linux.txt",
        ),
        (
            "--help-query-retired-pages",
            "help-query-retired-pages__590.48.01__linux.txt",
        ),
    ] {
        let Some(want) = capture(&format!("help/{file}")) else {
            return;
        };
        let got = nvq_ok(&scenario("modes_h200_load.toml"), &[opt]);
        let first = |s: &str| s.lines().next().unwrap_or("").to_string();
        assert_eq!(first(&got), first(&want), "{opt}: title line");
        let ours: Vec<String> = got
            .split("\n\n")
            .filter(|b| !b.contains("(nvq extension"))
            .flat_map(help_names)
            .collect();
        assert_eq!(ours, help_names(&want), "{opt}: field lines");
        let heading = |s: &str| {
            s.lines()
                .find(|l| l.starts_with("Section about"))
                .map(str::to_string)
        };
        assert_eq!(heading(&got), heading(&want), "{opt}: section heading");
        // Our own words: no description line is NVIDIA's.
        let theirs: std::collections::HashSet<&str> = want
            .lines()
            .filter(|l| {
                l.len() > 20
                    && !l.starts_with('"')
                    && !l.starts_with("List of")
                    && !l.starts_with("Section")
            })
            .collect();
        for l in got.lines() {
            assert!(!theirs.contains(l), "{opt}: copied line {l:?}");
        }
        assert!(got.ends_with("\n\n"));
    }
}

#[test]
fn help_for_the_modes_without_nvidia_text() {
    let h = nvq_ok(
        &scenario("modes_h200_load.toml"),
        &["--help-query-supported-clocks"],
    );
    assert!(h.starts_with(
        "List of valid properties to query for the switch \"--query-supported-clocks\":\n\n"
    ));
    assert!(h.contains("\n\"memory\" or \"mem\"\n"));
    assert!(h.contains("\n\"graphics\" or \"gr\"\n"));
    let h = nvq_ok(
        &scenario("modes_h200_load.toml"),
        &["--help-query-remapped-rows"],
    );
    // The fields are the catalogue's facts: the counts keep their
    // `--query-gpu` aliases (`remapped_rows.sbe`, `.dbe`).
    for f in ["correctable", "uncorrectable", "pending", "failure"] {
        assert!(h.contains(&format!("\n\"remapped_rows.{f}\"")), "{f}");
    }
    assert!(
        h.contains("\n\"remapped_rows.correctable\" or \"remapped_rows.sbe\"\n"),
        "{h}"
    );
}

/// Split CSV output (noheader) into rows of cells.
fn rows(out: &str) -> Vec<Vec<String>> {
    out.lines()
        .map(|l| l.split(", ").map(str::to_string).collect())
        .collect()
}

#[test]
fn sixty_four_gpus_and_4096_processes() {
    let out = nvq_ok(
        &scenario("modes_many.toml"),
        &[
            "--query-compute-apps=timestamp,gpu_uuid,gpu_bus_id,pid,process_name,used_gpu_memory",
            "--format=csv,noheader,nounits",
        ],
    );
    let uuids = nvq_ok(&scenario("modes_many.toml"), &["-L"]);
    let uuids: Vec<&str> = uuids
        .lines()
        .map(|l| l.split("(UUID: ").nth(1).unwrap().trim_end_matches(')'))
        .collect();
    assert_eq!(uuids.len(), 64);
    let rows = rows(&out);
    assert_eq!(rows.len(), 4096);
    for (k, r) in rows.iter().enumerate() {
        let (gpu, j) = (k / 64, k % 64);
        assert_eq!(r[1], uuids[gpu], "row {k}: GPU enumeration order");
        assert_eq!(r[3], (200_000 + k).to_string(), "row {k}: pid");
        assert_eq!(r[4], format!("sim-worker-{gpu}-{j}"), "row {k}");
        assert_eq!(r[5], (256 + j).to_string(), "row {k}: MiB");
        // One timestamp per GPU.
        assert_eq!(r[0], rows[gpu * 64][0], "row {k}: timestamp");
        assert!(is_timestamp(&r[0]));
    }
}

#[test]
fn vanished_refused_and_unavailable_processes_keep_their_rows() {
    let out = nvq_ok(
        &scenario("modes_edge.toml"),
        &[
            "--query-compute-apps=gpu_uuid,pid,process_name,used_memory,used_gpu_memory.percent",
            "--format=csv,noheader",
        ],
    );
    assert_eq!(
        out,
        "GPU-11111111-2222-3333-4444-555555555555, 4101, [Not Found], 1024 MiB, 1.25 %\n\
         GPU-11111111-2222-3333-4444-555555555555, 4102, ffmpeg, [N/A], [N/A]\n\
         GPU-11111111-2222-3333-4444-555555555555, 4103, [Insufficient Permissions], 2048 MiB, 2.50 %\n\
         GPU-66666666-7777-8888-9999-000000000000, [GPU is lost], [GPU is lost], [GPU is lost], [GPU is lost]\n"
    );
}

/// The H200 scenario with some NVML functions reporting FUNCTION_NOT_FOUND.
fn without(functions: &[&str], dir: &Path) -> PathBuf {
    let base = std::fs::read_to_string(scenario("modes_h200_load.toml")).unwrap();
    let list: Vec<String> = functions.iter().map(|f| format!("{f:?}")).collect();
    let p = dir.join("absent.toml");
    std::fs::write(
        &p,
        format!("absent_functions = [{}]\n{base}", list.join(", ")),
    )
    .unwrap();
    p
}

#[test]
fn process_list_falls_back_to_v2_and_v1() {
    let dir = tempfile::tempdir().unwrap();
    let args = [
        "--query-compute-apps=pid,process_name,used_memory",
        "--format=csv,noheader",
    ];
    let want = "10291, /root/tools/memhog, 2566 MiB\n10293, /root/tools/memhog, 1542 MiB\n10309, ./gpu_burn, 28234 MiB\n";
    assert_eq!(nvq_ok(&scenario("modes_h200_load.toml"), &args), want);
    let v2 = without(&["nvmlDeviceGetComputeRunningProcesses_v3"], dir.path());
    assert_eq!(nvq_ok(&v2, &args), want, "without _v3");
    let v1 = without(
        &[
            "nvmlDeviceGetComputeRunningProcesses_v3",
            "nvmlDeviceGetComputeRunningProcesses_v2",
        ],
        dir.path(),
    );
    assert_eq!(nvq_ok(&v1, &args), want, "without _v3 and _v2");
    let none = without(
        &[
            "nvmlDeviceGetComputeRunningProcesses_v3",
            "nvmlDeviceGetComputeRunningProcesses_v2",
            "nvmlDeviceGetComputeRunningProcesses",
        ],
        dir.path(),
    );
    assert_eq!(
        nvq_ok(&none, &args),
        "[Function Not Found], [Function Not Found], [Function Not Found]\n"
    );
}

#[test]
fn mig_rows_carry_the_parent_uuid() {
    let out = nvq_ok(
        &scenario("modes_h100_mig.toml"),
        &[
            "--query-compute-apps=gpu_uuid,pid,process_name,used_memory",
            "--format=csv,noheader",
        ],
    );
    assert_eq!(
        out,
        "GPU-00000000-0000-0000-0000-000000000000, 31001, python3, 1024 MiB\n\
         GPU-00000000-0000-0000-0000-000000000000, 31002, ./gpu_burn, 2048 MiB\n"
    );
}

#[test]
fn supported_clocks_one_row_per_pair() {
    let out = nvq_ok(
        &scenario("modes_edge.toml"),
        &["--query-supported-clocks=gpu_bus_id,mem,gr", "--format=csv"],
    );
    assert_eq!(
        out,
        "gpu_bus_id, memory [MHz], graphics [MHz]\n\
         00000000:18:00.0, 2619 MHz, 1980 MHz\n\
         00000000:18:00.0, 2619 MHz, 1965 MHz\n\
         00000000:18:00.0, 2619 MHz, 1950 MHz\n\
         00000000:18:00.0, 1593 MHz, 1980 MHz\n\
         00000000:18:00.0, 1593 MHz, 1965 MHz\n\
         00000000:18:00.0, 1593 MHz, 1950 MHz\n\
         00000000:2A:00.0, 2619 MHz, 1980 MHz\n"
    );
}

#[test]
fn remapped_rows_one_row_per_gpu() {
    let out = nvq_ok(
        &scenario("modes_edge.toml"),
        &[
            "--query-remapped-rows=gpu_serial,remapped_rows.correctable,remapped_rows.uncorrectable,remapped_rows.pending,remapped_rows.failure",
            "--format=csv",
        ],
    );
    assert_eq!(
        out,
        "gpu_serial, remapped_rows.correctable, remapped_rows.uncorrectable, remapped_rows.pending, remapped_rows.failure\n\
         1650000000001, 3, 1, Yes, No\n\
         1650000000002, [N/A], [N/A], [N/A], [N/A]\n"
    );
}

#[test]
fn retired_pages_one_row_per_page() {
    let out = nvq_ok(
        &scenario("modes_edge.toml"),
        &[
            "--query-retired-pages=gpu_serial,retired_pages.address,retired_pages.timestamp,retired_pages.cause",
            "--format=csv,noheader",
            "-i",
            "0",
        ],
    );
    assert_eq!(
        out,
        "1650000000001, 0x00000000001A2B3C, 1700000000, Single Bit ECC\n\
         1650000000001, 0x00000000004D5E6F, 1700000100, Single Bit ECC\n\
         1650000000001, [N/A], [N/A], Double Bit ECC\n"
    );
}

#[test]
fn accounted_apps_rows_and_units() {
    let out = nvq_ok(
        &scenario("modes_edge.toml"),
        &[
            "--query-accounted-apps=pid,gpu_util,mem_util,max_memory_usage,time",
            "--format=csv",
        ],
    );
    assert_eq!(
        out,
        "pid, gpu_utilization [%], mem_utilization [%], max_memory_usage [MiB], time [ms]\n\
         4001, 71 %, 8 %, 538 MiB, 153712 ms\n\
         4002, 99 %, 13 %, 14410 MiB, 0 ms\n"
    );
}

#[test]
fn list_and_version_reject_queries() {
    let out = run(
        &scenario("modes_h200_load.toml"),
        &["-L", "--query-gpu=name", "--format=csv"],
    );
    assert_eq!(out.code, Some(2));
}

/// A scenario with one GPU whose single process has the given PID.
fn one_process(dir: &Path, pid: u32) -> PathBuf {
    let p = dir.join("proc.toml");
    std::fs::write(
        &p,
        format!(
            "driver_version = \"590.48.01\"\n\
             [[device]]\nname = \"NVIDIA H200\"\nuuid = \"GPU-00000000-0000-0000-0000-000000000001\"\n\
             memory = {{ total = 85899345920, used = 1073741824 }}\n\
             [[device.process]]\npid = {pid}\nname = \"sleep\"\nused_memory = 1073741824\n"
        ),
    )
    .unwrap();
    p
}

fn whoami() -> String {
    let out = std::process::Command::new("id")
        .arg("-un")
        .output()
        .unwrap();
    String::from_utf8(out.stdout).unwrap().trim().to_string()
}

#[test]
fn proc_extension_fields_for_a_live_process() {
    let mut child = std::process::Command::new("sleep")
        .arg("3141")
        .spawn()
        .unwrap();
    // Wait until the child's /proc entry shows the new program (under heavy
    // load the kernel may publish it a moment after spawn returns).
    for _ in 0..200 {
        let cmd = std::fs::read(format!("/proc/{}/cmdline", child.id())).unwrap_or_default();
        if cmd.starts_with(b"sleep\0") {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    let dir = tempfile::tempdir().unwrap();
    let sc = one_process(dir.path(), child.id());
    let in_init_ns = std::fs::read_link("/proc/self/ns/pid")
        .map(|l| l.to_string_lossy() == "pid:[4026531836]")
        .unwrap_or(false);
    let host_proc: &[(&str, &str)] = if in_init_ns {
        &[]
    } else {
        &[("NVQ_HOST_PROC", "/proc")]
    };
    let mut c = sim_command(
        Some(&sc),
        &[
            "--query-compute-apps=pid,local_pid,user,command_line,container_id,used_gpu_memory.percent",
            "--format=csv,noheader",
        ],
    );
    c.envs(host_proc.iter().copied());
    let run = ran(c);
    let _ = child.kill();
    let _ = child.wait();
    let out = run.ok();
    let cg = std::fs::read_to_string(format!("/proc/{}/cgroup", std::process::id())).unwrap();
    let r = &rows(&out)[0];
    let pid = child.id().to_string();
    assert_eq!(r[0], pid);
    assert_eq!(r[1], pid, "same namespace: local PID = PID");
    assert_eq!(r[2], whoami());
    assert_eq!(r[3], "sleep 3141");
    if !cg.lines().any(|l| {
        l.contains("docker")
            || l.contains("containerd")
            || l.contains("crio")
            || l.contains("libpod")
    }) {
        assert_eq!(r[4], "[N/A]", "not in a container");
    }
    assert_eq!(r[5], "1.25 %");
}

#[test]
fn proc_fields_of_an_exited_process_say_not_found() {
    // A PID far above pid_max cannot belong to a live process.
    let dir = tempfile::tempdir().unwrap();
    let sc = one_process(dir.path(), 999_999_999);
    let mut c = sim_command(
        Some(&sc),
        &[
            "--query-compute-apps=pid,process_name,local_pid,user,command_line",
            "--format=csv,noheader",
        ],
    );
    c.env("NVQ_HOST_PROC", "/proc");
    let out = ran(c).ok();
    assert_eq!(
        out,
        "999999999, sleep, [Not Found], [Not Found], [Not Found]\n"
    );
}

#[test]
fn proc_fields_without_a_host_proc_say_na() {
    // A directory that is not a procfs: nvq cannot map PIDs and says so.
    let dir = tempfile::tempdir().unwrap();
    let sc = one_process(dir.path(), std::process::id());
    let mut c = sim_command(
        Some(&sc),
        &[
            "--query-compute-apps=local_pid,user,command_line,container_id",
            "--format=csv,noheader",
        ],
    );
    c.env("NVQ_HOST_PROC", dir.path());
    let out = ran(c).ok();
    assert_eq!(out, "[N/A], [N/A], [N/A], [N/A]\n");
}

/// Inside a new PID namespace (with its own /proc), `local_pid` is the
/// namespace-local PID of a process started there, given the host's /proc;
/// without it, nvq says it cannot map the PID.
#[test]
fn local_pid_inside_a_pid_namespace() {
    if common::require_tool("unshare").is_none() || !common::require_root("unshare --mount --pid") {
        return;
    }
    // Root in a container may still lack the capability.
    let probe = std::process::Command::new("unshare")
        .args(["--mount", "--pid", "--fork", "true"])
        .output()
        .unwrap();
    if !probe.status.success() {
        common::cannot_run(
            common::REQUIRE_ROOT,
            "unshare --mount --pid is not permitted here, even as root",
        );
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let hostproc = d.join("hostproc");
    std::fs::create_dir(&hostproc).unwrap();
    let nvq_bin = common::nvq_bin();
    let token = format!("{}.5", 40_000 + std::process::id() % 10_000);
    // In the namespace: keep the host's /proc reachable at hostproc, mount
    // the namespace's own /proc, start sleep, publish its local PID, wait for
    // the scenario, then run nvq with and without the host /proc.
    let script = format!(
        r#"set -e
mount --bind /proc {hp}
mount -t proc proc /proc
sleep {token} &
echo $! > {d}/local.tmp && mv {d}/local.tmp {d}/local
i=0; while [ ! -f {d}/go ] && [ $i -lt 600 ]; do sleep 0.05; i=$((i+1)); done
NVML_SIM_SCENARIO={d}/proc.toml NVQ_HOST_PROC={hp} {nvq} --nvml-lib {lib} --query-compute-apps=pid,local_pid,command_line --format=csv,noheader > {d}/with 2>&1 || true
NVML_SIM_SCENARIO={d}/proc.toml {nvq} --nvml-lib {lib} --query-compute-apps=pid,local_pid,command_line --format=csv,noheader > {d}/without 2>&1 || true
kill $! || true
"#,
        hp = hostproc.display(),
        d = d.display(),
        nvq = nvq_bin.display(),
        lib = sim_lib().display(),
    );
    let mut ns = std::process::Command::new("unshare")
        .args([
            "--mount",
            "--propagation",
            "private",
            "--pid",
            "--fork",
            "sh",
            "-c",
            &script,
        ])
        .spawn()
        .unwrap();
    let local_file = d.join("local");
    for _ in 0..600 {
        if local_file.exists() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let local: u32 = std::fs::read_to_string(&local_file)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    // Find the sleep's host PID by its unique argument.
    let needle = format!("sleep\0{token}\0");
    let host_pid: u32 = std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .find(|p| std::fs::read(format!("/proc/{p}/cmdline")).is_ok_and(|c| c == needle.as_bytes()))
        .expect("host PID of the namespaced sleep");
    assert_ne!(host_pid, local, "the namespace renumbers PIDs");
    one_process(d, host_pid);
    std::fs::write(d.join("go"), "").unwrap();
    let status = ns.wait().unwrap();
    assert!(status.success());
    let with = std::fs::read_to_string(d.join("with")).unwrap();
    assert_eq!(with, format!("{host_pid}, {local}, sleep {token}\n"));
    let without = std::fs::read_to_string(d.join("without")).unwrap();
    assert_eq!(without, format!("{host_pid}, [N/A], [N/A]\n"));
}
