//! Where output goes: stdout or a `-f` file, written in whole samples.
//!
//! Every [`Sink::write`] is one sample (or the header): whole lines, written
//! with one `write_all` and flushed, so that a reader never sees half a line.
//! A `-f` file is truncated at start and appended to ([`SinkMode::Append`]),
//! as nvidia-smi does, or replaced whole and atomically by every sample
//! ([`SinkMode::ReplaceEachSample`], for Prometheus textfile collectors).

pub mod atomic;
pub mod terminal;

pub use atomic::AtomicFile;

use nvq_core::error::NvqError;
use std::fs::File;
use std::io::{self, Write};
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// Set by [`set_stdout_closed`]: nvq started with its stdout closed.
static STDOUT_CLOSED: AtomicBool = AtomicBool::new(false);

/// Say that descriptor 1 was closed when the process started (`>&-`). The
/// Rust runtime then puts `/dev/null` there before `main`, and writes would
/// vanish; after this call, writing output to stdout fails with EBADF
/// (exit 22) instead. The binary checks descriptor 1 before the runtime
/// starts (see `main.rs`).
pub fn set_stdout_closed() {
    STDOUT_CLOSED.store(true, Ordering::SeqCst);
}

/// Whether [`set_stdout_closed`] was called.
pub fn stdout_closed() -> bool {
    STDOUT_CLOSED.load(Ordering::SeqCst)
}

/// How a `-f` file receives the samples of a loop.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SinkMode {
    /// Truncate at start, append every sample (nvidia-smi's `-f`).
    #[default]
    Append,
    /// Every sample replaces the whole file atomically (temporary file in
    /// the same folder, fsync, rename); the file then always holds exactly
    /// one complete sample.
    ReplaceEachSample,
}

impl SinkMode {}

/// How a loop's writes to stdout wait for a reader that is not reading
/// (a full pipe): they also wake when `wake` becomes readable, and once
/// `stopping` says a stop was asked they wait at most `patience` without
/// progress; then the rest of the output is dropped (the reader has
/// stopped reading, and nvq must still end).
#[derive(Debug, Clone, Copy)]
pub struct Watch {
    /// A descriptor that becomes readable when a stop is asked.
    pub wake: Option<std::os::raw::c_int>,
    pub stopping: fn() -> bool,
    pub patience: Duration,
}

/// The destination of query output.
pub struct Sink {
    target: Target,
    watch: Option<Watch>,
    /// A write gave up on the reader: the rest of the output is dropped.
    abandoned: bool,
}

enum Target {
    Stdout(io::Stdout),
    File {
        path: PathBuf,
        file: File,
        /// Bytes of whole samples written so far (the length the file is
        /// cut back to when a write fails), for a regular file.
        whole: Option<u64>,
    },
    Replace(AtomicFile),
}

impl Sink {
    pub fn stdout() -> Self {
        Sink {
            target: Target::Stdout(io::stdout()),
            watch: None,
            abandoned: false,
        }
    }

    /// Create or truncate `path`, as nvidia-smi's `-f` does.
    pub fn file(path: &Path) -> Result<Self, NvqError> {
        atomic::check_links(path)?;
        let file = File::create(path).map_err(|source| NvqError::Output {
            path: path.to_path_buf(),
            source,
        })?;
        let regular = file.metadata().is_ok_and(|m| m.is_file());
        Ok(Sink {
            target: Target::File {
                path: path.to_path_buf(),
                file,
                whole: regular.then_some(0),
            },
            watch: None,
            abandoned: false,
        })
    }

    /// A file that every sample replaces whole and atomically. The folder
    /// is checked now; the file appears with the first sample.
    pub fn atomic_replace(path: &Path) -> Result<Self, NvqError> {
        Ok(Sink {
            target: Target::Replace(AtomicFile::new(path)?),
            watch: None,
            abandoned: false,
        })
    }

    /// Stdout, or the `-f` file in append mode.
    pub fn open(path: Option<&Path>) -> Result<Self, NvqError> {
        Sink::open_with(path, SinkMode::Append)
    }

    /// Stdout, or the `-f` file in the given mode (stdout is always
    /// appended to).
    pub fn open_with(path: Option<&Path>, mode: SinkMode) -> Result<Self, NvqError> {
        match (path, mode) {
            (Some(p), SinkMode::Append) => Sink::file(p),
            (Some(p), SinkMode::ReplaceEachSample) => Sink::atomic_replace(p),
            (None, _) => Ok(Sink::stdout()),
        }
    }

    /// Does every write replace the whole output (so that each sample must
    /// carry the format's header and trailer)?
    pub fn replaces_each_sample(&self) -> bool {
        matches!(self.target, Target::Replace(_))
    }

    /// The descriptor to watch for a reader that went away (stdout only).
    pub fn watch_fd(&self) -> Option<std::os::raw::c_int> {
        match &self.target {
            Target::Stdout(s) => Some(s.as_raw_fd()),
            _ => None,
        }
    }

