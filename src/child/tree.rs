//! The job's process tree: every process below nvq (children,
//! grandchildren, workers, and the processes re-parented to nvq, its child
//! subreaper, after their parent exited).
//!
//! A process is found to be the job's by walking up its parents from
//! `/proc/PID/stat` to nvq, and the answer is kept by (PID, start time)
//! ([`Members`]): a process below nvq stays below it (an orphan of the job
//! is re-parented to nvq or to a subreaper of the job, never above nvq),
//! and one that is not can never come below it, so each process is walked
//! once. A PID reused by another process has another start time and is
//! walked afresh. A process looked at is then held by a pidfd, so each
//! sample makes one system call per GPU process, and reads nothing of
//! `/proc` for it.

use std::collections::HashMap;

/// The most processes [`Members`] keeps answers for; past it they are
/// forgotten (and walked again when asked).
pub const MEMBERS_MAX: usize = 4096;

/// How many times a walk starts again when a parent on the way exited
/// (its child re-parented meanwhile) before the process is taken as not
/// the job's this time.
const WALK_TRIES: usize = 3;

/// A process's parent PID and start time (clock ticks since boot), as its
/// `/proc/PID/stat` gives them; `None` when it has gone.
pub type StatOf<'a> = dyn Fn(u32) -> Option<(u32, u64)> + 'a;

/// How many processes [`Members::contains`] holds a pidfd for (each one
/// an open descriptor).
pub const PIDFDS_MAX: usize = 256;

/// Which processes are below a root (nvq), each answer kept by (PID, start time).
#[derive(Debug)]
pub struct Members {
    root: u32,
    /// PID -> (start time, below the root?).
    known: HashMap<u32, (u64, bool)>,
    /// Of those, the processes held by a pidfd (Linux 5.3): while it says
    /// the process is there, the PID is still that process (a PID is taken
    /// again only after its process was reaped), and its answer is given
    /// with one system call, without reading `/proc`.
    held: HashMap<u32, std::os::fd::OwnedFd>,
}

impl Members {
    /// The processes below nvq.
    pub fn of_nvq() -> Self {
        Self::below(std::process::id())
    }

    /// The processes below `root`.
    pub fn below(root: u32) -> Self {
        Members {
            root,
            known: HashMap::new(),
            held: HashMap::new(),
        }
    }

    /// Is `pid` one of the job's processes now (below nvq, from `/proc`)?
    /// A process seen before and held by a pidfd is answered from it; a PID
    /// with no process (a pidfd cannot be had for it) is not the job's.
    pub fn contains(&mut self, pid: u32) -> bool {
        if let Some(fd) = self.held.get(&pid) {
            if alive(fd) {
                if let Some(&(_, below)) = self.known.get(&pid) {
                    return below;
                }
            }
            self.held.remove(&pid);
        }
        let fd = match pidfd_open(pid) {
            Ok(fd) => Some(fd),
            Err(Some(libc::ESRCH)) => return false,
            // No pidfd here (an older kernel, a filter): `/proc` alone.
            Err(_) => None,
        };
        // Walked after the pidfd was opened: should the process have been
        // replaced in between, the pidfd's is gone and says so next time.
        let below = self.contains_with(pid, &proc_stat);
        if let Some(fd) = fd {
            if self.known.contains_key(&pid) && self.held.len() < PIDFDS_MAX {
                self.held.insert(pid, fd);
            }
        }
        below
    }

    /// [`Members::contains`], each process's parent and start time from `stat`.
    pub fn contains_with(&mut self, pid: u32, stat: &StatOf<'_>) -> bool {
        if pid == self.root {
            return false;
        }
        for _ in 0..WALK_TRIES {
            match self.walk(pid, stat) {
                Walk::Below(v) => return v,
                Walk::Gone => return false,
                Walk::Again => {}
            }
        }
        false
    }

    /// Walk up from `pid` to the root, a process known already, or the top.
    fn walk(&mut self, pid: u32, stat: &StatOf<'_>) -> Walk {
        let Some((mut parent, start)) = stat(pid) else {
            return Walk::Gone;
        };
        if let Some(v) = self.known_as(pid, start) {
            return Walk::Below(v);
        }
        let mut chain = vec![(pid, start)];
        let mut child_start = start;
        let verdict = loop {
            if parent == self.root {
                break true;
            }
            // init (1), the kernel (0), or a loop (a chain longer than PIDs can be).
            if parent <= 1 || chain.len() > MEMBERS_MAX {
                break false;
            }
            let Some((grand, parent_start)) = stat(parent) else {
                // The parent exited: its child has been re-parented since.
                return Walk::Again;
            };
            if parent_start > child_start {
                // A process younger than the child holds the parent's PID:
                // the parent exited and its PID was taken again.
                return Walk::Again;
            }
            if let Some(v) = self.known_as(parent, parent_start) {
                break v;
            }
            chain.push((parent, parent_start));
            child_start = parent_start;
            parent = grand;
        };
        if self.known.len() + chain.len() > MEMBERS_MAX {
            self.known.clear();
            self.held.clear();
        }
        for (p, s) in chain {
            self.known.insert(p, (s, verdict));
        }
        Walk::Below(verdict)
    }

