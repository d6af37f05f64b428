//! Shared helpers for nvq's integration tests: locating the simulator
//! library, running nvq against a scenario, reading the reference material in
//! `../shared` (skipping when it is absent), and comparing CSV output with a
//! capture.
//!
//! Use from a test file with `mod common;`. Not every test file uses every
//! helper, hence the `dead_code` allowance.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use assert_cmd::Command;
use std::path::{Path, PathBuf};
use std::process::Output;

/// The repository root.
pub fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The simulator library built by cargo: next to the test executable's
/// parent (`target/debug/libnvml_sim.so`) or in `deps/` (where cargo puts a
/// dev-dependency's cdylib).
pub fn sim_lib() -> PathBuf {
    let exe = std::env::current_exe().expect("test executable path");
    let deps = exe.parent().expect("deps dir").to_path_buf();
    let profile = deps.parent().expect("profile dir").to_path_buf();
    for p in [profile.join("libnvml_sim.so"), deps.join("libnvml_sim.so")] {
        if p.is_file() {
            return p;
        }
    }
    panic!(
        "libnvml_sim.so not found in {} or {}: run `cargo build -p nvml-sim` first",
        profile.display(),
        deps.display()
    );
}

/// A scenario file of `tests/scenarios/`.
pub fn scenario(name: &str) -> PathBuf {
    let p = repo_root().join("tests/scenarios").join(name);
    assert!(p.is_file(), "missing scenario {}", p.display());
    p
}

/// Set (to 1) where `../shared` must be there: a test that would skip for
/// want of it fails instead. `.ci/run` sets it.
pub const REQUIRE_SHARED: &str = "NVQ_REQUIRE_SHARED";

/// A test cannot read what it compares with: fail under
/// [`REQUIRE_SHARED`], else say so on stderr (the test then skips).
pub fn missing_shared(what: &Path, why: &str) {
    let msg = format!("{} {why}", what.display());
    if std::env::var(REQUIRE_SHARED).is_ok_and(|v| v == "1") {
        panic!("{msg}, and {REQUIRE_SHARED}=1 says it must be there");
    }
    eprintln!("note: {msg}; skipping the checks that need it");
}

/// `../shared` beside the repository, or `None` (see [`missing_shared`]).
pub fn shared_dir() -> Option<PathBuf> {
    let p = repo_root().join("../shared");
    if p.is_dir() {
        Some(p)
    } else {
        missing_shared(&p, "not found");
        None
    }
}

/// A directory under `../shared`, or `None` (see [`missing_shared`]).
pub fn shared_path(rel: &str) -> Option<PathBuf> {
    let p = shared_dir()?.join(rel);
    if p.exists() {
        Some(p)
    } else {
        missing_shared(&p, "not found");
        None
    }
}

/// The text of a file under `../shared`, or `None` (see [`missing_shared`]).
pub fn read_shared(rel: &str) -> Option<String> {
    let p = shared_dir()?.join(rel);
    match std::fs::read_to_string(&p) {
        Ok(s) => Some(s),
        Err(e) => {
            missing_shared(&p, &format!("cannot be read ({e})"));
            None
        }
    }
}

/// The one capture file under `../shared/nvidia-smi/captures/` whose name
/// starts with `prefix` (e.g. `"01_"`), or `None` when `../shared` is absent.
pub fn capture(prefix: &str) -> Option<(String, String)> {
    let dir = shared_dir()?.join("nvidia-smi/captures");
    let mut hits: Vec<PathBuf> = std::fs::read_dir(&dir)
        .ok()?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.is_file()
                && p.file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| n.starts_with(prefix) && n.ends_with(".txt"))
        })
        .collect();
    hits.sort();
    assert_eq!(hits.len(), 1, "capture prefix {prefix} matches {hits:?}");
    let p = &hits[0];
    let name = p.file_name()?.to_str()?.to_string();
    Some((name, std::fs::read_to_string(p).ok()?))
}

/// The arguments of a captured nvidia-smi command line (everything after
/// `nvidia-smi`), split as a POSIX shell would for the simple lines in
/// `captures/commands/` (words, double quotes).
pub fn command_args(line: &str) -> Vec<String> {
    let mut args = Vec::new();
    let mut cur = String::new();
    let mut in_word = false;
    let mut quoted = false;
    for ch in line.trim().chars() {
        match ch {
            '"' => {
                quoted = !quoted;
                in_word = true;
            }
            c if c.is_whitespace() && !quoted => {
                if in_word {
                    args.push(std::mem::take(&mut cur));
                    in_word = false;
                }
            }
            c => {
                cur.push(c);
                in_word = true;
            }
        }
    }
    if in_word {
        args.push(cur);
    }
    let first = args.first().map(String::as_str).unwrap_or("");
    if first.ends_with("nvidia-smi") || first.ends_with("nvidia-smi.exe") {
        args.remove(0);
    }
    args
}

