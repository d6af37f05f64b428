//! Replacing a file atomically, for readers that must never see half of it
//! (node_exporter's textfile collector reading a Prometheus file).
//!
//! Each replacement creates a new temporary file in the target's own folder
//! (so the rename never crosses a file system) with an unpredictable name,
//! `O_CREAT|O_EXCL` and no symlink following (the `tempfile` crate), writes
//! and fsyncs it, and renames it over the target. A reader opening the target
//! sees the old content or the new one, never a mix. The temporary name
//! starts with a dot and ends in `.tmp`, so a collector that reads `*.prom`
//! never picks it up. No path that another user could have planted is ever
//! opened: a name planted where the temporary file would go makes the
//! exclusive create pick another name.
//!
//! The target must be a regular file or not exist yet. A symlink to a
//! regular file is resolved once, at start: the file it points to is
//! replaced and the link is kept. A device, FIFO, socket or directory is
//! refused ([`NvqError::NotRegular`]).

use nvq_core::error::NvqError;
use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// A file that every [`AtomicFile::replace`] replaces whole.
#[derive(Debug)]
pub struct AtomicFile {
    /// The path as given (for messages).
    path: PathBuf,
    /// What is replaced: `path`, or the regular file a symlink there names.
    target: PathBuf,
    dir: PathBuf,
}

/// The most links followed in one path, as the kernel's limit (ELOOP).
const MAX_LINKS: usize = 40;

/// The kernel's `fs.protected_symlinks` rule, applied to every symlink on
/// the way to `path`: a link in a sticky world-writable folder (`/tmp`) is
/// followed only when the user running nvq or the folder's owner owns it.
/// nvq applies it itself because it resolves a link and then renames onto
/// the target, which the kernel's rule (it guards `open()`) does not cover,
/// and because the sysctl may be off. A path that does not exist (yet) from
/// some component on has nothing more to follow.
pub fn check_links(path: &Path) -> Result<(), NvqError> {
    use std::os::unix::fs::MetadataExt;
    let start = if path.is_absolute() {
        PathBuf::new()
    } else {
        std::env::current_dir().map_err(|source| NvqError::Output {
            path: path.to_path_buf(),
            source,
        })?
    };
    let me = nvq_core::trust::me();
    let mut todo: Vec<std::ffi::OsString> = path.iter().rev().map(|c| c.to_os_string()).collect();
    let mut here = start;
    let mut links = 0;
    while let Some(part) = todo.pop() {
        match part.to_str() {
            Some("/") => here = PathBuf::from("/"),
            Some(".") => {}
            Some("..") => {
                here.pop();
            }
            _ => {
                let next = here.join(&part);
                let Ok(meta) = fs::symlink_metadata(&next) else {
                    return Ok(());
                };
                if !meta.file_type().is_symlink() {
                    here = next;
                    continue;
                }
                links += 1;
                let folder = fs::metadata(&here).map_err(|source| NvqError::Output {
                    path: path.to_path_buf(),
                    source,
                })?;
                let sticky_open = folder.mode() & 0o1002 == 0o1002;
                if sticky_open && meta.uid() != me && meta.uid() != folder.uid() {
                    return Err(NvqError::UntrustedLink {
                        path: path.to_path_buf(),
                        link: next,
                    });
                }
                let Ok(to) = fs::read_link(&next) else {
                    return Ok(());
                };
                if links > MAX_LINKS {
                    // The open or rename that follows fails with ELOOP.
                    return Ok(());
                }
                todo.extend(to.iter().rev().map(|c| c.to_os_string()));
            }
        }
    }
    Ok(())
}

/// Is `path` something `-f` may replace or write? `Ok(None)`: nothing there
/// yet; `Ok(Some(resolved))`: a regular file (through symlinks that
/// [`check_links`] allows); an error for anything else.
pub fn regular_or_missing(path: &Path) -> Result<Option<PathBuf>, NvqError> {
    let err = |source: io::Error| NvqError::Output {
        path: path.to_path_buf(),
        source,
    };
    check_links(path)?;
    match fs::symlink_metadata(path) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(err(e)),
        Ok(_) => {}
    }
    // A dangling link has no file to replace, and replacing the link
    // itself would lose it: refuse it with the rest.
    let resolved = fs::canonicalize(path).map_err(|_| NvqError::NotRegular {
        path: path.to_path_buf(),
        kind: "a dangling symlink",
    })?;
    let meta = fs::metadata(&resolved).map_err(err)?;
    if meta.is_file() {
        Ok(Some(resolved))
    } else {
        Err(NvqError::NotRegular {
            path: path.to_path_buf(),
            kind: file_kind(&meta.file_type()),
        })
    }
}

/// What a non-regular file is, in words.
fn file_kind(t: &fs::FileType) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    if t.is_dir() {
        "a directory"
    } else if t.is_fifo() {
        "a FIFO"
    } else if t.is_socket() {
        "a socket"
    } else if t.is_char_device() || t.is_block_device() {
        "a device"
    } else {
        "a special file"
    }
}

