//! `nvq serve --collect.pods` (issue #33): pod attribution from a fake
//! kubelet served by the test on a unix socket (real HTTP/2 gRPC, protobuf
//! encoded here by hand, field numbers as in the kubelet's
//! `podresources/v1/api.proto`). Labels on GPU, XID, process and dcgm
//! series; MIG devices and time-slicing replicas; a kubelet that hangs,
//! answers garbage or disappears never delays a scrape and never takes
//! series or labels away, and the health series say so.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;
use common::{scenario, sim_lib};

use hyper::body::{Body, Bytes, Frame};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::process::{Child, Stdio};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

// ---- protobuf, by hand -------------------------------------------------

fn varint(mut v: u64, out: &mut Vec<u8>) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// A length-delimited field (string, bytes, message).
fn ld(field: u64, bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    varint(field << 3 | 2, &mut out);
    varint(bytes.len() as u64, &mut out);
    out.extend_from_slice(bytes);
    out
}

/// `ContainerDevices{resource_name=1, device_ids=2}`.
fn devices(resource: &str, ids: &[&str]) -> Vec<u8> {
    let mut m = ld(1, resource.as_bytes());
    for id in ids {
        m.extend(ld(2, id.as_bytes()));
    }
    m
}

/// `ContainerResources{name=1, devices=2, cpu_ids=3}` (cpu_ids: a field
/// nvq does not read, packed).
fn container(name: &str, devs: &[Vec<u8>]) -> Vec<u8> {
    let mut m = ld(1, name.as_bytes());
    for d in devs {
        m.extend(ld(2, d));
    }
    m.extend(ld(3, &[2, 3]));
    m
}

/// `PodResources{name=1, namespace=2, containers=3}`.
fn pod(name: &str, namespace: &str, containers: &[Vec<u8>]) -> Vec<u8> {
    let mut m = ld(1, name.as_bytes());
    m.extend(ld(2, namespace.as_bytes()));
    for c in containers {
        m.extend(ld(3, c));
    }
    m
}

/// `ListPodResourcesResponse{pod_resources=1}`.
fn list(pods: &[Vec<u8>]) -> Vec<u8> {
    pods.iter().flat_map(|p| ld(1, p)).collect()
}

// ---- the fake kubelet ---------------------------------------------------

#[derive(Clone)]
enum Mode {
    /// Answer `List` with this message.
    Answer(Vec<u8>),
    /// Accept and say nothing.
    Hang,
    /// Accept and write bytes that are not HTTP/2.
    Noise,
    /// A well-formed gRPC answer whose message is not protobuf.
    BadMessage,
}

/// A gRPC answer's body: one data frame, then the trailers.
struct Grpc {
    data: Option<Bytes>,
    trailers: Option<hyper::HeaderMap>,
}

impl Body for Grpc {
    type Data = Bytes;
    type Error = std::convert::Infallible;
    fn poll_frame(
        mut self: Pin<&mut Self>,
        _: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
        if let Some(d) = self.data.take() {
            return Poll::Ready(Some(Ok(Frame::data(d))));
        }
        Poll::Ready(self.trailers.take().map(|t| Ok(Frame::trailers(t))))
    }
}

struct Kubelet {
    path: PathBuf,
    mode: Arc<Mutex<Mode>>,
    calls: Arc<Mutex<Vec<String>>>,
    _dir: tempfile::TempDir,
}

impl Kubelet {
    fn start(mode: Mode) -> Kubelet {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("kubelet.sock");
        let listener = std::os::unix::net::UnixListener::bind(&path).unwrap();
        listener.set_nonblocking(true).unwrap();
        let mode = Arc::new(Mutex::new(mode));
        let calls = Arc::new(Mutex::new(Vec::new()));
        let (m, c) = (Arc::clone(&mode), Arc::clone(&calls));
        std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap();
            rt.block_on(async move {
                let listener = tokio::net::UnixListener::from_std(listener).unwrap();
                while let Ok((mut stream, _)) = listener.accept().await {
                    let mode = m.lock().unwrap().clone();
                    let calls = Arc::clone(&c);
                    tokio::spawn(async move {
                        match mode {
                            Mode::Hang => {
                                tokio::time::sleep(Duration::from_secs(60)).await;
                                drop(stream);
                            }
                            Mode::Noise => {
                                use tokio::io::AsyncWriteExt;
                                let _ = stream
                                    .write_all(b"HTTP/1.1 200 OK\r\n\r\n\x00\xff garbage \xfe")
                                    .await;
                                tokio::time::sleep(Duration::from_secs(60)).await;
                            }
                            Mode::Answer(msg) => serve(stream, calls, grpc_frame(&msg)).await,
                            Mode::BadMessage => serve(stream, calls, grpc_frame(&[0xff; 9])).await,
                        }
                    });
                }
            });
        });
        Kubelet {
            path,
            mode,
            calls,
            _dir: dir,
        }
    }

    fn set(&self, mode: Mode) {
        *self.mode.lock().unwrap() = mode;
    }
}

