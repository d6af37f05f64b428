//! `--hosts`: nvq reads other nodes' `nvq serve` (its `/api/v1/query`),
//! each node simulated by an `nvq serve` on a loopback port, and hostile
//! nodes by small servers of the tests' own.

use crate::common::{self, bare, sim_lib};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

/// A node: `nvq serve` on a free loopback port; killed when dropped.
pub(crate) struct Node {
    child: Child,
    pub(crate) addr: String,
    _scenario: tempfile::NamedTempFile,
}

impl Node {
    /// A node of `gpus` H100s, GPU `i` with `i + 1` GiB in use (and a
    /// process on GPU 0), serving with `args`.
    pub(crate) fn start(gpus: usize, args: &[&str]) -> Node {
        Node::start_on(gpus, args, "127.0.0.1:0")
    }

    /// [`Node::start`] listening on `listen` (`127.0.0.1:PORT`).
    pub(crate) fn start_on(gpus: usize, args: &[&str], listen: &str) -> Node {
        let scenario = common::h100s(gpus)
            .on(
                [0],
                "\n[[device.process]]\npid = 4242\nused_memory = 1073741824\nname = \"python3 train.py\"\n",
            )
            .write();
        let mut child = common::nvq_command()
            .env("NVML_SIM_SCENARIO", scenario.path())
            .arg("--nvml-lib")
            .arg(sim_lib())
            .arg("serve")
            .arg(format!("--web.listen-address={listen}"))
            .args(args)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let stderr = BufReader::new(child.stderr.take().unwrap());
        let mut addr = None;
        for line in stderr.lines().map_while(Result::ok) {
            if let Some(rest) = line.split("listening on ").nth(1) {
                let rest = rest.split("://").nth(1).unwrap_or("");
                addr = rest.split('/').next().map(str::to_string);
                break;
            }
        }
        Node {
            child,
            addr: addr.expect("nvq serve said where it listens"),
            _scenario: scenario,
        }
    }
}

impl Node {
    /// Stop the node, as a node that goes down mid-run.
    pub(crate) fn stop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Node {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The same query run on the node itself (its scenario, through the simulator).
pub(crate) fn local(node: &Node, args: &[&str]) -> String {
    let scenario = node._scenario.path();
    common::nvq_ok(scenario, args)
}

#[test]
fn every_node_answers_as_it_would_itself_with_its_host_first() {
    let (a, b) = (Node::start(2, &[]), Node::start(1, &[]));
    let hosts = format!("{},{}", a.addr, b.addr);
    let q = "--query-gpu=index,name,memory.used,memory.used.percent,power.draw,compute_apps.count";
    let out = bare(&["--hosts", &hosts, q, "--format=csv,noheader"]);
    assert!(out.success(), "{}", out.stderr);
    let mut want = String::new();
    for node in [&a, &b] {
        for line in local(node, &[q, "--format=csv,noheader"]).lines() {
            want.push_str(&format!("{}, {line}\n", node.addr));
        }
    }
    assert_eq!(out.stdout, want);
    // The header names the host column first; JSON has a "host" key.
    let out = bare(&["--hosts", &hosts, q, "--format=csv"]);
    assert!(out
        .stdout
        .starts_with("host, index, name, memory.used [MiB]"));
    let out = bare(&["--hosts", &a.addr, "--query-gpu=index", "--format=json"]);
    let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(v[1]["host"], a.addr.as_str());
    assert_eq!(v[1]["index"], 1);
}

#[test]
fn the_short_commands_and_processes_read_every_node() {
    let (a, b) = (Node::start(2, &[]), Node::start(1, &[]));
    let hosts = format!("{},{}", a.addr, b.addr);
    let out = bare(&["mem", "--hosts", &hosts, "--format=csv,noheader"]);
    assert!(out.success(), "{}", out.stderr);
    let lines: Vec<String> = out.stdout.lines().map(str::to_string).collect();
    assert_eq!(lines.len(), 3, "{lines:?}");
    assert!(lines[2].starts_with(&format!("{}, 0, NVIDIA H100", b.addr)));
    // `ps` through $NVQ_HOSTS: the process of each node, with its host.
    let mut ps = common::nvq_command();
    ps.env("NVQ_HOSTS", &hosts)
        .args(["ps", "--format=csv,noheader"]);
    let ps = common::ran(ps).stdout;
    assert_eq!(ps.lines().count(), 2, "{ps}");
    assert!(ps.contains(&format!("{}, 0, 4242,", a.addr)), "{ps}");
    // The scripting flags see every node's rows.
    let out = bare(&[
        "--hosts",
        &hosts,
        "--query-gpu=index,memory.used",
        "--format=csv,noheader",
        "--where",
        "memory.used > 1.5GiB",
    ]);
    assert_eq!(
        out.stdout,
        format!("{}, 1, 2048 MiB\n", a.addr),
        "{}",
        out.stderr
    );
}

#[test]
fn prometheus_labels_every_series_with_its_host() {
    let a = Node::start(2, &[]);
    let out = bare(&[
        "--hosts",
        &a.addr,
        "--query-gpu=index,memory.used",
        "--format=prometheus",
    ]);
    let body = out.stdout;
    let samples: Vec<&str> = body.lines().filter(|l| !l.starts_with('#')).collect();
    assert!(!samples.is_empty());
    for s in samples {
        assert!(s.contains(&format!("host=\"{}\"", a.addr)), "{s}");
    }
}

/// A node that accepts and answers `answer` to every request, after `wait`.
pub(crate) fn fake_node(answer: Vec<u8>, wait: Duration) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut s) = stream else { continue };
            let answer = answer.clone();
            std::thread::spawn(move || {
                let mut buf = [0u8; 4096];
                let _ = s.read(&mut buf);
                std::thread::sleep(wait);
                let _ = s.write_all(&answer);
            });
        }
    });
    addr
}

