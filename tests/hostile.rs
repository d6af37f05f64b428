//! nvq against a hostile neighbour and a full disk (issue #16): planted
//! symlinks, non-regular `-f` targets, control characters in process names
//! and argv, duplicate Prometheus series (checked by node_exporter itself
//! when it is installed), ENOSPC on a small tmpfs, NaN/inf readings and a
//! closed stdout.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;
use common::{run, scenario, sim_command, sim_lib, NO_ARGS};

use std::fs;
use std::io::{Read, Write};
use std::os::unix::fs::{FileTypeExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::LazyLock;
use std::time::{Duration, Instant};

/// The scenario of most of these tests: processes with hostile names.
static HOSTILE: LazyLock<PathBuf> = LazyLock::new(|| scenario("hostile.toml"));

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

// ---- 1. the temporary file of -f --format=prometheus ----

/// The name nvq used to give its temporary file: `.NAME.nvq-PID.tmp`.
fn old_tmp_name(dir: &Path, name: &str, pid: u32) -> PathBuf {
    dir.join(format!(".{name}.nvq-{pid}.tmp"))
}

#[test]
fn a_link_planted_at_the_temporary_name_during_a_loop_is_never_followed() {
    let dir = tempfile::tempdir().unwrap();
    let victim = dir.path().join("victim");
    fs::write(&victim, "precious\n").unwrap();
    let target = dir.path().join("gpu.prom");
    let mut child = sim_command(
        Some(&scenario("hostile.toml")),
        &[
            "--query-gpu=index,memory.used",
            "--format=prometheus",
            "-lms",
            "50",
            "-f",
        ],
    )
    .arg(&target)
    .stdout(Stdio::null())
    .stderr(Stdio::null())
    .spawn()
    .unwrap();
    std::os::unix::fs::symlink(&victim, old_tmp_name(dir.path(), "gpu.prom", child.id())).unwrap();
    // Until a sample with a value is in place (a busy machine may take
    // seconds to start nvq, and a sample past its 50 ms deadline has no
    // value to write), then a few more samples.
    let read = || fs::read_to_string(&target).unwrap_or_default();
    let until = std::time::Instant::now() + Duration::from_secs(60);
    while !read().contains("nvq_memory_used_bytes") && std::time::Instant::now() < until {
        std::thread::sleep(Duration::from_millis(20));
    }
    let seen = read();
    std::thread::sleep(Duration::from_millis(400));
    let _ = child.kill();
    let _ = child.wait();
    assert_eq!(fs::read_to_string(&victim).unwrap(), "precious\n");
    let meta = fs::symlink_metadata(&target).unwrap();
    assert!(
        meta.is_file(),
        "the target must be a regular file, not the planted link"
    );
    assert!(seen.contains("nvq_memory_used_bytes"), "{seen}");
    // Still nvq's own whole sample (perhaps one whose value was late).
    let text = fs::read_to_string(&target).unwrap();
    assert!(text.contains("# TYPE nvq_gpu_info gauge"), "{text}");
}

// ---- 2. what -f --format=prometheus may replace ----

fn prom_to(path: &Path, lib: Option<&Path>) -> Output {
    let mut c = common::command(common::nvq_bin());
    c.arg("--nvml-lib")
        .arg(lib.map_or_else(sim_lib, Path::to_path_buf))
        .args(["--query-gpu=index,memory.used", "--format=prometheus", "-f"])
        .arg(path)
        .env("NVML_SIM_SCENARIO", scenario("hostile.toml"));
    c.output().unwrap()
}

fn assert_refused(path: &Path, what: &str) {
    let before = fs::symlink_metadata(path).unwrap().file_type();
    // A library that cannot be loaded: the refusal must come first.
    let out = prom_to(path, Some(Path::new("/nonexistent/libnvidia-ml.so.1")));
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(22), "{what}: {err}");
    assert!(err.contains("not a regular file"), "{what}: {err}");
    assert!(err.contains(&path.display().to_string()), "{what}: {err}");
    let after = fs::symlink_metadata(path).unwrap().file_type();
    assert_eq!(before, after, "{what} was replaced");
    let out = prom_to(path, None);
    assert_eq!(out.status.code(), Some(22), "{what}");
    assert_eq!(
        fs::symlink_metadata(path).unwrap().file_type(),
        after,
        "{what}"
    );
}

