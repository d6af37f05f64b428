//! A unified-memory GPU (DGX Spark's GB10): NVML answers NOT_SUPPORTED for
//! its memory. Under the name `nvidia-smi` nvq prints what nvidia-smi
//! prints there (public captures, cited in docs/compat.md); under its own
//! name, its views show the system's memory (`/proc/meminfo`, here
//! `NVQ_MEMINFO`'s file) and mark it as derived, in every format.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;
use common::*;
use std::path::{Path, PathBuf};
use std::process::Output;

/// The GB10 running one CUDA program (`gb10_580_busy.toml`).
fn gb10() -> PathBuf {
    scenario("gb10_580_busy.toml")
}

/// The system's memory of the tests' GB10: MemTotal 127600748 kB,
/// MemAvailable 118566368 kB (a public DGX Spark's, nvitop pull request 208).
fn meminfo() -> PathBuf {
    repo_root().join("tests/fixtures/meminfo_gb10.txt")
}

/// MiB as nvq prints bytes: rounded up.
const TOTAL_MIB: u64 = 124_611;
const USED_MIB: u64 = 8_823;
const FREE_MIB: u64 = 115_788;

/// nvq (or the `nvidia-smi` link to it, `as_smi`) on `scenario` with
/// `NVQ_MEMINFO` naming the fixture.
fn run(scenario: &Path, as_smi: bool, args: &[&str]) -> Output {
    let dir = tempfile::tempdir().unwrap();
    let bin = if as_smi {
        let link = dir.path().join("nvidia-smi");
        std::os::unix::fs::symlink(nvq_bin(), &link).unwrap();
        link
    } else {
        nvq_bin()
    };
    command(&bin)
        .args(args)
        .env("NVQ_NVML_LIB", sim_lib())
        .env("NVML_SIM_SCENARIO", scenario)
        .env("NVQ_MEMINFO", meminfo())
        .output()
        .unwrap()
}