/// Run nvq against the simulator with a scenario.
pub fn nvq<S: AsRef<std::ffi::OsStr>>(scenario: &Path, args: &[S]) -> Output {
    Command::cargo_bin("nvq")
        .expect("nvq binary")
        .arg("--nvml-lib")
        .arg(sim_lib())
        .args(args)
        .env("NVML_SIM_SCENARIO", scenario)
        .env("TZ", "UTC")
        .output()
        .expect("run nvq")
}

/// nvq's stdout, asserting a zero exit status and an empty stderr.
pub fn nvq_ok<S: AsRef<std::ffi::OsStr>>(scenario: &Path, args: &[S]) -> String {
    let out = nvq(scenario, args);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "nvq failed ({:?}): {stderr}",
        out.status
    );
    assert!(stderr.is_empty(), "unexpected stderr: {stderr}");
    String::from_utf8(out.stdout).expect("utf-8 stdout")
}

/// Does `s` look like nvidia-smi's timestamp (`YYYY/MM/DD HH:MM:SS.mmm`)?
pub fn is_timestamp(s: &str) -> bool {
    nvq::source::time::is_timestamp(s)
}

/// Compare nvq's CSV output with a capture byte for byte, except that a cell
/// holding a timestamp in the capture only has to hold a timestamp. Reports
/// every differing cell.
pub fn assert_same_csv(what: &str, actual: &str, expected: &str) {
    let diffs = csv_differences(actual, expected);
    assert!(
        diffs.is_empty(),
        "{what}: nvq differs from the capture:\n{}\n--- nvq:\n{actual}--- capture:\n{expected}",
        diffs.join("\n")
    );
}

/// The differences between two CSV outputs (timestamps compared by shape).
pub fn csv_differences(actual: &str, expected: &str) -> Vec<String> {
    let mut diffs = Vec::new();
    if actual.ends_with('\n') != expected.ends_with('\n') {
        diffs.push("final newline differs".to_string());
    }
    let a: Vec<&str> = actual.lines().collect();
    let e: Vec<&str> = expected.lines().collect();
    if a.len() != e.len() {
        diffs.push(format!("{} lines, capture has {}", a.len(), e.len()));
    }
    let header: Vec<&str> = e
        .first()
        .map(|h| h.split(", ").collect())
        .unwrap_or_default();
    for (n, (la, le)) in a.iter().zip(&e).enumerate() {
        let ca: Vec<&str> = la.split(", ").collect();
        let ce: Vec<&str> = le.split(", ").collect();
        if ca.len() != ce.len() {
            diffs.push(format!(
                "line {}: {} cells, capture has {}",
                n + 1,
                ca.len(),
                ce.len()
            ));
        }
        for (i, (x, y)) in ca.iter().zip(&ce).enumerate() {
            let same = if is_timestamp(y) {
                is_timestamp(x)
            } else {
                x == y
            };
            if !same {
                let col = header.get(i).copied().unwrap_or("?");
                diffs.push(format!(
                    "line {} cell {} ({col}): nvq {x:?}, capture {y:?}",
                    n + 1,
                    i + 1
                ));
            }
        }
    }
    diffs
}

/// The first lines of a generated scenario: driver and NVML versions.
pub const SIM_HEAD: &str = "driver_version = \"580.82.07\"\nnvml_version = \"13.580.82.07\"\n";

/// GPU `i` of a generated scenario: an H100 on PCI bus `i + 1`, with
/// `used` bytes of memory in use, 87 % busy, 54 °C, 412.345 W.
pub fn h100(i: usize, used: u64) -> String {
    format!(
        r#"
[[device]]
name = "NVIDIA H100 80GB HBM3"
uuid = "GPU-00000000-0000-4000-8000-{i:012x}"
pci = {{ domain = 0, bus = {bus}, device = 0, device_id = 0x233010DE, subsystem_id = 0x16C110DE }}
memory = {{ total = 85520809984, reserved = 567279616, used = {used} }}
utilization = {{ gpu = 87, memory = 41 }}
temperature = {{ gpu = 54 }}
power = {{ usage = 412345, limit = 700000 }}
"#,
        bus = i + 1,
    )
}

/// A `[[device.fault]]` that makes `function` take `ms` milliseconds.
pub fn delay(function: &str, ms: u64) -> String {
    format!("\n[[device.fault]]\nfunction = \"{function}\"\ndelay_ms = {ms}\n")
}

/// `text` in a temporary `.toml` file.
pub fn write_scenario(text: &str) -> tempfile::NamedTempFile {
    let mut f = tempfile::Builder::new().suffix(".toml").tempfile().unwrap();
    std::io::Write::write_all(&mut f, text.as_bytes()).unwrap();
    f
}