#[test]
fn prometheus_refuses_fifos_sockets_directories_and_links_to_them() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("fifo.prom");
    let c = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: `c` is a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    assert_refused(&fifo, "a FIFO");
    let sock = dir.path().join("sock.prom");
    let _listener = std::os::unix::net::UnixListener::bind(&sock).unwrap();
    assert_refused(&sock, "a socket");
    let link = dir.path().join("link.prom");
    std::os::unix::fs::symlink(&fifo, &link).unwrap();
    assert_refused(&link, "a link to a FIFO");
    let sub = dir.path().join("sub.prom");
    fs::create_dir(&sub).unwrap();
    let out = prom_to(&sub, Some(Path::new("/nonexistent/libnvidia-ml.so.1")));
    assert_eq!(out.status.code(), Some(22), "{}", text(&out.stderr));
}

#[test]
fn prometheus_refuses_a_device_node() {
    if !common::require_root("mknod") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let dev = dir.path().join("null.prom");
    let st = Command::new("mknod")
        .arg(&dev)
        .args(["c", "1", "3"])
        .status()
        .unwrap();
    assert!(st.success());
    assert_refused(&dev, "a character device");
    assert!(fs::symlink_metadata(&dev)
        .unwrap()
        .file_type()
        .is_char_device());
}

#[test]
fn a_link_to_a_regular_file_updates_the_file_and_keeps_the_link() {
    let dir = tempfile::tempdir().unwrap();
    fs::create_dir(dir.path().join("real")).unwrap();
    let real = dir.path().join("real/gpu.prom");
    fs::write(&real, "old\n").unwrap();
    fs::set_permissions(&real, fs::Permissions::from_mode(0o644)).unwrap();
    let link = dir.path().join("gpu.prom");
    std::os::unix::fs::symlink("real/gpu.prom", &link).unwrap();
    let out = prom_to(&link, None);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());
    assert!(fs::read_to_string(&real)
        .unwrap()
        .contains("nvq_memory_used_bytes"));
    assert_eq!(
        fs::read_dir(dir.path().join("real")).unwrap().count(),
        1,
        "no temporary file left"
    );
}

#[test]
fn plain_csv_to_dev_stdout_still_streams() {
    let out = run(
        &HOSTILE,
        &[
            "--query-gpu=index",
            "--format=csv,noheader",
            "-f",
            "/dev/stdout",
        ],
    );
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    assert_eq!(out.stdout, "0\n1\n");
}

// ---- 3. control characters ----

const FORGED: &str = "x\n4242, root, 80000 MiB";

fn assert_no_controls(what: &str, s: &str) {
    let bad: Vec<char> = s
        .chars()
        .filter(|&c| c != '\n' && (c < ' ' || c == '\u{7f}' || ('\u{80}'..='\u{9f}').contains(&c)))
        .collect();
    assert!(bad.is_empty(), "{what}: control characters {bad:?} in\n{s}");
}

#[test]
fn control_characters_in_process_names_never_break_a_row() {
    let q = "--query-compute-apps=pid,process_name,used_memory";
    for (format, lines) in [
        ("csv", 4),
        ("csv,noheader", 3),
        ("csv,nounits", 4),
        ("table", 4),
    ] {
        let out = run(&HOSTILE, &[q, &format!("--format={format}")]);
        let s = out.stdout;
        assert_eq!(out.code, Some(0), "{format}");
        assert_eq!(s.lines().count(), lines, "{format}: forged rows in\n{s}");
        assert_no_controls(format, &s);
        assert!(s.contains("x?4242, root, 80000 MiB"), "{format}: {s}");
        assert!(s.contains("evil?over?[2J?]0;title??end"), "{format}: {s}");
    }
    // The summary table lists the processes too.
    let s = run(&HOSTILE, NO_ARGS).stdout;
    assert_no_controls("summary", &s);
    assert!(s.contains("x?4242, root"), "{s}");
    // JSON and Prometheus escape; they keep the name exact.
    let json: serde_json::Value =
        serde_json::from_str(&run(&HOSTILE, &[q, "--format=json"]).stdout).unwrap();
    assert_eq!(json[0]["process_name"], FORGED);
    let prom = run(&HOSTILE, &[q, "--format=prometheus"]).stdout;
    assert!(
        prom.contains("process_name=\"x\\n4242, root, 80000 MiB\""),
        "{prom}"
    );
}

