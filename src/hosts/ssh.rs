//! `ssh://` nodes: a node without `nvq serve` is read by running nvq on it
//! through the system's own `ssh`, one `ssh` per sample. A loop shares one
//! connection per node among its samples: nvq starts its own `ssh` master
//! ([`Master`], `ControlMaster` on a socket in a private folder) for the
//! loop's life, and each sample's `ssh` runs over it (or, while the master
//! is not up, connects by itself). On a loaded two-core machine a sample
//! over the master took 80 to 200 ms where a new connection took 450 to
//! 560 ms (`benches/RESULTS.md`); a remote loop streaming its answers
//! would save the remote nvq's start too, but it would need a second
//! protocol (a stream of answers, and its own deadlines) where one answer
//! per sample keeps the node's deadline and the late-GPU rule as they are.
//!
//! The node runs `nvq serve --answer=MODE:FIELDS --answer-within=MS`
//! (`app::serve_answer`), which prints the same wire answer as
//! `/api/v1/query` (`model::wire`) on stdout, so `hosts::read_on` decodes one
//! form whichever way it came. The remote command line is fixed by nvq:
//! fixed words, the mode's option and the fields' canonical names (checked
//! again here to hold only letters, digits, `.`, `_` and `-`), and a number
//! of milliseconds; nothing a user or a node wrote goes into it. The host
//! (which `hosts::list` lets start with neither `-` nor `.`) goes after
//! `--`.
//!
//! `ssh` runs in batch mode: no password prompt, no host-key prompt
//! (`StrictHostKeyChecking=yes`: a host that the user's `known_hosts` does
//! not know is refused, never added), no agent or X11 forwarding, no
//! tty; everything else (keys, agent, `ProxyJump`, a `ControlMaster` of
//! the user's own) comes from the user's ssh config.
//!
//! Every exchange is bounded: the answer may hold at most
//! [`MAX_BODY`](super::fetch::MAX_BODY) bytes, stderr is kept to
//! [`MAX_STDERR`] bytes (and read to its end, so a node that floods it
//! cannot stall), and an `ssh` still running at the sample's deadline is
//! killed and reaped: no `ssh` outlives its sample. How many run at once is
//! the number of nodes at most (one lane each, `app::hosts`).

use super::fetch::{Failure, MAX_BODY};
use super::list::{Host, Ssh};
use std::io::Read;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// The program run: the system's `ssh`, from `PATH`.
pub const SSH: &str = "ssh";

/// The program run on the node, from its `PATH`.
pub const REMOTE_NVQ: &str = "nvq";

/// The most bytes of `ssh`'s stderr kept for a message.
pub const MAX_STDERR: usize = 4096;

/// The exit status of a shell that did not find the command.
const NOT_FOUND: i32 = 127;

/// The exit status of `ssh` itself failing (cannot connect, refused key).
const SSH_FAILED: i32 = 255;

/// nvq's exit status for a usage error (an option it does not know).
const USAGE: i32 = 2;

/// The remote command's words for one query, or why no safe one can be
/// made (a field name outside the safe set, which the field tables never
/// hold).
pub fn remote_command(
    option: &str,
    fields: &[&str],
    within: Duration,
) -> Result<Vec<String>, Failure> {
    let safe = |s: &str| {
        !s.is_empty()
            && !s.starts_with('-')
            && s.chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
    };
    if !safe(option) || fields.is_empty() || !fields.iter().all(|f| safe(f)) {
        return Err(Failure::Broken(
            "a field name nvq cannot send over ssh".into(),
        ));
    }
    let ms = within.as_millis().clamp(1, 3_600_000);
    Ok(vec![
        REMOTE_NVQ.to_string(),
        "serve".to_string(),
        format!("--answer={option}:{}", fields.join(",")),
        format!("--answer-within={ms}"),
    ])
}