fn ok(o: &Output) -> String {
    assert!(
        o.status.success(),
        "{:?}: {}{}",
        o.status,
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8(o.stdout.clone()).unwrap()
}

#[test]
fn nvidia_smi_prints_no_memory_for_a_unified_memory_gpu() {
    // Public captures of GB10s: `[N/A], [N/A], [N/A], 0 %, 11.17 W, 35`
    // for memory.total,used,free,utilization.gpu,power.draw,temperature.gpu
    // (nvitop pull request 208, 580.173.02); `[N/A], [N/A], 0` for
    // memory.used,memory.total,utilization.memory with nounits
    // (llama-swap issue 782); `0, NVIDIA GB10, [N/A], [N/A]` for
    // index,name,memory.total,memory.free (unsloth pull request 10703).
    let out = ok(&run(
        &gb10(),
        true,
        &[
            "--query-gpu=memory.total,memory.used,memory.free,utilization.gpu,power.draw,temperature.gpu",
            "--format=csv",
        ],
    ));
    assert_eq!(
        out,
        "memory.total [MiB], memory.used [MiB], memory.free [MiB], utilization.gpu [%], \
         power.draw [W], temperature.gpu\n[N/A], [N/A], [N/A], 96 %, 12.00 W, 54\n"
    );
    let out = ok(&run(
        &gb10(),
        true,
        &[
            "--query-gpu=memory.used,memory.total,utilization.memory,power.limit",
            "--format=csv,noheader,nounits",
        ],
    ));
    assert_eq!(out, "[N/A], [N/A], 0, [N/A]\n");
    // nvq's mark is nvq's own: nvidia-smi knows no such field.
    let o = run(
        &gb10(),
        true,
        &["--query-gpu=memory.derived", "--format=csv"],
    );
    assert_eq!(o.status.code(), Some(2));
    // Its processes keep the memory NVML gives each (llama-swap issue 782).
    let out = ok(&run(
        &gb10(),
        true,
        &[
            "--query-compute-apps=pid,process_name,used_memory",
            "--format=csv,noheader",
        ],
    ));
    assert_eq!(out, "5459, python3, 2079 MiB\n");
}

#[test]
fn the_detail_report_has_no_memory_for_it() {
    // No public `-q` of a GB10 was found: a failed read prints N/A, as on
    // every other GPU (unverified for this one).
    let out = ok(&run(&gb10(), true, &["-q", "-d", "MEMORY"]));
    let fb: Vec<&str> = out
        .lines()
        .skip_while(|l| l.trim() != "FB Memory Usage")
        .skip(1)
        .take(4)
        .collect();
    assert_eq!(fb.len(), 4, "{out}");
    for (line, label) in fb.iter().zip(["Total", "Reserved", "Used", "Free"]) {
        assert_eq!(line.split(':').next().unwrap().trim(), label, "{out}");
        assert_eq!(line.split(':').nth(1).unwrap().trim(), "N/A", "{out}");
    }
}

#[test]
fn query_gpu_derives_only_with_its_mark() {
    // Under nvq's name too, --query-gpu prints nvidia-smi's bytes...
    let out = ok(&run(
        &gb10(),
        false,
        &["--query-gpu=memory.used", "--format=csv,noheader"],
    ));
    assert_eq!(out, "[N/A]\n");
    // ...unless the query asks for the mark: the values never go without it.
    let out = ok(&run(
        &gb10(),
        false,
        &[
            "--query-gpu=memory.used,memory.total,memory.derived",
            "--format=csv,noheader",
        ],
    ));
    assert_eq!(out, format!("{USED_MIB} MiB, {TOTAL_MIB} MiB, Yes\n"));
}

#[test]
fn mem_shows_the_systems_memory_marked_in_every_format() {
    let csv = ok(&run(&gb10(), false, &["mem", "--format=csv"]));
    assert_eq!(
        csv,
        format!(
            "index, name, memory.total [MiB], memory.used [MiB], memory.free [MiB], \
             memory.used.percent [%], memory.derived\n\
             0, NVIDIA GB10, {TOTAL_MIB} MiB, {USED_MIB} MiB, {FREE_MIB} MiB, 7.08 %, Yes\n"
        )
    );
    let json = ok(&run(&gb10(), false, &["mem", "--format=json"]));
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    let gpu = &v.as_array().unwrap()[0];
    assert_eq!(gpu["memory.derived"], "Yes", "{json}");
    assert_eq!(gpu["memory.total"], TOTAL_MIB, "{json}");
    let ndjson = ok(&run(&gb10(), false, &["mem", "--format=ndjson"]));
    let v: serde_json::Value = serde_json::from_str(ndjson.trim()).unwrap();
    assert_eq!(v["memory.derived"], "Yes", "{ndjson}");
    let table = ok(&run(&gb10(), false, &["mem", "--format=table"]));
    let last = table.lines().last().unwrap();
    assert!(
        last.ends_with("Yes") && last.contains(&format!("{USED_MIB} MiB")),
        "{table}"
    );
    let prom = ok(&run(&gb10(), false, &["mem", "--format=prometheus"]));
    assert!(
        prom.lines()
            .any(|l| l.starts_with("nvq_gpu_info{") && l.contains("memory_derived=\"Yes\"")),
        "{prom}"
    );
    assert!(
        prom.lines().any(|l| l.starts_with("nvq_memory_used_bytes{")
            && l.ends_with(&format!(" {}", (127_600_748u64 - 118_566_368) * 1024))),
        "{prom}"
    );
    // A GPU with memory of its own: NVML's, marked No.
    let h100 = ok(&run(
        &scenario("h100_590_idle.toml"),
        false,
        &["mem", "--format=csv,noheader", "-i", "0"],
    ));
    assert!(h100.ends_with(", No\n"), "{h100}");
}

#[test]
fn without_the_systems_memory_it_stays_unknown() {
    // /proc/meminfo unreadable (here: a file that is not one): NVML's
    // answer stands, unmarked.
    let dir = tempfile::tempdir().unwrap();
    let out = command(nvq_bin())
        .args(["mem", "--format=csv,noheader"])
        .env("NVQ_NVML_LIB", sim_lib())
        .env("NVML_SIM_SCENARIO", gb10())
        .env("NVQ_MEMINFO", dir.path().join("none"))
        .output()
        .unwrap();
    assert_eq!(ok(&out), "0, NVIDIA GB10, [N/A], [N/A], [N/A], [N/A], No\n");
}

#[test]
fn stat_marks_the_systems_memory() {
    let out = ok(&run(&gb10(), false, &["stat"]));
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 2, "{out}");
    assert!(
        lines[0].starts_with(&format!(
            "[0] NVIDIA GB10 |  54°C,  96 % |   {USED_MIB} / {TOTAL_MIB} MiB* | "
        )),
        "{out}"
    );
    assert!(lines[0].ends_with(":python3/5459(2079M)"), "{out}");
    assert_eq!(lines[1], nvq_core::render::stat::DERIVED_NOTE);
}

