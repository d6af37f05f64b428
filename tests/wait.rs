//! `nvq wait -- CMD` as a supervisor sees it: a signal while it waits
//! cancels the command; while the command runs, signals reach it, nvq waits
//! for it and passes its status on; the command's arguments are its own;
//! a command that cannot run gets the shells' 127 and 126 (issue 54).
//!
//! Each test drives the real binary under the simulator. GPU 0 of
//! `wait_free.toml` is free at once; GPU 0 of `mon_4gpu.toml` stays busy.

use crate::common::{ran, run, scenario, sim_command};
use std::io::{BufRead, BufReader};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::Path;
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

fn free() -> std::path::PathBuf {
    scenario("wait_free.toml")
}

fn busy() -> std::path::PathBuf {
    scenario("mon_4gpu.toml")
}

/// `nvq wait` on `sc`'s GPU `gpu`, running `cmd`, in its own process group
/// (as a shell's job), stdout piped.
fn spawn_wait(sc: &Path, gpu: &str, cmd: &[&str]) -> Child {
    let mut args = vec!["wait", "-i", gpu, "-lms", "50", "--"];
    args.extend_from_slice(cmd);
    sim_command(Some(sc), &args)
        .process_group(0)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

fn signal(pid: i32, sig: libc::c_int) {
    // SAFETY: kill(2) with a PID (or a negated process group) this test started.
    assert_eq!(unsafe { libc::kill(pid, sig) }, 0, "kill {pid} {sig}");
}

/// Wait for `child` at most a minute (a busy machine), killing it after.
/// `command` is the PID of the command nvq ran, if known: were it still
/// alive once nvq has ended (an orphan: the defect tested), it is killed
/// and `orphan` says so, so the test fails instead of hanging on its pipes.
struct Ended {
    status: std::process::ExitStatus,
    stderr: String,
    orphan: bool,
}

fn finish(mut child: Child, command: Option<i32>) -> Ended {
    let t0 = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            let orphan = command.is_some_and(|pid| {
                let was = alive(pid);
                if was {
                    // SAFETY: kill(2) of the orphan this test's nvq started.
                    unsafe { libc::kill(pid, libc::SIGKILL) };
                }
                was
            });
            let o = child.wait_with_output().unwrap();
            return Ended {
                status,
                stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
                orphan,
            };
        }
        if t0.elapsed() > Duration::from_secs(60) {
            let _ = child.kill();
            if let Some(pid) = command {
                // SAFETY: as above.
                unsafe { libc::kill(pid, libc::SIGKILL) };
            }
            panic!("nvq wait did not end within a minute");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Is process `pid` alive (and not a zombie)?
fn alive(pid: i32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(s) => !s
            .rsplit(')')
            .next()
            .unwrap_or("")
            .trim_start()
            .starts_with('Z'),
        Err(_) => false,
    }
}

/// The first line the command printed (its PID, by the scripts below).
fn first_line(child: &mut Child) -> String {
    let out = child.stdout.take().unwrap();
    let mut r = BufReader::new(out);
    let mut line = String::new();
    r.read_line(&mut line).unwrap();
    // Keep reading in the background so the command never blocks on a full pipe.
    std::thread::spawn(move || std::io::copy(&mut r, &mut std::io::sink()));
    line.trim().to_string()
}

#[test]
fn a_signal_while_waiting_cancels_the_command() {
    for (sig, code) in [
        (libc::SIGTERM, 143),
        (libc::SIGINT, 130),
        (libc::SIGHUP, 129),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let mark = dir.path().join("ran");
        let child = spawn_wait(&busy(), "0", &["touch", mark.to_str().unwrap()]);
        // Long enough for NVML to be loaded and the wait begun on a busy
        // machine; a signal earlier must cancel too.
        std::thread::sleep(Duration::from_millis(700));
        signal(child.id() as i32, sig);
        let e = finish(child, None);
        assert_eq!(
            e.status.code(),
            Some(code),
            "signal {sig}: {:?} {}",
            e.status,
            e.stderr
        );
        std::thread::sleep(Duration::from_millis(100));
        assert!(!mark.exists(), "signal {sig}: the cancelled command ran");
    }
}

#[test]
fn nothing_after_the_double_dash_is_changed() {
    let o = run(
        &free(),
        &[
            "wait", "-i", "0", "-lms", "20", "--", "printf", "[%s]", "-lms", "1", "-lms=5",
            "-lms100", "-d=1", "-l=2", "--mode=", "-m",
        ],
    );
    assert_eq!(
        o.stdout, "[-lms][1][-lms=5][-lms100][-d=1][-l=2][--mode=][-m]",
        "{}",
        o.stderr
    );
    assert_eq!(o.code, Some(0));
}

#[test]
fn a_signal_reaches_the_running_command_and_nvq_waits_for_it() {
    let dir = tempfile::tempdir().unwrap();
    let done = dir.path().join("done");
    // The command takes its time over SIGTERM and exits 3: nvq must still
    // be there, and exit 3, after the command wrote its file.
    let script = format!(
        "trap 'sleep 0.3; echo x > {}; exit 3' TERM; echo $$; while :; do sleep 0.05; done",
        done.display()
    );
    let mut child = spawn_wait(&free(), "0", &["sh", "-c", &script]);
    let pid: i32 = first_line(&mut child).parse().unwrap();
    signal(child.id() as i32, libc::SIGTERM);
    let e = finish(child, Some(pid));
    assert!(!e.orphan, "the command outlived nvq");
    assert_eq!(e.status.code(), Some(3), "{:?} {}", e.status, e.stderr);
    assert!(done.exists(), "nvq ended before its command had");
}

#[test]
fn a_command_killed_by_a_forwarded_signal_gives_128_plus_n() {
    for (sig, code) in [
        (libc::SIGTERM, 143),
        (libc::SIGINT, 130),
        (libc::SIGHUP, 129),
    ] {
        let mut child = spawn_wait(&free(), "0", &["sh", "-c", "echo $$; exec sleep 30"]);
        let pid: i32 = first_line(&mut child).parse().unwrap();
        signal(child.id() as i32, sig);
        let e = finish(child, Some(pid));
        assert!(!e.orphan, "signal {sig}: the command outlived nvq");
        // nvq exits with the status, it is not killed itself.
        assert_eq!(
            e.status.signal(),
            None,
            "signal {sig}: nvq was killed: {}",
            e.stderr
        );
        assert_eq!(e.status.code(), Some(code), "signal {sig}: {}", e.stderr);
    }
}

#[test]
fn ctrl_c_to_the_whole_group_ends_the_command_before_nvq() {
    // On a terminal Ctrl+C goes to the foreground group: nvq and its
    // command both get it. nvq must survive it and pass the status on.
    let mut child = spawn_wait(&free(), "0", &["sh", "-c", "echo $$; exec sleep 30"]);
    let pid: i32 = first_line(&mut child).parse().unwrap();
    signal(-(child.id() as i32), libc::SIGINT);
    let e = finish(child, Some(pid));
    assert!(!e.orphan, "the command outlived nvq");
    assert_eq!(e.status.code(), Some(130), "{:?} {}", e.status, e.stderr);
}

#[test]
fn a_command_that_cannot_run_exits_127_or_126() {
    let dir = tempfile::tempdir().unwrap();
    let plain = dir.path().join("not-executable");
    std::fs::write(&plain, "#!/bin/sh\necho hi\n").unwrap();
    let missing = dir.path().join("missing");
    let cases: [(&str, i32); 4] = [
        ("nvq-no-such-command-54", 127),
        (missing.to_str().unwrap(), 127),
        (plain.to_str().unwrap(), 126),
        (dir.path().to_str().unwrap(), 126),
    ];
    for (cmd, code) in cases {
        let o = run(&free(), &["wait", "-i", "0", "-lms", "20", "--", cmd]);
        let err = o.stderr;
        assert_eq!(o.code, Some(code), "{cmd}: {err}");
        assert!(
            err.starts_with("nvq: ") && err.contains(cmd) && err.lines().count() == 1,
            "{cmd}: {err}"
        );
    }
}

#[test]
fn an_output_format_default_does_not_stop_the_command() {
    for format in ["prometheus", "json", "no-such-format"] {
        let mut c = sim_command(
            Some(&free()),
            &[
                "wait",
                "-i",
                "0",
                "-lms",
                "20",
                "--",
                "sh",
                "-c",
                "echo ran; exit 4",
            ],
        );
        c.env("NVQ_FORMAT", format);
        let o = ran(c);
        assert_eq!(o.code, Some(4), "NVQ_FORMAT={format}: {}", o.stderr);
        assert_eq!(o.stdout, "ran\n");
    }
}