/// The arguments to `ssh` before `--`: batch mode, known hosts only, and
/// the entry's user and port.
pub fn options(ssh: &Ssh, left: Duration) -> Vec<String> {
    let connect = left.as_secs().max(1);
    let mut args: Vec<String> = [
        "-T",
        "-x",
        "-a",
        "-o",
        "BatchMode=yes",
        "-o",
        "StrictHostKeyChecking=yes",
        "-o",
        "ClearAllForwardings=yes",
        "-o",
        "LogLevel=ERROR",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    args.push("-o".into());
    args.push(format!("ConnectTimeout={connect}"));
    if let Some(port) = ssh.port {
        args.push("-p".into());
        args.push(port.to_string());
    }
    if let Some(user) = &ssh.user {
        args.push("-l".into());
        args.push(user.clone());
    }
    args
}

/// `ssh` for `host`, with `extra` arguments before `--`, its stdin empty.
/// It gets SIGTERM if the thread that started it ends (nvq killed, even by
/// SIGKILL), so that no `ssh` outlives nvq.
fn command(host: &Host, ssh: &Ssh, left: Duration, extra: &[&str]) -> Command {
    let mut c = Command::new(SSH);
    c.args(options(ssh, left))
        .args(extra)
        .arg("--")
        .arg(&host.host)
        .stdin(Stdio::null());
    // SAFETY: the closure runs in the child between fork and exec and makes
    // one system call (async-signal-safe), allocating nothing.
    unsafe {
        c.pre_exec(|| {
            // Best effort: without it, nvq still kills and reaps its children.
            let _ = libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGTERM);
            Ok(())
        });
    }
    c
}

/// An `ssh` master connection to one node that a loop's samples share:
/// started with the loop, killed and reaped when dropped. Its socket lies
/// in a folder of its own that only this user can enter.
pub struct Master {
    child: Child,
    socket: PathBuf,
    _dir: tempfile::TempDir,
}

impl Master {
    /// Start the master for `host`; `None` if it cannot be (the samples
    /// then connect one by one).
    pub fn start(host: &Host, ssh: &Ssh) -> Option<Master> {
        let dir = tempfile::Builder::new().prefix("nvq-ssh-").tempdir().ok()?;
        let socket = dir.path().join("m");
        let path = socket.to_str()?.to_string();
        let child = command(
            host,
            ssh,
            Duration::from_secs(10),
            &["-M", "-N", "-S", &path, "-o", "ControlPersist=no"],
        )
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
        Some(Master {
            child,
            socket,
            _dir: dir,
        })
    }

    /// The socket the samples' `ssh` use.
    pub fn socket(&self) -> &Path {
        &self.socket
    }
}

impl Drop for Master {
    fn drop(&mut self) {
        stop(&mut self.child);
    }
}

/// Which pipe a reader read.
enum Pipe {
    Out,
    Err,
}

/// Read `pipe` to its end, keeping at most `keep` bytes; `stop_over`:
/// give up (and so close the pipe) once more than `keep` came.
fn drain(mut pipe: impl Read, keep: usize, stop_over: bool) -> Vec<u8> {
    let mut kept = Vec::new();
    let mut buf = [0u8; 16 * 1024];
    loop {
        match pipe.read(&mut buf) {
            Ok(0) | Err(_) => return kept,
            Ok(n) => {
                let room = (keep + 1).saturating_sub(kept.len());
                kept.extend_from_slice(&buf[..n.min(room)]);
                if stop_over && kept.len() > keep {
                    return kept;
                }
            }
        }
    }
}

/// Kill `child` and reap it.
fn stop(child: &mut Child) {
    let _ = child.kill();
    let _ = child.wait();
}

