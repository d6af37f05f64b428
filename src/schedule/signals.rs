//! Ctrl+C, SIGTERM and SIGHUP for loops: finish the current sample, then
//! stop (exit 0, with the `--summary` if asked: a monitoring daemon told to
//! hang up is told to stop, not killed).
//!
//! [`StopSignals::install`] routes the three to a handler that sets
//! a flag and writes one byte to a non-blocking self-pipe. The loop's sleep
//! ([`StopSignals::sleep_until`]) waits on that pipe with `ppoll`, so a
//! signal wakes it at once, with no window in which a signal can be missed.
//! A write that waits for a reader polls the same pipe
//! ([`StopSignals::wake_fd`], see `output::Watch`), so a loop blocked on a
//! full stdout pipe is stopped too. Samples never take longer than their
//! deadline (see `deadline`), so a stop is answered within one deadline even
//! while GPUs hang.
//! A second signal while the first is being honoured restores the default
//! action and re-raises it, so a loop stuck in a slow driver call can still
//! be killed with a second Ctrl+C. A copy of the signal that arrives within
//! `REPEAT_GRACE_NS` of the first is the same request delivered twice, not
//! a second Ctrl+C, and is ignored: GNU `timeout` signals the child and then
//! its whole process group, so `timeout -s INT 10 nvq -l 1 ...` delivers
//! SIGINT twice within microseconds, and nvq must still end with exit 0.

use std::os::raw::c_int;
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicU64, Ordering};
use std::time::{Duration, Instant};

static STOP: AtomicBool = AtomicBool::new(false);
/// Write end of the self-pipe, -1 when not installed.
static PIPE_WR: AtomicI32 = AtomicI32::new(-1);

/// When the first stop signal arrived (CLOCK_MONOTONIC in ns, never 0);
/// 0 before.
static FIRST_AT: AtomicU64 = AtomicU64::new(0);
/// A stop signal this soon after the first is a copy of it, not a second
/// Ctrl+C (a person does not press twice within half a second).
const REPEAT_GRACE_NS: u64 = 500_000_000;

const SIGNALS: [c_int; 3] = [libc::SIGINT, libc::SIGTERM, libc::SIGHUP];

/// The first stop signal's number, 0 before one arrived.
static STOP_SIG: AtomicI32 = AtomicI32::new(0);

/// The stop signals the process inherited ignored (bit `1 << sig`), as
/// [`hold_ignored`] found them.
static INHERITED_IGNORED: AtomicU64 = AtomicU64::new(0);

/// Has SIGINT, SIGTERM or SIGHUP arrived while a loop's handlers were
/// installed? (A stop is final.)
pub fn stop_requested() -> bool {
    STOP.load(Ordering::SeqCst)
}

/// The first stop signal that arrived (SIGINT, SIGTERM or SIGHUP), if any:
/// `nvq wait` cancels its command with `128 + N` after it.
pub fn stop_signal() -> Option<c_int> {
    let s = STOP_SIG.load(Ordering::SeqCst);
    (s != 0).then_some(s)
}

/// Did the process inherit `sig` ignored (`nohup`, a background job of a
/// non-interactive shell)? A command nvq starts inherits it ignored too.
pub fn inherited_ignored(sig: c_int) -> bool {
    (0..64).contains(&sig) && INHERITED_IGNORED.load(Ordering::SeqCst) & (1u64 << sig) != 0
}

/// CLOCK_MONOTONIC in ns, at least 1.
fn monotonic_ns() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime(2) is async-signal-safe and writes only `ts`.
    unsafe {
        libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts);
    }
    (ts.tv_sec as u64)
        .saturating_mul(1_000_000_000)
        .saturating_add(ts.tv_nsec as u64)
        .max(1)
}

