//! The layer check, `scripts/check-layers.py` (no import circle, each
//! module uses only what its layer allows, a `// SAFETY:` comment on every
//! `unsafe`, NVML's symbols only in the raw layer, nvml-wrapper's getters
//! only there and in the catalogue's reader, line lengths), runs under
//! plain `cargo test` as well as in `scripts/test-all.sh`.
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

/// The check of nvml-wrapper's getters finds what it is for: a view that
/// calls a getter itself, names the wrapper's device or reaches it through
/// `GpuCtx::call`, and none of it in the raw layer or the catalogue's reader.
#[test]
fn a_wrapper_getter_outside_the_catalogue_is_found() {
    let script = repo_root().join("scripts/check-layers.py");
    let probe = r#"
import importlib.util, sys
spec = importlib.util.spec_from_file_location("layers", sys.argv[1])
m = importlib.util.module_from_spec(spec)
spec.loader.exec_module(m)
code = """use nvml_wrapper::Device;
fn a(d: &Device) -> u64 { d.memory_info().map(|m| m.used).unwrap_or(0) }
fn b(c: &GpuCtx) { let _ = c.call(|d| d.name()); }
// d.power_usage() in a comment is no call
"""
for place in ["crates/nvq-core/src/source/view.rs", "src/app/view.rs",
              "crates/nvq-core/src/nvml/raw/view.rs", "crates/nvq-core/src/source/gpu/view.rs"]:
    print(place, len(m.wrapper_getters(place, code)))
"#;
    let out = crate::common::command("python3")
        .arg("-c")
        .arg(probe)
        .arg(&script)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        stdout.lines().collect::<Vec<_>>(),
        [
            "crates/nvq-core/src/source/view.rs 3",
            "src/app/view.rs 3",
            "crates/nvq-core/src/nvml/raw/view.rs 0",
            "crates/nvq-core/src/source/gpu/view.rs 0",
        ]
    );
}
