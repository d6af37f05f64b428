//! Files that nvq, perhaps running as root, loads, runs or reads as its
//! own: the simulator library (`--simulate`), the `nvq-top` executable that
//! `nvq top` hands over to, `nvq serve`'s `--web.config.file` and the PEM
//! files it names. One rule for all of them, sshd's StrictModes made
//! stricter, so that no other user can put their code or their settings
//! into a process of root's:
//!
//! - the file is a regular file, owned by root or by the user running nvq,
//!   and neither its group nor others may write it;
//! - every folder above it (its real path, links resolved) is owned by root
//!   or by that user, and neither group nor others may write it, except a
//!   sticky folder (`/tmp`, mode 1777) whose entry on the way is root's or
//!   the user's: in a sticky folder only an entry's owner can rename or
//!   remove it.
//!
//! [`check`] answers with the real path, which is what to load or run: no
//! other user can change what it names afterwards. [`check_open`] checks a
//! file already open (to be read), and that the path still names it.

use std::fs::{File, Metadata};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

/// Why a file is not trusted. Each text names the file (and the folder,
/// where that is the reason), never what the file holds.
#[derive(Debug, thiserror::Error)]
pub enum Untrusted {
    /// The file cannot be opened, resolved or examined.
    #[error("cannot open {path}: {source}")]
    Open {
        /// The path as given.
        path: PathBuf,
        /// The system's reason.
        #[source]
        source: std::io::Error,
    },
    /// A folder, a FIFO, a device, ...
    #[error("{path} is not a regular file.")]
    NotRegular {
        /// The path as given.
        path: PathBuf,
    },
    /// Another user owns the file.
    #[error("{path} belongs to user {uid}, neither root nor the user running nvq (uid {me}).")]
    Owner {
        /// The path as given.
        path: PathBuf,
        /// Its owner.
        uid: u32,
        /// The user running nvq.
        me: u32,
    },
    /// Its group or other users may write the file.
    #[error("{path} is writable by other users (mode {mode:04o}); `chmod go-w` it.")]
    Writable {
        /// The path as given.
        path: PathBuf,
        /// Its permission bits.
        mode: u32,
    },
    /// A folder above the file is another user's, or others may write it.
    #[error(
        "{path} is in {folder}, which is writable by other users (owner uid {uid}, mode {mode:04o}); \
         move it to a folder only root or its owner can write."
    )]
    Folder {
        /// The path as given.
        path: PathBuf,
        /// The folder (on the real path).
        folder: PathBuf,
        /// The folder's owner.
        uid: u32,
        /// The folder's permission bits.
        mode: u32,
    },
    /// The path named another file by the time it was checked.
    #[error("{path} changed while nvq checked it.")]
    Changed {
        /// The path as given.
        path: PathBuf,
    },
}

/// The user running nvq (the effective user, whose rights nvq uses).
pub fn me() -> u32 {
    // SAFETY: geteuid has no preconditions and cannot fail.
    unsafe { libc::geteuid() }
}

/// Check `path` by the rule above; its real path (links resolved) when it
/// holds, which is the path to load or run.
pub fn check(path: &Path) -> Result<PathBuf, Untrusted> {
    let open = |source| Untrusted::Open {
        path: path.to_path_buf(),
        source,
    };
    let real = std::fs::canonicalize(path).map_err(open)?;
    let meta = std::fs::metadata(&real).map_err(open)?;
    check_meta(path, &real, &meta)?;
    Ok(real)
}

/// Check `file`, open at `path`, by the rule above: the file itself as it
/// is open, and the folders of the real path, which must still name it.
pub fn check_open(path: &Path, file: &File) -> Result<(), Untrusted> {
    let open = |source| Untrusted::Open {
        path: path.to_path_buf(),
        source,
    };
    let meta = file.metadata().map_err(open)?;
    // Not a regular file: say so before resolving (a FIFO is never waited on).
    if !meta.is_file() {
        return Err(Untrusted::NotRegular {
            path: path.to_path_buf(),
        });
    }
    let real = std::fs::canonicalize(path).map_err(open)?;
    let now = std::fs::metadata(&real).map_err(open)?;
    if (now.dev(), now.ino()) != (meta.dev(), meta.ino()) {
        return Err(Untrusted::Changed {
            path: path.to_path_buf(),
        });
    }
    check_meta(path, &real, &meta)
}

