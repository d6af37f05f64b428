//! Live processes: real, running programs that declare, for their own PID, the GPU memory they
//! hold over time, in a control directory the simulator reads at each call that lists processes
//! or memory (`[live] dir` in the scenario, or `NVML_SIM_LIVE_DIR`).
//!
//! One file per process, named by its decimal PID, appended to one line per change:
//! `<epoch_ms> <gpu_index> <bytes> [<sm_percent>]` ("from then on this PID holds `bytes` on
//! that GPU", and keeps its SMs that busy; 0 bytes releases it). Only the bytes appended
//! since the last call are read; a last line without its newline waits for it. A PID whose
//! process is gone (no `/proc/PID`, or a zombie) is in no process list; what it held stays in
//! the accounting records (its largest value per GPU), as the driver keeps them.

use std::collections::BTreeMap;
use std::io::{Read, Seek, SeekFrom};
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// Most live processes followed at once (files past it are not read).
pub(crate) const MAX_LIVE_PROCESSES: usize = 4096;
/// Most bytes of one control file read in one call (the rest waits for the next call).
const MAX_READ: u64 = 1 << 20;

/// What one PID holds on one GPU.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(crate) struct Held {
    /// Its last declared value (bytes).
    pub now: u64,
    /// The largest value it ever declared (bytes): accounting's `maxMemoryUsage`.
    pub max: u64,
    /// Its SM utilization (percent), when its last line gave one.
    pub sm: Option<u32>,
}

/// One live process, as its control file has told so far.
#[derive(Debug, Default)]
pub(crate) struct LiveProcess {
    /// The control file's inode (a new file for the PID starts the record afresh).
    ino: u64,
    /// Bytes of the file read so far (always the end of a complete line).
    offset: u64,
    /// The file's length when it was last read.
    seen_len: u64,
    /// The first and the last line's time (ms since the epoch).
    pub first_ms: Option<u64>,
    pub last_ms: u64,
    /// By GPU index.
    pub gpus: BTreeMap<usize, Held>,
    /// The process has been seen gone (it stays gone: a new process of the PID writes a new file).
    pub gone: bool,
    /// When it was first seen gone (ms since the epoch, not before its last line): the end of
    /// its accounting `time`.
    pub ended_ms: Option<u64>,
}

/// The live processes of a control directory.
#[derive(Debug)]
pub(crate) struct Live {
    dir: PathBuf,
    /// By PID.
    pub procs: BTreeMap<u32, LiveProcess>,
    /// The least time between two reads of the directory (`[live] every_ms`).
    every: Duration,
    last: Option<Instant>,
    /// When the running processes were last checked for zombies (once a second).
    zombies_checked: Option<Instant>,
    /// Added to the PIDs NVML gives (`[live] pid_offset`).
    pid_offset: u32,
}

/// Does `sym` read the live processes (so that a call of it reads the control directory first)?
pub(crate) fn reads(sym: &str) -> bool {
    [
        "nvmlDeviceGetComputeRunningProcesses",
        "nvmlDeviceGetRunningProcessDetailList",
        "nvmlDeviceGetMemoryInfo",
        "nvmlDeviceGetAccounting",
        "nvmlDeviceGetProcessUtilization",
        "nvmlDeviceGetProcessesUtilizationInfo",
        "nvmlSystemGetProcessName",
    ]
    .iter()
    .any(|p| sym.starts_with(p))
}

impl Live {
    pub(crate) fn new(dir: PathBuf, every_ms: u64, pid_offset: u32) -> Live {
        Live {
            dir,
            procs: BTreeMap::new(),
            every: Duration::from_millis(every_ms),
            last: None,
            zombies_checked: None,
            pid_offset,
        }
    }

    /// A PID as NVML gives it (`[live] pid_offset` added).
    fn shown(&self, pid: u32) -> u32 {
        pid.saturating_add(self.pid_offset)
    }

    /// The local PID of a PID NVML was asked about; `None` for one NVML would not give.
    pub(crate) fn local(&self, nvml_pid: u32) -> Option<u32> {
        nvml_pid.checked_sub(self.pid_offset)
    }