/// Run the query on `host` (an `ssh://` node) by `deadline`, over the
/// master at `socket` if there is one: the wire answer nvq printed there.
pub fn get(
    host: &Host,
    ssh: &Ssh,
    socket: Option<&Path>,
    option: &str,
    fields: &[&str],
    deadline: Instant,
) -> Result<Vec<u8>, Failure> {
    let left = deadline.saturating_duration_since(Instant::now());
    if left.is_zero() {
        return Err(Failure::Late);
    }
    // The node answers a little before the deadline, naming its late GPUs,
    // so that its answer has time to come back.
    let command = remote_command(option, fields, left.mul_f64(0.8))?;
    let socket = socket.and_then(Path::to_str);
    let shared = match socket {
        Some(s) => vec!["-S", s, "-o", "ControlMaster=no"],
        None => Vec::new(),
    };
    let mut child = self::command(host, ssh, left, &shared)
        .args(&command)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| Failure::Connect(format!("cannot run {SSH}: {e}")))?;
    let (tx, rx) = mpsc::channel();
    let pipes = [
        child
            .stdout
            .take()
            .map(|p| (Pipe::Out, Box::new(p) as Box<dyn Read + Send>)),
        child
            .stderr
            .take()
            .map(|p| (Pipe::Err, Box::new(p) as Box<dyn Read + Send>)),
    ];
    for (which, pipe) in pipes.into_iter().flatten() {
        let tx = tx.clone();
        let spawned = std::thread::Builder::new()
            .name("nvq-ssh".into())
            .spawn(move || {
                let got = match which {
                    Pipe::Out => drain(pipe, MAX_BODY, true),
                    Pipe::Err => drain(pipe, MAX_STDERR, false),
                };
                let _ = tx.send((which, got));
            });
        if let Err(e) = spawned {
            stop(&mut child);
            return Err(Failure::Connect(format!("cannot start a thread: {e}")));
        }
    }
    drop(tx);
    let (mut body, mut err) = (None, None);
    while body.is_none() || err.is_none() {
        let left = deadline.saturating_duration_since(Instant::now());
        match rx.recv_timeout(left) {
            Ok((Pipe::Out, b)) if b.len() > MAX_BODY => {
                stop(&mut child);
                return Err(Failure::TooLarge);
            }
            Ok((Pipe::Out, b)) => body = Some(b),
            Ok((Pipe::Err, b)) => err = Some(b),
            Err(_) => {
                stop(&mut child);
                return Err(Failure::Late);
            }
        }
    }
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(2)),
            Ok(None) | Err(_) => {
                stop(&mut child);
                return Err(Failure::Late);
            }
        }
    };
    let (body, err) = (body.unwrap_or_default(), err.unwrap_or_default());
    match status.code() {
        Some(0) => Ok(body),
        code => Err(failure(code, &err)),
    }
}

/// Why a run that did not succeed failed, from its exit status and stderr.
pub fn failure(code: Option<i32>, stderr: &[u8]) -> Failure {
    let text = String::from_utf8_lossy(stderr);
    let line = last_line(&text);
    match code {
        Some(NOT_FOUND) => Failure::Missing,
        Some(SSH_FAILED) => Failure::Connect(if line.is_empty() {
            "ssh failed".into()
        } else {
            format!("ssh: {line}")
        }),
        Some(USAGE)
            if [
                "--answer",
                "unexpected argument",
                "unrecognized",
                "Found argument",
            ]
            .iter()
            .any(|w| text.contains(w)) =>
        {
            Failure::TooOld
        }
        Some(code) => Failure::Broken(format!("nvq there exited with status {code}: {line}")),
        None => Failure::Broken("ssh was ended by a signal".into()),
    }
}

/// The last non-empty line of a stderr, cut to 160 characters, printable.
fn last_line(text: &str) -> String {
    let line: String = text
        .lines()
        .rev()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or("")
        .chars()
        .take(160)
        .collect();
    crate::render::printable(&line).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_remote_command_is_fixed_words_and_field_names() {
        let c = remote_command(
            "query-gpu",
            &["index", "memory.used"],
            Duration::from_millis(800),
        )
        .unwrap();
        assert_eq!(
            c,
            [
                "nvq",
                "serve",
                "--answer=query-gpu:index,memory.used",
                "--answer-within=800"
            ]
        );
        for bad in ["a b", "$(x)", "a;b", "-x", "", "a'b"] {
            assert!(
                remote_command("query-gpu", &[bad], Duration::from_secs(1)).is_err(),
                "{bad:?}"
            );
        }
    }

    #[test]
    fn batch_mode_and_known_hosts_only() {
        let a = options(
            &Ssh {
                user: Some("ops".into()),
                port: Some(2222),
            },
            Duration::from_millis(300),
        );
        let s = a.join(" ");
        assert!(
            s.contains("-o BatchMode=yes -o StrictHostKeyChecking=yes"),
            "{s}"
        );
        assert!(
            s.contains("ConnectTimeout=1") && s.ends_with("-p 2222 -l ops"),
            "{s}"
        );
    }

    #[test]
    fn failures_are_told_apart() {
        assert_eq!(
            failure(Some(127), b"bash: nvq: command not found\n"),
            Failure::Missing
        );
        assert_eq!(
            failure(Some(2), b"error: unexpected argument '--answer' found\n"),
            Failure::TooOld
        );
        let Failure::Connect(m) = failure(Some(255), b"Host key verification failed.\r\n") else {
            panic!()
        };
        assert_eq!(m, "ssh: Host key verification failed.");
        let Failure::Broken(m) = failure(Some(9), b"\x1b]0;PWNED\x07boom\n") else {
            panic!()
        };
        assert!(!m.chars().any(char::is_control), "{m:?}");
    }
}
