//! Replacing a file atomically, for readers that must never see half of it
//! (node_exporter's textfile collector reading a Prometheus file).
//!
//! Each replacement writes a temporary file in the target's own folder (so
//! the rename never crosses a file system), fsyncs it and renames it over
//! the target. A reader opening the target sees the old content or the new
//! one, never a mix. The temporary file's name starts with a dot and ends in
//! `.tmp`, so a collector that reads `*.prom` never picks it up.

use crate::error::NvqError;
use std::fs::{self, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// A file that every [`AtomicFile::replace`] replaces whole.
#[derive(Debug)]
pub struct AtomicFile {
    path: PathBuf,
    tmp: PathBuf,
}

impl AtomicFile {
    /// Check that `path` can be replaced: its folder exists and is writable
    /// and the path is not a directory. The file itself is not touched yet.
    pub fn new(path: &Path) -> Result<Self, NvqError> {
        let err = |source: io::Error| NvqError::Output {
            path: path.to_path_buf(),
            source,
        };
        let name = path
            .file_name()
            .ok_or_else(|| err(io::Error::from_raw_os_error(libc::EISDIR)))?;
        if fs::metadata(path).is_ok_and(|m| m.is_dir()) {
            return Err(err(io::Error::from_raw_os_error(libc::EISDIR)));
        }
        let dir = match path.parent() {
            Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
            _ => PathBuf::from("."),
        };
        let mut tmp_name = std::ffi::OsString::from(".");
        tmp_name.push(name);
        tmp_name.push(format!(".nvq-{}.tmp", std::process::id()));
        let f = AtomicFile {
            path: path.to_path_buf(),
            tmp: dir.join(tmp_name),
        };
        // Probe: fail now, before NVML is busy, if the folder is missing or
        // not writable.
        OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .open(&f.tmp)
            .map_err(err)?;
        let _ = fs::remove_file(&f.tmp);
        Ok(f)
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Replace the whole file with `bytes`.
    pub fn replace(&self, bytes: &[u8]) -> Result<(), NvqError> {
        let res = (|| {
            let mut f = OpenOptions::new()
                .write(true)
                .create(true)
                .truncate(true)
                .open(&self.tmp)?;
            f.write_all(bytes)?;
            f.sync_all()?;
            drop(f);
            fs::rename(&self.tmp, &self.path)
        })();
        res.map_err(|source| {
            let _ = fs::remove_file(&self.tmp);
            NvqError::Output {
                path: self.path.clone(),
                source,
            }
        })
    }
}

impl Drop for AtomicFile {
    fn drop(&mut self) {
        // Normally already renamed away; this cleans up after a failure.
        let _ = fs::remove_file(&self.tmp);
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
    fn bad_targets_fail_early() {
        let dir = tempfile::tempdir().unwrap();
        for p in [dir.path().to_path_buf(), dir.path().join("missing/x.prom")] {
            let e = AtomicFile::new(&p).unwrap_err();
            assert!(matches!(e, NvqError::Output { .. }), "{p:?}: {e:?}");
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