    /// The answer kept for `pid` when it is still the process that started at `start`.
    fn known_as(&self, pid: u32, start: u64) -> Option<bool> {
        match self.known.get(&pid) {
            Some(&(s, v)) if s == start => Some(v),
            _ => None,
        }
    }

    /// How many answers are kept.
    pub fn kept(&self) -> usize {
        self.known.len()
    }
}

/// How a walk ended.
enum Walk {
    /// At the root (true) or above it (false).
    Below(bool),
    /// The process has gone.
    Gone,
    /// A parent exited on the way: walk again.
    Again,
}

/// A pidfd for `pid` (`pidfd_open(2)`), or the error number.
fn pidfd_open(pid: u32) -> Result<std::os::fd::OwnedFd, Option<i32>> {
    use std::os::fd::FromRawFd;
    let pid = libc::pid_t::try_from(pid).map_err(|_| Some(libc::ESRCH))?;
    // SAFETY: pidfd_open(2) takes a PID and flags and returns a new
    // descriptor or -1; nothing is passed by pointer.
    let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0) };
    match i32::try_from(fd) {
        // SAFETY: a descriptor pidfd_open just returned, owned by no one else.
        Ok(fd) if fd >= 0 => Ok(unsafe { std::os::fd::OwnedFd::from_raw_fd(fd) }),
        _ => Err(std::io::Error::last_os_error().raw_os_error()),
    }
}

/// Is the process of a pidfd still there (not reaped)? Signal 0 sends
/// nothing; another user's process answers EPERM, and is there too.
fn alive(fd: &std::os::fd::OwnedFd) -> bool {
    use std::os::fd::AsRawFd;
    // SAFETY: pidfd_send_signal(2) with signal 0 and no siginfo only checks
    // the process; the descriptor is open for the call.
    let r = unsafe {
        libc::syscall(
            libc::SYS_pidfd_send_signal,
            fd.as_raw_fd(),
            0,
            std::ptr::null::<libc::siginfo_t>(),
            0,
        )
    };
    r == 0 || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM)
}

/// A process's parent and start time from `/proc/PID/stat`.
fn proc_stat(pid: u32) -> Option<(u32, u64)> {
    use std::io::Read;
    let mut buf = [0u8; 2048];
    let mut f = std::fs::File::open(format!("/proc/{pid}/stat")).ok()?;
    // One read: a stat line (52 numbers and a name of at most 64 bytes) fits.
    let n = f.read(&mut buf).ok()?;
    parent_and_start(buf.get(..n).filter(|_| n < buf.len())?)
}

/// The parent PID and start time in a `/proc/PID/stat` text (fields 4 and
/// 22, counted after the command name's closing parenthesis).
pub fn parent_and_start(stat: &[u8]) -> Option<(u32, u64)> {
    let close = stat.iter().rposition(|b| *b == b')')?;
    let rest = std::str::from_utf8(&stat[close + 1..]).ok()?;
    let mut fields = rest.split_ascii_whitespace();
    let parent = fields.nth(1)?.parse().ok()?;
    let start = fields.nth(17)?.parse().ok()?;
    Some((parent, start))
}