fn grpc_frame(msg: &[u8]) -> Vec<u8> {
    let mut f = vec![0];
    f.extend_from_slice(&(msg.len() as u32).to_be_bytes());
    f.extend_from_slice(msg);
    f
}

async fn serve(stream: tokio::net::UnixStream, calls: Arc<Mutex<Vec<String>>>, body: Vec<u8>) {
    let svc = hyper::service::service_fn(move |req: hyper::Request<hyper::body::Incoming>| {
        calls.lock().unwrap().push(format!(
            "{} {} {}",
            req.method(),
            req.uri().path(),
            req.headers()
                .get("content-type")
                .and_then(|v| v.to_str().ok())
                .unwrap_or("")
        ));
        let body = body.clone();
        async move {
            let mut trailers = hyper::HeaderMap::new();
            trailers.insert("grpc-status", "0".parse().unwrap());
            let resp = hyper::Response::builder()
                .header("content-type", "application/grpc")
                .body(Grpc {
                    data: Some(Bytes::from(body)),
                    trailers: Some(trailers),
                })
                .unwrap();
            Ok::<_, std::convert::Infallible>(resp)
        }
    });
    let _ = hyper::server::conn::http2::Builder::new(hyper_util::rt::TokioExecutor::new())
        .serve_connection(hyper_util::rt::TokioIo::new(stream), svc)
        .await;
}

// ---- nvq serve -----------------------------------------------------------

struct Serve {
    child: Child,
    addr: String,
    log: Arc<Mutex<Vec<String>>>,
}

impl Drop for Serve {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn serve_nvq(scenario: &Path, args: &[&str]) -> Serve {
    let mut child = common::nvq_command()
        .env("NVML_SIM_SCENARIO", scenario)
        .arg("--nvml-lib")
        .arg(sim_lib())
        .args(["serve", "--web.listen-address=127.0.0.1:0"])
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
            if let Some(a) = line.split("http://").nth(1) {
                let _ = tx.send(a.split('/').next().unwrap_or("").to_string());
            }
            lines.lock().unwrap().push(line);
        }
    });
    let addr = rx
        .recv_timeout(Duration::from_secs(30))
        .expect("nvq serve did not start");
    Serve { child, addr, log }
}

impl Serve {
    /// `/metrics`, asking for an answer within one second; and how long it took.
    fn scrape(&self) -> (String, Duration) {
        let t = Instant::now();
        let mut s = TcpStream::connect(&self.addr).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
        write!(
            s,
            "GET /metrics HTTP/1.1\r\nHost: x\r\nX-Prometheus-Scrape-Timeout-Seconds: 1\r\nConnection: close\r\n\r\n"
        )
        .unwrap();
        let mut out = String::new();
        s.read_to_string(&mut out).unwrap();
        assert!(out.starts_with("HTTP/1.1 200"), "{out}");
        (out, t.elapsed())
    }

