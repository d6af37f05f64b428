//! `nvq serve` under a real Prometheus (Debian's): it scrapes every profile,
//! and the Grafana dashboards of `deploy/` get data from it.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;
use crate::serve::{split, Server};
use common::{h100, h100s, write_scenario};
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::Path;
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

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
pub(crate) fn mig_h100(i: usize) -> String {
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
