//! What nvq's own tests share, a dev-dependency of nvq so that the unit tests
//! beside the code (`cargo test --lib`, as `crate::test_support`) and the
//! integration tests (`tests/`) use one copy, and the shipped library holds
//! none of it: comparing text with a committed snapshot, and drawing random
//! cases from a fixed seed.

use std::path::Path;

/// The variable that makes [`check_snapshot`] write snapshots instead of
/// comparing them (`NVQ_UPDATE_SNAPSHOTS=1 cargo test ...`; review the diff).
pub const UPDATE_SNAPSHOTS: &str = "NVQ_UPDATE_SNAPSHOTS";

/// Compare `actual` with the snapshot at `path`, or, with
/// [`UPDATE_SNAPSHOTS`]`=1`, write it there (folders included). `regen` is
/// the command that writes this snapshot again, for the messages. `Err` says
/// what is missing or shows both texts.
pub fn check_snapshot(path: &Path, actual: &str, regen: &str) -> Result<(), String> {
    if std::env::var_os(UPDATE_SNAPSHOTS).is_some_and(|v| v == "1") {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        }
        return std::fs::write(path, actual).map_err(|e| format!("{}: {e}", path.display()));
    }
    let expected = std::fs::read_to_string(path)
        .map_err(|e| format!("{}: {e}; create it with {regen}", path.display()))?;
    if expected == actual {
        return Ok(());
    }
    Err(format!(
        "{} differs from its snapshot ({regen} to accept)\n--- expected\n{expected}\n--- actual\n{actual}",
        path.display()
    ))
}

/// A small generator of numbers (xorshift64) for tests that draw random
/// cases: the same seed gives the same cases on every run.
pub struct XorShift(pub u64);

impl XorShift {
    /// The next 32 bits.
    pub fn next_u32(&mut self) -> u64 {
        let mut s = self.0;
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        self.0 = s;
        s >> 32
    }

    /// A number below `n` (0 when `n` is 0).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u32() % n.max(1)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn a_snapshot_matches_differs_or_is_missing() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.txt");
        let missing = check_snapshot(&path, "x\n", "REGEN").unwrap_err();
        assert!(missing.contains("create it with REGEN"), "{missing}");
        std::fs::write(&path, "x\n").unwrap();
        assert_eq!(check_snapshot(&path, "x\n", "REGEN"), Ok(()));
        let differs = check_snapshot(&path, "y\n", "REGEN").unwrap_err();
        assert!(
            differs.ends_with("--- expected\nx\n\n--- actual\ny\n"),
            "{differs}"
        );
    }
}
