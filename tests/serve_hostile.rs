//! `nvq serve` under hostile clients and a hostile NVML (issue #27):
//! pipeliners that never read, tiny and long scrape timeouts, floods,
//! SIGTERM whatever NVML does, a lost GPU, a hung start-up, and hung GPUs
//! that are not selected.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;
use crate::serve::{promtool_accepts, split, value, Server};
use common::{delay, h100, h100s, sim_lib, write_scenario, SIM_HEAD};
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

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
