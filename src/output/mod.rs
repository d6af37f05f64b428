//! Where output goes: stdout or a `-f` file, written in whole samples.

pub mod looping;
pub mod terminal;

use crate::error::NvqError;
use std::fs::File;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// The destination of query output.
pub struct Sink {
    target: Target,
}

enum Target {
    Stdout(io::Stdout),
    File { path: PathBuf, file: File },
}

impl Sink {
    pub fn stdout() -> Self {
        Sink {
            target: Target::Stdout(io::stdout()),
        }
    }

    /// Create or truncate `path`, as nvidia-smi's `-f` does.
    pub fn file(path: &Path) -> Result<Self, NvqError> {
        let file = File::create(path).map_err(|source| NvqError::Output {
            path: path.to_path_buf(),
            source,
        })?;
        Ok(Sink {
            target: Target::File {
                path: path.to_path_buf(),
                file,
            },
        })
    }

    pub fn open(path: Option<&Path>) -> Result<Self, NvqError> {
        match path {
            Some(p) => Sink::file(p),
            None => Ok(Sink::stdout()),
        }
    }

    /// Write whole lines and flush them.
    pub fn write(&mut self, bytes: &[u8]) -> Result<(), NvqError> {
        if bytes.is_empty() {
            return Ok(());
        }
        let (res, path) = match &mut self.target {
            Target::Stdout(s) => {
                let mut lock = s.lock();
                (
                    lock.write_all(bytes).and_then(|()| lock.flush()),
                    PathBuf::from("stdout"),
                )
            }
            Target::File { path, file } => (
                file.write_all(bytes).and_then(|()| file.flush()),
                path.clone(),
            ),
        };
        res.map_err(|source| NvqError::Output { path, source })
    }
}

/// Is this error a closed pipe on the reading side (`| head`)? Such an end is
/// quiet and successful.
pub fn is_broken_pipe(e: &NvqError) -> bool {
    matches!(e, NvqError::Output { source, .. } if source.kind() == io::ErrorKind::BrokenPipe)
}