extern "C" fn on_signal(sig: c_int) {
    // Only async-signal-safe calls here: atomics, clock_gettime, write,
    // signal, raise.
    let now = monotonic_ns();
    // The first signal's time is set before STOP, so that a copy handled at
    // the same moment on another thread finds it.
    let first = match FIRST_AT.compare_exchange(0, now, Ordering::SeqCst, Ordering::SeqCst) {
        Ok(_) => now,
        Err(t) => t,
    };
    let _ = STOP_SIG.compare_exchange(0, sig, Ordering::SeqCst, Ordering::SeqCst);
    if STOP.swap(true, Ordering::SeqCst) {
        if now.saturating_sub(first) < REPEAT_GRACE_NS {
            return;
        }
        // SAFETY: signal(2) and raise(3) are async-signal-safe.
        unsafe {
            libc::signal(sig, libc::SIG_DFL);
            libc::raise(sig);
        }
        return;
    }
    let fd = PIPE_WR.load(Ordering::SeqCst);
    if fd >= 0 {
        let b = 1u8;
        // SAFETY: write(2) on a non-blocking pipe is async-signal-safe; a
        // full pipe (EAGAIN) is fine, the reader is already woken.
        unsafe {
            libc::write(fd, std::ptr::addr_of!(b).cast(), 1);
        }
    }
}

/// Set by [`on_held`]: a stop signal the process inherited ignored arrived
/// before a loop's handlers were armed.
static HELD: AtomicI32 = AtomicI32::new(0);

extern "C" fn on_held(sig: c_int) {
    let _ = HELD.compare_exchange(0, sig, Ordering::SeqCst, Ordering::SeqCst);
}

/// Route `sig` to `handler`, with SA_RESTART, which keeps NVML's and the
/// writer's system calls from failing with EINTR.
fn handle(sig: c_int, handler: extern "C" fn(c_int)) {
    // SAFETY: a zeroed sigaction with a valid handler and an empty mask is
    // a valid argument.
    unsafe {
        let mut sa: libc::sigaction = std::mem::zeroed();
        sa.sa_sigaction = handler as libc::sighandler_t;
        sa.sa_flags = libc::SA_RESTART;
        libc::sigemptyset(&mut sa.sa_mask);
        libc::sigaction(sig, &sa, std::ptr::null_mut());
    }
}

/// At the start of the process: hold SIGINT, SIGTERM and SIGHUP where they
/// were inherited ignored (a background job of a non-interactive shell
/// starts with SIGINT ignored, `nohup` ignores SIGHUP). A held signal is
/// only noted: a loop, once it knows it is one, takes it as a stop
/// ([`arm`]); any other command keeps ignoring it, as its parent asked.
/// So `nvq ... -l 1 & kill -INT $!` is never lost, however early it comes.
pub fn hold_ignored() {
    for sig in SIGNALS {
        // SAFETY: sigaction(2) with a NULL new action only reads the
        // current one into `old`, a valid out-pointer.
        let ignored = unsafe {
            let mut old: libc::sigaction = std::mem::zeroed();
            libc::sigaction(sig, std::ptr::null(), &mut old) == 0
                && old.sa_sigaction == libc::SIG_IGN
        };
        if ignored {
            INHERITED_IGNORED.fetch_or(1u64 << sig, Ordering::SeqCst);
            handle(sig, on_held);
        }
    }
}

/// Route the three stop signals to the loop's handler now, whatever the
/// process inherited, before a loop's slow start (loading NVML, finding the
/// GPUs): a stop asked then (or held since the start, see [`hold_ignored`])
/// ends the loop, with the summary, instead of being lost or killing it.
/// [`StopSignals::install`] calls it again; calling it twice is harmless.
pub fn arm() {
    for sig in SIGNALS {
        handle(sig, on_signal);
    }
    let held = HELD.swap(0, Ordering::SeqCst);
    if held != 0 {
        on_signal(held);
    }
}

