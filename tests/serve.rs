//! `nvq serve` (issue #22): the real server on 127.0.0.1, scraped over HTTP
//! with a plain socket client: its pages, promtool's verdict, one shared
//! collection, a hung GPU under the scrape's timeout, hostile requests,
//! and SIGTERM.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;
use common::{delay, h100, h100s, sim_lib, write_scenario, SIM_HEAD};

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// A running `nvq serve`; killed when dropped.
struct Server {
    child: Child,
    addr: SocketAddr,
    log: Arc<Mutex<Vec<String>>>,
}

impl Server {
    fn start(scenario: &Path, args: &[&str]) -> Server {
        let mut child = common::nvq_command()
            .env("NVML_SIM_SCENARIO", scenario)
            .arg("--nvml-lib")
            .arg(sim_lib())
            .arg("serve")
            .arg("--web.listen-address=127.0.0.1:0")
            .args(args)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let log = Arc::new(Mutex::new(Vec::new()));
        let (tx, rx) = std::sync::mpsc::channel();
        let stderr = BufReader::new(child.stderr.take().unwrap());
        let lines = Arc::clone(&log);
        std::thread::spawn(move || {
            for line in stderr.lines().map_while(Result::ok) {
                if let Some(rest) = line.split("listening on ").nth(1) {
                    let rest = rest.split("://").nth(1).unwrap_or("");
                    let addr = rest.split('/').next().unwrap_or("").to_string();
                    let _ = tx.send(addr);
                }
                lines.lock().unwrap().push(line);
            }
        });
        let addr = rx
            .recv_timeout(Duration::from_secs(30))
            .unwrap_or_else(|_| panic!("no listening line: {:?}", log.lock().unwrap()));
        Server {
            child,
            addr: addr.parse().unwrap(),
            log,
        }
    }

    /// Send `request` as it is; the whole answer (the server closes).
    fn raw(&self, request: &[u8]) -> String {
        let mut s = TcpStream::connect(self.addr).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
        let _ = s.write_all(request);
        let mut out = Vec::new();
        let _ = s.read_to_end(&mut out);
        String::from_utf8_lossy(&out).into_owned()
    }

    /// GET `path` with extra header lines: (status, headers, body).
    fn get(&self, path: &str, headers: &str) -> (u16, String, String) {
        let req = format!("GET {path} HTTP/1.1\r\nHost: t\r\nConnection: close\r\n{headers}\r\n");
        split(&self.raw(req.as_bytes()))
    }

    fn metrics(&self) -> String {
        let (status, _, body) = self.get("/metrics", "");
        assert_eq!(status, 200, "{body}");
        body
    }