pub(crate) fn http_ok(body: &str) -> Vec<u8> {
    format!(
        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .into_bytes()
}

#[test]
fn failed_late_and_hostile_nodes_are_named_and_the_others_print() {
    let good = Node::start(1, &[]);
    // A port nothing listens on.
    let closed = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .to_string();
    // A node that never answers, one that sends junk, one that floods.
    let hung = fake_node(Vec::new(), Duration::from_secs(3600));
    let junk = fake_node(
        http_ok("{\"version\": 1, \"rows\": [\u{1b}]0;PWNED"),
        Duration::ZERO,
    );
    let mut flood = b"HTTP/1.1 200 OK\r\nContent-Length: 20000000\r\n\r\n".to_vec();
    flood.extend(std::iter::repeat_n(b'[', 20_000_000));
    let flood = fake_node(flood, Duration::ZERO);
    let refusing = fake_node(
        b"HTTP/1.1 401 Unauthorized\r\nContent-Length: 24\r\n\r\nUnauthorized.\x1b]0;PWNED\x07\n"
            .to_vec(),
        Duration::ZERO,
    );
    let hosts = [good.addr.as_str(), &closed, &hung, &junk, &flood, &refusing].join(",");
    let started = Instant::now();
    let out = bare(&[
        "--hosts",
        &hosts,
        "--query-gpu=index,memory.used",
        "--format=csv,noheader",
    ]);
    let took = started.elapsed();
    assert_eq!(out.code, Some(23), "{}", out.stderr);
    assert_eq!(out.stdout, format!("{}, 0, 1024 MiB\n", good.addr));
    let err = out.stderr;
    for (node, why) in [
        (&closed, "cannot connect"),
        (&hung, "no answer within"),
        (&junk, "broken answer"),
        (&flood, "answered more than 8 MiB"),
        (&refusing, "answered HTTP 401: Unauthorized."),
    ] {
        assert!(
            err.contains(&format!("nvq: {node}: {why}")),
            "{node} {why}: {err}"
        );
    }
    assert!(!err.contains('\u{1b}') && !err.contains('\u{7}'), "{err:?}");
    assert!(err.contains("5 of 6 node(s) could not be read"), "{err}");
    // The one-shot wait is 10 s; far less than the hung node's hour.
    assert!(took < Duration::from_secs(60), "{took:?}");
}

#[test]
fn hostile_text_from_a_node_stays_one_printable_line() {
    let body = serde_json::json!({
        "version": 1,
        "mode": "query-gpu",
        "fields": ["index", "name"],
        "rows": [{"cells": [{"int": 0}, {"text": "GPU\u{1b}]0;PWNED\u{7}\nsecond line"}]}],
    })
    .to_string();
    let node = fake_node(http_ok(&body), Duration::ZERO);
    let out = bare(&[
        "--hosts",
        &node,
        "--query-gpu=index,name",
        "--format=csv,noheader",
    ]);
    let got = out.stdout;
    assert_eq!(got.lines().count(), 1, "{got:?}");
    assert!(!got.trim_end().chars().any(char::is_control), "{got:?}");
    // A node that answers other fields than asked is refused, not misread.
    let node = fake_node(
        http_ok(&body.replace("\"name\"]", "\"uuid\"]")),
        Duration::ZERO,
    );
    let out = bare(&["--hosts", &node, "--query-gpu=index,name", "--format=csv"]);
    assert_eq!(out.code, Some(23));
    assert!(out.stderr.contains("answered other fields"));
}

#[test]
fn a_loop_goes_on_when_a_node_stops_and_says_so_once() {
    let a = Node::start(1, &[]);
    let mut b = Node::start(1, &[]);
    let hosts = format!("{},{}", a.addr, b.addr);
    let mut child = common::nvq_command()
        .args([
            "--hosts",
            &hosts,
            "--query-gpu=index",
            "--format=csv,noheader",
            "-l",
            "1",
        ])
        .args(["--count", "8"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    // Both nodes answer (on a busy machine a first sample may come late).
    let mut first = String::new();
    while !first.contains(&b.addr) {
        assert!(stdout.read_line(&mut first).unwrap() > 0, "{first}");
    }
    let _ = b.child.kill();
    let _ = b.child.wait();
    let mut rest = String::new();
    stdout.read_to_string(&mut rest).unwrap();
    let status = child.wait().unwrap();
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    // A loop keeps going (exit 0); the stopped node is named once.
    assert!(status.success(), "{err}");
    assert_eq!(
        err.matches(&format!("nvq: {}: cannot connect", b.addr))
            .count(),
        1,
        "{err}"
    );
    assert!(rest.lines().last().unwrap().starts_with(&a.addr), "{rest}");
}

#[test]
fn basic_auth_and_bearer_secrets_come_from_files() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let hash = bcrypt::hash("s3cret", 4).unwrap();
    let web = d.join("web.yml");
    std::fs::write(&web, format!("basic_auth_users:\n  alice: {hash}\n")).unwrap();
    let node = Node::start(1, &["--web.config.file", web.to_str().unwrap()]);
    let pass = d.join("pass");
    std::fs::write(&pass, "s3cret\n").unwrap();
    let q = ["--query-gpu=index", "--format=csv,noheader"];
    let run = |extra: &[&str]| {
        let mut args = vec!["--hosts", node.addr.as_str()];
        args.extend_from_slice(extra);
        args.extend_from_slice(&q);
        bare(&args)
    };
    let ok = run(&[
        "--hosts-user",
        "alice",
        "--hosts-password-file",
        pass.to_str().unwrap(),
    ]);
    assert!(ok.success(), "{}", ok.stderr);
    assert_eq!(ok.stdout, format!("{}, 0\n", node.addr));
    std::fs::write(&pass, "wrong\n").unwrap();
    let bad = run(&[
        "--hosts-user",
        "alice",
        "--hosts-password-file",
        pass.to_str().unwrap(),
    ]);
    assert_eq!(bad.code, Some(23));
    assert!(bad.stderr.contains("answered HTTP 401"));
    assert!(!bad.stderr.contains("wrong"));
    // The environment may hold the password; the command line never does.
    let mut env = common::nvq_command();
    env.env("NVQ_HOSTS_PASSWORD", "s3cret")
        .args(["--hosts", &node.addr, "--hosts-user", "alice"])
        .args(q);
    let env = common::ran(env);
    assert!(env.success(), "{}", env.stderr);
    let none = run(&["--hosts-user", "alice"]);
    assert_eq!(none.code, Some(2));
    assert!(none.stderr.contains("NVQ_HOSTS_PASSWORD"));
}

/// A node behind TLS that requires a client certificate and basic auth:
/// read with the CA, the client certificate and the password; refused
/// without the certificate or against another CA, and named on stderr.
#[test]
fn a_node_behind_tls_client_certificates_and_basic_auth() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    if crate::serve_tls::certificates(d).is_none() {
        return;
    }
    let hash = bcrypt::hash("s3cret", 4).unwrap();
    let web = d.join("web.yml");
    std::fs::write(
        &web,
        format!(
            "tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n  \
             client_auth_type: RequireAndVerifyClientCert\n  client_ca_file: ca.crt\n\
             basic_auth_users:\n  prometheus: {hash}\n"
        ),
    )
    .unwrap();
    let node = Node::start(1, &["--web.config.file", web.to_str().unwrap()]);
    let pass = d.join("pass");
    std::fs::write(&pass, "s3cret\n").unwrap();
    let url = format!("https://{}", node.addr);
    let path = |f: &str| d.join(f).to_str().unwrap().to_string();
    let (ca, cert, key, pass) = (
        path("ca.crt"),
        path("client.crt"),
        path("client.key"),
        path("pass"),
    );
    let q = ["--query-gpu=index,memory.used", "--format=csv,noheader"];
    let run = |extra: &[&str]| {
        let mut args = vec!["--hosts", url.as_str(), "--hosts-user", "prometheus"];
        args.extend_from_slice(&["--hosts-password-file", &pass]);
        args.extend_from_slice(extra);
        args.extend_from_slice(&q);
        bare(&args)
    };
    let ok = run(&[
        "--hosts-ca-file",
        &ca,
        "--hosts-cert-file",
        &cert,
        "--hosts-key-file",
        &key,
    ]);
    assert!(ok.success(), "{}", ok.stderr);
    assert_eq!(ok.stdout, format!("{url}, 0, 1024 MiB\n"));
    // Without the client certificate the node refuses the handshake.
    let no_cert = run(&["--hosts-ca-file", &ca]);
    assert_eq!(no_cert.code, Some(23), "{}", no_cert.stderr);
    assert!(no_cert.stderr.contains(&format!("nvq: {url}: ")));
    // A certificate that the given CA did not sign is refused.
    let other = run(&[
        "--hosts-ca-file",
        &cert,
        "--hosts-cert-file",
        &cert,
        "--hosts-key-file",
        &key,
    ]);
    assert_eq!(other.code, Some(23), "{}", other.stderr);
    assert!(other.stderr.contains("TLS"), "{}", other.stderr);
}

#[test]
fn hosts_are_nvqs_own_and_checked_before_any_request() {
    // Under the name nvidia-smi there is no --hosts.
    let dir = tempfile::tempdir().unwrap();
    let smi = dir.path().join("nvidia-smi");
    std::os::unix::fs::symlink(common::nvq_bin(), &smi).unwrap();
    let mut out = common::command(&smi);
    out.args(["--hosts", "a", "--query-gpu=index", "--format=csv"]);
    let out = common::ran(out);
    assert_ne!(out.code, Some(0));
    assert!(out.stdout.contains("--hosts"), "{}", out.stdout);
    // Entries that could carry an option, a space or an escape are refused by name.
    for bad in ["-oProxyCommand=x", "a b", "ftp://a", "a:99999"] {
        let out = bare(&[
            &format!("--hosts={bad}"),
            "--query-gpu=index",
            "--format=csv",
        ]);
        assert_eq!(out.code, Some(2), "{bad}");
        assert!(out.stderr.contains("--hosts"), "{bad}");
    }
    // Modes that do not read nodes say so.
    for args in [&["topo", "-m", "--hosts", "a"][..], &["--hosts", "a"][..]] {
        let out = bare(args);
        assert_eq!(out.code, Some(2), "{args:?}");
        assert!(out.stderr.contains("--hosts works with"), "{args:?}");
    }
    let list = dir.path().join("nodes");
    std::fs::write(&list, "# none\n").unwrap();
    let out = bare(&[
        "--hosts",
        &format!("@{}", list.display()),
        "--query-gpu=index",
        "--format=csv",
    ]);
    assert_eq!(out.code, Some(2));
}

#[test]
fn wait_finds_a_free_gpu_on_any_node_and_says_which() {
    // b's only GPU runs a process; a's GPU 0 does, its GPU 1 is free.
    let (a, b) = (Node::start(2, &[]), Node::start(1, &[]));
    let hosts = format!("{},{}", b.addr, a.addr);
    let out = bare(&["wait", "--hosts", &hosts, "--timeout", "60"]);
    assert!(out.success(), "{}", out.stderr);
    assert_eq!(out.stdout, format!("{} 1\n", a.addr));
    // The command after -- runs here, told the node and GPU.
    let out = bare(&[
        "wait",
        "--hosts",
        &hosts,
        "--",
        "sh",
        "-c",
        "echo \"run on $NVQ_HOST GPU $NVQ_GPU\"; exit 7",
    ]);
    assert_eq!(out.code, Some(7), "{}", out.stderr);
    assert_eq!(out.stdout, format!("{0} 1\nrun on {0} GPU 1\n", a.addr));
    // --until-all holds across every node's rows: never, here.
    let out = bare(&[
        "wait",
        "--hosts",
        &hosts,
        "--until-all",
        "compute_apps.count == 0",
        "--timeout",
        "2",
        "--",
        "true",
    ]);
    assert_eq!(out.code, Some(21), "{}", out.stderr);
    assert_eq!(out.stdout, "");
}

#[test]
fn stat_shows_every_node_as_it_would_itself_grouped_by_host() {
    let (a, b) = (Node::start(2, &[]), Node::start(1, &[]));
    let closed = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .to_string();
    let hosts = format!("{},{},{closed}", a.addr, b.addr);
    let out = bare(&["stat", "--hosts", &hosts]);
    let err = out.stderr;
    assert_eq!(out.code, Some(23), "{err}");
    let width = [&a.addr, &b.addr, &closed]
        .iter()
        .map(|h| h.len())
        .max()
        .unwrap();
    let mut want = String::new();
    for node in [&a, &b] {
        for line in local(node, &["stat"]).lines() {
            want.push_str(&format!("{:<width$}  {line}\n", node.addr));
        }
    }
    assert_eq!(out.stdout, want);
    assert!(want.contains("python3 train.py/4242"), "{want}");
    assert!(
        err.contains(&format!("nvq: {closed}: cannot connect")),
        "{err}"
    );
}

#[test]
fn until_all_never_holds_while_a_node_cannot_be_read() {
    let a = Node::start(1, &[]);
    let closed = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .to_string();
    let hosts = format!("{},{closed}", a.addr);
    // Every row read holds it; the node not read might not.
    for args in [
        &["wait", "--hosts", &hosts, "--until-all", "index < 5"][..],
        &[
            "--hosts",
            &hosts,
            "--query-gpu=index",
            "--until-all",
            "index < 5",
        ][..],
    ] {
        let mut args = args.to_vec();
        args.extend(["--timeout", "2", "--format=csv,noheader"]);
        let out = bare(&args);
        assert_eq!(out.code, Some(21), "{args:?}: {}", out.stderr);
    }
}
