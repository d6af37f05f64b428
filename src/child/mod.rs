//! A command nvq starts and supervises (`nvq wait -- CMD`, `nvq run --
//! CMD`), the way `timeout`, `tini` and `dumb-init` do it:
//!
//! - its arguments are passed exactly as given;
//! - a signal that arrives before it starts cancels it: it is never run,
//!   and nvq exits `128 + N` ([`NvqError::Cancelled`]);
//! - a command that cannot be started is exit 127 (not found) or 126 (not
//!   executable), with nvq's message ([`NvqError::CannotRun`]);
//! - while it runs, the signals nvq forwards ([`WAIT_SIGNALS`],
//!   [`RUN_SIGNALS`]) reach it ([`forward`]), nvq waits for it and exits
//!   with its status, `128 + N` when it died of signal N ([`status_code`]);
//!   nvq survives every one of them, so it never ends before its command;
//! - were nvq killed outright (SIGKILL), the command gets SIGTERM
//!   (`PR_SET_PDEATHSIG`) rather than run on as an orphan.

pub mod forward;
pub mod torch;
pub mod tree;

use nvq_core::error::NvqError;
use std::ffi::OsString;
use std::os::raw::c_int;
use std::os::unix::process::CommandExt;

/// The signals `nvq wait` cancels on, then forwards: a stop asked of a
/// supervised job (Ctrl+C, `systemctl stop`, `docker stop`, a hang-up).
pub const WAIT_SIGNALS: &[c_int] = &[libc::SIGINT, libc::SIGTERM, libc::SIGHUP];

/// The signals `nvq run` forwards: the stops, and those a job is commonly
/// told things by (SIGQUIT for a dump, SIGUSR1/2 to checkpoint, SIGWINCH
/// for a resized terminal).
pub const RUN_SIGNALS: &[c_int] = &[
    libc::SIGINT,
    libc::SIGTERM,
    libc::SIGHUP,
    libc::SIGQUIT,
    libc::SIGUSR1,
    libc::SIGUSR2,
    libc::SIGWINCH,
];

/// A started command, not yet waited for.
#[derive(Debug)]
pub struct Job {
    pid: c_int,
}

/// Route `signals` to the command from now on: see [`forward::arm`]. Call
/// it before the last check of whether to start the command at all.
pub fn arm(signals: &[c_int]) {
    forward::arm(signals);
}

/// Make nvq a child subreaper: a process of the job whose parent exits is
/// re-parented to nvq, not to init, so the job's tree stays below nvq
/// ([`tree`]) and nvq reaps it ([`Job::wait_reaping`]).
pub fn become_subreaper() {
    // SAFETY: prctl(2) with PR_SET_CHILD_SUBREAPER takes a flag and nothing else.
    unsafe {
        libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1 as libc::c_ulong, 0, 0, 0);
    }
}

/// Start `command` (program and arguments, exactly as given) with nvq's
/// terminal and standard streams, unless a signal has cancelled it since
/// [`arm`].
pub fn start(command: &[OsString]) -> Result<Job, NvqError> {
    start_with::<&str>(command, &[])
}

/// [`start`], with these variables added to the command's environment
/// (`nvq wait --hosts`: the host and GPU found).
pub fn start_with<V: AsRef<std::ffi::OsStr>>(
    command: &[OsString],
    env: &[(&str, V)],
) -> Result<Job, NvqError> {
    let Some((program, args)) = command.split_first() else {
        return Err(NvqError::Usage("no command to run after --".into()));
    };
    if let Some(sig) = forward::cancelled() {
        return Err(NvqError::Cancelled(sig));
    }
    let mut cmd = std::process::Command::new(program);
    cmd.args(args);
    cmd.envs(env.iter().map(|(k, v)| (k, v)));
    // SAFETY: getpid(2) only returns this process's PID.
    let nvq = unsafe { libc::getpid() };
    // SAFETY: the closure runs in the child between fork and exec and makes
    // only async-signal-safe calls (prctl, getppid, signal, _exit), with no
    // allocation.
    unsafe {
        cmd.pre_exec(move || {
            libc::prctl(
                libc::PR_SET_PDEATHSIG,
                libc::SIGTERM as libc::c_ulong,
                0,
                0,
                0,
            );
            if libc::getppid() != nvq {
                // nvq died before the death signal was set: no orphan.
                libc::_exit(128 + libc::SIGTERM);
            }
            forward::restore_in_child();
            Ok(())
        });
    }
    let child = cmd.spawn().map_err(|e| cannot_run(program, &e))?;
    let pid = child.id() as c_int;
    // nvq reaps the command itself (`Job::wait`): the std handle is let go
    // without waiting.
    drop(child);
    forward::started(pid);
    Ok(Job { pid })
}

