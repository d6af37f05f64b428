//! The signal handlers of a supervised command: before it starts, a signal
//! cancels it; while it runs, a signal is passed on to it; after it ended,
//! nvq is about to exit with its status and a signal changes nothing.
//!
//! Every signal nvq forwards gets [`on_signal`], which only touches atomics
//! and calls `kill(2)` (async-signal-safe), whatever thread it runs on. A
//! signal the kernel sent to the whole foreground process group (Ctrl+C,
//! Ctrl+\, a window resize, a terminal hang-up: `si_code` SI_KERNEL) has
//! reached the command already when it shares nvq's group, and is not sent
//! twice: Python's first Ctrl+C raises KeyboardInterrupt, a second one
//! would cut its clean-up short.

use std::os::raw::c_int;
use std::sync::atomic::{AtomicI32, AtomicU64, Ordering};

/// The command's PID once started; 0 before, -1 after it ended.
static CHILD: AtomicI32 = AtomicI32::new(0);
/// The first forwarded signal that arrived before the command started.
static PENDING: AtomicI32 = AtomicI32::new(0);
/// The signals whose handler this module installed (bit `1 << sig`).
static ARMED: AtomicU64 = AtomicU64::new(0);
/// Of those, the ones the process had ignored before: the command gets
/// them ignored too.
static WAS_IGNORED: AtomicU64 = AtomicU64::new(0);

/// `si_code` of a signal the kernel sent (the terminal's, to a group).
const SI_KERNEL: c_int = 0x80;

extern "C" fn on_signal(sig: c_int, info: *mut libc::siginfo_t, _ctx: *mut libc::c_void) {
    // SAFETY: the kernel passes a valid siginfo to an SA_SIGINFO handler;
    // it is only read, and only when not null.
    let from_kernel = !info.is_null() && unsafe { (*info).si_code } == SI_KERNEL;
    let pid = CHILD.load(Ordering::SeqCst);
    if pid == 0 {
        let _ = PENDING.compare_exchange(0, sig, Ordering::SeqCst, Ordering::SeqCst);
        // Started meanwhile: `started` may have read PENDING before this
        // store; whoever swaps it back to 0 sends it.
        let now = CHILD.load(Ordering::SeqCst);
        if now > 0 && PENDING.swap(0, Ordering::SeqCst) != 0 {
            send(now, sig);
        }
        return;
    }
    if pid < 0 {
        return;
    }
    // SAFETY: getpgid(2) and getpgrp(2) are plain system calls that only
    // read the process table.
    let same_group = unsafe { libc::getpgid(pid) == libc::getpgrp() };
    if from_kernel && same_group {
        return;
    }
    send(pid, sig);
}

fn send(pid: c_int, sig: c_int) {
    // SAFETY: kill(2) is async-signal-safe; `pid` is the unreaped command
    // (a zombie at worst: its PID cannot have been reused).
    unsafe {
        libc::kill(pid, sig);
    }
}

/// Route `signals` to the forwarding handler from now on. A signal that
/// arrives from here until the command starts cancels it ([`cancelled`]).
pub fn arm(signals: &[c_int]) {
    for &sig in signals {
        if !(1..64).contains(&sig) {
            continue;
        }
        // SAFETY: a zeroed sigaction with a valid SA_SIGINFO handler and an
        // empty mask is a valid argument; `old` is a valid out-pointer.
        let old = unsafe {
            let mut sa: libc::sigaction = std::mem::zeroed();
            let handler: extern "C" fn(c_int, *mut libc::siginfo_t, *mut libc::c_void) = on_signal;
            sa.sa_sigaction = handler as libc::sighandler_t;
            sa.sa_flags = libc::SA_RESTART | libc::SA_SIGINFO;
            libc::sigemptyset(&mut sa.sa_mask);
            let mut old: libc::sigaction = std::mem::zeroed();
            libc::sigaction(sig, &sa, &mut old);
            old
        };
        let bit = 1u64 << sig;
        if ARMED.fetch_or(bit, Ordering::SeqCst) & bit != 0 {
            continue;
        }
        if old.sa_sigaction == libc::SIG_IGN || crate::schedule::signals::inherited_ignored(sig) {
            WAS_IGNORED.fetch_or(bit, Ordering::SeqCst);
        }
    }
}

/// The signal that arrived after [`arm`] and before the command started.
pub fn cancelled() -> Option<c_int> {
    let s = PENDING.load(Ordering::SeqCst);
    (s != 0).then_some(s)
}

/// The command runs as `pid`: forward to it from now on, the signal that
/// came while it was being started included.
pub fn started(pid: c_int) {
    CHILD.store(pid, Ordering::SeqCst);
    let sig = PENDING.swap(0, Ordering::SeqCst);
    if sig != 0 {
        send(pid, sig);
    }
}

/// Send `sig` to the command if it is still running (`nvq run
/// --budget-action=stop`); nothing once it has ended.
pub fn signal(sig: c_int) {
    let pid = CHILD.load(Ordering::SeqCst);
    if pid > 0 {
        send(pid, sig);
    }
}

/// The command has ended (not yet reaped): forward nothing more.
pub fn ended() {
    CHILD.store(-1, Ordering::SeqCst);
}

/// In the command, between fork and exec: the signals nvq handles but its
/// own parent had ignored are ignored again (exec resets handled ones to
/// the default action, and keeps ignored ones ignored).
///
/// Async-signal-safe: atomics and `signal(2)` only.
pub fn restore_in_child() {
    let ignored = WAS_IGNORED.load(Ordering::SeqCst);
    for sig in 1..64 {
        if ignored & (1u64 << sig) != 0 {
            // SAFETY: setting a disposition in the child before exec.
            unsafe {
                libc::signal(sig, libc::SIG_IGN);
            }
        }
    }
}
