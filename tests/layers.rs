//! The layer check, `scripts/check-layers.py` (no import circle, each
//! module uses only what its layer allows, a `// SAFETY:` comment on every
//! `unsafe`, NVML's symbols only in the raw layer, line lengths), runs
//! under plain `cargo test` as well as in `scripts/test-all.sh`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common::repo_root;

#[test]
fn the_layers_hold() {
    let script = repo_root().join("scripts/check-layers.py");
    let out = crate::common::command("python3")
        .arg(&script)
        .output()
        .unwrap_or_else(|e| panic!("python3 {}: {e} (install python3)", script.display()));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "{} found violations:\n{stdout}{stderr}",
        script.display()
    );
    // It says how many modules it read: a run that found no source checked
    // nothing.
    let modules: usize = stdout
        .strip_prefix("layers: ")
        .and_then(|s| s.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("unexpected output: {stdout}{stderr}"));
    assert!(modules >= 5, "only {modules} modules checked: {stdout}");
}
