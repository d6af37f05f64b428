//! `nvq serve` (issue #22): the real server on 127.0.0.1, scraped over HTTP
//! with a plain socket client (`Server`, shared by the `serve_*` files): its
//! pages, promtool's verdict, one shared collection, a hung GPU under the
//! scrape's timeout, hostile requests, gzip, and SIGTERM.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;
use common::{delay, h100s, sim_lib};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// A running `nvq serve`; killed when dropped.
pub(crate) struct Server {
    pub(crate) child: Child,
    pub(crate) addr: SocketAddr,
    pub(crate) log: Arc<Mutex<Vec<String>>>,
}

impl Server {
    pub(crate) fn start(scenario: &Path, args: &[&str]) -> Server {
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
    pub(crate) fn raw(&self, request: &[u8]) -> String {
        let mut s = TcpStream::connect(self.addr).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
        let _ = s.write_all(request);
        let mut out = Vec::new();
        let _ = s.read_to_end(&mut out);
        String::from_utf8_lossy(&out).into_owned()
    }

    /// GET `path` with extra header lines: (status, headers, body).
    pub(crate) fn get(&self, path: &str, headers: &str) -> (u16, String, String) {
        let req = format!("GET {path} HTTP/1.1\r\nHost: t\r\nConnection: close\r\n{headers}\r\n");
        split(&self.raw(req.as_bytes()))
    }

    pub(crate) fn metrics(&self) -> String {
        let (status, _, body) = self.get("/metrics", "");
        assert_eq!(status, 200, "{body}");
        body
    }

    pub(crate) fn log(&self) -> Vec<String> {
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
pub(crate) fn split(answer: &str) -> (u16, String, String) {
    let (head, body) = answer.split_once("\r\n\r\n").unwrap_or((answer, ""));
    let status = head
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    (status, head.to_ascii_lowercase(), body.to_string())
}

/// The value of the sample `name{labels}` whose labels contain `label`.
pub(crate) fn value(body: &str, name: &str, label: &str) -> Option<f64> {
    body.lines()
        .filter(|l| !l.starts_with('#'))
        .filter(|l| l.starts_with(&format!("{name}{{")) || l.starts_with(&format!("{name} ")))
        .find(|l| l.contains(label))
        .and_then(|l| l.rsplit(' ').next())
        .and_then(|v| v.parse().ok())
}

/// promtool's verdict on an exposition: (exit code, what it printed), or
/// `None` without promtool.
pub(crate) fn promtool(body: &str) -> Option<(i32, String)> {
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

pub(crate) fn promtool_accepts(body: &str) {
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
