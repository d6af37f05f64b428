//! The `--torch` channel: a unix socket in nvq's private directory, to
//! which each process of the job that initialized CUDA through torch
//! connects. What comes over it is untrusted:
//!
//! - a connection is taken only from a process of the job (its PID as the
//!   kernel gives it, `SO_PEERCRED`, below nvq now), at most
//!   [`MAX_PER_PID`] from one process and [`MAX_OPEN`] in all;
//! - each line is read strictly ([`wire::parse`]) and must carry the
//!   connecting process's own PID; a line longer than [`wire::MAX_LINE`],
//!   more lines than a module sends ([`Rate`]) or [`MAX_BAD`] refused lines
//!   close the connection;
//! - nvq keeps only each process's latest counters (at most
//!   [`MAX_PROCESSES`] processes), a few errors and out-of-memory reports.
//!
//! What was refused is counted by reason, for the report's notes.

use super::wire::{self, Device, Message, Refusal};
use std::collections::{BTreeMap, BTreeSet};
use std::io::Read;
use std::os::unix::io::AsRawFd;
use std::os::unix::net::{UnixListener, UnixStream};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The most connections open at once.
pub const MAX_OPEN: usize = 256;
/// The most connections of one process at once.
pub const MAX_PER_PID: usize = 4;
/// The most processes whose counters are kept.
pub const MAX_PROCESSES: usize = 4096;
/// Refused lines after which a connection is closed.
pub const MAX_BAD: u32 = 10;
/// The most module errors and out-of-memory reports kept.
const MAX_KEPT: usize = 16;

/// Why something sent over the channel was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Reason {
    /// A connection from a process that is not the job's.
    Foreign,
    /// More connections than allowed.
    TooMany,
    /// A line longer than [`wire::MAX_LINE`].
    TooLong,
    /// A line that is not one of the module's messages.
    NotAMessage,
    /// A message with numbers or texts out of range.
    OutOfRange,
    /// A message naming another PID than its sender's.
    WrongPid,
    /// More lines a second than a module sends.
    Flood,
}

impl Reason {
    /// What the report says of it.
    pub fn text(self) -> &'static str {
        match self {
            Reason::Foreign => "connections from processes outside the job refused",
            Reason::TooMany => "connections past the limit refused",
            Reason::TooLong => "lines longer than 16 KiB (their connection closed)",
            Reason::NotAMessage => "lines that are not the module's messages refused",
            Reason::OutOfRange => "messages with numbers or texts out of range refused",
            Reason::WrongPid => "messages naming another process refused",
            Reason::Flood => "floods of lines (their connection closed)",
        }
    }
}

/// An out-of-memory error PyTorch reported.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Oom {
    pub pid: u32,
    /// The CUDA ordinal, when the module knew it.
    pub device: Option<u32>,
    /// The snapshot's file name in the snapshot directory (`--torch-snapshot`):
    /// `torch-snapshot-PID.pickle` of the sender's own PID, nothing else.
    pub snapshot: Option<String>,
}

/// What the channel has heard so far.
#[derive(Debug, Default)]
pub struct Heard {
    /// Each process's latest counters (the devices it listed last), by PID.
    pub latest: BTreeMap<u32, Vec<Device>>,
    /// Every process that sent counters.
    pub reported: BTreeSet<u32>,
    /// The module's own errors: (PID, text shown without control characters).
    pub errors: Vec<(u32, String)>,
    /// Out-of-memory errors PyTorch reported.
    pub ooms: Vec<Oom>,
    /// What was refused, by reason: how often, and the first PID.
    pub refused: BTreeMap<Reason, (u64, u32)>,
    /// Connections open now, by PID.
    open: BTreeMap<u32, usize>,
}

impl Heard {
    fn refuse(&mut self, why: Reason, pid: u32) {
        self.refused.entry(why).or_insert((0, pid)).0 += 1;
    }

    fn take(&mut self, m: Message) {
        match m {
            Message::Sample { pid, devices } => {
                if self.latest.len() < MAX_PROCESSES || self.latest.contains_key(&pid) {
                    self.latest.insert(pid, devices);
                    self.reported.insert(pid);
                }
            }
            Message::Error { pid, text } => {
                let e = (pid, wire::shown(&text));
                if self.errors.len() < MAX_KEPT && !self.errors.contains(&e) {
                    self.errors.push(e);
                }
            }
            Message::Oom {
                pid,
                device,
                snapshot,
            } => {
                // Only the sender's own snapshot's name is kept.
                let own = format!("torch-snapshot-{pid}.pickle");
                let snapshot = snapshot.filter(|s| *s == own);
                // PyTorch's observer may fire again for one error (a retry
                // with another algorithm): one report per process and device.
                let again = self.ooms.iter().any(|o| o.pid == pid && o.device == device);
                if !again && self.ooms.len() < MAX_KEPT {
                    self.ooms.push(Oom {
                        pid,
                        device,
                        snapshot,
                    });
                }
            }
        }
    }

    /// The report's notes on what was refused and what the module said.
    pub fn notes(&self) -> Vec<String> {
        let mut out = Vec::new();
        for (why, (n, pid)) in &self.refused {
            out.push(format!(
                "--torch: {n} {} (first from PID {pid})",
                why.text()
            ));
        }
        for (pid, text) in &self.errors {
            out.push(format!("--torch: the module failed in PID {pid}: {text}"));
        }
        out
    }
}

/// Lines allowed a second, as a token bucket: a module sends one line per
/// interval; four times that, and a burst of as many, pass.
struct Rate {
    per_s: f64,
    tokens: f64,
    at: Instant,
}