    /// Scrape until a sample of `family` carries every one of `labels`
    /// (a scrape just after the first successful kubelet poll may still
    /// come from a collection labelled before it), for at most 20 s; the
    /// last answer.
    fn scrape_until_labelled(&self, family: &str, labels: &[(&str, &str)]) -> String {
        let end = Instant::now() + Duration::from_secs(20);
        loop {
            let (body, _) = self.scrape();
            let labelled = samples(&body, family).iter().any(|l| {
                labels
                    .iter()
                    .all(|(k, v)| l.contains(&format!("{k}=\"{v}\"")))
            });
            if labelled || Instant::now() >= end {
                return body;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// Scrape until `line` is in the answer (the kubelet thread works on
    /// its own clock); the answer.
    fn scrape_until(&self, line: &str) -> String {
        let end = Instant::now() + Duration::from_secs(20);
        loop {
            let (body, _) = self.scrape();
            if body.lines().any(|l| l == line) {
                return body;
            }
            assert!(
                Instant::now() < end,
                "no `{line}` in\n{body}\nlog: {:?}",
                self.log.lock().unwrap()
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

/// The samples of `family` (lines starting `family{`).
fn samples<'a>(body: &'a str, family: &str) -> Vec<&'a str> {
    let head = format!("{family}{{");
    body.lines().filter(|l| l.starts_with(&head)).collect()
}

/// The one sample of `family` whose labels include every `labels` pair.
fn sample_with<'a>(body: &'a str, family: &str, labels: &[(&str, &str)]) -> &'a str {
    let found: Vec<&str> = samples(body, family)
        .into_iter()
        .filter(|l| {
            labels
                .iter()
                .all(|(k, v)| l.contains(&format!("{k}=\"{v}\"")))
        })
        .collect();
    assert_eq!(found.len(), 1, "{family} with {labels:?} in\n{body}");
    found[0]
}

const GPU0: &str = "GPU-f1ee0000-0000-4000-8000-000000000000";

/// GPU 0 held by ml/train-0/trainer (by UUID), GPU 1 by a time-slicing
/// replica of web/serve-1/server (by index, `::2`); an FPGA not counted.
fn train_pods() -> Vec<u8> {
    list(&[
        pod(
            "train-0",
            "ml",
            &[container("trainer", &[devices("nvidia.com/gpu", &[GPU0])])],
        ),
        pod(
            "serve-1",
            "web",
            &[container(
                "server",
                &[
                    devices("nvidia.com/gpu.shared", &["1::2"]),
                    devices("example.com/fpga", &["0"]),
                ],
            )],
        ),
        pod("idle", "ml", &[container("cpu-only", &[])]),
    ])
}

const FAST: &[&str] = &["--collect.pods", "--collect.pods.interval=200ms"];

#[test]
fn gpu_xid_and_process_series_carry_the_holding_pod() {
    let kubelet = Kubelet::start(Mode::Answer(train_pods()));
    let sock = format!("--collect.pods.socket={}", kubelet.path.display());
    let nvq = serve_nvq(
        &scenario("fleet_train.toml"),
        &[FAST, &["--collect.processes", &sock]].concat(),
    );
    nvq.scrape_until("nvq_pods_attribution_success 1");
    let train = [
        ("pod", "train-0"),
        ("namespace", "ml"),
        ("container", "trainer"),
    ];
    // The first scrapes after the first successful poll may still come
    // from a collection labelled before it: scrape until the pod's labels
    // are on the GPU's series (then every check below reads that answer).
    let body = nvq.scrape_until_labelled("nvq_memory_used_bytes", &train);
    let serve = [
        ("pod", "serve-1"),
        ("namespace", "web"),
        ("container", "server"),
    ];
    let used0 = sample_with(
        &body,
        "nvq_memory_used_bytes",
        &[&[("gpu", "0")][..], &train].concat(),
    );
    assert!(used0.ends_with(" 81604378624"), "{used0}");
    sample_with(
        &body,
        "nvq_memory_used_bytes",
        &[&[("gpu", "1")][..], &serve].concat(),
    );
    sample_with(
        &body,
        "nvq_gpu_info",
        &[&[("gpu", "0")][..], &train].concat(),
    );
    sample_with(
        &body,
        "nvq_energy_consumption_joules_total",
        &[&[("gpu", "1")][..], &serve].concat(),
    );
    // The XID 79 the scenario raises on GPU 1 (counted once it arrives).
    let body = nvq.scrape_until_family("nvq_xid_errors_total");
    sample_with(
        &body,
        "nvq_xid_errors_total",
        &[&[("xid", "79")][..], &serve].concat(),
    );
    sample_with(
        &body,
        "nvq_process_used_memory_bytes",
        &[&[("pid", "4101")][..], &train].concat(),
    );
    sample_with(
        &body,
        "nvq_process_info",
        &[&[("pid", "4202")][..], &serve].concat(),
    );
    for line in [
        "nvq_pods_attributed_devices 2",
        "nvq_pods_attribution_failures_total 0",
    ] {
        assert!(body.lines().any(|l| l == line), "{line} in\n{body}");
    }
    assert!(body
        .lines()
        .any(|l| l.starts_with("nvq_pods_attribution_last_success_timestamp_seconds ")));
    let calls = kubelet.calls.lock().unwrap().clone();
    assert!(
        calls
            .iter()
            .all(|c| c == "POST /v1.PodResourcesLister/List application/grpc"),
        "{calls:?}"
    );
    // No pod holds anything else: no series of a pod that holds no GPU.
    assert!(!body.contains("cpu-only"), "{body}");
}

impl Serve {
    fn scrape_until_family(&self, family: &str) -> String {
        let end = Instant::now() + Duration::from_secs(20);
        loop {
            let (body, _) = self.scrape();
            if !samples(&body, family).is_empty() {
                return body;
            }
            assert!(Instant::now() < end, "no {family} in\n{body}");
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

#[test]
fn mig_devices_label_their_gpu_in_the_dcgm_profile() {
    let msg = list(&[
        pod(
            "infer-a",
            "web",
            &[container(
                "model",
                &[devices(
                    "nvidia.com/mig-3g.40gb",
                    &["MIG-f1ee0000-0000-5000-8000-0000000000a1"],
                )],
            )],
        ),
        pod(
            "infer-b",
            "web",
            &[container(
                "model",
                &[devices(
                    "nvidia.com/mig-3g.40gb",
                    &["MIG-f1ee0000-0000-5000-8000-0000000000a2"],
                )],
            )],
        ),
    ]);
    let kubelet = Kubelet::start(Mode::Answer(msg));
    let sock = format!("--collect.pods.socket={}", kubelet.path.display());
    let nvq = serve_nvq(
        &scenario("fleet_mig.toml"),
        &[FAST, &["--profile=dcgm", &sock]].concat(),
    );
    nvq.scrape_until("nvq_pods_attributed_devices 2");
    // The GPU's series name both pods that hold its MIG devices.
    let pods = [
        ("pod", "infer-a,infer-b"),
        ("namespace", "web"),
        ("container", "model"),
    ];
    let body = nvq.scrape_until_labelled("DCGM_FI_DEV_GPU_TEMP", &pods);
    let temp = sample_with(&body, "DCGM_FI_DEV_GPU_TEMP", &pods);
    assert!(temp.ends_with(" 51"), "{temp}");
}

#[test]
fn a_kubelet_that_hangs_babbles_or_vanishes_never_delays_a_scrape_nor_removes_labels() {
    let _on_time = common::on_time();
    let kubelet = Kubelet::start(Mode::Answer(train_pods()));
    let sock = format!("--collect.pods.socket={}", kubelet.path.display());
    let nvq = serve_nvq(&scenario("fleet_train.toml"), &[FAST, &[&sock]].concat());
    nvq.scrape_until("nvq_pods_attribution_success 1");
    let held = [("gpu", "0"), ("pod", "train-0")];
    let mut failures = 0;
    for mode in [Mode::Hang, Mode::Noise, Mode::BadMessage] {
        kubelet.set(mode);
        let body = nvq.scrape_until("nvq_pods_attribution_success 0");
        let end = Instant::now() + Duration::from_secs(3);
        while Instant::now() < end {
            let (body, took) = nvq.scrape();
            // The scrape never waits for the kubelet: its calls time out
            // after 2 s, the scrape asked for an answer within 1 s (the
            // half second more is room for a loaded machine).
            assert!(took < Duration::from_millis(1500), "a scrape took {took:?}");
            sample_with(&body, "nvq_memory_used_bytes", &held);
            assert_eq!(samples(&body, "nvq_memory_used_bytes").len(), 2, "{body}");
        }
        let n: u64 = body
            .lines()
            .find_map(|l| l.strip_prefix("nvq_pods_attribution_failures_total "))
            .unwrap()
            .parse()
            .unwrap();
        assert!(n > failures, "failures {n} after {failures}");
        failures = n;
    }
    // The socket disappears.
    std::fs::remove_file(&kubelet.path).unwrap();
    std::thread::sleep(Duration::from_millis(600));
    let (body, _) = nvq.scrape();
    sample_with(&body, "nvq_memory_used_bytes", &held);
    assert!(
        body.lines().any(|l| l == "nvq_pods_attribution_success 0"),
        "{body}"
    );
    let log = nvq.log.lock().unwrap().join("\n");
    assert!(
        log.contains("pod attribution: cannot list pods from"),
        "{log}"
    );
}

#[test]
fn without_a_socket_series_are_served_unlabelled_and_health_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let sock = format!(
        "--collect.pods.socket={}",
        dir.path().join("none.sock").display()
    );
    let nvq = serve_nvq(
        &scenario("fleet_train.toml"),
        &[FAST, &["--collect.processes", &sock]].concat(),
    );
    let body = nvq.scrape_until("nvq_pods_attribution_success 0");
    assert_eq!(samples(&body, "nvq_memory_used_bytes").len(), 2, "{body}");
    assert!(!body.contains("pod=\""), "{body}");
    assert!(
        !body.contains("nvq_pods_attribution_last_success_timestamp_seconds"),
        "{body}"
    );
    // Off by default: no pod series at all.
    let plain = serve_nvq(&scenario("fleet_train.toml"), &[]);
    let (body, _) = plain.scrape();
    assert!(!body.contains("nvq_pods_"), "{body}");
}

#[test]
fn pods_flags_are_checked() {
    let out = common::nvq_command()
        .env("NVML_SIM_SCENARIO", scenario("fleet_train.toml"))
        .arg("--nvml-lib")
        .arg(sim_lib())
        .args(["serve", "--collect.pods", "--profile=nvidia_gpu_exporter"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("--collect.pods"),
        "{out:?}"
    );
    let out = common::nvq_command()
        .args(["serve", "--collect.pods", "--collect.pods.interval=soon"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{out:?}");
}

/// A time-sliced GPU shared by 10,000 pods (#54, item 17): each joined
/// label value stays within its bound (docs/kubernetes.md: at most 16
/// names and 1 KiB), the names first in order and then a `+N more` that
/// counts the rest, so the scrape stays small and a valid exposition.
#[test]
fn ten_thousand_pods_on_one_gpu_give_bounded_labels() {
    const PODS: usize = 10_000;
    let pods: Vec<Vec<u8>> = (0..PODS)
        .map(|i| {
            let replica = format!("{GPU0}::{i}");
            pod(
                &format!("infer-{i:05}"),
                &format!("team-{:04}", i % 1000),
                &[container(
                    &format!("model-{:03}", i % 100),
                    &[devices("nvidia.com/gpu.shared", &[replica.as_str()])],
                )],
            )
        })
        .collect();
    let kubelet = Kubelet::start(Mode::Answer(list(&pods)));
    let sock = format!("--collect.pods.socket={}", kubelet.path.display());
    let nvq = serve_nvq(
        &scenario("fleet_train.toml"),
        &[FAST, &["--collect.processes", &sock]].concat(),
    );
    nvq.scrape_until(&format!("nvq_pods_attributed_devices {PODS}"));
    // A scrape just after the poll may come from a collection before it.
    let end = Instant::now() + Duration::from_secs(20);
    let (body, line) = loop {
        let (body, _) = nvq.scrape();
        let line = samples(&body, "nvq_memory_used_bytes")
            .into_iter()
            .find(|l| l.contains("gpu=\"0\"") && l.contains("pod=\"infer-00000,"))
            .map(str::to_string);
        if let Some(line) = line {
            break (body, line);
        }
        assert!(Instant::now() < end, "GPU 0 is not labelled in\n{body}");
        std::thread::sleep(Duration::from_millis(100));
    };
    let label = |key: &str| -> String {
        let head = format!("{key}=\"");
        let from = line
            .find(&head)
            .unwrap_or_else(|| panic!("{key} in {line}"))
            + head.len();
        line[from..].split('"').next().unwrap().to_string()
    };
    for (key, distinct) in [("pod", PODS), ("namespace", 1000), ("container", 100)] {
        let value = label(key);
        assert!(value.len() <= 1024, "{key}: {} bytes", value.len());
        let names: Vec<&str> = value.split(',').collect();
        let (shown, more) = names.split_at(names.len() - 1);
        assert!(!shown.is_empty() && shown.len() <= 16, "{key}: {value}");
        let left: usize = more[0]
            .strip_prefix('+')
            .and_then(|m| m.strip_suffix(" more"))
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("{key}: no `+N more` at the end of {value}"));
        assert_eq!(shown.len() + left, distinct, "{key}: {value}");
        let mut sorted = shown.to_vec();
        sorted.sort_unstable();
        assert_eq!(sorted, shown, "{key}: the first names, in order");
    }
    // Every series of the GPU carries the bounded labels: a small scrape.
    assert!(body.len() < 256 << 10, "{} bytes", body.len());
    if let Some(said) = crate::formats::promtool_says(
        body.split_once("\r\n\r\n")
            .map_or(body.as_str(), |(_, b)| b),
    ) {
        assert!(said.is_empty(), "promtool: {said}");
    }
}
