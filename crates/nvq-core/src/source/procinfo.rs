//! What `/proc` says about a GPU process: owner, command line, container,
//! and its PID in nvq's own PID namespace.
//!
//! NVML reports PIDs as the kernel driver sees them, which is the initial
//! (host) PID namespace. Looking such a PID up in a container's `/proc` would
//! find a different process or none, so nvq only reads `/proc/PID` through a
//! procfs of the host's namespace:
//!
//! - `NVQ_HOST_PROC=/path`: a procfs mounted for the host's PID namespace
//!   (Kubernetes pods often mount it at `/host/proc`);
//! - otherwise `/proc`, but only when nvq itself runs in the initial PID
//!   namespace (its `/proc/self/ns/pid` is the kernel's fixed initial one).
//!
//! With neither, the `/proc`-based fields show `[N/A]`: nvq cannot tell which
//! process a host PID is. A process that is not in nvq's PID namespace (or
//! that has exited) shows `[Not Found]` in `local_pid`.
//!
//! The parsers are pure functions of the file contents, tested below.

use crate::nvml::NvmlCode;
use std::cell::{OnceCell, RefCell};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// The environment variable naming a procfs of the host's PID namespace.
pub const HOST_PROC_ENV: &str = "NVQ_HOST_PROC";

/// The inode of the initial PID namespace (`PROC_PID_INIT_INO`), fixed in
/// the kernel since Linux 3.8.
const INIT_PID_NS: &str = "pid:[4026531836]";

/// `/proc` access for one sample: decided once, shared by every row.
#[derive(Default)]
pub struct ProcSample {
    view: OnceCell<Option<HostProc>>,
    users: RefCell<HashMap<u32, Option<String>>>,
}

/// A procfs in which NVML's PIDs can be looked up.
#[derive(Debug, Clone)]
pub struct HostProc {
    root: PathBuf,
    /// How many PID namespaces nvq sits below the procfs's namespace
    /// (`NSpid:` of `root/self` has `depth + 1` entries).
    depth: usize,
}

impl ProcSample {
    /// An empty sample: nothing of `/proc` is read until a row asks.
    pub fn new() -> Self {
        Self::default()
    }

    /// A sample that reads NVML's PIDs through `root` (tests, or `NVQ_HOST_PROC`).
    pub fn with_root(root: &Path) -> Self {
        let s = Self::default();
        let _ = s.view.set(HostProc::open(root));
        s
    }

    /// The host procfs, if nvq can use one.
    pub fn host(&self) -> Option<&HostProc> {
        self.view.get_or_init(HostProc::detect).as_ref()
    }

    /// The user name for a uid (cached; the number itself when unnamed).
    pub fn user_name(&self, uid: u32) -> String {
        self.users
            .borrow_mut()
            .entry(uid)
            .or_insert_with(|| user_name(uid))
            .clone()
            .unwrap_or_else(|| uid.to_string())
    }
}

impl HostProc {
    /// `NVQ_HOST_PROC`, else `/proc` when nvq runs in the initial PID namespace.
    pub fn detect() -> Option<Self> {
        if let Some(p) = std::env::var_os(HOST_PROC_ENV).filter(|p| !p.is_empty()) {
            return Self::open(Path::new(&p));
        }
        let ns = std::fs::read_link("/proc/self/ns/pid").ok()?;
        if ns.as_os_str() == INIT_PID_NS {
            Self::open(Path::new("/proc"))
        } else {
            None
        }
    }

    /// Use `root` as the host procfs; `None` if it is not a procfs we can read.
    pub fn open(root: &Path) -> Option<Self> {
        let status = std::fs::read_to_string(root.join("self").join("status")).ok()?;
        let nspid = parse_nspid(&status)?;
        Some(HostProc {
            root: root.to_path_buf(),
            depth: nspid.len().saturating_sub(1),
        })
    }

    fn path(&self, pid: u32, file: &str) -> PathBuf {
        self.root.join(pid.to_string()).join(file)
    }

    /// The PIDs the procfs lists now, ascending (the numeric entries of its root).
    pub fn pids(&self) -> Vec<u32> {
        let mut pids: Vec<u32> = std::fs::read_dir(&self.root)
            .into_iter()
            .flatten()
            .filter_map(|e| e.ok()?.file_name().to_str()?.parse().ok())
            .collect();
        pids.sort_unstable();
        pids
    }

