//! The nvq profile's own series: GPU processes (opt-in), energy counters,
//! XID errors counted outside the collection, and memory growth with the
//! time to full.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;
use crate::serve::{promtool_accepts, value, Server};
use common::{delay, h100, h100s, sim_lib, write_scenario, SIM_HEAD};
use std::process::Command;
use std::time::{Duration, Instant};

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
