//! What nvq's own tests share, a dev-dependency of nvq so that the unit tests
//! beside the code (`cargo test --lib`, as `crate::test_support`) and the
//! integration tests (`tests/`) use one copy, and the shipped library holds
//! none of it: comparing text with a committed snapshot, and showing what
//! changed. (Random cases come from proptest: its strategies, or its
//! deterministic generator where a test draws a long sequence itself.)

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
        "{} differs from its snapshot ({regen} to accept):\n{}",
        path.display(),
        difference(&expected, actual)
    ))
}

/// The lines that differ between a snapshot and what a test drew, as a
/// unified diff with three lines of context (`similar`'s, the diff insta
/// prints): a frame of 60 lines that changed in one shows that one. A
/// missing or extra final newline is shown too (`\ No newline at end of
/// file`), as is a change in trailing spaces, which the comparison counts.
pub fn difference(expected: &str, actual: &str) -> String {
    similar::TextDiff::from_lines(expected, actual)
        .unified_diff()
        .context_radius(3)
        .missing_newline_hint(true)
        .header("snapshot", "drawn now")
        .to_string()
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
        assert!(differs.contains("(REGEN to accept)"), "{differs}");
        assert!(differs.ends_with("\n-x\n+y\n"), "{differs}");
    }

    #[test]
    fn the_difference_shows_the_changed_lines_only() {
        let expected: String = (0..60).map(|i| format!("line {i}\n")).collect();
        let actual = expected.replace("line 30\n", "line 30 changed\n");
        let diff = difference(&expected, &actual);
        assert!(diff.contains("\n-line 30\n+line 30 changed\n"), "{diff}");
        assert!(!diff.contains("line 20\n"), "{diff}");
        assert!(difference(&expected, &expected).is_empty());
        // A final newline and trailing spaces are differences too.
        let cut = difference("a\n", "a");
        assert!(cut.contains("No newline at end of file"), "{cut}");
        assert!(difference("a\n", "a \n").contains("+a \n"));
    }
}