    /// Read what the control files gained since the last call, and which processes are gone.
    /// `gpus`: the scenario's GPU count (lines naming another GPU are ignored). Nothing here
    /// fails: an unreadable directory or file is read again at the next call.
    pub(crate) fn refresh(&mut self, gpus: usize) {
        let now = Instant::now();
        if self
            .last
            .is_some_and(|l| now.duration_since(l) < self.every)
        {
            return;
        }
        self.last = Some(now);
        if let Ok(entries) = std::fs::read_dir(&self.dir) {
            for e in entries.flatten() {
                let name = e.file_name();
                let Some(pid) = name.to_str().and_then(pid_of) else {
                    continue;
                };
                // Plain files only (the entry's own type, links not followed): a link, a FIFO
                // (whose open would wait for a writer) or a device is not a control file.
                let Ok(meta) = e.metadata() else {
                    continue;
                };
                if !meta.is_file() {
                    continue;
                }
                if !self.procs.contains_key(&pid) && self.procs.len() >= MAX_LIVE_PROCESSES {
                    continue;
                }
                let p = self.procs.entry(pid).or_default();
                // Unchanged since the last read (the common case): not opened.
                if (meta.ino(), meta.len()) != (p.ino, p.seen_len) {
                    p.read(&e.path(), gpus);
                }
            }
        }
        // Gone: kill(pid, 0) at every read; a zombie (exited, its memory already freed, not yet
        // reaped) through procfs, which costs more, once a second.
        let zombies = self
            .zombies_checked
            .map_or(true, |z| now.duration_since(z) >= Duration::from_secs(1));
        if zombies {
            self.zombies_checked = Some(now);
        }
        let mut now_ms = None;
        for (pid, p) in self.procs.iter_mut().filter(|(_, p)| !p.gone) {
            if !exists(*pid) || (zombies && !running(*pid)) {
                let now = *now_ms.get_or_insert_with(epoch_ms);
                p.gone = true;
                p.ended_ms = Some(now.max(p.last_ms));
            }
        }
    }

    /// The running processes holding memory on GPU `gpu`: (PID as NVML gives it, what it
    /// holds), by PID.
    pub(crate) fn on_gpu(&self, gpu: usize) -> impl Iterator<Item = (u32, Held)> + '_ {
        self.procs
            .iter()
            .filter(|(_, p)| !p.gone)
            .filter_map(move |(pid, p)| {
                let h = p.gpus.get(&gpu)?;
                (h.now > 0).then_some((self.shown(*pid), *h))
            })
    }

    /// The bytes the running processes hold on GPU `gpu`.
    pub(crate) fn used_on(&self, gpu: usize) -> u64 {
        self.on_gpu(gpu)
            .fold(0u64, |a, (_, h)| a.saturating_add(h.now))
    }

    /// Every process that ever held memory on GPU `gpu`, running or not (accounting's PIDs, as
    /// NVML gives them).
    pub(crate) fn accounted(&self, gpu: usize) -> impl Iterator<Item = (u32, &LiveProcess)> + '_ {
        self.procs
            .iter()
            .filter(move |(_, p)| p.gpus.get(&gpu).is_some_and(|h| h.max > 0))
            .map(|(pid, p)| (self.shown(*pid), p))
    }

    /// Whether `pid` (a local PID) is a live process that is still running.
    pub(crate) fn running(&self, pid: u32) -> bool {
        self.procs.get(&pid).is_some_and(|p| !p.gone)
    }
}

impl LiveProcess {
    fn read(&mut self, path: &std::path::Path, gpus: usize) {
        let opened = std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
            .open(path);
        let Ok(mut f) = opened else {
            return;
        };
        let Ok(meta) = f.metadata() else {
            return;
        };
        if !meta.is_file() {
            return;
        }
        if meta.ino() != self.ino || meta.len() < self.offset {
            // A new file for the PID (a new process, or the file replaced): start afresh.
            *self = LiveProcess {
                ino: meta.ino(),
                ..LiveProcess::default()
            };
        }
        self.seen_len = meta.len();
        if meta.len() == self.offset || f.seek(SeekFrom::Start(self.offset)).is_err() {
            return;
        }
        let mut buf = Vec::new();
        if f.take(MAX_READ).read_to_end(&mut buf).is_err() {
            return;
        }
        let Some(end) = buf.iter().rposition(|&b| b == b'\n') else {
            return;
        };
        for line in buf[..end].split(|&b| b == b'\n') {
            if let Some((ms, gpu, bytes, sm)) = std::str::from_utf8(line).ok().and_then(parse_line)
            {
                if gpu < gpus {
                    self.first_ms.get_or_insert(ms);
                    self.last_ms = self.last_ms.max(ms);
                    let h = self.gpus.entry(gpu).or_default();
                    h.now = bytes;
                    h.max = h.max.max(bytes);
                    h.sm = sm;
                }
            }
        }
        self.offset += end as u64 + 1;
    }
}

fn epoch_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

/// A control file's name as a PID: decimal digits only, not 0.
fn pid_of(name: &str) -> Option<u32> {
    if name.is_empty() || !name.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    name.parse().ok().filter(|&p| p > 0)
}

/// `<epoch_ms> <gpu_index> <bytes> [<sm_percent>]` (a percent of at most 100).
fn parse_line(line: &str) -> Option<(u64, usize, u64, Option<u32>)> {
    let mut it = line.split_ascii_whitespace();
    let ms = it.next()?.parse().ok()?;
    let gpu = it.next()?.parse().ok()?;
    let bytes = it.next()?.parse().ok()?;
    let sm = match it.next() {
        None => None,
        Some(t) => Some(t.parse::<u32>().ok().filter(|p| *p <= 100)?),
    };
    it.next().is_none().then_some((ms, gpu, bytes, sm))
}