    /// Read `/proc/PID/<file>`; a missing process is NOT_FOUND.
    pub fn read(&self, pid: u32, file: &str) -> Result<Vec<u8>, NvmlCode> {
        std::fs::read(self.path(pid, file)).map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => NvmlCode::NOT_FOUND,
            std::io::ErrorKind::PermissionDenied => NvmlCode::NO_PERMISSION,
            _ => NvmlCode::NOT_FOUND,
        })
    }

    /// Open `/proc/PID/<file>` to read it again later ([`read_again`]).
    pub fn open_file(&self, pid: u32, file: &str) -> Result<std::fs::File, NvmlCode> {
        std::fs::File::open(self.path(pid, file)).map_err(|_| NvmlCode::NOT_FOUND)
    }

    /// `/proc/PID/status` as text; a missing process is NOT_FOUND, an unreadable one NO_PERMISSION.
    pub fn status(&self, pid: u32) -> Result<String, NvmlCode> {
        self.read(pid, "status")
            .map(|b| String::from_utf8_lossy(&b).into_owned())
    }

    /// Is this procfs nvq's own `/proc` in the host's PID namespace? Then a
    /// host PID is nvq's PID as it is ([`HostProc::local_pid`] gives it
    /// back for any process that exists), and nothing need be read to map it.
    pub fn is_own(&self) -> bool {
        self.depth == 0 && self.root == Path::new("/proc")
    }

    /// The PID of host process `pid` in nvq's own PID namespace.
    ///
    /// `NSpid:` lists the process's PID in each namespace from the procfs's
    /// down to its innermost; the entry at nvq's depth is its PID for nvq.
    /// When the procfs is not nvq's own, the candidate is confirmed in nvq's
    /// `/proc` (same command name and start time), so that a process in a
    /// sibling namespace is never mistaken for one of ours.
    pub fn local_pid(&self, pid: u32, status: &str) -> Result<u32, NvmlCode> {
        let nspid = parse_nspid(status).ok_or(NvmlCode::NOT_FOUND)?;
        let local = *nspid.get(self.depth).ok_or(NvmlCode::NOT_FOUND)?;
        if self.is_own() {
            return Ok(local);
        }
        let host_stat = self.read(pid, "stat")?;
        let ours = std::fs::read(Path::new("/proc").join(local.to_string()).join("stat"))
            .map_err(|_| NvmlCode::NOT_FOUND)?;
        match (stat_identity(&host_stat), stat_identity(&ours)) {
            (Some(a), Some(b)) if a == b => Ok(local),
            _ => Err(NvmlCode::NOT_FOUND),
        }
    }
}

/// The `NSpid:` entries of a `/proc/PID/status` text, outermost first.
/// Kernels before 4.1 have no such line; then the `Pid:` line is the only level.
pub fn parse_nspid(status: &str) -> Option<Vec<u32>> {
    let line = status
        .lines()
        .find_map(|l| l.strip_prefix("NSpid:"))
        .or_else(|| status.lines().find_map(|l| l.strip_prefix("Pid:")))?;
    let v: Option<Vec<u32>> = line.split_whitespace().map(|t| t.parse().ok()).collect();
    v.filter(|v| !v.is_empty())
}