#[test]
fn control_characters_in_argv_never_break_a_row() {
    use std::os::unix::process::CommandExt;
    let mut child = Command::new("sleep")
        .arg0(FORGED)
        .arg("3141")
        .spawn()
        .unwrap();
    for _ in 0..200 {
        let cmd = fs::read(format!("/proc/{}/cmdline", child.id())).unwrap_or_default();
        if cmd.starts_with(b"x\n") {
            break;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    let dir = tempfile::tempdir().unwrap();
    let sc = dir.path().join("argv.toml");
    fs::write(
        &sc,
        format!(
            "driver_version = \"590.48.01\"\n[[device]]\nname = \"GPU\"\n\
             memory = {{ total = 85899345920, used = 1 }}\n\
             [[device.process]]\npid = {}\nname = \"sleep\"\nused_memory = 1048576\n",
            child.id()
        ),
    )
    .unwrap();
    let mut outs = Vec::new();
    for format in ["csv,noheader", "table,noheader"] {
        let out = sim_command(
            Some(&sc),
            &[
                "--query-compute-apps=pid,command_line,used_memory",
                &format!("--format={format}"),
            ],
        )
        .env("NVQ_HOST_PROC", "/proc")
        .output()
        .unwrap();
        outs.push((format, text(&out.stdout)));
    }
    let _ = child.kill();
    let _ = child.wait();
    for (format, s) in outs {
        assert_eq!(s.lines().count(), 1, "{format}: forged rows in\n{s}");
        assert!(s.contains("x?4242, root, 80000 MiB 3141"), "{format}: {s}");
    }
}

// ---- 4. unique Prometheus series, checked by node_exporter ----

/// Every field of a query mode, from `--help-query-<mode>`.
fn all_fields(mode: &str) -> String {
    let help = run(&HOSTILE, &[&format!("--help-query-{mode}")]).stdout;
    let names: Vec<&str> = help
        .lines()
        .filter_map(|l| l.strip_prefix('"')?.split('"').next())
        .collect();
    assert!(!names.is_empty(), "{mode}: no fields in\n{help}");
    names.join(",")
}

/// The query of every mode, with all its fields, and a few narrow ones.
fn every_mode_query() -> Vec<String> {
    let mut q: Vec<String> = [
        "gpu",
        "compute-apps",
        "accounted-apps",
        "retired-pages",
        "remapped-rows",
        "supported-clocks",
    ]
    .iter()
    .map(|m| format!("--query-{m}={}", all_fields(m)))
    .collect();
    q.push("--query-compute-apps=used_memory".into());
    q.push("--query-accounted-apps=gpu_util".into());
    q.push("--query-supported-clocks=memory".into());
    q.push("--query-retired-pages=retired_pages.timestamp".into());
    q.push("--query-remapped-rows=remapped_rows.correctable".into());
    q
}

fn prometheus_of(query: &str) -> String {
    let out = run(&HOSTILE, &[query, "--format=prometheus"]);
    assert_eq!(out.code, Some(0), "{query}: {}", out.stderr);
    out.stdout
}

/// Series (name and labels) printed more than once.
fn duplicate_series(expo: &str) -> Vec<String> {
    let mut seen = std::collections::HashSet::new();
    expo.lines()
        .filter(|l| !l.starts_with('#'))
        .filter_map(|l| l.rsplit_once(' ').map(|(s, _)| s.to_string()))
        .filter(|s| !seen.insert(s.clone()))
        .collect()
}

#[test]
fn every_prometheus_series_is_unique_in_every_mode() {
    for q in every_mode_query() {
        let expo = prometheus_of(&q);
        assert!(
            expo.contains("gpu=\"1\""),
            "{q}: rows carry the GPU labels\n{expo}"
        );
        let dups = duplicate_series(&expo);
        assert!(dups.is_empty(), "{q}: duplicate series {dups:?}\n{expo}");
    }
}

/// node_exporter with only the textfile collector, on 127.0.0.1; killed on drop.
struct NodeExporter {
    child: std::process::Child,
    port: u16,
}

impl Drop for NodeExporter {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn start_node_exporter(bin: &Path, dir: &Path) -> NodeExporter {
    for attempt in 0..5u16 {
        let port = 20_000 + (std::process::id() % 20_000) as u16 + attempt * 7;
        let child = Command::new(bin)
            .arg(format!("--web.listen-address=127.0.0.1:{port}"))
            .arg("--collector.disable-defaults")
            .arg("--collector.textfile")
            .arg(format!("--collector.textfile.directory={}", dir.display()))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut ne = NodeExporter { child, port };
        let start = Instant::now();
        while start.elapsed() < Duration::from_secs(10) {
            if scrape(port).is_some() {
                return ne;
            }
            if ne.child.try_wait().unwrap().is_some() {
                break;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        let _ = ne.child.kill();
    }
    panic!("node_exporter did not start");
}

fn scrape(port: u16) -> Option<String> {
    let mut s = std::net::TcpStream::connect(("127.0.0.1", port)).ok()?;
    s.set_read_timeout(Some(Duration::from_secs(10))).ok()?;
    s.write_all(b"GET /metrics HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n")
        .ok()?;
    let mut body = String::new();
    s.read_to_string(&mut body).ok()?;
    Some(body)
}

#[test]
fn node_exporter_accepts_the_output_of_every_query_mode() {
    // Debian's prometheus-node-exporter.
    let Some(bin) = common::require_tool("prometheus-node-exporter") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let ne = start_node_exporter(&bin, dir.path());
    for q in every_mode_query() {
        let out = run(
            &HOSTILE,
            &[
                &q,
                "--format=prometheus",
                "-f",
                dir.path().join("nvq.prom").to_str().unwrap(),
            ],
        );
        assert_eq!(out.code, Some(0), "{q}: {}", out.stderr);
        let body = scrape(ne.port).unwrap();
        assert!(
            body.lines().any(|l| l == "node_textfile_scrape_error 0"),
            "{q}: node_exporter rejected the file:\n{}",
            fs::read_to_string(dir.path().join("nvq.prom")).unwrap()
        );
        // node_exporter drops a series it has seen before (and logs it), so
        // every sample written must come back.
        let written = fs::read_to_string(dir.path().join("nvq.prom")).unwrap();
        let count = |s: &str| s.lines().filter(|l| l.starts_with("nvq_")).count();
        assert!(
            body.starts_with("HTTP/1.0 200") || body.starts_with("HTTP/1.1 200"),
            "{q}: {body}"
        );
        assert_eq!(
            count(&body),
            count(&written),
            "{q}: node_exporter dropped series of\n{written}"
        );
    }
}

// ---- 5. a full disk ----

struct Mount(PathBuf);

impl Drop for Mount {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(&self.0).status();
    }
}

#[test]
fn a_full_disk_leaves_whole_samples_and_exit_22() {
    if !common::require_root("mount -t tmpfs") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let mnt = dir.path().join("mnt");
    fs::create_dir(&mnt).unwrap();
    let st = Command::new("mount")
        .args(["-t", "tmpfs", "-o", "size=16k", "tmpfs"])
        .arg(&mnt)
        .status()
        .unwrap();
    if !st.success() {
        // Root in a container may still lack the capability.
        common::cannot_run(
            common::REQUIRE_ROOT,
            "mount -t tmpfs is not permitted here, even as root",
        );
        return;
    }
    let _guard = Mount(mnt.clone());
    let log = mnt.join("log.csv");
    let mut child = sim_command(
        Some(&scenario("loops_8gpu.toml")),
        &[
            "--query-gpu=index,name,uuid,pci.bus_id,memory.used",
            "--format=csv",
            "-lms",
            "1",
            "-f",
        ],
    )
    .arg(&log)
    .stderr(Stdio::piped())
    .spawn()
    .unwrap();
    let start = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if start.elapsed() > Duration::from_secs(60) {
            let _ = child.kill();
            panic!("nvq did not stop on a full disk");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    assert_eq!(status.code(), Some(22), "{err}");
    assert!(err.contains("No space left on device"), "{err}");
    let body = fs::read_to_string(&log).unwrap();
    assert!(
        body.ends_with('\n'),
        "the file ends mid-line: {:?}",
        &body[body.len().saturating_sub(80)..]
    );
    let lines = body.lines().count();
    assert!(
        lines > 1 && (lines - 1) % 8 == 0,
        "{lines} lines: not whole samples of 8 GPUs"
    );
}

// ---- 6. NaN and infinite readings ----

#[test]
fn nan_and_infinite_readings_are_unavailable() {
    let q = "--query-gpu=index,power.draw.instant,power.draw.average";
    let out = run(&HOSTILE, &[q, "--format=csv,noheader"]);
    assert_eq!(out.stdout, "0, [N/A], [N/A]\n1, [N/A], 100.00 W\n");
    let json: serde_json::Value =
        serde_json::from_str(&run(&HOSTILE, &[q, "--format=json"]).stdout).unwrap();
    assert_eq!(json[0]["power.draw.instant"], serde_json::Value::Null);
    assert_eq!(json[0]["_errors"]["power.draw.instant"], "not_finite");
    assert_eq!(json[0]["_errors"]["power.draw.average"], "not_finite");
    assert_eq!(json[1]["_errors"]["power.draw.instant"], "not_finite");
    assert!(json[1]["_errors"].get("power.draw.average").is_none());
    let prom = run(&HOSTILE, &[q, "--format=prometheus"]).stdout;
    assert!(!prom.contains("NaN") && !prom.contains("Inf"), "{prom}");
}

// ---- 7. a stdout that cannot be written ----

/// Run nvq with its stdout closed (`>&-`).
fn closed_stdout(args: &[&str]) -> Output {
    let mut c = common::command("sh");
    c.arg("-c")
        .arg("exec \"$@\" >&-")
        .arg("sh")
        .arg(common::nvq_bin())
        .arg("--nvml-lib")
        .arg(sim_lib());
    c.args(args)
        .env("NVML_SIM_SCENARIO", scenario("hostile.toml"))
        .output()
        .unwrap()
}

#[test]
fn a_closed_or_full_stdout_is_an_error_in_every_mode() {
    let cases: &[&[&str]] = &[
        &["--query-gpu=index", "--format=csv"],
        &["--query-compute-apps=pid", "--format=json"],
        &["-L"],
        &["--version"],
        &[],
        &["--help"],
        &["--help-query-gpu"],
        &[
            "--query-gpu=index",
            "--format=csv",
            "-lms",
            "10",
            "--count",
            "3",
        ],
    ];
    for args in cases {
        let out = closed_stdout(args);
        assert_eq!(
            out.status.code(),
            Some(22),
            "{args:?} >&-: {}",
            text(&out.stderr)
        );
        assert!(
            text(&out.stderr).contains("stdout"),
            "{args:?}: {}",
            text(&out.stderr)
        );
        let full = sim_command(Some(&scenario("hostile.toml")), args)
            .stdout(
                fs::OpenOptions::new()
                    .write(true)
                    .open("/dev/full")
                    .unwrap(),
            )
            .output()
            .unwrap();
        assert_eq!(
            full.status.code(),
            Some(22),
            "{args:?} >/dev/full: {}",
            text(&full.stderr)
        );
    }
}

/// Names NVML hands out (a GPU's, a MIG profile's) reach `-L`, `nvlink` and
/// `mig -l*` through `render::printable`: a newline or an escape sequence in
/// them never starts a line of its own or reaches the terminal.
#[test]
fn driver_names_in_listings_stay_on_their_line() {
    let s = common::scenario_at(
        "mig_instances.toml",
        &[
            (
                "name = \"NVIDIA H100 80GB HBM3\"\nuuid = \"GPU-00000000-0000-0000-0000-000000000000\"",
                "name = \"evil\\nGPU 9: forged\\u001b[2J\"\nuuid = \"GPU-00000000-0000-0000-0000-000000000000\"",
            ),
            ("name = \"MIG 2g.20gb\"", "name = \"MIG\\n2g\\u001b[31m\""),
        ],
    );
    for args in [
        &["-L"][..],
        &["nvlink", "-s"],
        &["mig", "-lgip"],
        &["mig", "-lgi"],
    ] {
        let out = common::nvq_ok(s.path(), args);
        assert!(!out.contains('\u{1b}'), "{args:?}: {out:?}");
        assert!(
            !out.contains("\nGPU 9") && !out.contains("\n2g"),
            "{args:?}: {out}"
        );
    }
    let listed = common::nvq_ok(s.path(), &["-L"]);
    assert!(
        listed.starts_with("GPU 0: evil?GPU 9: forged?[2J (UUID: "),
        "{listed}"
    );
}
