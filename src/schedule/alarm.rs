//! An alarm that any thread may set, move or clear without waking the
//! thread that waits for it: a Linux `timerfd`, read by a thread of its own
//! that calls `ring` when the time comes.
//!
//! `nvq top`'s lanes hand each sample over and begin the next themselves;
//! the alarm is set to the next sample's checkpoint (halfway to its
//! deadline, then the deadline) each time. While the GPUs answer in time the
//! checkpoint moves on before it comes, so the alarm never rings and a
//! sample costs one wake-up (the lane's); it rings only for a sample that
//! is late, to split its lane or end it at the deadline.

use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::sync::Arc;
use std::time::Instant;

/// A one-shot alarm on the monotonic clock (the clock of [`Instant`]).
pub struct Alarm {
    fd: OwnedFd,
}

impl Alarm {
    /// An alarm, not set, whose thread calls `ring` each time it goes off.
    /// The thread lives as long as the process (it waits in `read`).
    pub fn start(ring: impl Fn() + Send + 'static) -> io::Result<Arc<Alarm>> {
        // SAFETY: timerfd_create takes two integers and returns a new
        // descriptor or -1; nothing is borrowed.
        let raw = unsafe { libc::timerfd_create(libc::CLOCK_MONOTONIC, libc::TFD_CLOEXEC) };
        if raw < 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: `raw` is a descriptor just opened here and owned by nothing else.
        let fd = unsafe { OwnedFd::from_raw_fd(raw) };
        let alarm = Arc::new(Alarm { fd });
        let waiter = Arc::clone(&alarm);
        std::thread::Builder::new()
            .name("nvq-alarm".into())
            .spawn(move || loop {
                let mut expirations = [0u8; 8];
                // SAFETY: reads at most 8 bytes into a local buffer of 8
                // bytes; the descriptor stays open (the Arc holds it).
                let n = unsafe {
                    libc::read(
                        waiter.fd.as_raw_fd(),
                        expirations.as_mut_ptr().cast(),
                        expirations.len(),
                    )
                };
                if n == 8 {
                    ring();
                } else if n < 0 && io::Error::last_os_error().kind() == io::ErrorKind::Interrupted {
                    continue;
                } else {
                    break;
                }
            })?;
        Ok(alarm)
    }

    /// Go off at `at` (at once if it has passed), instead of any time set
    /// before; `None` clears the alarm.
    pub fn set(&self, at: Option<Instant>) {
        let value = match at {
            None => libc::timespec {
                tv_sec: 0,
                tv_nsec: 0,
            },
            Some(at) => {
                // A zero time would clear the alarm: a time past is 1 ns.
                let left = at
                    .saturating_duration_since(Instant::now())
                    .max(std::time::Duration::from_nanos(1));
                libc::timespec {
                    tv_sec: libc::time_t::try_from(left.as_secs()).unwrap_or(libc::time_t::MAX),
                    tv_nsec: libc::c_long::from(left.subsec_nanos()),
                }
            }
        };
        let spec = libc::itimerspec {
            it_interval: libc::timespec {
                tv_sec: 0,
                tv_nsec: 0,
            },
            it_value: value,
        };
        // SAFETY: `spec` is a valid itimerspec on the stack; the old value
        // is not asked for (null). A failure (impossible with these
        // arguments) leaves the alarm as it was.
        unsafe {
            libc::timerfd_settime(self.fd.as_raw_fd(), 0, &spec, std::ptr::null_mut());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc;
    use std::time::Duration;

    #[test]
    fn rings_once_at_the_time_set_last_and_not_when_cleared() {
        let (tx, rx) = mpsc::channel();
        let alarm = Alarm::start(move || {
            let _ = tx.send(Instant::now());
        })
        .unwrap();
        let t0 = Instant::now();
        // Moved before it comes: only the last time counts.
        alarm.set(Some(t0 + Duration::from_millis(30)));
        alarm.set(Some(t0 + Duration::from_millis(120)));
        let rang = rx.recv_timeout(Duration::from_secs(5)).unwrap();
        assert!(rang >= t0 + Duration::from_millis(120), "{:?}", rang - t0);
        assert!(
            rx.recv_timeout(Duration::from_millis(200)).is_err(),
            "a one-shot alarm"
        );
        // Cleared: never rings.
        alarm.set(Some(Instant::now() + Duration::from_millis(30)));
        alarm.set(None);
        assert!(rx.recv_timeout(Duration::from_millis(200)).is_err());
        // A time already past rings at once.
        alarm.set(Some(t0));
        assert!(rx.recv_timeout(Duration::from_secs(5)).is_ok());
    }
}