/// The effective uid from the `Uid:` line (real, effective, saved, fs).
pub fn parse_euid(status: &str) -> Option<u32> {
    let line = status.lines().find_map(|l| l.strip_prefix("Uid:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// `/proc/PID/cmdline`: NUL-separated arguments joined by single spaces.
pub fn parse_cmdline(raw: &[u8]) -> String {
    raw.split(|b| *b == 0)
        .filter(|a| !a.is_empty())
        .map(String::from_utf8_lossy)
        .collect::<Vec<_>>()
        .join(" ")
}

/// The command name and start time (fields 2 and 22 of `/proc/PID/stat`):
/// together they identify a process across PID namespaces.
/// Read a `/proc/PID/…` file opened before from its start, into `buf`
/// (one system call). On a real procfs this fails once the process has
/// exited and been reaped, even when another process has its PID by then:
/// the open file belongs to the process, not to the number.
pub fn read_again<'b>(f: &std::fs::File, buf: &'b mut [u8]) -> Option<&'b [u8]> {
    use std::os::unix::fs::FileExt;
    let n = f.read_at(buf, 0).ok()?;
    // A text that filled the buffer may be cut: not trusted.
    buf.get(..n).filter(|_| n < buf.len())
}

/// A process's name (`comm`) and start time (clock ticks since boot) from its `/proc/PID/stat`;
/// `None` when the text is not a whole `stat` line.
pub fn stat_identity(stat: &[u8]) -> Option<(String, u64)> {
    let s = String::from_utf8_lossy(stat);
    let open = s.find('(')?;
    let close = s.rfind(')')?;
    let comm = s.get(open + 1..close)?.to_string();
    // Fields after the name start with field 3 (state); start time is field 22.
    let start = s
        .get(close + 1..)?
        .split_whitespace()
        .nth(19)?
        .parse()
        .ok()?;
    Some((comm, start))
}

/// The container id in a `/proc/PID/cgroup` text: the last 64-hex-digit id
/// in any path (Docker `/docker/<id>` or `docker-<id>.scope`, containerd
/// `cri-containerd-<id>.scope`, CRI-O `crio-<id>.scope`, Podman
/// `libpod-<id>.scope`, Kubernetes `.../pod<uid>/<id>`).
pub fn container_id(cgroup: &str) -> Option<String> {
    let mut found = None;
    for line in cgroup.lines() {
        // hierarchy-ID:controllers:path
        let path = line.splitn(3, ':').nth(2).unwrap_or("");
        for seg in path.split('/') {
            for word in seg.split(|c: char| !c.is_ascii_hexdigit()) {
                if word.len() == 64 {
                    found = Some(word.to_ascii_lowercase());
                }
            }
        }
    }
    found
}

/// The Kubernetes pod UID in a `/proc/PID/cgroup` text: the kubelet's
/// cgroup of the pod, `pod<uid>` (cgroupfs driver: `/kubepods/burstable/
/// pod<uid>/<container>`) or `kubepods-<class>-pod<uid with _>.slice`
/// (systemd driver), written with dashes.
pub fn pod_uid(cgroup: &str) -> Option<String> {
    let mut found = None;
    for line in cgroup.lines() {
        let path = line.splitn(3, ':').nth(2).unwrap_or("");
        for seg in path.split('/') {
            let Some(at) = seg.rfind("pod") else { continue };
            let rest = &seg[at + 3..];
            let uid = rest
                .strip_suffix(".slice")
                .unwrap_or(rest)
                .replace('_', "-");
            let dashes = uid.char_indices().all(|(i, c)| match i {
                8 | 13 | 18 | 23 => c == '-',
                _ => c.is_ascii_hexdigit(),
            });
            if uid.len() == 36 && dashes {
                found = Some(uid.to_ascii_lowercase());
            }
        }
    }
    found
}

/// The login name of `uid`, from the system's user database.
pub fn user_name(uid: u32) -> Option<String> {
    let mut buf = vec![0 as libc::c_char; 4096];
    loop {
        // SAFETY: getpwuid_r writes only into `pwd`, `buf` (whose length we
        // pass) and `result`; the name it returns points into `buf`.
        let name = unsafe {
            let mut pwd: libc::passwd = std::mem::zeroed();
            let mut result: *mut libc::passwd = std::ptr::null_mut();
            let rc = libc::getpwuid_r(uid, &mut pwd, buf.as_mut_ptr(), buf.len(), &mut result);
            if rc == libc::ERANGE && buf.len() < (1 << 20) {
                None
            } else if rc != 0 || result.is_null() || pwd.pw_name.is_null() {
                return None;
            } else {
                Some(
                    std::ffi::CStr::from_ptr(pwd.pw_name)
                        .to_string_lossy()
                        .into_owned(),
                )
            }
        };
        match name {
            Some(n) => return Some(n),
            None => buf.resize(buf.len() * 4, 0),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An open `/proc/PID/stat` reads the same process while it lives (a
    /// zombie too), and fails once it has been reaped.
    #[test]
    fn an_open_stat_file_follows_its_process_not_its_pid() {
        let Some(host) = HostProc::open(Path::new("/proc")) else {
            return; // no procfs to read here
        };
        let mut child = std::process::Command::new("sleep")
            .arg("30")
            .spawn()
            .unwrap();
        let f = host.open_file(child.id(), "stat").unwrap();
        let mut buf = [0u8; 2048];
        let first = read_again(&f, &mut buf).and_then(stat_identity).unwrap();
        assert_eq!(first.0, "sleep");
        child.kill().unwrap();
        let again = read_again(&f, &mut buf).and_then(stat_identity);
        assert_eq!(again.as_ref(), Some(&first), "a zombie keeps its PID");
        child.wait().unwrap();
        assert_eq!(read_again(&f, &mut buf), None);
    }

    #[test]
    fn nspid_outermost_first() {
        let s = "Name:\tsleep\nPid:\t51234\nNSpid:\t51234\t7\nUid:\t1000\t1001\t1000\t1000\n";
        assert_eq!(parse_nspid(s), Some(vec![51234, 7]));
        assert_eq!(parse_euid(s), Some(1001));
        let old = "Name:\tsleep\nPid:\t42\n";
        assert_eq!(parse_nspid(old), Some(vec![42]));
        assert_eq!(parse_nspid("Name:\tx\n"), None);
    }

    #[test]
    fn cmdline_joins_arguments() {
        assert_eq!(
            parse_cmdline(b"python3\0train.py\0--lr\x000.1\0"),
            "python3 train.py --lr 0.1"
        );
        assert_eq!(parse_cmdline(b""), "");
    }

    #[test]
    fn stat_name_may_contain_parentheses_and_spaces() {
        let stat = b"4242 (my (odd) prog) S 1 4242 4242 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 987654 1000 10";
        assert_eq!(
            stat_identity(stat),
            Some(("my (odd) prog".to_string(), 987654))
        );
        assert_eq!(stat_identity(b"garbage"), None);
    }

    #[test]
    fn pod_uids_of_both_cgroup_drivers() {
        let uid = "2f8b0c0e-1a2b-4c3d-8e9f-0123456789ab";
        let id = "0123456789abcdef".repeat(4);
        for cg in [
            format!("0::/kubepods/burstable/pod{uid}/{id}\n"),
            format!("12:memory:/kubepods/pod{uid}/{id}\n"),
            format!(
                "0::/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod{}.slice/cri-containerd-{id}.scope\n",
                uid.replace('-', "_")
            ),
        ] {
            assert_eq!(pod_uid(&cg).as_deref(), Some(uid), "{cg}");
        }
        for cg in [
            "0::/user.slice/user-1000.slice/session-3.scope\n".to_string(),
            format!("0::/docker/{id}\n"),
            "0::/kubepods/burstable/podnotauid/x\n".to_string(),
            String::new(),
        ] {
            assert_eq!(pod_uid(&cg), None, "{cg}");
        }
    }

    #[test]
    fn container_ids_of_common_runtimes() {
        let id = "4f1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f9";
        for cg in [
            format!("0::/system.slice/docker-{id}.scope\n"),
            format!("12:memory:/docker/{id}\n0::/\n"),
            format!("0::/kubepods.slice/kubepods-pod1.slice/cri-containerd-{id}.scope\n"),
            format!("0::/kubepods/burstable/pod5f6e/crio-{id}.scope\n"),
            format!("0::/machine.slice/libpod-{id}.scope/container\n"),
            format!("0::/kubepods/besteffort/pod0a1b2c3d-0000-1111-2222-333344445555/{id}\n"),
        ] {
            assert_eq!(container_id(&cg).as_deref(), Some(id), "{cg}");
        }
        assert_eq!(
            container_id("0::/user.slice/user-1000.slice/session-3.scope\n"),
            None
        );
        assert_eq!(container_id(""), None);
    }

    #[test]
    fn root_is_user_zero() {
        assert_eq!(user_name(0).as_deref(), Some("root"));
    }

    #[test]
    fn own_process_maps_to_itself() {
        // The test runs in some PID namespace; through its own /proc every
        // visible process is at depth 0 and maps to the PID it already has.
        let Some(view) = HostProc::open(Path::new("/proc")) else {
            return;
        };
        let me = std::process::id();
        let status = view.status(me).unwrap();
        assert_eq!(view.local_pid(me, &status), Ok(me));
        assert_eq!(view.status(u32::MAX - 1), Err(NvmlCode::NOT_FOUND));
    }
}
