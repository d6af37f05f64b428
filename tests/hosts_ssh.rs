//! `--hosts` with `ssh://` nodes: nvq runs nvq on the node through the
//! system's `ssh`, against a real `sshd` (Debian's openssh-server) on a
//! loopback port, with a generated host key and an authorized key for
//! root. Each node is an `sshd` whose sessions have their own `PATH`: one
//! holds a simulated nvq (a wrapper that reads a scenario through the
//! simulator), one holds no nvq, one an nvq too old to answer, one an nvq
//! that hangs. The client's `ssh` is the system's, given the test's config
//! (its key and `known_hosts`) by a wrapper first on `PATH`.

use crate::common::{self, h100, sim_lib, write_scenario, SIM_HEAD};
use std::net::{TcpListener, TcpStream};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

const SSHD: &str = "/usr/sbin/sshd";

/// Whether the test can run: root (sshd logs a user in only as root), an
/// `sshd`, `ssh` and `ssh-keygen`. Otherwise it says why and is skipped.
fn can_run() -> bool {
    // Each need skips through common (recorded for the banner), or fails
    // where CI requires it (Debian: openssh-server, openssh-client).
    crate::common::require_root("sshd for ssh:// nodes")
        && crate::common::require_tool(SSHD).is_some()
        && crate::common::require_tool("ssh").is_some()
        && crate::common::require_tool("ssh-keygen").is_some()
}

/// The keys, configs and wrappers one test's nodes share.
struct Site {
    dir: tempfile::TempDir,
    /// The public host key's line without a host (`ssh-ed25519 AAAA...`).
    host_key: String,
    _scenario: tempfile::NamedTempFile,
}