/// The installed SIGINT/SIGTERM/SIGHUP handlers of a loop.
pub struct StopSignals {
    /// Read end of the self-pipe, -1 if the pipe could not be made (then
    /// sleeps fall back to short slices).
    rd: c_int,
}

impl StopSignals {
    /// Install the handlers. Failure to install is not fatal: the loop then
    /// ends on Ctrl+C the default way (killed by the signal).
    pub fn install() -> Self {
        let mut fds = [-1 as c_int; 2];
        // SAFETY: pipe2 writes two descriptors into the array we pass.
        let ok = unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_NONBLOCK | libc::O_CLOEXEC) } == 0;
        let rd = if ok {
            PIPE_WR.store(fds[1], Ordering::SeqCst);
            fds[0]
        } else {
            -1
        };
        arm();
        StopSignals { rd }
    }

    /// Has SIGINT, SIGTERM or SIGHUP arrived?
    pub fn stop_requested(&self) -> bool {
        stop_requested()
    }

    /// The descriptor that becomes readable when a stop signal arrives
    /// (`None` without a self-pipe). It stays open while `self` lives.
    pub fn wake_fd(&self) -> Option<c_int> {
        (self.rd >= 0).then_some(self.rd)
    }

    /// Sleep until `deadline`, a stop signal, or (when `watch` is given) the
    /// reader of that descriptor going away (`| head` closing the pipe).
    pub fn sleep_until(&self, deadline: Instant, watch: Option<c_int>) -> Wake {
        loop {
            if self.stop_requested() {
                return Wake::Signal;
            }
            let now = Instant::now();
            if now >= deadline {
                return Wake::Deadline;
            }
            let mut left = deadline - now;
            let mut fds: [libc::pollfd; 2] = [libc::pollfd {
                fd: -1,
                events: 0,
                revents: 0,
            }; 2];
            let mut n = 0;
            if self.rd >= 0 {
                fds[n] = libc::pollfd {
                    fd: self.rd,
                    events: libc::POLLIN,
                    revents: 0,
                };
                n += 1;
            } else {
                // No pipe: wake up now and then to look at the flag.
                left = left.min(Duration::from_millis(50));
            }
            if let Some(fd) = watch {
                // events = 0: only POLLERR/POLLHUP are reported, which a
                // pipe's write end gets when its reader has gone.
                fds[n] = libc::pollfd {
                    fd,
                    events: 0,
                    revents: 0,
                };
                n += 1;
            }
            let ts = libc::timespec {
                tv_sec: left.as_secs().min(i32::MAX as u64) as libc::time_t,
                tv_nsec: left.subsec_nanos() as libc::c_long,
            };
            // SAFETY: `n` valid pollfds, a valid timespec, no signal mask.
            let r =
                unsafe { libc::ppoll(fds.as_mut_ptr(), n as libc::nfds_t, &ts, std::ptr::null()) };
            if r > 0 && watch.is_some() && fds[n - 1].revents & (libc::POLLERR | libc::POLLHUP) != 0
            {
                return Wake::OutputClosed;
            }
            // Otherwise woken by the pipe, by EINTR or by the timeout: the
            // checks at the top of the loop tell which.
        }
    }
}

/// Why [`StopSignals::sleep_until`] returned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wake {
    Deadline,
    Signal,
    OutputClosed,
}

impl Drop for StopSignals {
    fn drop(&mut self) {
        // Back to the default actions, unless a stop is under way (the flag
        // stays set: a stop is final): then the handler stays, so that a
        // late copy of the signal cannot kill nvq while it writes the end of
        // its output and exits; a separate, later signal still does.
        if !STOP.load(Ordering::SeqCst) {
            for sig in SIGNALS {
                // SAFETY: restoring the default disposition.
                unsafe {
                    libc::signal(sig, libc::SIG_DFL);
                }
            }
        }
        let wr = PIPE_WR.swap(-1, Ordering::SeqCst);
        // SAFETY: closing descriptors this struct created.
        unsafe {
            if wr >= 0 {
                libc::close(wr);
            }
            if self.rd >= 0 {
                libc::close(self.rd);
            }
        }
    }
}