/// The rule, for the file `meta` at its real path `real` (`path` as given).
fn check_meta(path: &Path, real: &Path, meta: &Metadata) -> Result<(), Untrusted> {
    let path_buf = || path.to_path_buf();
    if !meta.is_file() {
        return Err(Untrusted::NotRegular { path: path_buf() });
    }
    let me = me();
    let ours = |uid: u32| uid == 0 || uid == me;
    if !ours(meta.uid()) {
        return Err(Untrusted::Owner {
            path: path_buf(),
            uid: meta.uid(),
            me,
        });
    }
    if meta.mode() & 0o022 != 0 {
        return Err(Untrusted::Writable {
            path: path_buf(),
            mode: meta.mode() & 0o7777,
        });
    }
    // Each folder with the owner of its entry on the way down to the file.
    let mut entry_uid = meta.uid();
    for folder in real.ancestors().skip(1) {
        let dm = std::fs::metadata(folder).map_err(|source| Untrusted::Open {
            path: folder.to_path_buf(),
            source,
        })?;
        let open = dm.mode() & 0o022 != 0;
        let sticky = dm.mode() & 0o1000 != 0;
        if !ours(dm.uid()) || (open && !(sticky && ours(entry_uid))) {
            return Err(Untrusted::Folder {
                path: path_buf(),
                folder: folder.to_path_buf(),
                uid: dm.uid(),
                mode: dm.mode() & 0o7777,
            });
        }
        entry_uid = dm.uid();
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    fn chmod(p: &Path, mode: u32) {
        std::fs::set_permissions(p, std::fs::Permissions::from_mode(mode)).unwrap();
    }

    /// A private folder under the temporary one, with a file of mode 0644.
    fn layout() -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("lib.so");
        std::fs::write(&file, b"x").unwrap();
        chmod(&file, 0o644);
        (dir, file)
    }

    #[test]
    fn a_private_file_holds_and_answers_its_real_path() {
        let (dir, file) = layout();
        let link = dir.path().join("link.so");
        std::os::unix::fs::symlink(&file, &link).unwrap();
        let real = std::fs::canonicalize(&file).unwrap();
        assert_eq!(check(&file).unwrap(), real);
        assert_eq!(check(&link).unwrap(), real);
        let f = File::open(&link).unwrap();
        check_open(&link, &f).unwrap();
    }

    #[test]
    fn a_file_others_or_the_group_can_write_is_refused() {
        let (_dir, file) = layout();
        for mode in [0o666, 0o646, 0o664] {
            chmod(&file, mode);
            let e = check(&file).unwrap_err();
            assert!(matches!(e, Untrusted::Writable { .. }), "{mode:o}: {e}");
            assert!(e.to_string().contains(file.to_str().unwrap()), "{e}");
        }
    }

    #[test]
    fn an_open_folder_anywhere_above_is_refused_a_sticky_one_is_not() {
        let (dir, _) = layout();
        let open = dir.path().join("open");
        let inner = open.join("inner");
        std::fs::create_dir_all(&inner).unwrap();
        let file = inner.join("lib.so");
        std::fs::write(&file, b"x").unwrap();
        chmod(&file, 0o644);
        chmod(&open, 0o777);
        let e = check(&file).unwrap_err();
        match &e {
            Untrusted::Folder { folder, .. } => assert_eq!(folder, &open.canonicalize().unwrap()),
            other => panic!("{other}"),
        }
        assert!(e.to_string().contains("writable by other users"), "{e}");
        // Sticky: the entry `inner` is ours, so nobody else can move it.
        chmod(&open, 0o1777);
        check(&file).unwrap();
    }

    #[test]
    fn not_a_regular_file() {
        let dir = tempfile::tempdir().unwrap();
        assert!(matches!(
            check(dir.path()),
            Err(Untrusted::NotRegular { .. })
        ));
        assert!(matches!(
            check(&dir.path().join("missing")),
            Err(Untrusted::Open { .. })
        ));
    }
}
