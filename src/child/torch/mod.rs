//! `nvq run --torch`: PyTorch's own view of the job's GPU memory.
//!
//! nvq writes a small Python module (`sitecustomize.py`, built into the
//! binary) into a private directory (mode 0700, removed at the end) and puts
//! that directory first on the job's `PYTHONPATH`: every Python process of
//! the job imports it at start-up. The module does nothing until the job
//! imports torch and initializes CUDA; from then on it sends, every
//! interval, `memory_allocated`, `memory_reserved` and
//! `max_memory_allocated` of each device over a unix socket in the same
//! directory ([`channel`], read strictly by [`wire`]). It then runs the
//! user's own `sitecustomize`, the next one on the path.

pub mod channel;
pub mod wire;

use nvq_core::error::NvqError;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

use std::sync::{Arc, Mutex};
use std::time::Duration;

/// The module, as written into the job's path.
pub const MODULE: &str = include_str!("sitecustomize.py");

/// The private directory, its socket, and what was heard on it.
pub struct Torch {
    dir: tempfile::TempDir,
    /// What the job's processes sent.
    pub heard: Arc<Mutex<channel::Heard>>,
    interval: Duration,
    /// Where the module writes its out-of-memory snapshots (`--torch-snapshot`):
    /// a folder of the private directory, emptied into the bundle at the end.
    snapshots: Option<PathBuf>,
}

/// The largest snapshot kept (bytes); a larger one is cut off, and said so.
pub const MAX_SNAPSHOT: u64 = 8 << 30;

impl Torch {
    /// Make the private directory, write the module, listen on the socket.
    /// `in_job`: is this PID one of the job's processes now?
    pub fn open(
        interval: Duration,
        snapshots: bool,
        in_job: fn(u32) -> bool,
    ) -> Result<Torch, NvqError> {
        let fail = |e: std::io::Error| NvqError::Output {
            path: std::env::temp_dir(),
            source: e,
        };
        let dir = tempfile::Builder::new()
            .prefix("nvq-torch-")
            .tempdir()
            .map_err(fail)?;
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o700))
                .map_err(fail)?;
        }
        std::fs::write(dir.path().join("sitecustomize.py"), MODULE).map_err(fail)?;
        let snapshots = if snapshots {
            let s = dir.path().join("snapshots");
            std::fs::create_dir(&s).map_err(fail)?;
            Some(s)
        } else {
            None
        };
        let listener =
            std::os::unix::net::UnixListener::bind(dir.path().join("socket")).map_err(fail)?;
        let heard = Arc::new(Mutex::new(channel::Heard::default()));
        channel::serve(listener, interval, in_job, Arc::clone(&heard));
        Ok(Torch {
            dir,
            heard,
            interval,
            snapshots,
        })
    }

    /// The variables the command gets: the module's directory first on
    /// `PYTHONPATH` (before the user's own entries), the socket, the
    /// interval, and the snapshot directory.
    pub fn env(&self) -> Vec<(&'static str, OsString)> {
        let dir = self.dir.path().as_os_str();
        let mut path = dir.to_os_string();
        if let Some(p) = std::env::var_os("PYTHONPATH").filter(|p| !p.is_empty()) {
            path.push(":");
            path.push(p);
        }
        let mut env = vec![
            ("PYTHONPATH", path),
            (
                "NVQ_TORCH_SOCKET",
                self.dir.path().join("socket").into_os_string(),
            ),
            (
                "NVQ_TORCH_INTERVAL_MS",
                self.interval.as_millis().to_string().into(),
            ),
        ];
        if let Some(s) = &self.snapshots {
            env.push(("NVQ_TORCH_SNAPSHOT_DIR", s.as_os_str().to_os_string()));
        }
        env
    }

    /// Move the snapshot `name` (a name the channel checked:
    /// `torch-snapshot-PID.pickle`) into `bundle` (made if missing), never
    /// through a link nor over a file already there; at most
    /// [`MAX_SNAPSHOT`] bytes. Its new path, or why not.
    pub fn keep_snapshot(&self, name: &str, bundle: &Path) -> Result<PathBuf, String> {
        use std::os::unix::fs::OpenOptionsExt;
        let from = self
            .snapshots
            .as_deref()
            .ok_or_else(|| "no snapshot was asked for".to_string())?
            .join(name);
        let to = bundle.join(name);
        let io = |e: std::io::Error| e.to_string();
        let mut src = std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
            .open(&from)
            .map_err(io)?;
        if !src.metadata().map_err(io)?.is_file() {
            return Err("not a plain file".into());
        }
        std::fs::create_dir_all(bundle).map_err(io)?;
        let mut dst = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .custom_flags(libc::O_NOFOLLOW)
            .mode(0o600)
            .open(&to)
            .map_err(|e| format!("{}: {e}", to.display()))?;
        let n = std::io::copy(&mut std::io::Read::take(&mut src, MAX_SNAPSHOT), &mut dst)
            .map_err(io)?;
        if n == MAX_SNAPSHOT {
            return Err(format!("{}: cut off at 8 GiB", to.display()));
        }
        Ok(to)
    }
}