fn write_exec(path: &Path, text: &str) {
    std::fs::write(path, text).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

impl Site {
    fn new() -> Site {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        for key in ["host_key", "client_key"] {
            let ok = Command::new("ssh-keygen")
                .args(["-q", "-t", "ed25519", "-N", "", "-f"])
                .arg(d.join(key))
                .status()
                .unwrap();
            assert!(ok.success());
        }
        std::fs::copy(d.join("client_key.pub"), d.join("authorized_keys")).unwrap();
        let host_key = std::fs::read_to_string(d.join("host_key.pub")).unwrap();
        let host_key = host_key
            .split_whitespace()
            .take(2)
            .collect::<Vec<_>>()
            .join(" ");
        std::fs::write(d.join("known_hosts"), "").unwrap();
        std::fs::write(
            d.join("ssh_config"),
            format!(
                "Host *\n  IdentityFile {0}/client_key\n  IdentitiesOnly yes\n  UserKnownHostsFile {0}/known_hosts\n  GlobalKnownHostsFile /dev/null\n",
                d.display()
            ),
        )
        .unwrap();
        // The client's `ssh`: the system's, with the test's config.
        std::fs::create_dir(d.join("client")).unwrap();
        write_exec(
            &d.join("client/ssh"),
            &format!(
                "#!/bin/sh\nexec /usr/bin/ssh -F {}/ssh_config \"$@\"\n",
                d.display()
            ),
        );
        // The nodes' nvq: a simulated node of two H100s, one process.
        let mut text = SIM_HEAD.to_string();
        text.push_str(&h100(0, 1 << 30));
        text.push_str(
            "\n[[device.process]]\npid = 4242\nused_memory = 1073741824\nname = \"python3 train.py\"\n",
        );
        text.push_str(&h100(1, 2 << 30));
        let scenario = write_scenario(&text);
        for (bin, script) in [
            (
                "sim",
                format!(
                    "#!/bin/sh\nNVML_SIM_SCENARIO={} exec {} --nvml-lib {} \"$@\"\n",
                    scenario.path().display(),
                    common::nvq_bin().display(),
                    sim_lib().display()
                ),
            ),
            (
                "old",
                "#!/bin/sh\necho \"nvq: unknown option or word $2; run 'nvq --help' for nvq's options.\" >&2\nexit 2\n".to_string(),
            ),
            ("hung", "#!/bin/sh\nexec /bin/sleep 60\n".to_string()),
        ] {
            std::fs::create_dir(d.join(bin)).unwrap();
            write_exec(&d.join(bin).join("nvq"), &script);
        }
        std::fs::create_dir(d.join("empty")).unwrap();
        Site {
            dir,
            host_key,
            _scenario: scenario,
        }
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }

    /// An `sshd` whose sessions have `bin` (under the site) as `PATH`,
    /// known to the client by `[127.0.0.1]:port`.
    fn node(&self, bin: &str) -> Sshd {
        let d = self.path();
        let port = TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let config = d.join(format!("sshd_{port}"));
        std::fs::write(
            &config,
            format!(
                "Port {port}\nListenAddress 127.0.0.1\nHostKey {0}/host_key\nPidFile none\n\
                 AuthorizedKeysFile {0}/authorized_keys\nPasswordAuthentication no\n\
                 KbdInteractiveAuthentication no\nPermitRootLogin prohibit-password\n\
                 StrictModes no\nUsePAM no\nLogLevel ERROR\nSetEnv PATH={0}/{bin}\n",
                d.display()
            ),
        )
        .unwrap();
        let _ = std::fs::create_dir_all("/run/sshd");
        let child = Command::new(SSHD)
            .args(["-D", "-e", "-f"])
            .arg(&config)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let known = d.join("known_hosts");
        let mut lines = std::fs::read_to_string(&known).unwrap();
        lines.push_str(&format!("[127.0.0.1]:{port} {}\n", self.host_key));
        std::fs::write(&known, lines).unwrap();
        let started = Instant::now();
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(
                started.elapsed() < Duration::from_secs(30),
                "sshd did not start"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        Sshd {
            child,
            entry: format!("ssh://root@127.0.0.1:{port}"),
            port,
        }
    }

    /// nvq with these arguments, its `ssh` the site's.
    fn nvq(&self, args: &[&str]) -> Output {
        self.command(args).output().unwrap()
    }

    fn command(&self, args: &[&str]) -> Command {
        let mut c = common::nvq_command();
        c.env_remove("NVQ_HOSTS")
            .env("PATH", self.client_path())
            .args(args);
        c
    }

    fn client_path(&self) -> String {
        format!(
            "{}:{}",
            self.path().join("client").display(),
            std::env::var("PATH").unwrap_or_default()
        )
    }

    /// The same query on the simulated node itself.
    fn local(&self, args: &[&str]) -> String {
        common::nvq_ok(self._scenario.path(), args)
    }
}

/// One `sshd`; killed and reaped when dropped.
struct Sshd {
    child: Child,
    entry: String,
    port: u16,
}

impl Drop for Sshd {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// The `ssh` processes still running toward `port`.
fn ssh_left(port: u16) -> Vec<PathBuf> {
    let want = format!("-p\0{port}\0");
    std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| {
            std::fs::read(p.join("cmdline"))
                .map(|c| {
                    let c = String::from_utf8_lossy(&c);
                    c.starts_with("/usr/bin/ssh\0") && c.contains(&want)
                })
                .unwrap_or(false)
        })
        .collect()
}

#[test]
fn an_ssh_node_answers_as_it_would_itself() {
    if !can_run() {
        return;
    }
    let site = Site::new();
    let node = site.node("sim");
    let q = "--query-gpu=index,name,memory.used,compute_apps.count";
    let out = site.nvq(&["--hosts", &node.entry, q, "--format=csv,noheader"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let want: String = site
        .local(&[q, "--format=csv,noheader"])
        .lines()
        .map(|l| format!("{}, {l}\n", node.entry))
        .collect();
    assert_eq!(text(&out.stdout), want);
    // Processes too, through a short command.
    let out = site.nvq(&["ps", "--hosts", &node.entry, "--format=csv,noheader"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let ps = text(&out.stdout);
    assert!(
        ps.starts_with(&format!("{}, ", node.entry)) && ps.contains("4242"),
        "{ps}"
    );
}

#[test]
fn missing_old_and_unknown_nodes_are_named_and_the_others_print() {
    if !can_run() {
        return;
    }
    let site = Site::new();
    let (good, missing, old) = (site.node("sim"), site.node("empty"), site.node("old"));
    // Known by address only: `localhost` is a host ssh was never told of.
    let unknown = format!("ssh://root@localhost:{}", good.port);
    let known_before = std::fs::read_to_string(site.path().join("known_hosts")).unwrap();
    let hosts = [&good.entry, &missing.entry, &old.entry, &unknown]
        .map(String::as_str)
        .join(",");
    let out = site.nvq(&[
        "--hosts",
        &hosts,
        "--query-gpu=index",
        "--format=csv,noheader",
    ]);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(23), "{err}");
    assert_eq!(
        text(&out.stdout),
        format!("{0}, 0\n{0}, 1\n", good.entry),
        "{err}"
    );
    assert!(
        err.contains(&format!("nvq: nvq is not installed on {}\n", missing.entry)),
        "{err}"
    );
    assert!(
        err.contains(&format!("nvq: nvq on {} is too old", old.entry)),
        "{err}"
    );
    // No prompt, and the unknown host is refused, not added.
    assert!(
        err.contains(&format!(
            "nvq: {unknown}: cannot connect: ssh: Host key verification failed"
        )),
        "{err}"
    );
    assert_eq!(
        std::fs::read_to_string(site.path().join("known_hosts")).unwrap(),
        known_before
    );
    assert!(err.contains("3 of 4 node(s) could not be read"), "{err}");
}

#[test]
fn a_hung_ssh_node_is_late_and_its_ssh_is_killed() {
    if !can_run() {
        return;
    }
    let site = Site::new();
    let (good, hung) = (site.node("sim"), site.node("hung"));
    let hosts = format!("{},{}", good.entry, hung.entry);
    // The good node must answer within each sample's deadline.
    let _on_time = common::on_time();
    let started = Instant::now();
    let out = site.nvq(&[
        "--hosts",
        &hosts,
        "--query-gpu=index",
        "--format=csv,noheader",
        "-l",
        "2",
        "--count",
        "3",
    ]);
    let err = text(&out.stderr);
    assert!(started.elapsed() < Duration::from_secs(50), "{err}");
    let lines = text(&out.stdout);
    assert!(
        lines.contains(&format!("{}, 1\n", good.entry)),
        "{lines}{err}"
    );
    assert!(!lines.contains(&hung.entry), "{lines}");
    assert!(
        err.contains(&format!("nvq: {}: no answer within", hung.entry)),
        "{err}"
    );
    // Every ssh nvq started (the samples' and the loop's masters) has
    // been killed and reaped.
    assert_eq!(ssh_left(hung.port), Vec::<PathBuf>::new());
    assert_eq!(ssh_left(good.port), Vec::<PathBuf>::new());
}