/// The rank a process of a distributed job carries in its environment
/// (`RANK`, else `LOCAL_RANK`, as torchrun, accelerate, deepspeed and
/// mpirun's launchers set them), from `/proc/PID/environ` (readable for
/// one's own processes). Bounded: a rank is a number below 2^20.
pub fn rank_of(environ: &[u8]) -> Option<u32> {
    let find = |key: &[u8]| {
        environ.split(|b| *b == 0).find_map(|kv| {
            let v = kv.strip_prefix(key)?;
            let v = std::str::from_utf8(v).ok()?;
            v.parse::<u32>().ok().filter(|r| *r < 1 << 20)
        })
    };
    find(b"RANK=").or_else(|| find(b"LOCAL_RANK="))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::RefCell;

    /// A process table: PID -> (parent, start time).
    type Table = RefCell<HashMap<u32, (u32, u64)>>;

    fn table(rows: &[(u32, u32, u64)]) -> Table {
        RefCell::new(rows.iter().map(|&(p, pp, s)| (p, (pp, s))).collect())
    }

    /// Is `pid` below `m`'s root, as table `t` says now?
    fn ask(m: &mut Members, t: &Table, pid: u32) -> bool {
        m.contains_with(pid, &|p| t.borrow().get(&p).copied())
    }

    #[test]
    fn the_tree_below_a_root() {
        // 2 is the root (nvq); 3 and 4 below it; 5 beside it; 6's parent unknown.
        let t = table(&[
            (1, 0, 1),
            (2, 1, 10),
            (3, 2, 20),
            (4, 3, 30),
            (5, 1, 40),
            (6, 9, 50),
        ]);
        let mut m = Members::below(2);
        let below: Vec<u32> = (1..=7).filter(|&p| ask(&mut m, &t, p)).collect();
        assert_eq!(below, [3, 4]);
        assert_eq!(rank_of(b"A=1\0LOCAL_RANK=3\0RANK=11\0"), Some(11));
        assert_eq!(rank_of(b"LOCAL_RANK=3\0XRANK=5\0"), Some(3));
        assert_eq!(rank_of(b"RANK=-1\0RANK=99999999999\0"), None);
    }

    #[test]
    fn stat_fields_after_a_name_with_parentheses() {
        let stat = b"42 (a) b) c) S 7 42 42 0 -1 4194560 100 0 0 0 5 6 0 0 20 0 1 0 12345 1000 50";
        assert_eq!(parent_and_start(stat), Some((7, 12345)));
        assert_eq!(parent_and_start(b"garbage"), None);
        // Our own process: its parent is our parent.
        let own = std::fs::read(format!("/proc/{}/stat", std::process::id())).unwrap();
        let parent = std::os::unix::process::parent_id();
        assert_eq!(parent_and_start(&own).map(|p| p.0), Some(parent));
    }

    #[test]
    fn a_pid_taken_again_by_another_process_is_not_the_jobs() {
        let t = table(&[(1, 0, 1), (2, 1, 10), (3, 2, 20), (8, 1, 5)]);
        let mut m = Members::below(2);
        assert!(ask(&mut m, &t, 3));
        // 3 exits; another process, not below the root, starts with PID 3.
        t.borrow_mut().insert(3, (8, 90));
        assert!(!ask(&mut m, &t, 3), "a reused PID is walked afresh");
        // A process that has gone is not the job's.
        t.borrow_mut().remove(&3);
        assert!(!ask(&mut m, &t, 3));
    }

    #[test]
    fn an_orphan_re_parented_to_the_root_stays_the_jobs() {
        // 2 the root, 3 a launcher, 4 its worker.
        let t = table(&[(1, 0, 1), (2, 1, 10), (3, 2, 20), (4, 3, 30)]);
        let mut m = Members::below(2);
        assert!(ask(&mut m, &t, 4));
        // The launcher exits; the worker is re-parented to the root (a subreaper).
        t.borrow_mut().remove(&3);
        t.borrow_mut().insert(4, (2, 30));
        assert!(ask(&mut m, &t, 4));
        // A new worker is asked for first while its parent exits under the walk:
        // its stat still names the old parent, whose PID is now a younger process.
        let mut fresh = Members::below(2);
        let calls = RefCell::new(0);
        let racing = |p: u32| {
            *calls.borrow_mut() += 1;
            match (p, *calls.borrow()) {
                (5, 1) => Some((3, 40)),
                (5, _) => Some((2, 40)),
                (3, _) => Some((1, 95)),
                _ => t.borrow().get(&p).copied(),
            }
        };
        assert!(
            fresh.contains_with(5, &racing),
            "walked again after the parent went"
        );
    }

    /// Real processes: a child (and its own child) are below us, our parent
    /// is not; once reaped, the child's PID is not the job's, whoever takes it.
    #[test]
    fn real_children_below_and_a_reaped_one_not() {
        let mut m = Members::of_nvq();
        let mut child = std::process::Command::new("sh")
            .args(["-c", "sleep 30 & echo $!; wait"])
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let mut line = String::new();
        std::io::BufRead::read_line(
            &mut std::io::BufReader::new(child.stdout.take().unwrap()),
            &mut line,
        )
        .unwrap();
        let grandchild: u32 = line.trim().parse().unwrap();
        assert!(m.contains(child.id()) && m.contains(grandchild));
        // Asked again: answered from what is kept (and still right).
        assert!(m.contains(grandchild) && m.contains(child.id()));
        assert!(!m.contains(std::os::unix::process::parent_id()));
        assert!(
            !m.contains(std::process::id()),
            "the root is not below itself"
        );
        // SAFETY: kill(2) of our own grandchild.
        unsafe { libc::kill(grandchild as i32, libc::SIGKILL) };
        child.wait().unwrap();
        assert!(!m.contains(child.id()), "a reaped child is gone");
        assert!(!m.contains(u32::MAX), "no such PID");
    }

    #[test]
    fn the_answers_kept_are_bounded() {
        let t = table(&[(1, 0, 1), (2, 1, 10)]);
        for p in 100..100 + 2 * MEMBERS_MAX as u32 {
            t.borrow_mut().insert(p, (2, u64::from(p)));
        }
        let mut m = Members::below(2);
        for p in 100..100 + 2 * MEMBERS_MAX as u32 {
            assert!(ask(&mut m, &t, p));
        }
        assert!(m.kept() <= MEMBERS_MAX, "{}", m.kept());
    }
}