#[test]
fn ps_keeps_each_processs_own_memory() {
    // A process's memory is NVML's on this GPU too: nothing to derive.
    let out = ok(&run(&gb10(), false, &["ps", "--format=csv,noheader"]));
    let line = out.lines().next().unwrap();
    assert!(
        line.starts_with("0, 5459, ") && line.contains(", 2079 MiB, "),
        "{out}"
    );
}

/// `nvq serve ARGS` on the GB10, killed when dropped.
struct Node {
    child: std::process::Child,
    addr: String,
}

impl Node {
    fn start(args: &[&str]) -> Node {
        use std::io::{BufRead, BufReader};
        let mut child = command(nvq_bin())
            .args(["serve", "--web.listen-address=127.0.0.1:0"])
            .args(args)
            .env("NVQ_NVML_LIB", sim_lib())
            .env("NVML_SIM_SCENARIO", gb10())
            .env("NVQ_MEMINFO", meminfo())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
        let addr = lines
            .by_ref()
            .map_while(Result::ok)
            .find_map(|l| {
                let rest = l.split("listening on ").nth(1)?.split("://").nth(1)?;
                rest.split('/').next().map(str::to_string)
            })
            .expect("a listening line");
        Node { child, addr }
    }
}

impl Drop for Node {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// One scrape of `nvq serve --profile=PROFILE` on the GB10: the exposition.
fn scrape(profile: &str) -> String {
    use std::io::{Read, Write};
    let node = Node::start(&[&format!("--profile={profile}")]);
    let mut s = std::net::TcpStream::connect(&node.addr).unwrap();
    s.set_read_timeout(Some(std::time::Duration::from_secs(30)))
        .unwrap();
    s.write_all(b"GET /metrics HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
        .unwrap();
    let mut answer = String::new();
    let _ = s.read_to_string(&mut answer);
    answer
        .split_once("\r\n\r\n")
        .map(|(_, body)| body.to_string())
        .unwrap_or_default()
}

#[test]
fn a_node_reads_its_own_gb10_for_the_views_of_another_machine() {
    let node = Node::start(&[]);
    // This machine's NVML is a plain H100 one: the marks come from the node.
    let here = scenario("h100_590_idle.toml");
    let hosts = format!("--hosts={}", node.addr);
    let mem = ok(&run(
        &here,
        false,
        &["mem", &hosts, "--format=csv,noheader"],
    ));
    assert!(
        mem.contains(&format!(", {USED_MIB} MiB, ")) && mem.trim_end().ends_with(", Yes"),
        "{mem}"
    );
    let stat = ok(&run(&here, false, &["stat", &hosts]));
    assert!(stat.contains(&format!("{TOTAL_MIB} MiB* |")), "{stat}");
    assert_eq!(
        stat.lines().last(),
        Some(nvq_core::render::stat::DERIVED_NOTE),
        "{stat}"
    );
    let top = ok(&run(&here, false, &["top", "--once", &hosts]));
    assert!(top.contains("8.6G/122G*"), "{top}");
}

#[test]
fn serve_marks_it_in_the_nvq_profile_and_the_exporters_stay_as_they_are() {
    let used = (127_600_748u64 - 118_566_368) * 1024;
    let nvq = scrape("nvq");
    let sample = |name: &str| {
        nvq.lines()
            .find(|l| l.starts_with(&format!("{name}{{")))
            .map(str::to_string)
    };
    assert!(
        sample("nvq_memory_used_bytes").is_some_and(|l| l.ends_with(&format!(" {used}"))),
        "{nvq}"
    );
    assert!(
        sample("nvq_gpu_info").is_some_and(|l| l.contains("memory_derived=\"Yes\"")),
        "{nvq}"
    );
    // dcgm-exporter registers no framebuffer field on a GB10, and
    // nvidia_gpu_exporter reads nvidia-smi's [N/A]: neither has a series.
    let dcgm = scrape("dcgm");
    assert!(dcgm.contains("DCGM_FI_DEV_GPU_TEMP"), "{dcgm}");
    assert!(!dcgm.contains("DCGM_FI_DEV_FB_USED{"), "{dcgm}");
    let exporter = scrape("nvidia_gpu_exporter");
    assert!(
        exporter.contains("nvidia_smi_temperature_gpu"),
        "{exporter}"
    );
    assert!(
        !exporter.contains("nvidia_smi_memory_used_bytes{"),
        "{exporter}"
    );
}

#[test]
fn top_marks_the_systems_memory() {
    let out = ok(&run(&gb10(), false, &["top", "--once"]));
    let line = out
        .lines()
        .find(|l| l.contains("GB10") && l.contains('█'))
        .unwrap_or_else(|| panic!("{out}"));
    assert!(line.contains("8.6G/122G*"), "{out}");
    assert!(
        out.lines()
            .any(|l| l.starts_with("GPU 0") && l.contains("* memory: the system's")),
        "{out}"
    );
    // A GPU with memory of its own has no mark.
    let h100 = ok(&run(
        &scenario("h100_590_idle.toml"),
        false,
        &["top", "--once"],
    ));
    assert!(!h100.contains("G*") && !h100.contains("system's"), "{h100}");
}

#[test]
fn plot_says_a_logs_memory_was_the_systems() {
    let dir = tempfile::tempdir().unwrap();
    let svg = |log: &Path| {
        let out = dir.path().join("m.svg");
        let o = command(nvq_bin())
            .args(["plot", log.to_str().unwrap(), "-o", out.to_str().unwrap()])
            .output()
            .unwrap();
        ok(&o);
        std::fs::read_to_string(out).unwrap()
    };
    // nvq mem's NDJSON log, and a CSV log of a query with the mark.
    let query = "--query-gpu=timestamp,index,memory.used,memory.total,memory.derived";
    for (what, format) in [("mem", "ndjson"), (query, "csv")] {
        let log = |scenario: &Path, name: &str| {
            let log = dir.path().join(format!("{name}.{format}"));
            let f = format!("--format={format}");
            let args = [what, "-lms", common::VALUE_LMS, "--count", "3", &f, "-f"];
            let mut args = args.to_vec();
            args.push(log.to_str().unwrap());
            ok(&run(scenario, false, &args));
            log
        };
        let picture = svg(&log(&gb10(), "gb10"));
        assert!(
            picture.contains("memory.derived Yes") && picture.contains("MemTotal - MemAvailable"),
            "{format}: {picture}"
        );
        // A GPU with memory of its own: no such note.
        let own = svg(&log(&scenario("h100_590_idle.toml"), "own"));
        assert!(!own.contains("memory.derived"), "{format}");
    }
}

#[test]
fn run_reports_the_systems_memory_marked() {
    // The GB10 with a live process: the job (nvml-sim/workload.py) holds 2 GiB.
    let live = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(gb10()).unwrap();
    let sc = tempfile::Builder::new().suffix(".toml").tempfile().unwrap();
    std::fs::write(
        sc.path(),
        format!("{text}\n[live]\ndir = \"{}\"\n", live.path().display()),
    )
    .unwrap();
    let job = |report: &str| {
        let wl = repo_root().join("nvml-sim/workload.py");
        let (wl, dir) = (wl.to_str().unwrap(), live.path().to_str().unwrap());
        let args = [
            "run", "-lms", "50", report, "--", "python3", wl, "--dir", dir,
        ];
        let mut args = args.to_vec();
        args.extend(["--start", "2GiB", "--duration", "1.5"]);
        let o = run(sc.path(), false, &args);
        assert!(o.status.success(), "{o:?}");
        String::from_utf8(o.stderr).unwrap()
    };
    let e = job("--report=text");
    let first = e.lines().next().unwrap_or("");
    assert!(
        first.starts_with("nvq run: peak 2.0 GiB of 121.7 GiB (the system's memory) on GPU 0 at "),
        "{e}"
    );
    assert!(
        e.lines()
            .any(|l| l.trim_start().starts_with("its memory is the system's")),
        "{e}"
    );
    let json = job("--report=json");
    let v: serde_json::Value = serde_json::from_str(&json).unwrap_or_else(|_| panic!("{json}"));
    let gpu = &v["track"]["gpus"]["0"];
    assert_eq!(gpu["memory_derived"], true, "{json}");
    assert_eq!(gpu["total"], 127_600_748u64 * 1024, "{json}");
}
