//! What a test needs that a machine may lack: `../shared` (the real
//! nvidia-smi captures), a tool (jq, promtool, curl, ...), root. A test asks
//! through [`require_tool`], [`require_root`] or the `../shared` readers of
//! `common`; when the need is not met the test skips, and the skip is
//! recorded for the banner that names everything skipped at the end, unless
//! an environment variable says the need is required (CI sets them all, in
//! `.ci/run`), when the test fails instead. No test returns early any other
//! way (`tests/harness.rs` checks).
//!
//! The record: with `NVQ_SKIP_LOG` set (scripts/test-all.sh sets it), one
//! line per skip, `reason<TAB>test`, appended to that file, which the
//! scripts append their own skips to and test-all.sh prints as one banner
//! at the end; without it, this test binary prints its banner to stderr
//! when it exits (libtest captures what tests print, not what is written
//! after they are all done).

use std::io::Write;
use std::path::PathBuf;
use std::sync::Mutex;

/// Set to 1 to fail, not skip, when `../shared` is missing.
pub const REQUIRE_SHARED: &str = "NVQ_REQUIRE_SHARED";
/// Set to 1 to fail, not skip, when a tool a test runs is not installed.
pub const REQUIRE_TOOLS: &str = "NVQ_REQUIRE_TOOLS";
/// Set to 1 to fail, not skip, when a test that needs root runs without it.
pub const REQUIRE_ROOT: &str = "NVQ_REQUIRE_ROOT";
/// Set to 1 to fail, not skip, when the machine has a real NVML (the tests
/// of a machine without a driver cannot run there).
pub const REQUIRE_NO_DRIVER: &str = "NVQ_REQUIRE_NO_DRIVER";
/// The file skips are appended to (see the module's comment).
pub const SKIP_LOG: &str = "NVQ_SKIP_LOG";

/// Skips recorded by this process when [`SKIP_LOG`] is not set.
static SKIPS: Mutex<Vec<(String, String)>> = Mutex::new(Vec::new());
static BANNER_AT_EXIT: std::sync::Once = std::sync::Once::new();

fn required(var: &str) -> bool {
    std::env::var(var).is_ok_and(|v| v == "1")
}

/// The running test's name (libtest names each test's thread after it).
fn test_name() -> String {
    std::thread::current()
        .name()
        .unwrap_or("(unnamed test)")
        .to_string()
}

/// The test cannot run all it checks because `why`: fail when `var` says
/// the need is required, else record the skip. The one way a test skips.
pub fn cannot_run(var: &str, why: &str) {
    let test = test_name();
    if required(var) {
        panic!("{test}: {why} ({var}=1: required here)");
    }
    let why = format!("{why} (with {var}=1 this fails)");
    if let Some(log) = std::env::var_os(SKIP_LOG) {
        let line = format!("{}\t{test}\n", why.replace(['\t', '\n'], " "));
        // One write of one line in append mode: lines of tests running at
        // once do not mix.
        let wrote = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&log)
            .and_then(|mut f| f.write_all(line.as_bytes()));
        if let Err(e) = wrote {
            panic!("{SKIP_LOG}={}: {e}", PathBuf::from(log).display());
        }
        return;
    }
    SKIPS
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .push((why, test));
    BANNER_AT_EXIT.call_once(|| {
        // SAFETY: atexit registers a plain `extern "C" fn()` that takes no
        // arguments; it runs once, when the test binary exits normally.
        unsafe {
            libc::atexit(print_banner);
        }
    });
}

/// The banner: how many tests skipped something, grouped by reason.
pub fn banner(skips: &[(String, String)]) -> String {
    let mut reasons: Vec<(&str, Vec<&str>)> = Vec::new();
    for (why, test) in skips {
        match reasons.iter_mut().find(|(w, _)| w == why) {
            Some((_, tests)) if tests.contains(&test.as_str()) => {}
            Some((_, tests)) => tests.push(test),
            None => reasons.push((why, vec![test])),
        }
    }
    let total: usize = reasons.iter().map(|(_, t)| t.len()).sum();
    let mut s = format!("\n==== skipped: {total} tests could not check everything here ====\n");
    for (why, tests) in reasons {
        s += &format!("{:>5} × {why}\n", tests.len());
    }
    s
}

extern "C" fn print_banner() {
    let skips = SKIPS.lock().unwrap_or_else(|e| e.into_inner());
    if !skips.is_empty() {
        let _ = std::io::stderr().write_all(banner(&skips).as_bytes());
    }
}

/// The path of `name` on PATH (or `name` itself when it is a path), or
/// `None` after recording the skip (see [`cannot_run`]; [`REQUIRE_TOOLS`]
/// makes it fail).
pub fn require_tool(name: &str) -> Option<PathBuf> {
    let found = if name.contains('/') {
        Some(PathBuf::from(name)).filter(|p| is_executable(p))
    } else {
        std::env::var_os("PATH").and_then(|path| {
            std::env::split_paths(&path)
                .map(|d| d.join(name))
                .find(|p| is_executable(p))
        })
    };
    if found.is_none() {
        cannot_run(REQUIRE_TOOLS, &format!("{name} is not installed"));
    }
    found
}

fn is_executable(p: &std::path::Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// Whether this process runs as root; when not, the skip is recorded (see
/// [`cannot_run`]; [`REQUIRE_ROOT`] makes it fail). `what` names what needs
/// root (mount, mknod, another user's files).
pub fn require_root(what: &str) -> bool {
    // SAFETY: geteuid has no preconditions and cannot fail.
    let root = unsafe { libc::geteuid() } == 0;
    if !root {
        cannot_run(REQUIRE_ROOT, &format!("not root ({what} needs root)"));
    }
    root
}