    fn log(&self) -> Vec<String> {
        self.log.lock().unwrap().clone()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// An HTTP/1.1 answer: (status, head, body).
fn split(answer: &str) -> (u16, String, String) {
    let (head, body) = answer.split_once("\r\n\r\n").unwrap_or((answer, ""));
    let status = head
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    (status, head.to_ascii_lowercase(), body.to_string())
}

/// The value of the sample `name{labels}` whose labels contain `label`.
fn value(body: &str, name: &str, label: &str) -> Option<f64> {
    body.lines()
        .filter(|l| !l.starts_with('#'))
        .filter(|l| l.starts_with(&format!("{name}{{")) || l.starts_with(&format!("{name} ")))
        .find(|l| l.contains(label))
        .and_then(|l| l.rsplit(' ').next())
        .and_then(|v| v.parse().ok())
}

/// promtool's verdict on an exposition: (exit code, what it printed), or
/// `None` without promtool.
fn promtool(body: &str) -> Option<(i32, String)> {
    let mut child = crate::common::command(crate::common::require_tool("promtool")?)
        .args(["check", "metrics"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(body.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    Some((out.status.code().unwrap_or(-1), text))
}

fn promtool_accepts(body: &str) {
    if let Some((code, text)) = promtool(body) {
        assert_eq!(code, 0, "promtool: {text}");
    }
}

#[test]
fn serves_metrics_landing_page_and_health() {
    let sc = h100s(2).write();
    let server = Server::start(sc.path(), &[]);
    let (status, head, body) = server.get("/metrics", "");
    assert_eq!(status, 200);
    assert!(
        head.contains("content-type: text/plain; version=0.0.4"),
        "{head}"
    );
    for i in 0..2u64 {
        let uuid = format!("uuid=\"GPU-00000000-0000-4000-8000-{i:012x}\"");
        assert_eq!(
            value(&body, "nvq_memory_used_bytes", &uuid),
            Some(((i + 1) << 30) as f64),
            "{body}"
        );
        assert_eq!(
            value(&body, "nvq_temperature_gpu_celsius", &uuid),
            Some(54.0)
        );
    }
    assert_eq!(value(&body, "nvq_collection_success", ""), Some(1.0));
    assert_eq!(value(&body, "nvq_collection_late_gpus", ""), Some(0.0));
    promtool_accepts(&body);

    let (status, head, body) = server.get(
        "/metrics",
        "Accept: application/openmetrics-text; version=1.0.0\r\n",
    );
    assert_eq!(status, 200);
    assert!(
        head.contains("content-type: application/openmetrics-text"),
        "{head}"
    );
    assert!(body.ends_with("# EOF\n"));
    assert!(body.contains("# TYPE nvq_collections counter\nnvq_collections_total "));

    let (status, _, body) = server.get("/", "");
    assert_eq!(status, 200);
    assert!(body.contains("<a href=\"/metrics\">"), "{body}");
    let (status, head, body) = server.get("/healthz", "");
    assert_eq!((status, body.as_str()), (200, "ok\n"), "{head}");
    assert!(head.contains("content-type: text/plain"), "{head}");

    // HEAD: the headers of a GET, no body.
    let answer = server.raw(b"HEAD /metrics HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n");
    let (status, head, body) = split(&answer);
    assert_eq!((status, body.as_str()), (200, ""), "{head}");
}

#[test]
fn telemetry_path_gpu_selection_and_fields() {
    let sc = h100s(3).write();
    let server = Server::start(
        sc.path(),
        &[
            "--web.telemetry-path=/gpu",
            "-i",
            "1",
            "--query-gpu=memory.used,name",
        ],
    );
    assert_eq!(server.get("/metrics", "").0, 404);
    let (status, _, body) = server.get("/gpu", "");
    assert_eq!(status, 200);
    let samples: Vec<&str> = body
        .lines()
        .filter(|l| l.starts_with("nvq_memory_used_bytes"))
        .collect();
    assert_eq!(samples.len(), 1, "{body}");
    assert!(samples[0].contains("gpu=\"1\"") && samples[0].ends_with(&(2u64 << 30).to_string()));
    assert!(
        !body.contains("nvq_temperature"),
        "only the fields asked for: {body}"
    );
    assert!(server.get("/", "").2.contains("href=\"/gpu\""));
}

/// Eight scrapes at once on a GPU that takes 300 ms to read: one
/// collection serves them all. Within --collect.interval a later scrape
/// is served from it too; after the interval, a new collection runs.
#[test]
fn concurrent_scrapes_share_one_collection() {
    let sc = h100s(1)
        .on([0], &delay("nvmlDeviceGetTemperature", 300))
        .write();
    let server = Arc::new(Server::start(
        sc.path(),
        &[
            "--collect.interval=2s",
            "--query-gpu=temperature.gpu,memory.used",
        ],
    ));
    let scrapes: Vec<_> = (0..8)
        .map(|_| {
            let s = Arc::clone(&server);
            std::thread::spawn(move || s.metrics())
        })
        .collect();
    for t in scrapes {
        let body = t.join().unwrap();
        assert_eq!(
            value(&body, "nvq_collections_total", ""),
            Some(1.0),
            "{body}"
        );
        assert_eq!(value(&body, "nvq_temperature_gpu_celsius", ""), Some(54.0));
    }
    assert_eq!(
        value(&server.metrics(), "nvq_collections_total", ""),
        Some(1.0)
    );
    std::thread::sleep(Duration::from_millis(2100));
    assert_eq!(
        value(&server.metrics(), "nvq_collections_total", ""),
        Some(2.0)
    );
}

/// With --collect.interval=0 every scrape collects afresh.
#[test]
fn interval_zero_collects_on_every_scrape() {
    let sc = h100s(1).write();
    let server = Server::start(sc.path(), &["--query-gpu=memory.used"]);
    for n in 1..=3 {
        assert_eq!(
            value(&server.metrics(), "nvq_collections_total", ""),
            Some(f64::from(n))
        );
    }
}

/// GPU 1 hangs for a minute in a call. A scrape that allows 1 s answers
/// within it: GPU 0's series, none of GPU 1's values, and the health
/// series saying one GPU was late. The next scrape answers in time too.
#[test]
fn a_hung_gpu_never_hangs_a_scrape() {
    let _on_time = common::on_time();
    let sc = h100s(2)
        .on([1], &delay("nvmlDeviceGetTemperature", 60_000))
        .write();
    let server = Server::start(sc.path(), &["--query-gpu=temperature.gpu,memory.used"]);
    for _ in 0..2 {
        let t0 = Instant::now();
        let (status, _, body) =
            server.get("/metrics", "X-Prometheus-Scrape-Timeout-Seconds: 1\r\n");
        let took = t0.elapsed();
        assert_eq!(status, 200);
        // Within the scrape's second, give or take a busy machine's delay
        // in answering (the GPU hangs a minute; benches/ times the answer).
        assert!(took < Duration::from_secs(3), "took {took:?}");
        let gpu = |i: u64| format!("uuid=\"GPU-00000000-0000-4000-8000-{i:012x}\"");
        assert_eq!(
            value(&body, "nvq_temperature_gpu_celsius", &gpu(0)),
            Some(54.0)
        );
        assert_eq!(
            value(&body, "nvq_memory_used_bytes", &gpu(0)),
            Some((1u64 << 30) as f64)
        );
        assert_eq!(
            value(&body, "nvq_temperature_gpu_celsius", "gpu=\"1\""),
            None,
            "{body}"
        );
        assert_eq!(value(&body, "nvq_memory_used_bytes", "gpu=\"1\""), None);
        assert_eq!(value(&body, "nvq_collection_late_gpus", ""), Some(1.0));
        assert_eq!(value(&body, "nvq_collection_success", ""), Some(0.0));
        promtool_accepts(&body);
    }
    assert!(server.log().iter().all(|l| l.starts_with("nvq serve: ")));
}

#[test]
fn hostile_requests_are_refused_and_the_server_keeps_serving() {
    let sc = h100s(1).write();
    let server = Server::start(
        sc.path(),
        &[
            "--query-gpu=memory.used",
            "--web.read-timeout=1s",
            "--web.idle-timeout=2s",
            "--web.max-connections=32",
        ],
    );
    // Methods other than GET and HEAD.
    for method in ["POST", "PUT", "DELETE", "OPTIONS"] {
        let req = format!("{method} /metrics HTTP/1.1\r\nHost: t\r\nContent-Length: 3\r\nConnection: close\r\n\r\nabc");
        let (status, head, _) = split(&server.raw(req.as_bytes()));
        assert_eq!(status, 405, "{method}");
        assert!(head.contains("allow: get, head"), "{head}");
    }
    // Paths outside the three pages, traversal included.
    for path in [
        "/../../etc/passwd",
        "/metrics/../../etc/passwd",
        "/%2e%2e/etc/passwd",
        "/favicon.ico",
    ] {
        assert_eq!(server.get(path, "").0, 404, "{path}");
    }
    // A 1 MB header: 431, not a megabyte buffered.
    let big = format!("X-Big: {}\r\n", "a".repeat(1 << 20));
    let (status, _, _) = server.get("/metrics", &big);
    assert_eq!(status, 431);
    // Not HTTP at all.
    assert_eq!(
        split(&server.raw(b"\x16\x03\x01\x00\xa5garbage\r\n\r\n")).0,
        400
    );
    // A client that never finishes its request head is cut off.
    let mut slow = TcpStream::connect(server.addr).unwrap();
    slow.write_all(b"GET /metrics HTTP/1.1\r\nHost: t\r\n")
        .unwrap();
    slow.set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let t0 = Instant::now();
    let mut buf = Vec::new();
    let _ = slow.read_to_end(&mut buf);
    assert!(
        t0.elapsed() < Duration::from_secs(5),
        "slow client held {:?}",
        t0.elapsed()
    );
    // A kept-alive connection that goes quiet after its answer is closed
    // once it has idled for --web.idle-timeout.
    let mut idle = TcpStream::connect(server.addr).unwrap();
    idle.write_all(b"GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n")
        .unwrap();
    idle.set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let t0 = Instant::now();
    let mut buf = Vec::new();
    let _ = idle.read_to_end(&mut buf);
    assert!(String::from_utf8_lossy(&buf).starts_with("HTTP/1.1 200 OK"));
    assert!(
        t0.elapsed() < Duration::from_secs(5),
        "idle keep-alive held {:?}",
        t0.elapsed()
    );
    // 1,000 idle connections: at most 32 are kept, the rest closed at once;
    // once the read timeout has cut the idle ones off, scrapes are served.
    let idle: Vec<TcpStream> = (0..1000)
        .filter_map(|_| TcpStream::connect(server.addr).ok())
        .collect();
    std::thread::sleep(Duration::from_millis(300));
    let mut open = 0;
    for mut c in idle.iter() {
        c.set_read_timeout(Some(Duration::from_millis(1))).unwrap();
        let mut b = [0u8; 1];
        if let Err(e) = c.read(&mut b) {
            if e.kind() == std::io::ErrorKind::WouldBlock
                || e.kind() == std::io::ErrorKind::TimedOut
            {
                open += 1;
            }
        }
    }
    assert!(open <= 32, "{open} idle connections held open");
    std::thread::sleep(Duration::from_millis(1500));
    let body = server.metrics();
    assert!(body.contains("nvq_memory_used_bytes{"), "{body}");
    drop(idle);
    assert!(server
        .log()
        .iter()
        .any(|l| l.contains("connection limit (32) reached")));
}

/// A scraper that keeps its connection alive between scrapes (Prometheus
/// does, every 15 s by default) is answered on it again after a pause longer
/// than the read timeout: the read timeout bounds a request head, and an
/// idle kept-alive connection has `--web.idle-timeout` (2 minutes).
#[test]
fn a_kept_alive_scraper_is_answered_after_a_pause_longer_than_the_read_timeout() {
    let sc = h100s(1).write();
    let server = Server::start(
        sc.path(),
        &["--query-gpu=memory.used", "--web.read-timeout=1s"],
    );
    let mut c = TcpStream::connect(server.addr).unwrap();
    c.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let mut answers = 0;
    for _ in 0..2 {
        c.write_all(b"GET /metrics HTTP/1.1\r\nHost: t\r\n\r\n")
            .unwrap();
        // Read one whole answer (Content-Length bytes after the head).
        let mut got = Vec::new();
        let mut b = [0u8; 4096];
        let complete = loop {
            let Ok(n) = c.read(&mut b) else { break false };
            if n == 0 {
                break false;
            }
            got.extend_from_slice(&b[..n]);
            let text = String::from_utf8_lossy(&got).into_owned();
            if let Some(end) = text.find("\r\n\r\n") {
                let len: usize = text[..end]
                    .lines()
                    .find_map(|l| {
                        l.to_ascii_lowercase()
                            .strip_prefix("content-length:")
                            .map(|v| v.trim().to_string())
                    })
                    .and_then(|v| v.parse().ok())
                    .unwrap_or(0);
                if got.len() >= end + 4 + len {
                    break text.starts_with("HTTP/1.1 200")
                        && text.contains("nvq_memory_used_bytes{");
                }
            }
        };
        if !complete {
            break;
        }
        answers += 1;
        std::thread::sleep(Duration::from_millis(2500));
    }
    assert_eq!(
        answers, 2,
        "the kept-alive connection was closed after {answers} answer(s)"
    );
}

/// SIGTERM while a scrape is being collected: the scrape is answered, and
/// nvq exits 0.
#[test]
fn sigterm_finishes_open_requests_and_exits_0() {
    let sc = h100s(1)
        .on([0], &delay("nvmlDeviceGetTemperature", 700))
        .write();
    let mut server = Server::start(sc.path(), &["--query-gpu=temperature.gpu"]);
    let addr = server.addr;
    let scrape = std::thread::spawn(move || {
        let mut s = TcpStream::connect(addr).unwrap();
        s.write_all(b"GET /metrics HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
            .unwrap();
        let mut out = String::new();
        let _ = s.read_to_string(&mut out);
        out
    });
    std::thread::sleep(Duration::from_millis(250));
    let pid = server.child.id().to_string();
    assert!(Command::new("kill")
        .args(["-TERM", &pid])
        .status()
        .unwrap()
        .success());
    let (status, _, body) = split(&scrape.join().unwrap());
    assert_eq!(status, 200);
    assert_eq!(
        value(&body, "nvq_temperature_gpu_celsius", ""),
        Some(54.0),
        "{body}"
    );
    let t0 = Instant::now();
    let code = loop {
        if let Some(s) = server.child.try_wait().unwrap() {
            break s.code();
        }
        assert!(
            t0.elapsed() < Duration::from_secs(15),
            "nvq serve did not stop"
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    assert_eq!(code, Some(0));
    assert!(
        TcpStream::connect(addr).is_err(),
        "still accepting after SIGTERM"
    );
    let log = server.log();
    assert!(log.iter().any(|l| l.contains("SIGTERM")), "{log:?}");
}

#[test]
fn bad_options_are_refused_before_serving() {
    let sc = h100s(1).write();
    let run = |args: &[&str]| {
        common::nvq_command()
            .env("NVML_SIM_SCENARIO", sc.path())
            .arg("--nvml-lib")
            .arg(sim_lib())
            .arg("serve")
            .args(args)
            .output()
            .unwrap()
    };
    for args in [
        &["--profile=bogus"][..],
        &["--web.listen-address=nowhere"],
        &["--web.listen-address=127.0.0.1:99999"],
        &["--collect.interval=soon"],
        &["--web.telemetry-path=metrics"],
        &["--web.max-connections=0"],
        &["--query-gpu=bogus"],
    ] {
        let out = run(args);
        assert_eq!(
            out.status.code(),
            Some(2),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    // A port already taken.
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = format!("--web.listen-address={}", taken.local_addr().unwrap());
    let out = run(&[addr.as_str()]);
    assert_eq!(out.status.code(), Some(255));
    assert!(String::from_utf8_lossy(&out.stderr).starts_with("ERROR: nvq serve: cannot listen on"));
}

/// The samples of an exposition as a set: (name, sorted labels) → value.
fn sample_set(text: &str) -> std::collections::BTreeMap<(String, Vec<(String, String)>), String> {
    let mut out = std::collections::BTreeMap::new();
    for line in text
        .lines()
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
    {
        let (series, value) = line.rsplit_once(' ').unwrap();
        let (name, labels) = match series.split_once('{') {
            Some((n, rest)) => (n, rest.strip_suffix('}').unwrap()),
            None => (series, ""),
        };
        let mut pairs = Vec::new();
        let mut rest = labels;
        while let Some((key, after)) = rest.split_once("=\"") {
            // The value ends at the first quote not escaped by a backslash.
            let mut end = 0;
            let bytes = after.as_bytes();
            while bytes[end] != b'"' {
                end += if bytes[end] == b'\\' { 2 } else { 1 };
            }
            pairs.push((
                key.trim_start_matches(',').to_string(),
                after[..end].to_string(),
            ));
            rest = &after[end + 1..];
        }
        pairs.sort();
        out.insert((name.to_string(), pairs), value.to_string());
    }
    out
}

/// The machines of `../shared/exporters/nvidia_gpu_exporter/` and the
/// scenarios that hold what nvidia-smi showed that exporter on them.
const EXPORTER_MACHINES: &[(&str, &str)] = &[
    (
        "linux-x86_64__nvidia-h200__590.48.01__idle",
        "h200_590_idle.toml",
    ),
    (
        "linux-x86_64__nvidia-h200__590.48.01__load",
        "h200_590_load.toml",
    ),
    (
        "linux-x86_64__nvidia-h100-80gb-hbm3__590.48.01__idle",
        "h100_590_idle.toml",
    ),
    (
        "linux-x86_64__nvidia-h100-80gb-hbm3__590.48.01__load",
        "h100_590_load.toml",
    ),
    (
        "linux-x86_64__nvidia-geforce-rtx-2080-super__610.57.04__idle",
        "rtx2080super_610_linux_idle.toml",
    ),
    (
        "linux-x86_64__nvidia-geforce-rtx-2080-super__610.57.04__load",
        "rtx2080super_610_linux_load.toml",
    ),
    (
        "windows-x86_64__nvidia-geforce-rtx-2080-super__610.62__idle",
        "rtx2080super_610_windows_idle.toml",
    ),
    (
        "windows-x86_64__nvidia-geforce-rtx-2080-super__610.62__load",
        "rtx2080super_610_windows_load.toml",
    ),
];

/// Families of those files that nvq cannot serve, and why. Every other
/// series must be there, with the same labels and value.
const UNREPRODUCIBLE: &[(&str, &str)] = &[(
    "nvidia_smi_pcie_link_gen_hostmax",
    "nvidia-smi's pcie.link.gen.hostmax has no NVML source that nvq knows of (nvq prints [N/A])",
)];

/// The families that exporter derives from the clock: its own integration
/// test leaves them out of the expected outputs and checks them apart
/// (`wallClockFamilies` in `internal/integration/`), as here.
const WALL_CLOCK: &[&str] = &[
    "nvidia_smi_last_collect_duration_seconds",
    "nvidia_smi_last_collect_success_timestamp_seconds",
];

/// The families only that exporter's NVML backend serves (its
/// `docs/METRICS.md`, "NVML-only metrics"): not in the expected outputs,
/// which its nvidia-smi backend wrote; checked in
/// `nvidia_gpu_exporter_profile_serves_nvml_only_families`.
const NVML_ONLY: &[&str] = &[
    "nvidia_smi_energy_joules_total",
    "nvidia_smi_xid_errors_total",
    "nvidia_smi_xid_last_timestamp_seconds",
    "nvidia_smi_pcie_throughput_",
    "nvidia_smi_mig_info",
    "nvidia_smi_mig_memory_",
    "nvidia_smi_mig_graphics_activity_ratio",
    "nvidia_smi_mig_sm_",
    "nvidia_smi_mig_tensor_activity_ratio",
    "nvidia_smi_mig_pcie_",
];

/// `--profile=nvidia_gpu_exporter` serves exactly that exporter's series
/// (names, labels, values) for every captured machine, types included;
/// the HELP texts are nvq's own; promtool accepts it.
#[test]
fn nvidia_gpu_exporter_profile_matches_that_exporter() {
    for (machine, scenario) in EXPORTER_MACHINES {
        let rel = format!("exporters/nvidia_gpu_exporter/{machine}.metrics");
        let Some(want) = common::read_shared(&rel) else {
            return;
        };
        // Those files come from that exporter's nvidia-smi backend; its NVML
        // backend, which nvq follows, names the status family
        // nvml_return_code in place of command_exit_code (docs/METRICS.md).
        let want = want.replace(
            "nvidia_smi_command_exit_code",
            "nvidia_smi_nvml_return_code",
        );
        let server = Server::start(
            &common::scenario(scenario),
            &["--profile=nvidia_gpu_exporter"],
        );
        let got = server.metrics();
        for family in WALL_CLOCK {
            let v = value(&got, family, "").unwrap_or(-1.0);
            assert!(v > 0.0 && v.is_finite(), "{machine}: {family} = {v}\n{got}");
        }
        let stamp = value(&got, WALL_CLOCK[1], "").unwrap_or(0.0);
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_secs_f64();
        assert!((now - stamp).abs() < 600.0, "{machine}: {stamp} vs {now}");
        let got: String = got
            .lines()
            .filter(|l| !WALL_CLOCK.iter().chain(NVML_ONLY).any(|f| l.contains(f)))
            .map(|l| format!("{l}\n"))
            .collect();
        let (g, w) = (sample_set(&got), sample_set(&want));
        let missing: Vec<_> = w
            .iter()
            .filter(|(k, v)| g.get(*k) != Some(v))
            .filter(|((name, _), _)| !UNREPRODUCIBLE.iter().any(|(n, _)| n == name))
            .collect();
        let extra: Vec<_> = g.iter().filter(|(k, _)| !w.contains_key(*k)).collect();
        assert!(
            missing.is_empty() && extra.is_empty(),
            "{machine}: missing or different {missing:#?}\nextra {extra:#?}"
        );
        let meta = |text: &str, kind: &str| -> std::collections::BTreeMap<String, String> {
            text.lines()
                .filter_map(|l| l.strip_prefix(kind))
                .filter_map(|l| l.split_once(' '))
                .map(|(n, rest)| (n.to_string(), rest.to_string()))
                .collect()
        };
        let mut types = meta(&want, "# TYPE ");
        types.retain(|name, _| !UNREPRODUCIBLE.iter().any(|(n, _)| n == name));
        assert_eq!(meta(&got, "# TYPE "), types, "{machine}: types");
        let (ours, theirs) = (meta(&got, "# HELP "), meta(&want, "# HELP "));
        for (name, help) in &ours {
            assert_ne!(
                Some(help),
                theirs.get(name),
                "{machine}: {name}'s HELP is theirs"
            );
        }
        // promtool parses it; its only complaints (exit 3: naming advice)
        // are about names that exporter chose, which dashboards depend on.
        if let Some((code, text)) = promtool(&got) {
            let theirs = meta(&want, "# TYPE ");
            let foreign: Vec<&str> = text
                .lines()
                .filter(|l| !theirs.contains_key(l.split(' ').next().unwrap_or("")))
                .collect();
            assert!(
                code == 0 || (code == 3 && foreign.is_empty()),
                "promtool ({code}): {text}"
            );
        }
    }
}

/// Run a tool the test has required (`common::require_tool`).
fn tool(name: &str, args: &[&str], dir: &Path) -> std::process::Output {
    Command::new(name)
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// A CA, a server certificate for 127.0.0.1 and a client certificate, made
/// with openssl in `dir`; `None` without openssl.
pub(crate) fn certificates(dir: &Path) -> Option<()> {
    crate::common::require_tool("openssl")?;
    let ec = [
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:prime256v1",
        "-nodes",
    ];
    let steps: Vec<Vec<&str>> = vec![
        [
            &["req", "-x509"][..],
            &ec,
            &[
                "-keyout",
                "ca.key",
                "-out",
                "ca.crt",
                "-days",
                "2",
                "-subj",
                "/CN=nvq test CA",
            ],
        ]
        .concat(),
        [
            &["req"][..],
            &ec,
            &[
                "-keyout",
                "server.key",
                "-out",
                "server.csr",
                "-subj",
                "/CN=localhost",
            ],
        ]
        .concat(),
        vec![
            "x509",
            "-req",
            "-in",
            "server.csr",
            "-CA",
            "ca.crt",
            "-CAkey",
            "ca.key",
            "-CAcreateserial",
            "-out",
            "server.crt",
            "-days",
            "2",
            "-extfile",
            "server.ext",
        ],
        [
            &["req"][..],
            &ec,
            &[
                "-keyout",
                "client.key",
                "-out",
                "client.csr",
                "-subj",
                "/CN=prometheus",
            ],
        ]
        .concat(),
        vec![
            "x509",
            "-req",
            "-in",
            "client.csr",
            "-CA",
            "ca.crt",
            "-CAkey",
            "ca.key",
            "-CAcreateserial",
            "-out",
            "client.crt",
            "-days",
            "2",
            "-extfile",
            "client.ext",
        ],
    ];
    std::fs::write(
        dir.join("server.ext"),
        "subjectAltName=IP:127.0.0.1,DNS:localhost\n",
    )
    .unwrap();
    std::fs::write(dir.join("client.ext"), "extendedKeyUsage=clientAuth\n").unwrap();
    for step in steps {
        let out = tool("openssl", &step, dir);
        assert!(
            out.status.success(),
            "openssl {step:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    Some(())
}

/// curl's answer: (exit code, HTTP status or 0).
fn curl(dir: &Path, args: &[&str]) -> (i32, u16) {
    let mut all = vec![
        "-s",
        "-o",
        "/dev/null",
        "-w",
        "%{http_code}",
        "--max-time",
        "10",
    ];
    all.extend_from_slice(args);
    let out = tool("curl", &all, dir);
    let status = String::from_utf8_lossy(&out.stdout)
        .trim()
        .parse()
        .unwrap_or(0);
    (out.status.code().unwrap_or(-1), status)
}

/// `--web.config.file` with TLS and basic auth, checked with curl: the
/// right password gets 200, a wrong one or none 401, plain HTTP to the TLS
/// port gets nothing, and the server keeps serving. With
/// RequireAndVerifyClientCert a client without a certificate is refused.
#[test]
fn tls_and_basic_auth_with_curl() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    if crate::common::require_tool("curl").is_none() || certificates(d).is_none() {
        return;
    }
    let hash = bcrypt::hash("s3cret", 4).unwrap();
    let web = d.join("web.yml");
    std::fs::write(
        &web,
        format!(
            "tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n\
             basic_auth_users:\n  prometheus: {hash}\n"
        ),
    )
    .unwrap();
    let sc = h100s(1).write();
    let server = Server::start(
        sc.path(),
        &[
            "--query-gpu=memory.used",
            &format!("--web.config.file={}", web.display()),
        ],
    );
    let https = format!("https://{}/metrics", server.addr);
    let http = format!("http://{}/metrics", server.addr);
    let ca = ["--cacert", "ca.crt"];
    assert_eq!(
        curl(d, &[&ca[..], &["-u", "prometheus:s3cret", &https]].concat()),
        (0, 200)
    );
    assert_eq!(
        curl(d, &[&ca[..], &["-u", "prometheus:wrong", &https]].concat()),
        (0, 401)
    );
    assert_eq!(
        curl(d, &[&ca[..], &["-u", "nobody:s3cret", &https]].concat()),
        (0, 401)
    );
    assert_eq!(curl(d, &[&ca[..], &[https.as_str()]].concat()), (0, 401));
    let (code, status) = curl(d, &[http.as_str()]);
    assert!(
        code != 0 && status == 0,
        "plain HTTP to the TLS port: curl {code}, HTTP {status}"
    );
    assert_eq!(
        curl(d, &[&ca[..], &["-u", "prometheus:s3cret", &https]].concat()),
        (0, 200)
    );
    assert!(server
        .log()
        .iter()
        .any(|l| l.contains("TLS handshake") && l.contains("failed")));
    drop(server);

    std::fs::write(
        &web,
        "tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n  \
         client_auth_type: RequireAndVerifyClientCert\n  client_ca_file: ca.crt\n",
    )
    .unwrap();
    let server = Server::start(
        sc.path(),
        &[
            "--query-gpu=memory.used",
            &format!("--web.config.file={}", web.display()),
        ],
    );
    let https = format!("https://{}/metrics", server.addr);
    let (code, _) = curl(d, &[&ca[..], &[https.as_str()]].concat());
    assert_ne!(code, 0, "a client without a certificate got in");
    let mtls = ["--cert", "client.crt", "--key", "client.key"];
    assert_eq!(
        curl(d, &[&ca[..], &mtls[..], &[https.as_str()]].concat()),
        (0, 200)
    );
}

#[test]
fn bad_web_config_files_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let web = dir.path().join("web.yml");
    let sc = h100s(1).write();
    for text in [
        "tls_server_config:\n  cert_file: missing.crt\n  key_file: missing.key\n",
        "basic_auth_users:\n  alice: not-a-hash\n",
        "http_server_config:\n  http2: true\n",
    ] {
        std::fs::write(&web, text).unwrap();
        let out = common::nvq_command()
            .env("NVML_SIM_SCENARIO", sc.path())
            .arg("--nvml-lib")
            .arg(sim_lib())
            .args(["serve", "--web.listen-address=127.0.0.1:0"])
            .arg(format!("--web.config.file={}", web.display()))
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{text}");
        assert!(String::from_utf8_lossy(&out.stderr).contains("--web.config.file"));
    }
}

/// GET `url_path` from `addr` over plain HTTP; the body.
fn http_get(addr: &str, path: &str) -> Option<String> {
    let mut s = TcpStream::connect(addr).ok()?;
    s.set_read_timeout(Some(Duration::from_secs(10))).ok()?;
    let req = format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n");
    s.write_all(req.as_bytes()).ok()?;
    let mut out = Vec::new();
    s.read_to_end(&mut out).ok()?;
    let (status, _, body) = split(&String::from_utf8_lossy(&out));
    (status == 200).then_some(body)
}

/// `s` percent-encoded for a URL's query string.
fn urlencode(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// A Prometheus instant query: (labels, value) of every series.
fn query(prom: &str, q: &str) -> Vec<(serde_json::Value, f64)> {
    let path = format!("/api/v1/query?query={}", urlencode(q));
    let Some(body) = http_get(prom, &path) else {
        return Vec::new();
    };
    // The body is chunked when long; the JSON is the part between braces.
    let json = &body[body.find('{').unwrap_or(0)..=body.rfind('}').unwrap_or(0)];
    let v: serde_json::Value = serde_json::from_str(json).unwrap_or_default();
    v["data"]["result"]
        .as_array()
        .map(|r| {
            r.iter()
                .map(|s| {
                    let value = s["value"][1]
                        .as_str()
                        .and_then(|x| x.parse().ok())
                        .unwrap_or(f64::NAN);
                    (s["metric"].clone(), value)
                })
                .collect()
        })
        .unwrap_or_default()
}

/// Debian's Prometheus scraping `target` every second as job `nvq` (its
/// data under `dir/name`): the child and its address.
fn prometheus(dir: &Path, name: &str, target: SocketAddr) -> (Child, String) {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let prom = format!("127.0.0.1:{port}");
    let config = dir.join(format!("{name}.yml"));
    std::fs::write(
        &config,
        format!(
            "global:\n  scrape_interval: 1s\n  scrape_timeout: 900ms\nscrape_configs:\n  \
             - job_name: nvq\n    static_configs:\n      - targets: ['{target}']\n"
        ),
    )
    .unwrap();
    let child = crate::common::command("prometheus")
        .arg(format!("--config.file={}", config.display()))
        .arg(format!("--storage.tsdb.path={}", dir.join(name).display()))
        .arg(format!("--web.listen-address={prom}"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    (child, prom)
}

/// Has Prometheus scraped its target at least `n` times in the last minute?
fn scraped(prom: &str, n: f64) -> bool {
    let samples = query(prom, "count_over_time(up[1m])");
    matches!(samples.first(), Some((_, got)) if *got >= n)
}

/// Debian's Prometheus scrapes `nvq serve` every second, in each profile:
/// after two scrapes the memory-used series equals the scenario's value for
/// every GPU, and `up` is 1.
#[test]
fn a_real_prometheus_scrapes_every_profile() {
    let dir = tempfile::tempdir().unwrap();
    if crate::common::require_tool("prometheus").is_none() {
        return;
    }
    let gpus = 3usize;
    let sc = h100s(gpus).write();
    let profiles = [
        ("nvq", "nvq_memory_used_bytes", "gpu"),
        (
            "nvidia_gpu_exporter",
            "nvidia_smi_memory_used_bytes",
            "uuid",
        ),
    ];
    // Each profile has its own server and Prometheus (ports, files): the two run side by side.
    std::thread::scope(|scope| {
        for (profile, family, gpu_label) in profiles {
            let (sc, dir) = (&sc, dir.path());
            scope.spawn(move || prometheus_scrapes(sc, dir, gpus, profile, family, gpu_label));
        }
    });
}

/// One profile of [`a_real_prometheus_scrapes_every_profile`].
fn prometheus_scrapes(
    sc: &tempfile::NamedTempFile,
    dir: &Path,
    gpus: usize,
    profile: &str,
    family: &str,
    gpu_label: &str,
) {
    {
        let server = Server::start(
            sc.path(),
            &[&format!("--profile={profile}"), "--collect.interval=500ms"],
        );
        let (mut prometheus, prom) = prometheus(dir, profile, server.addr);
        let t0 = Instant::now();
        let mut got = Vec::new();
        while t0.elapsed() < Duration::from_secs(60) {
            std::thread::sleep(Duration::from_millis(500));
            if !scraped(&prom, 2.0) {
                continue;
            }
            got = query(&prom, family);
            if got.len() == gpus {
                break;
            }
        }
        let up = query(&prom, "up");
        let _ = prometheus.kill();
        let _ = prometheus.wait();
        assert_eq!(up.len(), 1, "{profile}: up {up:?}");
        assert_eq!(up[0].1, 1.0, "{profile}: up {up:?}");
        assert_eq!(got.len(), gpus, "{profile}: {got:?}");
        for i in 0..gpus {
            let uuid = format!("GPU-00000000-0000-4000-8000-{i:012x}");
            let want_label = if gpu_label == "gpu" {
                i.to_string()
            } else {
                uuid[4..].to_string()
            };
            let v = got
                .iter()
                .find(|(m, _)| m[gpu_label].as_str() == Some(want_label.as_str()))
                .map(|(_, v)| *v);
            assert_eq!(
                v,
                Some(((i + 1) << 30) as f64),
                "{profile}: GPU {i}: {got:?}"
            );
        }
    }
}

/// `--profile=dcgm`: dcgm-exporter's names, units (MiB, MHz, W) and
/// labels, no sentinel for a value NVML does not give, and promtool's only
/// complaints are about DCGM's own naming.
#[test]
fn dcgm_profile_uses_dcgm_names_units_and_labels() {
    let sc = h100s(2).write();
    let server = Server::start(sc.path(), &["--profile=dcgm"]);
    let body = server.metrics();
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap_or_default();
    for i in 0..2u64 {
        let uuid = format!("UUID=\"GPU-00000000-0000-4000-8000-{i:012x}\"");
        assert_eq!(
            value(&body, "DCGM_FI_DEV_FB_USED", &uuid),
            Some(((i + 1) * 1024) as f64),
            "{body}"
        );
        assert_eq!(value(&body, "DCGM_FI_DEV_GPU_TEMP", &uuid), Some(54.0));
        assert_eq!(value(&body, "DCGM_FI_DEV_GPU_UTIL", &uuid), Some(87.0));
        assert_eq!(
            value(&body, "DCGM_FI_DEV_POWER_USAGE", &uuid),
            Some(412.345)
        );
        let line = body
            .lines()
            .find(|l| l.starts_with("DCGM_FI_DEV_FB_USED{") && l.contains(&uuid))
            .unwrap();
        for label in [
            format!("gpu=\"{i}\""),
            "modelName=\"NVIDIA H100 80GB HBM3\"".to_string(),
            "DCGM_FI_DRIVER_VERSION=\"580.82.07\"".to_string(),
            format!("Hostname=\"{}\"", host.trim()),
            format!("pci_bus_id=\"00000000:{:02X}:00.0\"", i + 1),
        ] {
            assert!(line.contains(&label), "{label} not in {line}");
        }
    }
    assert!(body.contains("DCGM_FI_DEV_POWER_USAGE{") && body.contains("} 412.345000\n"));
    // The test GPUs have no memory temperature: left out, never a number.
    assert!(!body.contains("DCGM_FI_DEV_MEMORY_TEMP"), "{body}");
    assert!(!body
        .lines()
        .any(|l| l.ends_with(" 9223372036854775794") || l.ends_with(" -1")));
    if let Some((code, text)) = promtool(&body) {
        let foreign: Vec<&str> = text
            .lines()
            .filter(|l| !l.starts_with("DCGM_FI_"))
            .collect();
        assert!(
            code == 0 || (code == 3 && foreign.is_empty()),
            "promtool ({code}): {text}"
        );
    }
}

/// `--collect.processes` (nvq profile): one info series per GPU process,
/// labelled with its PID, name, user and container (where known), and its
/// memory in exact bytes where the driver tells it; without the flag,
/// no process series.
#[test]
fn process_series_are_opt_in() {
    let me = std::process::id();
    let text = format!(
        "{SIM_HEAD}{}\n[[device.process]]\npid = {me}\nname = \"trainer\"\nused_memory = 1073741825\n\
         \n[[device.process]]\npid = 4000000\nname = \"gone\"\n",
        h100(0, 1 << 30)
    );
    let sc = write_scenario(&text);
    let plain = Server::start(sc.path(), &["--query-gpu=memory.used"]);
    assert!(!plain.metrics().contains("nvq_process_"));
    drop(plain);
    let server = Server::start(
        sc.path(),
        &["--query-gpu=memory.used", "--collect.processes"],
    );
    let body = server.metrics();
    let user = Command::new("id").arg("-un").output().unwrap();
    let user = String::from_utf8_lossy(&user.stdout).trim().to_string();
    let mine = format!("pid=\"{me}\",process_name=\"trainer\",user=\"{user}\"");
    assert_eq!(value(&body, "nvq_process_info", &mine), Some(1.0), "{body}");
    assert_eq!(
        value(&body, "nvq_process_used_memory_bytes", &mine),
        Some(1073741825.0)
    );
    // A process that has gone: no user; its memory is unavailable, so left out.
    assert_eq!(
        value(
            &body,
            "nvq_process_info",
            "pid=\"4000000\",process_name=\"gone\"}"
        ),
        Some(1.0)
    );
    assert_eq!(
        value(&body, "nvq_process_used_memory_bytes", "pid=\"4000000\""),
        None
    );
    promtool_accepts(&body);
    let out = common::nvq_command()
        .env("NVML_SIM_SCENARIO", sc.path())
        .arg("--nvml-lib")
        .arg(sim_lib())
        .args(["serve", "--profile=dcgm", "--collect.processes"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

/// The energy counter: joules in the nvq profile, millijoules in the dcgm
/// profile, both counters; a GPU whose NVML has no counter has no series.
#[test]
fn energy_counters() {
    let gpu0 = h100(0, 1 << 30).replace(
        "power = { usage = 412345, limit = 700000 }",
        "power = { usage = 412345, limit = 700000, total_energy = 123456789 }",
    );
    assert!(gpu0.contains("total_energy"));
    let text = format!("{SIM_HEAD}{gpu0}{}", h100(1, 1 << 30));
    let sc = write_scenario(&text);
    let server = Server::start(sc.path(), &["--query-gpu=memory.used"]);
    let body = server.metrics();
    assert!(
        body.contains("# TYPE nvq_energy_consumption_joules_total counter\n"),
        "{body}"
    );
    assert_eq!(
        value(&body, "nvq_energy_consumption_joules_total", "gpu=\"0\""),
        Some(123456.789)
    );
    assert_eq!(
        value(&body, "nvq_energy_consumption_joules_total", "gpu=\"1\""),
        None
    );
    promtool_accepts(&body);
    drop(server);
    let server = Server::start(sc.path(), &["--profile=dcgm"]);
    let body = server.metrics();
    assert!(body.contains("# TYPE DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION counter\n"));
    assert_eq!(
        value(&body, "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", "gpu=\"0\""),
        Some(123456789.0)
    );
    assert_eq!(
        value(&body, "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", "gpu=\"1\""),
        None
    );
    assert!(!body.contains("=\"\""), "an empty label: {body}");
}

/// XID errors from NVML's events (the simulator's `[[device.xid]]`): counted
/// per GPU and code in the nvq profile, the last code in the dcgm profile,
/// and still served while that GPU hangs and every collection misses it.
#[test]
fn xid_errors_are_counted_outside_the_collection() {
    let xid = |at: u64, code: u64| format!("\n[[device.xid]]\nat_ms = {at}\ncode = {code}\n");
    let faults = format!(
        "{}{}{}{}",
        xid(0, 79),
        xid(150, 79),
        xid(100, 48),
        delay("nvmlDeviceGetTemperature", 60_000)
    );
    let sc = h100s(2).on([1], &faults).write();
    let server = Server::start(sc.path(), &["--query-gpu=temperature.gpu"]);
    let t0 = Instant::now();
    let body = loop {
        let (_, _, body) = server.get("/metrics", "X-Prometheus-Scrape-Timeout-Seconds: 0.5\r\n");
        if value(&body, "nvq_xid_errors_total", "xid=\"48\"").is_some()
            || t0.elapsed() > Duration::from_secs(10)
        {
            break body;
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    assert_eq!(
        value(&body, "nvq_collection_late_gpus", ""),
        Some(1.0),
        "{body}"
    );
    assert_eq!(
        value(&body, "nvq_xid_errors_total", "gpu=\"1\",xid=\"79\""),
        Some(2.0),
        "{body}"
    );
    assert_eq!(
        value(&body, "nvq_xid_errors_total", "gpu=\"1\",xid=\"48\""),
        Some(1.0)
    );
    assert!(!body.contains("nvq_xid_errors_total{gpu=\"0\""));
    assert!(body.contains("# TYPE nvq_xid_errors_total counter\n"));
    promtool_accepts(&body);
    let log = server.log();
    assert_eq!(
        log.iter().filter(|l| l.contains("XID 79 on GPU 1")).count(),
        2,
        "{log:?}"
    );
    drop(server);
    let server = Server::start(sc.path(), &["--profile=dcgm"]);
    std::thread::sleep(Duration::from_millis(400));
    let (_, _, body) = server.get("/metrics", "X-Prometheus-Scrape-Timeout-Seconds: 0.5\r\n");
    assert_eq!(
        value(&body, "DCGM_FI_DEV_XID_ERRORS", "gpu=\"1\""),
        Some(79.0),
        "{body}"
    );
}

/// Prometheus asks for gzip (`Accept-Encoding: gzip`): the answer is the
/// same exposition, compressed, with `Content-Encoding: gzip` and
/// `Vary: Accept-Encoding`; a scraper that does not ask (or refuses gzip
/// with `q=0`) gets plain text.
#[test]
fn scrapes_that_accept_gzip_get_it_compressed() {
    let sc = h100s(8).write();
    let server = Server::start(sc.path(), &["--collect.interval=60s"]);
    let plain = server.metrics();
    let req =
        "GET /metrics HTTP/1.1\r\nHost: t\r\nConnection: close\r\nAccept-Encoding: gzip\r\n\r\n";
    let mut s = TcpStream::connect(server.addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    s.write_all(req.as_bytes()).unwrap();
    let mut answer = Vec::new();
    s.read_to_end(&mut answer).unwrap();
    let at = answer.windows(4).position(|w| w == b"\r\n\r\n").unwrap();
    let head = String::from_utf8_lossy(&answer[..at]).to_ascii_lowercase();
    assert!(head.starts_with("http/1.1 200"), "{head}");
    assert!(head.contains("content-encoding: gzip"), "{head}");
    assert!(head.contains("vary: accept-encoding"), "{head}");
    let compressed = &answer[at + 4..];
    assert!(
        compressed.len() * 4 < plain.len(),
        "{} of {}",
        compressed.len(),
        plain.len()
    );
    let mut text = String::new();
    flate2::read::GzDecoder::new(compressed)
        .read_to_string(&mut text)
        .unwrap();
    assert_eq!(text, plain);

    for refused in ["gzip;q=0", "identity", "br"] {
        let (status, head, body) =
            server.get("/metrics", &format!("Accept-Encoding: {refused}\r\n"));
        assert_eq!(status, 200);
        assert!(!head.contains("content-encoding"), "{refused}: {head}");
        assert_eq!(body, plain, "{refused}");
    }
}

/// A Hopper GPU with GPM (tensor activity, DRAM activity, PCIe TX stepping
/// per sample; no SM occupancy) and an Ampere GPU whose scenario has GPM
/// series that NVML must not give (no GPM before Hopper).
const GPM_SCENARIO: &str = r#"
minor_number = 4
architecture = 9
gpm = { "1" = [10.0, 20.0, 30.0], "5" = [12.5, 37.5, 62.5], "10" = [50.0, 25.0], "20" = [100.0, 200.0] }

[[device]]
name = "NVIDIA A100-SXM4-80GB"
uuid = "GPU-00000000-0000-4000-8000-0000000000a1"
pci = { domain = 0, bus = 9, device = 0 }
memory = { total = 85520809984, reserved = 567279616, used = 1073741824 }
minor_number = 7
architecture = 8
gpm = { "1" = 99.0, "5" = 99.0 }
"#;

/// The dcgm profile's `DCGM_FI_PROF_*` families come from GPM: none on the
/// first collection (one sample, no interval yet), then the metrics between
/// the last two samples, as ratios 0..1 and bytes per second; a metric NVML
/// does not give is left out, and a GPU before Hopper has none at all.
/// Every series has the `device` label (`nvidia<minor number>`).
#[test]
fn dcgm_profile_serves_gpm_profiling_families() {
    let mut text = SIM_HEAD.to_string();
    text.push_str(&h100(0, 1 << 30));
    text.push_str(GPM_SCENARIO);
    let sc = write_scenario(&text);
    let server = Server::start(sc.path(), &["--profile=dcgm", "--collect.interval=0"]);
    let first = server.metrics();
    assert!(!first.contains("DCGM_FI_PROF_"), "{first}");
    let h100 = "UUID=\"GPU-00000000-0000-4000-8000-000000000000\"";
    let a100 = "UUID=\"GPU-00000000-0000-4000-8000-0000000000a1\"";
    // The second sample carries each series' second element.
    let second = server.metrics();
    let v = |body: &str, name: &str, who: &str| value(body, name, who);
    assert_eq!(
        v(&second, "DCGM_FI_PROF_GR_ENGINE_ACTIVE", h100),
        Some(0.2),
        "{second}"
    );
    assert_eq!(
        v(&second, "DCGM_FI_PROF_PIPE_TENSOR_ACTIVE", h100),
        Some(0.375)
    );
    assert_eq!(v(&second, "DCGM_FI_PROF_DRAM_ACTIVE", h100), Some(0.25));
    assert_eq!(
        v(&second, "DCGM_FI_PROF_PCIE_TX_BYTES", h100),
        Some(209_715_200.0)
    );
    assert!(second.contains("} 0.375000\n"), "{second}");
    assert!(!second.contains("DCGM_FI_PROF_SM_OCCUPANCY"), "{second}");
    assert!(!second
        .lines()
        .any(|l| l.starts_with("DCGM_FI_PROF_") && l.contains(a100)));
    assert!(second.contains("# TYPE DCGM_FI_PROF_PIPE_TENSOR_ACTIVE gauge\n"));
    let third = server.metrics();
    assert_eq!(
        v(&third, "DCGM_FI_PROF_PIPE_TENSOR_ACTIVE", h100),
        Some(0.625)
    );
    assert_eq!(v(&third, "DCGM_FI_PROF_DRAM_ACTIVE", h100), Some(0.25));
    for line in third.lines().filter(|l| l.starts_with("DCGM_FI_")) {
        let device = if line.contains(h100) {
            "nvidia4"
        } else {
            "nvidia7"
        };
        assert!(line.contains(&format!("device=\"{device}\"")), "{line}");
    }
    let line = third
        .lines()
        .find(|l| l.starts_with("DCGM_FI_DEV_FB_USED{") && l.contains(h100))
        .unwrap();
    let order: Vec<&str> = ["gpu=", "UUID=", "pci_bus_id=", "device=", "modelName="]
        .iter()
        .map(|k| line.find(k).map(|_| *k).unwrap_or(""))
        .collect();
    assert_eq!(
        order,
        ["gpu=", "UUID=", "pci_bus_id=", "device=", "modelName="]
    );
    let pos: Vec<usize> = order.iter().filter_map(|k| line.find(k)).collect();
    assert!(pos.windows(2).all(|w| w[0] < w[1]), "{line}");
    promtool_accepts_dcgm(&third);
}

/// In MIG mode each GPU instance has its own FB and profiling series,
/// labelled `GPU_I_PROFILE` and `GPU_I_ID` (from its MIG device and from
/// `nvmlGpmMigSampleGet`); the GPU's own series have no instance labels.
#[test]
fn dcgm_profile_labels_mig_gpu_instances() {
    let text = format!(
        "{SIM_HEAD}{}{}",
        h100(0, 3 << 30),
        r#"
minor_number = 0
architecture = 9
mig = { current = 1, pending = 1, max_devices = 7 }
gpm = { "1" = 40.0 }

[[device.mig_instance]]
name = "NVIDIA H100 80GB HBM3 MIG 3g.40gb"
uuid = "MIG-00000000-0000-0000-0000-000000000000"
gpu_instance_id = 1
compute_instance_id = 0
memory = { total = 42949672960, used = 2147483648 }
gpm = { "5" = [10.0, 55.0] }

[[device.mig_instance]]
name = "NVIDIA H100 80GB HBM3 MIG 1g.10gb"
uuid = "MIG-00000001-0000-0000-0000-000000000001"
gpu_instance_id = 9
compute_instance_id = 0
memory = { total = 10737418240, used = 1048576 }
"#
    );
    let sc = write_scenario(&text);
    let server = Server::start(sc.path(), &["--profile=dcgm", "--collect.interval=0"]);
    let _ = server.metrics();
    let body = server.metrics();
    let gi1 = "GPU_I_PROFILE=\"3g.40gb\",GPU_I_ID=\"1\"";
    let gi9 = "GPU_I_PROFILE=\"1g.10gb\",GPU_I_ID=\"9\"";
    assert_eq!(
        value(&body, "DCGM_FI_DEV_FB_USED", gi1),
        Some(2048.0),
        "{body}"
    );
    assert_eq!(value(&body, "DCGM_FI_DEV_FB_USED", gi9), Some(1.0));
    assert_eq!(value(&body, "DCGM_FI_DEV_FB_FREE", gi9), Some(10239.0));
    assert_eq!(
        value(&body, "DCGM_FI_PROF_PIPE_TENSOR_ACTIVE", gi1),
        Some(0.55)
    );
    assert_eq!(value(&body, "DCGM_FI_PROF_PIPE_TENSOR_ACTIVE", gi9), None);
    // In MIG mode the GPU instances' FB and PROF series replace the GPU's
    // own (as dcgm-exporter): a sum over the series counts memory once.
    for family in [
        "DCGM_FI_DEV_FB_USED{",
        "DCGM_FI_DEV_FB_FREE{",
        "DCGM_FI_PROF_",
    ] {
        let own: Vec<&str> = body
            .lines()
            .filter(|l| l.starts_with(family) && !l.contains("GPU_I_ID"))
            .collect();
        assert!(own.is_empty(), "{family}: {own:?}");
    }
    // The GPU's other series stay, without instance labels.
    let util: Vec<&str> = body
        .lines()
        .filter(|l| l.starts_with("DCGM_FI_DEV_GPU_UTIL{"))
        .collect();
    assert_eq!(util.len(), 1, "{body}");
    assert!(!util[0].contains("GPU_I_ID"), "{}", util[0]);
    let gi_line = body
        .lines()
        .find(|l| l.starts_with("DCGM_FI_DEV_FB_USED{") && l.contains(gi1))
        .unwrap();
    assert!(
        gi_line.contains("modelName=\"NVIDIA H100 80GB HBM3\",GPU_I_PROFILE="),
        "{gi_line}"
    );
    promtool_accepts_dcgm(&body);
}

/// promtool accepts an exposition, DCGM's own names apart.
fn promtool_accepts_dcgm(body: &str) {
    if let Some((code, out)) = promtool(body) {
        let foreign: Vec<&str> = out.lines().filter(|l| !l.starts_with("DCGM_FI_")).collect();
        assert!(
            code == 0 || (code == 3 && foreign.is_empty()),
            "promtool ({code}): {out}"
        );
    }
}

// ---- Issue #27: the exporter under hostile clients (items 1-7, 9) ----

/// The thread count of process `pid`, from /proc.
fn threads_of(pid: u32) -> usize {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .unwrap_or_default()
        .lines()
        .find_map(|l| l.strip_prefix("Threads:"))
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(0)
}

/// Wait up to `limit` for the server to exit: its exit code and how long it took.
fn wait_exit(server: &mut Server, limit: Duration) -> (Option<i32>, Duration) {
    let t0 = Instant::now();
    loop {
        if let Some(s) = server.child.try_wait().unwrap() {
            return (s.code(), t0.elapsed());
        }
        assert!(
            t0.elapsed() < limit,
            "nvq serve did not stop within {limit:?}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn sigterm(server: &Server) {
    let pid = server.child.id().to_string();
    assert!(Command::new("kill")
        .args(["-TERM", &pid])
        .status()
        .unwrap()
        .success());
}

/// A scrape with this timeout header: (status, body, how long it took).
fn scrape_with_timeout(addr: SocketAddr, timeout: &str) -> (u16, String, Duration) {
    let t0 = Instant::now();
    let Ok(mut s) = TcpStream::connect(addr) else {
        return (0, String::new(), t0.elapsed());
    };
    s.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
    let req = format!(
        "GET /metrics HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\
         X-Prometheus-Scrape-Timeout-Seconds: {timeout}\r\n\r\n"
    );
    let _ = s.write_all(req.as_bytes());
    let mut out = Vec::new();
    let _ = s.read_to_end(&mut out);
    let (status, _, body) = split(&String::from_utf8_lossy(&out));
    (status, body, t0.elapsed())
}

fn uuid_label(i: u64) -> String {
    format!("uuid=\"GPU-00000000-0000-4000-8000-{i:012x}\"")
}

/// Item 1: four clients that pipeline scrapes and never read their answers
/// hold all four connection slots; a well-behaved scraper still gets every
/// answer, and the stalled connections are closed by the write timeout.
#[test]
fn non_reading_pipeliners_cannot_lock_scrapers_out() {
    let sc = h100s(2).write();
    let server = Server::start(
        sc.path(),
        &[
            "--web.max-connections=4",
            "--web.write-timeout=2s",
            "--collect.interval=10s",
        ],
    );
    let one = "GET /metrics HTTP/1.1\r\nHost: t\r\n\r\n".repeat(2000);
    let hogs: Vec<TcpStream> = (0..4)
        .map(|_| {
            let mut s = TcpStream::connect(server.addr).unwrap();
            s.set_write_timeout(Some(Duration::from_secs(2))).unwrap();
            let _ = s.write_all(one.as_bytes());
            s
        })
        .collect();
    // Long enough for their answers to fill the socket buffers.
    std::thread::sleep(Duration::from_millis(800));
    for n in 0..6 {
        let (status, body, took) = scrape_with_timeout(server.addr, "2");
        assert_eq!(
            status,
            200,
            "scrape {n} locked out: {body} {:?}",
            server.log()
        );
        assert!(body.contains(&uuid_label(1)), "scrape {n}: {body}");
        assert!(took < Duration::from_secs(2), "scrape {n} took {took:?}");
        std::thread::sleep(Duration::from_millis(300));
    }
    // The write timeout has closed every stalled connection by now.
    std::thread::sleep(Duration::from_millis(2500));
    for mut h in &hogs {
        h.set_read_timeout(Some(Duration::from_millis(100)))
            .unwrap();
        let mut sink = vec![0u8; 1 << 20];
        let closed = loop {
            match h.read(&mut sink) {
                Ok(0) => break true,
                Ok(_) => continue,
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => break false,
                Err(e) if e.kind() == std::io::ErrorKind::TimedOut => break false,
                Err(_) => break true,
            }
        };
        assert!(closed, "a stalled pipeliner is still connected");
    }
}

/// Item 2: one scrape with a 10 ms timeout, while collections are shared
/// for 30 s, must not blank the scrapes after it.
#[test]
fn a_tiny_scrape_timeout_does_not_blank_the_others() {
    let sc = h100s(2)
        .on([0], &delay("nvmlDeviceGetTemperature", 20))
        .write();
    let server = Server::start(
        sc.path(),
        &[
            "--collect.interval=30s",
            "--query-gpu=temperature.gpu,memory.used",
        ],
    );
    let (status, body, _) = scrape_with_timeout(server.addr, "0.01");
    assert_eq!(status, 200);
    assert_eq!(
        value(&body, "nvq_memory_used_bytes", &uuid_label(1)),
        Some(2.0 * (1u64 << 30) as f64),
        "{body}"
    );
    for _ in 0..3 {
        let (status, body, _) = scrape_with_timeout(server.addr, "5");
        assert_eq!(status, 200);
        assert_eq!(
            value(&body, "nvq_temperature_gpu_celsius", &uuid_label(0)),
            Some(54.0),
            "{body}"
        );
        assert_eq!(
            value(&body, "nvq_temperature_gpu_celsius", &uuid_label(1)),
            Some(54.0),
            "{body}"
        );
        assert_eq!(
            value(&body, "nvq_collection_success", ""),
            Some(1.0),
            "{body}"
        );
    }
}

/// Item 3: a flood of scrapes with absurdly small timeouts on two healthy
/// GPUs keeps the thread count within the GPUs plus a small constant.
#[test]
fn threads_stay_bounded_under_a_flood_of_tiny_timeouts() {
    let sc = h100s(2).write();
    let server = Server::start(sc.path(), &["--query-gpu=temperature.gpu,memory.used"]);
    let pid = server.child.id();
    let before = threads_of(pid);
    let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let flood: Vec<_> = (0..4)
        .map(|_| {
            let (addr, stop) = (server.addr, Arc::clone(&stop));
            std::thread::spawn(move || {
                while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                    let _ = scrape_with_timeout(addr, "1e-9");
                }
            })
        })
        .collect();
    let t0 = Instant::now();
    let mut peak = 0;
    while t0.elapsed() < Duration::from_secs(2) {
        peak = peak.max(threads_of(pid));
        std::thread::sleep(Duration::from_millis(5));
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    for f in flood {
        f.join().unwrap();
    }
    // Main, one worker per GPU, the XID counter and a few to spare.
    assert!(peak <= 2 + 6, "peak {peak} threads (before: {before})");
}

/// Item 4: with GPU 1 taking 20 s per call, a scrape with a 30 s timeout
/// does not starve one with a 2 s timeout that arrives after it.
#[test]
fn a_long_timeout_does_not_starve_a_short_one() {
    let sc = h100s(2)
        .on([1], &delay("nvmlDeviceGetTemperature", 20_000))
        .write();
    let server = Server::start(sc.path(), &["--query-gpu=temperature.gpu,memory.used"]);
    let addr = server.addr;
    let long = std::thread::spawn(move || scrape_with_timeout(addr, "30"));
    std::thread::sleep(Duration::from_millis(300));
    let (status, body, took) = scrape_with_timeout(server.addr, "2");
    assert_eq!(status, 200);
    assert!(took < Duration::from_secs(2), "took {took:?}");
    assert_eq!(
        value(&body, "nvq_temperature_gpu_celsius", &uuid_label(0)),
        Some(54.0),
        "{body}"
    );
    assert_eq!(
        value(&body, "nvq_collection_late_gpus", ""),
        Some(1.0),
        "{body}"
    );
    drop(server);
    let _ = long.join();
}

/// Item 5: SIGTERM with a hung GPU and an open scrape that allows 120 s:
/// nvq exits 0 within the documented 3 s.
#[test]
fn sigterm_exits_within_its_bound_whatever_nvml_does() {
    let sc = h100s(2)
        .on([0], &delay("nvmlDeviceGetTemperature", 60_000))
        .write();
    let mut server = Server::start(sc.path(), &["--query-gpu=temperature.gpu"]);
    let addr = server.addr;
    let open = std::thread::spawn(move || scrape_with_timeout(addr, "120"));
    std::thread::sleep(Duration::from_millis(500));
    sigterm(&server);
    let (code, took) = wait_exit(&mut server, Duration::from_secs(10));
    assert_eq!(code, Some(0));
    assert!(
        took < Duration::from_secs(3),
        "exited {took:?} after SIGTERM"
    );
    // The open scrape got an answer (the healthy GPU) or was closed.
    let (status, body, _) = open.join().unwrap();
    if status == 200 {
        assert_eq!(
            value(&body, "nvq_temperature_gpu_celsius", &uuid_label(1)),
            Some(54.0),
            "{body}"
        );
    }
}

/// Item 7: a GPU lost in the middle: the health series say which one,
/// and the collection is not a success.
#[test]
fn a_lost_gpu_is_named_by_the_health_series() {
    let mut text = SIM_HEAD.to_string();
    text.push_str(&h100(0, 1 << 30));
    text.push_str(&h100(1, 2 << 30));
    text.push_str("lost_after_calls = 40\n");
    let sc = write_scenario(&text);
    let server = Server::start(sc.path(), &["--query-gpu=temperature.gpu,memory.used"]);
    let mut body = String::new();
    for _ in 0..20 {
        body = server.metrics();
        if value(&body, "nvq_temperature_gpu_celsius", &uuid_label(1)).is_none() {
            break;
        }
    }
    assert_eq!(
        value(&body, "nvq_temperature_gpu_celsius", &uuid_label(1)),
        None,
        "{body}"
    );
    let state = |gpu: &str, s: &str| {
        value(
            &body,
            "nvq_collection_gpu_state",
            &format!("gpu=\"{gpu}\",{}", s),
        )
    };
    assert_eq!(
        state("1", &format!("{},state=\"lost\"", uuid_label(1))),
        Some(1.0),
        "{body}"
    );
    assert_eq!(
        state("0", &format!("{},state=\"ok\"", uuid_label(0))),
        Some(1.0),
        "{body}"
    );
    assert_eq!(
        value(&body, "nvq_collection_lost_gpus", ""),
        Some(1.0),
        "{body}"
    );
    assert_eq!(
        value(&body, "nvq_collection_success", ""),
        Some(0.0),
        "{body}"
    );
    promtool_accepts(&body);
}

/// Item 9: 300 garbage connections to the TLS port write a handful of log
/// lines, not 300.
#[test]
fn tls_handshake_failures_are_logged_at_a_bounded_rate() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    if certificates(d).is_none() {
        return;
    }
    let web = d.join("web.yml");
    std::fs::write(
        &web,
        "tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n",
    )
    .unwrap();
    let sc = h100s(1).write();
    let server = Server::start(
        sc.path(),
        &[
            "--query-gpu=memory.used",
            &format!("--web.config.file={}", web.display()),
        ],
    );
    for _ in 0..300 {
        let _ = server.raw(b"GET / HTTP/1.1\r\nHost: t\r\n\r\n");
    }
    std::thread::sleep(Duration::from_millis(300));
    let lines = server
        .log()
        .iter()
        .filter(|l| l.contains("TLS handshake"))
        .count();
    assert!((1..=12).contains(&lines), "{lines} TLS log lines");
}

/// Item 6: a startup call that hangs (the driver or CUDA version) does not
/// keep serve from listening: /healthz says which call is late (503), and
/// SIGTERM in that phase exits 0 at once.
#[test]
fn a_hung_startup_call_is_reported_and_sigterm_still_exits_0() {
    for function in [
        "nvmlSystemGetDriverVersion",
        "nvmlSystemGetCudaDriverVersion",
    ] {
        let mut text = SIM_HEAD.to_string();
        text.push_str(&format!(
            "\n[[fault]]\nfunction = \"{function}\"\ndelay_ms = 60000\n"
        ));
        text.push_str(&h100(0, 1 << 30));
        let sc = write_scenario(&text);
        let t0 = Instant::now();
        let mut server = Server::start(sc.path(), &["--query-gpu=memory.used"]);
        assert!(
            t0.elapsed() < Duration::from_secs(10),
            "{function}: listened after {:?}",
            t0.elapsed()
        );
        let (status, _, body) = server.get("/healthz", "");
        assert_eq!(status, 503, "{function}: {body}");
        assert!(body.contains("nvmlSystemGet"), "{function}: {body}");
        assert_eq!(server.get("/metrics", "").0, 503);
        sigterm(&server);
        let (code, took) = wait_exit(&mut server, Duration::from_secs(10));
        assert_eq!(code, Some(0), "{function}");
        assert!(
            took < Duration::from_secs(2),
            "{function}: exited {took:?} after SIGTERM"
        );
    }
}

/// Item 6: SIGTERM while the startup hangs, before nvq listens: exit 0,
/// not the 143 of an unhandled signal.
#[test]
fn sigterm_before_listening_exits_0() {
    let mut text = SIM_HEAD.to_string();
    text.push_str("\n[[fault]]\nfunction = \"nvmlSystemGetDriverVersion\"\ndelay_ms = 60000\n");
    text.push_str(&h100(0, 1 << 30));
    let sc = write_scenario(&text);
    let mut child = common::nvq_command()
        .env("NVML_SIM_SCENARIO", sc.path())
        .arg("--nvml-lib")
        .arg(sim_lib())
        .args(["serve", "--web.listen-address=127.0.0.1:0"])
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(600));
    let pid = child.id().to_string();
    assert!(Command::new("kill")
        .args(["-TERM", &pid])
        .status()
        .unwrap()
        .success());
    let t0 = Instant::now();
    let code = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s.code();
        }
        if t0.elapsed() > Duration::from_secs(10) {
            let _ = child.kill();
            panic!("nvq serve did not stop");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    assert_eq!(code, Some(0));
}

/// GPU 1's identity calls hang for a minute; GPU 0 is selected by UUID,
/// full PCI bus id or serial.
fn hung_unselected_gpu() -> tempfile::NamedTempFile {
    let mut text = SIM_HEAD.to_string();
    text.push_str(&h100(0, 1 << 30));
    text.push_str("serial = \"1650000000000\"\n");
    text.push_str(&h100(1, 2 << 30));
    text.push_str("serial = \"1650000000001\"\n");
    for f in [
        "nvmlDeviceGetUUID",
        "nvmlDeviceGetSerial",
        "nvmlDeviceGetPciInfo_v3",
        "nvmlDeviceGetName",
    ] {
        text.push_str(&delay(f, 60_000));
    }
    write_scenario(&text)
}

const GPU0_IDS: [&str; 3] = [
    "GPU-00000000-0000-4000-8000-000000000000",
    "00000000:01:00.0",
    "1650000000000",
];

/// Item 6: `-i <UUID | bus id | serial>` with a hung GPU that is not
/// selected: a query loop starts and prints its rows.
#[test]
fn a_hung_unselected_gpu_does_not_stall_a_loop_selected_by_uuid_bus_id_or_serial() {
    // A fast loop, each sample under its deadline: on time (common::on_time).
    let _on_time = common::on_time();
    let sc = hung_unselected_gpu();
    for id in GPU0_IDS {
        let mut child = common::nvq_command()
            .env("NVML_SIM_SCENARIO", sc.path())
            .arg("--nvml-lib")
            .arg(sim_lib())
            .args([
                "--query-gpu=index,memory.used",
                "--format=csv,noheader",
                "-i",
                id,
            ])
            .args(["-lms", "200", "--count", "2"])
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let t0 = Instant::now();
        while child.try_wait().unwrap().is_none() {
            if t0.elapsed() > Duration::from_secs(8) {
                let _ = child.kill();
                panic!("-i {id}: the loop did not finish");
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let out = child.wait_with_output().unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert_eq!(text.lines().count(), 2, "-i {id}: {text}");
        assert!(
            text.lines().all(|l| l.starts_with("0, 1024 MiB")),
            "-i {id}: {text}"
        );
    }
}

/// Item 6: the same for serve.
#[test]
fn a_hung_unselected_gpu_does_not_stall_serve_selected_by_uuid() {
    let sc = hung_unselected_gpu();
    let server = Server::start(sc.path(), &["--query-gpu=memory.used", "-i", GPU0_IDS[0]]);
    assert_eq!(server.get("/healthz", "").0, 200);
    let body = server.metrics();
    assert_eq!(
        value(&body, "nvq_memory_used_bytes", &uuid_label(0)),
        Some((1u64 << 30) as f64),
        "{body}"
    );
    assert_eq!(
        value(&body, "nvq_memory_used_bytes", &uuid_label(1)),
        None,
        "{body}"
    );
}

/// The dcgm profile serves NVML's PCIe replay counter (dcgm-exporter's
/// `DCGM_FI_DEV_PCIE_REPLAY_COUNTER`, a counter), read as dmon's `pci`
/// column and `-q`'s `Replays Since Reset` read it.
#[test]
fn dcgm_profile_serves_pcie_replays() {
    let gpu0 = format!("{}pcie = {{ replay_counter = 17 }}\n", h100(0, 1 << 30));
    let sc = write_scenario(&format!("{SIM_HEAD}{gpu0}{}", h100(1, 1 << 30)));
    let server = Server::start(sc.path(), &["--profile=dcgm"]);
    let body = server.metrics();
    assert!(
        body.contains("# TYPE DCGM_FI_DEV_PCIE_REPLAY_COUNTER counter\n"),
        "{body}"
    );
    assert_eq!(
        value(&body, "DCGM_FI_DEV_PCIE_REPLAY_COUNTER", "gpu=\"0\""),
        Some(17.0)
    );
    assert_eq!(
        value(&body, "DCGM_FI_DEV_PCIE_REPLAY_COUNTER", "gpu=\"1\""),
        None
    );
    // Remapped rows are counters there as in the registry.
    assert!(!body.contains("# TYPE DCGM_FI_DEV_CORRECTABLE_REMAPPED_ROWS gauge"));
}

/// nvidia-smi prints the recovery action as `Reset` and `Reboot`; the
/// nvidia_gpu_exporter profile reads those words (as that exporter does),
/// so the series is there exactly when a GPU needs a reset or a reboot.
#[test]
fn nvidia_gpu_exporter_profile_reads_the_recovery_words() {
    let gpu = |i: usize, action: u32| {
        format!(
            "{}\n[device.field_values]\n\"230\" = {action}\n",
            h100(i, 1 << 30)
        )
    };
    let sc = write_scenario(&format!(
        "{SIM_HEAD}{}{}{}",
        gpu(0, 0),
        gpu(1, 1),
        gpu(2, 2)
    ));
    let server = Server::start(sc.path(), &["--profile=nvidia_gpu_exporter"]);
    let body = server.metrics();
    for (i, want) in [(0, 0.0), (1, 1.0), (2, 2.0)] {
        let uuid = format!("uuid=\"00000000-0000-4000-8000-{i:012x}\"");
        assert_eq!(
            value(&body, "nvidia_smi_gpu_recovery_action", &uuid),
            Some(want),
            "GPU {i}:\n{body}"
        );
    }
}

/// The nvidia_gpu_exporter profile serves that exporter's NVML-only
/// families: the energy counter in joules and the XID errors by code, per
/// GPU uuid, with the time the last one was received.
#[test]
fn nvidia_gpu_exporter_profile_serves_nvml_only_families() {
    let gpu0 = h100(0, 1 << 30).replace(
        "power = { usage = 412345, limit = 700000 }",
        "power = { usage = 412345, limit = 700000, total_energy = 123456789 }",
    );
    let xid = "\n[[device.xid]]\nat_ms = 0\ncode = 79\n\n[[device.xid]]\nat_ms = 50\ncode = 79\n";
    let sc = write_scenario(&format!("{SIM_HEAD}{gpu0}{}{xid}", h100(1, 1 << 30)));
    let server = Server::start(
        sc.path(),
        &["--profile=nvidia_gpu_exporter", "--collect.interval=0"],
    );
    let uuid = |i: usize| format!("uuid=\"00000000-0000-4000-8000-{i:012x}\"");
    let t0 = Instant::now();
    let body = loop {
        let body = server.metrics();
        if value(&body, "nvidia_smi_xid_errors_total", &uuid(1)) == Some(2.0)
            || t0.elapsed() > Duration::from_secs(10)
        {
            break body;
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    assert!(
        body.contains("# TYPE nvidia_smi_energy_joules_total counter\n"),
        "{body}"
    );
    assert_eq!(
        value(&body, "nvidia_smi_energy_joules_total", &uuid(0)),
        Some(123456.789)
    );
    assert_eq!(
        value(&body, "nvidia_smi_energy_joules_total", &uuid(1)),
        None
    );
    assert!(
        body.contains("# TYPE nvidia_smi_xid_errors_total counter\n"),
        "{body}"
    );
    let label = format!("{},xid=\"79\"", uuid(1));
    assert_eq!(
        value(&body, "nvidia_smi_xid_errors_total", &label),
        Some(2.0),
        "{body}"
    );
    let at = value(&body, "nvidia_smi_xid_last_timestamp_seconds", &label).unwrap();
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs_f64();
    assert!(now - at < 60.0 && at <= now + 1.0, "{at} vs {now}");
    assert!(!body.contains(&format!("nvidia_smi_xid_errors_total{{{}", uuid(0))));
}

/// A dashboard's queries (`tests/grafana/ID.tsv`): its profile and
/// (kind, title, PromQL) for each line.
fn dashboard(id: &str) -> (String, Vec<(String, String, String)>) {
    let text = std::fs::read_to_string(common::repo_root().join(format!("tests/grafana/{id}.tsv")))
        .unwrap();
    let profile = text
        .lines()
        .find_map(|l| l.strip_prefix("% Profile: "))
        .unwrap()
        .to_string();
    let queries = text
        .lines()
        .filter(|l| !l.starts_with('%'))
        .map(|l| {
            let mut f = l.splitn(3, '\t');
            let mut next = || f.next().unwrap().to_string();
            (next(), next(), next())
        })
        .collect();
    (profile, queries)
}

/// A dashboard query as Grafana would send it for this target: its
/// variables given their values, and Grafana's own functions of a
/// variable query (`label_values(selector, label)`, `query_result(expr)`)
/// as the PromQL they stand for.
fn as_sent(q: &str, vars: &[(&str, &str)]) -> String {
    let mut q = q.to_string();
    for (k, v) in vars {
        q = q
            .replace(&format!("${{{k}}}"), v)
            .replace(&format!("${k}"), v);
    }
    if let Some(inner) = q
        .strip_prefix("query_result(")
        .and_then(|r| r.strip_suffix(')'))
    {
        return inner.to_string();
    }
    if let Some(args) = q
        .strip_prefix("label_values(")
        .and_then(|r| r.strip_suffix(')'))
    {
        let selector = args.rsplit_once(',').map_or(args, |(s, _)| s);
        return format!("count by(__name__) ({})", selector.trim());
    }
    q
}

/// Queries of the dashboards that have no data from nvq on the machine
/// below, each with the reason: (dashboard, title prefix, why).
const NO_DATA: &[(&str, &str, &str)] = &[
    (
        "14574",
        "Fan Speed %",
        "an H200 is cooled by the chassis: fan.speed is [N/A]",
    ),
    (
        "25547",
        "Fan Speed %",
        "an H200 is cooled by the chassis: fan.speed is [N/A]",
    ),
];

/// A second GPU for the dashboards: an H100 in MIG mode with two GPU
/// instances (GPM on, a compute instance each).
fn mig_h100(i: usize) -> String {
    format!(
        "{}{}",
        h100(i, 3 << 30),
        r#"
minor_number = 1
architecture = 9
mig = { current = 1, pending = 1, max_devices = 7 }
gpm = { "1" = 40.0 }

[[device.mig_instance]]
name = "NVIDIA H100 80GB HBM3 MIG 3g.40gb"
uuid = "MIG-00000000-0000-0000-0000-000000000000"
gpu_instance_id = 1
compute_instance_id = 0
memory = { total = 42949672960, reserved = 1048576, used = 2147483648 }
gpm = { "1" = 20.0, "2" = 30.0, "3" = 10.0, "5" = [10.0, 55.0], "20" = 2.0, "21" = 3.0 }

[[device.mig_instance]]
name = "NVIDIA H100 80GB HBM3 MIG 1g.10gb"
uuid = "MIG-00000001-0000-0000-0000-000000000001"
gpu_instance_id = 9
compute_instance_id = 0
memory = { total = 10737418240, used = 1048576 }
"#
    )
}

/// Every panel and variable query of Grafana dashboards 14574 and 25547
/// (nvidia_gpu_exporter) and 12239 (dcgm-exporter), as kept in
/// `tests/grafana/` with their source, evaluated by a real Prometheus
/// scraping `nvq serve` in that profile, for each GPU of a machine with an
/// H200 under load and an H100 in MIG mode: each gives data for one GPU at
/// least (but the listed exceptions, which must stay without data, so that
/// the list stays true).
#[test]
fn grafana_dashboards_get_data() {
    let dir = tempfile::tempdir().unwrap();
    if crate::common::require_tool("prometheus").is_none() {
        return;
    }
    // An H200 under load with processes (the load capture's machine), with
    // what that capture does not show but an H200 has: an energy counter,
    // GPM metrics, and two XID errors.
    let mut text = std::fs::read_to_string(common::scenario("h200_590_load.toml"))
        .unwrap()
        .replacen(
            "management_mode = 1 }",
            "management_mode = 1, total_energy = [1000000, 1500000, 2000000, 2600000, 3300000] }",
            1,
        )
        .replacen(
            "fans = []",
            "fans = []\narchitecture = 9\ngpm = { \"1\" = 40.0, \"5\" = 30.0 }",
            1,
        )
        .replacen(
            "link_width_max = 16 }",
            "link_width_max = 16, tx_throughput = 4217, rx_throughput = 8691 }",
            1,
        );
    assert!(text.contains("total_energy") && text.contains("gpm = ") && text.contains("tx_thr"));
    text.push_str(&mig_h100(1));
    text.push_str(
        "\n[[device.xid]]\nat_ms = 0\ncode = 79\n\n[[device.xid]]\nat_ms = 100\ncode = 48\n",
    );
    let sc = write_scenario(&text);
    // Each profile has its own server and Prometheus (ports, files): the two run side by side.
    let profiles = [
        ("nvidia_gpu_exporter", &["14574", "25547"][..]),
        ("dcgm", &["12239"][..]),
    ];
    let results: Vec<(usize, Vec<String>)> = std::thread::scope(|scope| {
        let runs: Vec<_> = profiles
            .into_iter()
            .map(|(profile, ids)| {
                scope.spawn(|| dashboards_get_data(&sc, dir.path(), profile, ids))
            })
            .collect();
        runs.into_iter().map(|r| r.join().unwrap()).collect()
    });
    let checked: usize = results.iter().map(|r| r.0).sum();
    let failed: Vec<String> = results.into_iter().flat_map(|r| r.1).collect();
    assert!(checked > 90, "{checked} queries");
    assert!(
        failed.is_empty(),
        "{} of {checked}:\n{}",
        failed.len(),
        failed.join("\n")
    );
}

/// One profile of [`grafana_dashboards_get_data`]: the queries checked and those that failed.
fn dashboards_get_data(
    sc: &tempfile::NamedTempFile,
    dir: &Path,
    profile: &str,
    ids: &[&str],
) -> (usize, Vec<String>) {
    let mut failed = Vec::new();
    let mut checked = 0;
    {
        let profile_arg = format!("--profile={profile}");
        let mut args = vec![profile_arg.as_str(), "--collect.interval=500ms"];
        if profile == "nvidia_gpu_exporter" {
            args.push("--collect.pcie-throughput");
        }
        let server = Server::start(sc.path(), &args);
        let (mut prom_child, prom) = prometheus(dir, profile, server.addr);
        let t0 = Instant::now();
        while !scraped(&prom, 4.0) && t0.elapsed() < Duration::from_secs(60) {
            std::thread::sleep(Duration::from_millis(500));
        }
        let node = server.addr.to_string();
        // The `gpu` variable's values, as a user picks each GPU in turn.
        let gpus: Vec<String> = if profile == "dcgm" {
            vec!["0".into(), "1".into()]
        } else {
            query(&prom, "nvidia_smi_gpu_info")
                .iter()
                .filter_map(|(m, _)| m["uuid"].as_str().map(str::to_string))
                .collect()
        };
        assert_eq!(gpus.len(), 2, "{profile}: {gpus:?}");
        for id in ids {
            let (want_profile, queries) = dashboard(id);
            assert_eq!(want_profile, profile, "{id}");
            for (kind, title, q) in queries {
                checked += 1;
                let mut sent = String::new();
                let has_data = gpus.iter().any(|gpu| {
                    let vars = [
                        ("job", "nvq"),
                        ("node", node.as_str()),
                        ("instance", node.as_str()),
                        ("gpu", gpu.as_str()),
                        ("__rate_interval", "10s"),
                    ];
                    sent = as_sent(&q, &vars);
                    !query(&prom, &sent).is_empty()
                });
                let excused = NO_DATA
                    .iter()
                    .any(|(d, t, _)| d == id && title.starts_with(t));
                if has_data == excused {
                    failed.push(format!("{id} {kind} {title:?} (data: {has_data}): {sent}"));
                }
            }
        }
        let _ = prom_child.kill();
        let _ = prom_child.wait();
    }
    (checked, failed)
}

/// The nvidia_gpu_exporter profile's MIG families (that exporter's NVML
/// backend): each MIG device's identity, each GPU instance's memory once,
/// and its GPM activity from the second collection on.
#[test]
fn nvidia_gpu_exporter_profile_serves_mig_families() {
    let sc = write_scenario(&format!("{SIM_HEAD}{}", mig_h100(0)));
    let server = Server::start(
        sc.path(),
        &["--profile=nvidia_gpu_exporter", "--collect.interval=0"],
    );
    let _ = server.metrics();
    let body = server.metrics();
    let uuid = "uuid=\"00000000-0000-4000-8000-000000000000\"";
    let info = format!(
        "{uuid},mig_uuid=\"MIG-00000000-0000-0000-0000-000000000000\",gpu_instance_id=\"1\",\
         compute_instance_id=\"0\",profile=\"3g.40gb\""
    );
    assert_eq!(
        value(&body, "nvidia_smi_mig_info", &info),
        Some(1.0),
        "{body}"
    );
    let gi1 = format!("{uuid},gpu_instance_id=\"1\"");
    let gi9 = format!("{uuid},gpu_instance_id=\"9\"");
    assert_eq!(
        value(&body, "nvidia_smi_mig_memory_total_bytes", &gi1),
        Some(42949672960.0)
    );
    assert_eq!(
        value(&body, "nvidia_smi_mig_memory_used_bytes", &gi9),
        Some(1048576.0)
    );
    assert_eq!(
        value(&body, "nvidia_smi_mig_memory_reserved_bytes", &gi1),
        Some(1048576.0)
    );
    assert_eq!(
        value(&body, "nvidia_smi_mig_tensor_activity_ratio", &gi1),
        Some(0.55)
    );
    assert_eq!(
        value(
            &body,
            "nvidia_smi_mig_pcie_throughput_rx_bytes_per_second",
            &gi1
        ),
        Some(3.0 * 1048576.0)
    );
    assert_eq!(
        value(&body, "nvidia_smi_mig_tensor_activity_ratio", &gi9),
        None
    );
    assert!(body.contains("# TYPE nvidia_smi_mig_info gauge\n"));
}

/// The nvq profile's memory foresight, from the collections' history (tests/scenarios/trend.toml, memory
/// following the clock): GPU 0 leaks 1 GiB a minute, so its growth gauge reads that and it gets a time to
/// full; the sawtooth, the jump and the plateaus get a growth gauge but no time to full.
#[test]
fn the_nvq_profile_serves_memory_growth_and_time_to_full() {
    let sc = super::common::scenario("trend.toml");
    let server = Server::start(&sc, &super::common::TREND);
    let started = Instant::now();
    let mut body = server.metrics();
    while started.elapsed() < Duration::from_secs(6) {
        std::thread::sleep(Duration::from_millis(100));
        body = server.metrics();
    }
    let growth = "nvq_memory_used_growth_bytes_per_second";
    let full = "nvq_memory_time_to_full_seconds";
    let gpu = |i: u32| format!("gpu=\"{i}\"");
    let rate = value(&body, growth, &gpu(0)).unwrap_or_else(|| panic!("{body}"));
    let gib_per_min = 1024.0 * 1024.0 * 1024.0 / 60.0;
    assert!(
        (rate - gib_per_min).abs() < 0.05 * gib_per_min,
        "{rate}\n{body}"
    );
    let used = value(&body, "nvq_memory_used_bytes", &gpu(0)).unwrap();
    let total = value(&body, "nvq_memory_total_bytes", &gpu(0)).unwrap();
    let ttf = value(&body, full, &gpu(0)).unwrap_or_else(|| panic!("{body}"));
    let expected = (total - used) / gib_per_min;
    assert!(
        (ttf - expected).abs() < 0.05 * expected,
        "{ttf} s, expected {expected}\n{body}"
    );
    for i in 1..8 {
        assert!(value(&body, growth, &gpu(i)).is_some(), "GPU {i}\n{body}");
        assert!(
            value(&body, full, &gpu(i)).is_none(),
            "GPU {i} is not leaking\n{body}"
        );
    }
    for i in 2..8 {
        assert!(
            value(&body, growth, &gpu(i)).unwrap().abs() < 1e6,
            "GPU {i}\n{body}"
        );
    }
    promtool_accepts(&body);
}

/// `--collect.compute-apps-mig` (that exporter's NVML backend): each
/// process series also carries its MIG `gpu_instance_id` and
/// `compute_instance_id`, empty off MIG, as that exporter's
/// `internal/integration/testdata/demo__seeded.metrics` shows; the process
/// count per GPU keeps its one label. Without the flag the label set stays
/// that exporter's default; other profiles refuse the flag.
#[test]
fn nvidia_gpu_exporter_profile_labels_processes_with_their_mig_instance() {
    let procs = r#"
[[device.process]]
pid = 4242
name = "train"
used_memory = 1073741824
gpu_instance_id = 9
compute_instance_id = 0
"#;
    let plain = "\n[[device.process]]\npid = 77\nname = \"infer\"\nused_memory = 2097152\n";
    let sc = write_scenario(&format!(
        "{SIM_HEAD}{}{procs}{}{plain}",
        mig_h100(0),
        h100(1, 1 << 30)
    ));
    let args = [
        "--profile=nvidia_gpu_exporter",
        "--collect.interval=0",
        "--collect.compute-apps-mig",
    ];
    let server = Server::start(sc.path(), &args);
    let body = server.metrics();
    let mig =
        "{compute_instance_id=\"0\",gpu_instance_id=\"9\",pid=\"4242\",process_name=\"train\",\
               uuid=\"00000000-0000-4000-8000-000000000000\"}";
    let off = "{compute_instance_id=\"\",gpu_instance_id=\"\",pid=\"77\",process_name=\"infer\",\
               uuid=\"00000000-0000-4000-8000-000000000001\"}";
    for line in [
        format!("nvidia_smi_compute_app_info{mig} 1\n"),
        format!("nvidia_smi_compute_app_used_memory_bytes{mig} 1.073741824e+09\n"),
        format!("nvidia_smi_compute_app_info{off} 1\n"),
        format!("nvidia_smi_compute_app_used_memory_bytes{off} 2.097152e+06\n"),
        "nvidia_smi_compute_apps{uuid=\"00000000-0000-4000-8000-000000000000\"} 1\n".to_string(),
    ] {
        assert!(body.contains(&line), "{line}\n{body}");
    }
    drop(server);
    let server = Server::start(sc.path(), &args[..2]);
    let body = server.metrics();
    assert!(
        body.contains("nvidia_smi_compute_app_info{pid=\"77\",process_name=\"infer\",uuid="),
        "{body}"
    );
    assert!(!body.contains("instance_id=\"\""), "{body}");
    drop(server);
    for profile in ["--profile=nvq", "--profile=dcgm"] {
        let out = common::run(sc.path(), &["serve", profile, "--collect.compute-apps-mig"]);
        assert_eq!(out.code, Some(2), "{profile}");
    }
}

/// That exporter's NVML backend reports its collection status as
/// `nvidia_smi_nvml_return_code` (0 on success) in place of the nvidia-smi
/// backend's `command_exit_code` (its `docs/METRICS.md`); nvq, which reads
/// NVML, serves the NVML backend's family.
#[test]
fn nvidia_gpu_exporter_profile_reports_an_nvml_return_code() {
    let sc = write_scenario(&format!("{SIM_HEAD}{}", h100(0, 1 << 30)));
    let server = Server::start(
        sc.path(),
        &["--profile=nvidia_gpu_exporter", "--collect.interval=0"],
    );
    let body = server.metrics();
    assert!(
        body.contains("# TYPE nvidia_smi_nvml_return_code gauge\nnvidia_smi_nvml_return_code 0\n"),
        "{body}"
    );
    assert!(!body.contains("command_exit_code"), "{body}");
}