fn folder_of(p: &Path) -> PathBuf {
    match p.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

impl AtomicFile {
    /// Check that `path` can be replaced: it is a regular file (or a link to
    /// one) or missing, and its folder exists and is writable. The file
    /// itself is not touched yet.
    pub fn new(path: &Path) -> Result<Self, NvqError> {
        if path.file_name().is_none() {
            return Err(NvqError::Output {
                path: path.to_path_buf(),
                source: io::Error::from_raw_os_error(libc::EISDIR),
            });
        }
        let target = regular_or_missing(path)?.unwrap_or_else(|| path.to_path_buf());
        let f = AtomicFile {
            path: path.to_path_buf(),
            dir: folder_of(&target),
            target,
        };
        // Probe: fail now, before NVML is busy, if the folder is missing or
        // not writable (the probe file is new, exclusive and removed again).
        f.temp().map_err(|source| f.err(source))?;
        Ok(f)
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    fn err(&self, source: io::Error) -> NvqError {
        NvqError::Output {
            path: self.path.clone(),
            source,
        }
    }

    /// A new temporary file beside the target, removed on drop. It gets the
    /// target's mode, or 0666 less the umask for a new file (as a plain
    /// create would), so that a collector running as another user can read
    /// it.
    fn temp(&self) -> io::Result<tempfile::NamedTempFile> {
        use std::os::unix::fs::PermissionsExt;
        let mut prefix = std::ffi::OsString::from(".");
        prefix.push(self.target.file_name().unwrap_or_default());
        prefix.push(".nvq-");
        let mode = fs::metadata(&self.target).map_or(0o666, |m| m.permissions().mode() & 0o7777);
        tempfile::Builder::new()
            .prefix(&prefix)
            .suffix(".tmp")
            .permissions(fs::Permissions::from_mode(mode))
            .tempfile_in(&self.dir)
    }

    /// Replace the whole file with `bytes`.
    pub fn replace(&self, bytes: &[u8]) -> Result<(), NvqError> {
        // Something other than a regular file put there since the start is
        // never renamed over.
        regular_or_missing(&self.target)?;
        let mut tmp = self.temp().map_err(|e| self.err(e))?;
        tmp.write_all(bytes).map_err(|e| self.err(e))?;
        tmp.as_file().sync_all().map_err(|e| self.err(e))?;
        tmp.persist(&self.target).map_err(|e| self.err(e.error))?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;

    /// A sample of `n` lines that a reader can check for completeness: the
    /// first line says how many lines follow, the last is `# end`.
    fn sample(k: usize, n: usize) -> Vec<u8> {
        let mut s = format!("# lines {n}\n");
        for i in 0..n {
            s.push_str(&format!("nvq_sample{{gpu=\"{i}\"}} {k}\n"));
        }
        s.push_str("# end\n");
        s.into_bytes()
    }

    fn complete(text: &str) -> bool {
        let lines: Vec<&str> = text.lines().collect();
        let Some(n) = lines
            .first()
            .and_then(|l| l.strip_prefix("# lines "))
            .and_then(|n| n.parse::<usize>().ok())
        else {
            return false;
        };
        text.ends_with("# end\n") && lines.len() == n + 2
    }

    #[test]
    fn a_reader_never_sees_a_partial_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("gpu.prom");
        let f = AtomicFile::new(&path).unwrap();
        assert!(!path.exists(), "nothing is written before the first sample");
        f.replace(&sample(0, 500)).unwrap();
        let done = Arc::new(AtomicBool::new(false));
        let reader = {
            let (done, path) = (done.clone(), path.clone());
            std::thread::spawn(move || {
                let (mut reads, mut bad) = (0u32, Vec::new());
                while !done.load(Ordering::SeqCst) {
                    let text = fs::read_to_string(&path).unwrap();
                    if !complete(&text) {
                        bad.push(text.len());
                    }
                    reads += 1;
                }
                (reads, bad)
            })
        };
        // Sizes vary so that a torn read would show up as a wrong count.
        for k in 1..200 {
            f.replace(&sample(k, 1 + (k * 37) % 500)).unwrap();
        }
        done.store(true, Ordering::SeqCst);
        let (reads, bad) = reader.join().unwrap();
        assert!(reads > 0);
        assert!(
            bad.is_empty(),
            "{} partial reads, sizes {:?}",
            bad.len(),
            &bad[..bad.len().min(10)]
        );
        assert_eq!(fs::read(&path).unwrap(), sample(199, 1 + (199 * 37) % 500));
        // No temporary file left behind.
        let names: Vec<_> = fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(names.len(), 1);
    }

    #[test]
    fn a_link_planted_at_the_old_temporary_name_is_not_followed() {
        let dir = tempfile::tempdir().unwrap();
        let victim = dir.path().join("victim");
        fs::write(&victim, "precious").unwrap();
        let old = dir
            .path()
            .join(format!(".gpu.prom.nvq-{}.tmp", std::process::id()));
        std::os::unix::fs::symlink(&victim, &old).unwrap();
        let path = dir.path().join("gpu.prom");
        let f = AtomicFile::new(&path).unwrap();
        f.replace(b"new\n").unwrap();
        f.replace(b"newer\n").unwrap();
        assert_eq!(fs::read_to_string(&victim).unwrap(), "precious");
        assert!(fs::symlink_metadata(&old).unwrap().file_type().is_symlink());
        assert_eq!(fs::read_to_string(&path).unwrap(), "newer\n");
    }

    #[test]
    fn bad_targets_fail_early() {
        let dir = tempfile::tempdir().unwrap();
        for p in [dir.path().to_path_buf(), dir.path().join("missing/x.prom")] {
            let e = AtomicFile::new(&p).unwrap_err();
            assert!(
                matches!(e, NvqError::Output { .. } | NvqError::NotRegular { .. }),
                "{p:?}: {e:?}"
            );
            assert_eq!(e.exit_code(), crate::ExitCode::OutputError);
        }
    }

    #[test]
    fn the_check_that_it_is_a_complete_file_can_fail() {
        let s = String::from_utf8(sample(3, 10)).unwrap();
        assert!(complete(&s));
        assert!(!complete(&s[..s.len() / 2]));
        assert!(!complete(""));
    }
}
