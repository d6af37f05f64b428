//! `nvq serve --web.config.file`: TLS, client certificates and basic auth
//! checked with openssl's certificates and curl, bad files refused, and
//! failed handshakes logged at a bounded rate.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;
use crate::serve::Server;
use common::{h100s, sim_lib};
use std::path::Path;
use std::process::Command;
use std::time::Duration;

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