impl Job {
    /// The command's PID.
    pub fn pid(&self) -> c_int {
        self.pid
    }

    /// Wait for the command to end, forwarding signals meanwhile; its
    /// status as a shell gives it ([`status_code`]).
    pub fn wait(self) -> Result<i32, NvqError> {
        self.wait_for(false)
    }

    /// [`Job::wait`] for a subreaper: every other child that ends
    /// meanwhile (a re-parented process of the job) is reaped too.
    pub fn wait_reaping(self) -> Result<i32, NvqError> {
        self.wait_for(true)
    }

    fn wait_for(self, reap_others: bool) -> Result<i32, NvqError> {
        loop {
            // SAFETY: a zeroed siginfo is a valid out-value for waitid(2).
            let mut info: libc::siginfo_t = unsafe { std::mem::zeroed() };
            // WNOWAIT: the command stays a zombie, so its PID cannot be
            // reused by another process while forwarding is switched off.
            // SAFETY: waitid(2) on our own child with a valid out-pointer.
            let (idtype, id) = if reap_others {
                (libc::P_ALL, 0)
            } else {
                (libc::P_PID, self.pid as libc::id_t)
            };
            let r = unsafe { libc::waitid(idtype, id, &mut info, libc::WEXITED | libc::WNOWAIT) };
            if r == 0 {
                // SAFETY: waitid filled `info` for an exited child.
                let pid = unsafe { info.si_pid() };
                if pid == self.pid {
                    break;
                }
                // Another process of the job, re-parented to nvq: reap it.
                // SAFETY: waitpid(2) on a child known to have exited.
                unsafe {
                    libc::waitpid(pid, std::ptr::null_mut(), libc::WNOHANG);
                }
                continue;
            }
            let e = std::io::Error::last_os_error();
            if e.raw_os_error() != Some(libc::EINTR) {
                return Err(NvqError::Usage(format!("cannot wait for the command: {e}")));
            }
        }
        forward::ended();
        let mut status: c_int = 0;
        loop {
            // SAFETY: waitpid(2) on our own child with a valid out-pointer.
            let r = unsafe { libc::waitpid(self.pid, &mut status, 0) };
            if r == self.pid {
                return Ok(status_code(status));
            }
            let e = std::io::Error::last_os_error();
            if e.raw_os_error() != Some(libc::EINTR) {
                return Err(NvqError::Usage(format!("cannot wait for the command: {e}")));
            }
        }
    }
}

/// A wait status as a shell's `$?`: the exit code, or `128 + N` for a
/// command that died of signal N.
pub fn status_code(status: c_int) -> i32 {
    if libc::WIFEXITED(status) {
        libc::WEXITSTATUS(status)
    } else if libc::WIFSIGNALED(status) {
        128 + libc::WTERMSIG(status)
    } else {
        128
    }
}

/// Why `program` could not start, as a shell says it: 127 for a command
/// not found, 126 for one found but not executable.
fn cannot_run(program: &std::ffi::OsStr, e: &std::io::Error) -> NvqError {
    let shown = shown(&program.to_string_lossy());
    let not_found = e.kind() == std::io::ErrorKind::NotFound;
    let has_slash = program.to_string_lossy().contains('/');
    let reason = if not_found && !has_slash {
        "command not found".to_string()
    } else {
        // The system's words without Rust's " (os error N)".
        let text = e.to_string();
        match text.find(" (os error") {
            Some(i) => text[..i].to_string(),
            None => text,
        }
    };
    NvqError::CannotRun {
        program: shown,
        reason,
        not_found,
    }
}

/// A command's name as it may be shown on a terminal: control characters
/// as `?`, at most [`SHOWN_MAX`] characters.
pub fn shown(s: &str) -> String {
    let mut out: String = s
        .chars()
        .take(SHOWN_MAX)
        .map(|c| if c.is_control() { '?' } else { c })
        .collect();
    if s.chars().count() > SHOWN_MAX {
        out.push('…');
    }
    out
}

/// The longest command name quoted in a message.
const SHOWN_MAX: usize = 200;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statuses_as_a_shell_gives_them() {
        assert_eq!(status_code(0), 0);
        assert_eq!(status_code(7 << 8), 7);
        assert_eq!(status_code(libc::SIGTERM), 143);
        assert_eq!(status_code(libc::SIGKILL | 0x80), 137);
    }

    #[test]
    fn a_name_is_shown_without_control_characters_and_bounded() {
        assert_eq!(shown("a\u{1b}]0;x\u{7}b"), "a?]0;x?b");
        let long = "y".repeat(1000);
        assert_eq!(shown(&long).chars().count(), SHOWN_MAX + 1);
    }
}