impl Rate {
    fn new(interval: Duration) -> Rate {
        let per_s = 4.0 / interval.as_secs_f64().max(0.001) + 20.0;
        Rate {
            per_s,
            tokens: per_s,
            at: Instant::now(),
        }
    }

    fn allow(&mut self) -> bool {
        let now = Instant::now();
        self.tokens =
            (self.tokens + now.duration_since(self.at).as_secs_f64() * self.per_s).min(self.per_s);
        self.at = now;
        if self.tokens < 1.0 {
            return false;
        }
        self.tokens -= 1.0;
        true
    }
}

/// Listen on `listener` from now on (a thread), taking connections from the
/// processes `in_job` accepts; what is heard goes to `heard`.
pub fn serve(
    listener: UnixListener,
    interval: Duration,
    in_job: fn(u32) -> bool,
    heard: Arc<Mutex<Heard>>,
) {
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(stream) = stream else { continue };
            let pid = peer_pid(&stream).unwrap_or(0);
            // The process table is read before the lock is taken.
            let job = pid != 0 && in_job(pid);
            let mut h = lock(&heard);
            if !job {
                h.refuse(Reason::Foreign, pid);
                drop(h);
                // A storm of foreign connections costs nvq little.
                std::thread::sleep(Duration::from_millis(5));
                continue;
            }
            let total: usize = h.open.values().sum();
            let mine = h.open.get(&pid).copied().unwrap_or(0);
            if total >= MAX_OPEN || mine >= MAX_PER_PID {
                h.refuse(Reason::TooMany, pid);
                continue;
            }
            *h.open.entry(pid).or_default() += 1;
            drop(h);
            let heard = Arc::clone(&heard);
            std::thread::spawn(move || {
                read(stream, pid, interval, &heard);
                let mut h = lock(&heard);
                if let Some(n) = h.open.get_mut(&pid) {
                    *n = n.saturating_sub(1);
                    if *n == 0 {
                        h.open.remove(&pid);
                    }
                }
            });
        }
    });
}

fn lock(heard: &Mutex<Heard>) -> std::sync::MutexGuard<'_, Heard> {
    heard
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Read one connection's lines until it ends or is closed for cause.
fn read(mut stream: UnixStream, pid: u32, interval: Duration, heard: &Mutex<Heard>) {
    let mut rate = Rate::new(interval);
    let mut buf: Vec<u8> = Vec::with_capacity(4096);
    let mut chunk = [0u8; 8192];
    let mut bad = 0u32;
    loop {
        let n = match stream.read(&mut chunk) {
            Ok(0) | Err(_) => return,
            Ok(n) => n,
        };
        buf.extend_from_slice(&chunk[..n]);
        let mut start = 0;
        while let Some(i) = buf[start..].iter().position(|&b| b == b'\n') {
            let line = &buf[start..start + i];
            start += i + 1;
            if !rate.allow() {
                lock(heard).refuse(Reason::Flood, pid);
                return;
            }
            let refused = match wire::parse(line) {
                Ok(m) if m.pid() == pid => {
                    lock(heard).take(m);
                    None
                }
                Ok(_) => Some(Reason::WrongPid),
                Err(Refusal::NotAMessage) => Some(Reason::NotAMessage),
                Err(Refusal::OutOfRange) => Some(Reason::OutOfRange),
            };
            if let Some(why) = refused {
                lock(heard).refuse(why, pid);
                bad += 1;
                if bad >= MAX_BAD {
                    return;
                }
            }
        }
        buf.drain(..start);
        if buf.len() > wire::MAX_LINE {
            lock(heard).refuse(Reason::TooLong, pid);
            return;
        }
    }
}

/// The PID of the process at the other end, as the kernel gives it.
fn peer_pid(s: &UnixStream) -> Option<u32> {
    let mut cred = libc::ucred {
        pid: 0,
        uid: 0,
        gid: 0,
    };
    let mut len = std::mem::size_of::<libc::ucred>() as libc::socklen_t;
    // SAFETY: getsockopt(2) SO_PEERCRED on an open unix socket writes at most
    // `len` bytes into `cred`, a valid ucred that outlives the call.
    let r = unsafe {
        libc::getsockopt(
            s.as_raw_fd(),
            libc::SOL_SOCKET,
            libc::SO_PEERCRED,
            (&mut cred as *mut libc::ucred).cast::<libc::c_void>(),
            &mut len,
        )
    };
    (r == 0 && cred.pid > 0).then_some(cred.pid as u32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_flood_runs_out_of_tokens_and_a_module_does_not() {
        let mut r = Rate::new(Duration::from_millis(100));
        assert!((0..60).all(|_| r.allow()));
        assert!(!(0..10).all(|_| r.allow()), "a burst past 60 lines");
    }

    #[test]
    fn the_latest_counters_are_kept_and_refusals_counted() {
        let mut h = Heard::default();
        let dev = |allocated| Device {
            index: 0,
            uuid: None,
            allocated,
            reserved: 2 * allocated,
            max_allocated: allocated,
        };
        h.take(Message::Sample {
            pid: 5,
            devices: vec![dev(1)],
        });
        h.take(Message::Sample {
            pid: 5,
            devices: vec![dev(3)],
        });
        assert_eq!(h.latest[&5], vec![dev(3)]);
        h.refuse(Reason::Foreign, 9);
        h.refuse(Reason::Foreign, 10);
        h.take(Message::Error {
            pid: 5,
            text: "boom\u{1b}[2J".into(),
        });
        assert_eq!(
            h.notes(),
            [
                "--torch: 2 connections from processes outside the job refused (first from PID 9)",
                "--torch: the module failed in PID 5: boom?[2J"
            ]
        );
    }
}