/// Whether process `pid` exists (a zombie too): kill(2) with no signal.
fn exists(pid: u32) -> bool {
    let Ok(pid) = libc::pid_t::try_from(pid) else {
        return false;
    };
    // SAFETY: signal 0 sends nothing; kill only checks that the process exists.
    let r = unsafe { libc::kill(pid, 0) };
    r == 0 || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM)
}

/// Whether process `pid` exists and is not a zombie (its memory is freed when it exits, before
/// its parent reaps it).
pub(crate) fn running(pid: u32) -> bool {
    let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
        return false;
    };
    // `pid (comm) S ...`: the state follows the last `)` (a name may hold one).
    let state = stat
        .rsplit_once(')')
        .and_then(|(_, rest)| rest.trim_start().chars().next());
    !matches!(state, Some('Z' | 'X' | 'x') | None)
}

/// A running process's name as NVML reports it: its command line's first argument (else its
/// `comm`), from procfs.
pub(crate) fn process_name(pid: u32) -> Option<String> {
    let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).ok()?;
    let first = cmdline.split(|&b| b == 0).next().unwrap_or_default();
    if !first.is_empty() {
        return Some(String::from_utf8_lossy(first).into_owned());
    }
    let comm = std::fs::read_to_string(format!("/proc/{pid}/comm")).ok()?;
    Some(comm.trim_end_matches('\n').to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_parse_strictly() {
        assert_eq!(
            parse_line("1700000000000 0 2147483648"),
            Some((1_700_000_000_000, 0, 2 << 30, None))
        );
        assert_eq!(parse_line(" 5  1  7 "), Some((5, 1, 7, None)));
        assert_eq!(parse_line("5 1 7 80"), Some((5, 1, 7, Some(80))));
        for bad in [
            "",
            "5 1",
            "5 1 7 101",
            "5 1 7 8 9",
            "5 -1 7",
            "x 1 7",
            "5 1 7.5",
            "5 1 99999999999999999999999",
        ] {
            assert_eq!(parse_line(bad), None, "{bad:?}");
        }
        assert_eq!(pid_of("123"), Some(123));
        for bad in ["", "0", ".123.tmp", "12a", "+12", "99999999999"] {
            assert_eq!(pid_of(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn a_file_is_read_as_it_grows_and_keeps_each_gpus_maximum() {
        let dir = std::env::temp_dir().join(format!("nvml-sim-live-unit-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let me = std::process::id();
        let file = dir.join(me.to_string());
        std::fs::write(
            &file,
            "10 0 100\n20 0 500\n30 0 200\n40 1 7\n50 9 1\n60 0 9",
        )
        .unwrap();
        let mut live = Live::new(dir.clone(), 0, 0);
        live.refresh(2);
        let p = &live.procs[&me];
        let held = |now, max| Held { now, max, sm: None };
        assert_eq!(p.gpus[&0], held(200, 500));
        assert_eq!(p.gpus[&1], held(7, 7));
        assert!(
            !p.gpus.contains_key(&9),
            "GPU 9 is not in a two-GPU scenario"
        );
        assert_eq!((p.first_ms, p.last_ms), (Some(10), 40));
        assert_eq!(live.on_gpu(0).collect::<Vec<_>>(), [(me, held(200, 500))]);
        // The unfinished line is read once its newline comes.
        std::fs::OpenOptions::new()
            .append(true)
            .open(&file)
            .and_then(|mut f| std::io::Write::write_all(&mut f, b"0\n70 0 0\n"))
            .unwrap();
        live.refresh(2);
        let p = &live.procs[&me];
        assert_eq!(p.gpus[&0], held(0, 500));
        assert_eq!(p.last_ms, 70);
        assert_eq!(live.on_gpu(0).count(), 0, "released");
        assert_eq!(live.accounted(0).count(), 1, "still accounted");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn links_and_fifos_are_not_control_files() {
        let dir = std::env::temp_dir().join(format!("nvml-sim-live-fifo-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let me = std::process::id();
        let real = dir.join("real");
        std::fs::write(&real, "10 0 100\n").unwrap();
        std::os::unix::fs::symlink(&real, dir.join(me.to_string())).unwrap();
        let fifo =
            std::ffi::CString::new(dir.join("1").into_os_string().into_encoded_bytes()).unwrap();
        // SAFETY: a NUL-terminated path that lives for the call.
        assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o600) }, 0);
        let mut live = Live::new(dir.clone(), 0, 0);
        live.refresh(2); // returns: the FIFO is not opened
        assert!(live.procs.is_empty(), "{:?}", live.procs);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_process_that_is_gone_leaves_the_lists() {
        assert!(running(std::process::id()));
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let pid = child.id();
        // Not waited for: a zombie once it exits, which holds no GPU memory.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
        while running(pid) && std::time::Instant::now() < deadline {
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        assert!(!running(pid), "a zombie holds no GPU memory");
        child.wait().unwrap();
        assert!(!running(pid));
    }
}
