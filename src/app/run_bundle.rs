//! `nvq run --bundle DIR`: what is kept when the job dies of out-of-memory.
//! The folder is checked (and made, when missing) before the command
//! starts, with `-f`'s rules: no link that another user planted in a sticky
//! folder is followed, and each file is a regular file or missing, replaced
//! whole and atomically (`output::atomic`), so a reader never sees half of
//! one. Nothing is written unless the verdict fires.

use crate::error::NvqError;
use crate::output::{atomic, AtomicFile};
use std::path::Path;

/// The files of a bundle, in the order they are written.
pub const FILES: [&str; 5] = [
    "report.txt",
    "report.json",
    "samples.ndjson",
    "table.txt",
    "xid.json",
];

/// A bundle folder, checked, whose files are written at the end.
pub struct Bundle {
    dir: String,
    files: Vec<AtomicFile>,
}

/// What goes into a bundle, one text per entry of [`FILES`].
pub type Contents = [String; 5];

impl Bundle {
    /// Check `dir` (making it when missing) and each file in it, before the
    /// command starts: a failure is exit 22, as for `-f`.
    pub fn prepare(dir: &Path) -> Result<Self, NvqError> {
        let err = |source: std::io::Error| NvqError::Output {
            path: dir.to_path_buf(),
            source,
        };
        atomic::check_links(dir)?;
        match std::fs::metadata(dir) {
            Ok(m) if m.is_dir() => {}
            Ok(_) => return Err(err(std::io::Error::from_raw_os_error(libc::ENOTDIR))),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                std::fs::create_dir(dir).map_err(err)?;
            }
            Err(e) => return Err(err(e)),
        }
        let files = FILES
            .iter()
            .map(|name| AtomicFile::new(&dir.join(name)))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Bundle {
            dir: dir.display().to_string(),
            files,
        })
    }

    /// The folder, as given.
    pub fn dir(&self) -> &str {
        &self.dir
    }

    /// Write every file (each replaced whole); the first failure ends it.
    pub fn write(&self, contents: &Contents) -> Result<(), NvqError> {
        for (file, text) in self.files.iter().zip(contents) {
            file.replace(text.as_bytes())?;
        }
        Ok(())
    }
}