/// Stop the process as SIGTSTP's default action does, and return once it
/// is continued (SIGCONT): `nvq top` on Ctrl+Z, which raw mode delivers as
/// a key (`group`: SIGTSTP to the whole process group, as the terminal
/// would have sent it), or on a SIGTSTP it caught, once it has put the
/// terminal back. The shell then sees the job stopped by SIGTSTP, as after
/// Ctrl+Z in any program. The handler that caught SIGTSTP is set aside
/// meanwhile and put back after.
pub fn stop_as_sigtstp(group: bool) {
    // SAFETY: sigaction(2), pthread_sigmask(3), kill(2) and raise(3) with
    // zeroed, then filled, structures and valid out-pointers; the old
    // action and mask are put back as they were read.
    unsafe {
        let mut default: libc::sigaction = std::mem::zeroed();
        default.sa_sigaction = libc::SIG_DFL;
        libc::sigemptyset(&mut default.sa_mask);
        let mut old: libc::sigaction = std::mem::zeroed();
        if libc::sigaction(libc::SIGTSTP, &default, &mut old) != 0 {
            return;
        }
        let mut tstp: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut tstp);
        libc::sigaddset(&mut tstp, libc::SIGTSTP);
        let mut mask: libc::sigset_t = std::mem::zeroed();
        libc::pthread_sigmask(libc::SIG_UNBLOCK, &tstp, &mut mask);
        if group {
            libc::kill(0, libc::SIGTSTP);
        } else {
            libc::raise(libc::SIGTSTP);
        }
        libc::pthread_sigmask(libc::SIG_SETMASK, &mask, std::ptr::null_mut());
        libc::sigaction(libc::SIGTSTP, &old, std::ptr::null_mut());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_signal_cuts_the_sleep_short_and_is_remembered() {
        let s = StopSignals::install();
        assert!(!s.stop_requested());
        let deadline = Instant::now() + Duration::from_millis(20);
        assert_eq!(s.sleep_until(deadline, None), Wake::Deadline);
        assert!(Instant::now() >= deadline);
        // A pipe whose reader has gone wakes the sleep.
        let mut p = [-1 as c_int; 2];
        // SAFETY: pipe(2) fills the array; both ends are closed below.
        unsafe {
            assert_eq!(libc::pipe(p.as_mut_ptr()), 0);
            libc::close(p[0]);
        }
        let far = Instant::now() + Duration::from_secs(60);
        assert_eq!(s.sleep_until(far, Some(p[1])), Wake::OutputClosed);
        // SAFETY: closing the write end made above.
        unsafe {
            libc::close(p[1]);
        }
        // SAFETY: raising SIGTERM in this process, whose handler is ours.
        unsafe {
            libc::raise(libc::SIGTERM);
        }
        assert!(s.stop_requested());
        // A copy of the signal right after the first (GNU timeout sends one
        // to the child and one to its group) is ignored: still alive here.
        // SAFETY: as above.
        unsafe {
            libc::raise(libc::SIGTERM);
        }
        assert!(s.stop_requested());
        let t0 = Instant::now();
        assert_eq!(
            s.sleep_until(t0 + Duration::from_secs(60), None),
            Wake::Signal
        );
        drop(s);
        // SAFETY: the test is done with signals; back to the defaults.
        unsafe {
            libc::signal(libc::SIGTERM, libc::SIG_DFL);
            libc::signal(libc::SIGINT, libc::SIG_DFL);
        }
        assert_eq!(stop_signal(), Some(libc::SIGTERM));
        STOP.store(false, Ordering::SeqCst);
        FIRST_AT.store(0, Ordering::SeqCst);
        STOP_SIG.store(0, Ordering::SeqCst);
    }
}