    /// Make stdout writes wait as [`Watch`] says (`None`: plain blocking
    /// writes).
    pub fn set_watch(&mut self, watch: Option<Watch>) {
        self.watch = watch;
    }

    /// Did a write give up on a reader that stopped reading after a stop
    /// was asked? Later writes are then dropped.
    pub fn abandoned(&self) -> bool {
        self.abandoned
    }

    /// Write whole lines and flush them.
    pub fn write(&mut self, bytes: &[u8]) -> Result<(), NvqError> {
        if bytes.is_empty() || self.abandoned {
            return Ok(());
        }
        let (res, path) = match &mut self.target {
            Target::Stdout(_) if STDOUT_CLOSED.load(Ordering::SeqCst) => (
                Err(io::Error::from_raw_os_error(libc::EBADF)),
                PathBuf::from("stdout"),
            ),
            Target::Stdout(s) if self.watch.is_some() => {
                let watch = self.watch.unwrap_or(Watch {
                    wake: None,
                    stopping: || false,
                    patience: Duration::MAX,
                });
                let res = s
                    .lock()
                    .flush()
                    .and_then(|()| write_watched(s.as_raw_fd(), bytes, &watch));
                if let Ok(false) = res {
                    self.abandoned = true;
                }
                (res.map(|_| ()), PathBuf::from("stdout"))
            }
            Target::Stdout(s) => {
                let mut lock = s.lock();
                (
                    lock.write_all(bytes).and_then(|()| lock.flush()),
                    PathBuf::from("stdout"),
                )
            }
            Target::File { path, file, whole } => {
                let res = file.write_all(bytes).and_then(|()| file.flush());
                match (&res, whole) {
                    (Ok(()), Some(n)) => *n += bytes.len() as u64,
                    // A full disk may have taken part of the sample: cut the
                    // file back to the last whole one before reporting.
                    (Err(_), Some(n)) => {
                        let _ = file.set_len(*n);
                    }
                    (_, None) => {}
                }
                (res, path.clone())
            }
            Target::Replace(f) => return f.replace(bytes),
        };
        res.map_err(|source| NvqError::Output { path, source })
    }
}

/// The most bytes written at once while watching: a pipe that polls
/// writable has room for this many without blocking.
const CHUNK: usize = 4096;

/// Write `bytes` to `fd` (blocking or not) as [`Watch`] says. `Ok(false)`:
/// gave up on a reader that made no room for `patience` after a stop.
fn write_watched(fd: std::os::raw::c_int, bytes: &[u8], watch: &Watch) -> io::Result<bool> {
    let mut done = 0;
    let mut progress = Instant::now();
    // Patience counts from the later of the last progress and the stop: a
    // write blocked long before the stop still gives the reader its time.
    let mut stop_seen = false;
    while done < bytes.len() {
        let stopping = (watch.stopping)();
        if stopping && !stop_seen {
            stop_seen = true;
            progress = Instant::now();
        }
        let timeout_ms = if stopping {
            let left = watch.patience.saturating_sub(progress.elapsed());
            if left.is_zero() {
                return Ok(false);
            }
            left.as_millis().clamp(1, i32::MAX as u128) as std::os::raw::c_int
        } else {
            -1
        };
        let mut fds = [
            libc::pollfd {
                fd,
                events: libc::POLLOUT,
                revents: 0,
            },
            libc::pollfd {
                fd: watch.wake.filter(|_| !stopping).unwrap_or(-1),
                events: libc::POLLIN,
                revents: 0,
            },
        ];
        // SAFETY: two valid pollfds (a negative fd is ignored by poll).
        let r = unsafe { libc::poll(fds.as_mut_ptr(), 2, timeout_ms) };
        if r < 0 {
            let e = io::Error::last_os_error();
            if e.kind() == io::ErrorKind::Interrupted {
                continue;
            }
            return Err(e);
        }
        if fds[0].revents == 0 {
            // Woken by a stop or by the timeout: the top of the loop decides.
            continue;
        }
        let chunk = &bytes[done..bytes.len().min(done + CHUNK)];
        // SAFETY: writing from a live slice of `chunk.len()` bytes.
        let w = unsafe { libc::write(fd, chunk.as_ptr().cast(), chunk.len()) };
        if w < 0 {
            let e = io::Error::last_os_error();
            match e.kind() {
                io::ErrorKind::Interrupted | io::ErrorKind::WouldBlock => continue,
                _ => return Err(e),
            }
        }
        done += w as usize;
        progress = Instant::now();
    }
    Ok(true)
}

/// Is this error a closed pipe on the reading side (`| head`)? Such an end is
/// quiet and successful.
pub fn is_broken_pipe(e: &NvqError) -> bool {
    matches!(e, NvqError::Output { source, .. } if source.kind() == io::ErrorKind::BrokenPipe)
}
