//! Shared helpers for nvq's integration tests: locating the simulator
//! library, running nvq against a scenario, reading the reference material in
//! `../shared` (skipping when it is absent), and comparing CSV output with a
//! capture. A test that cannot run all it checks here (no `../shared`, a tool
//! not installed, not root) skips through `skip` (re-exported here), which
//! records it for the banner at the end, or fails where CI requires it.
//!
//! Every test file is a module of one binary (`tests/tests.rs`) and uses
//! these as `crate::common`. Every process a test starts gets the one
//! environment of [`test_env`]. nvq is run to its end by [`run`] (a
//! scenario and arguments in, a [`Ran`] out: exit code, stdout and stderr
//! as text, within [`RUN_LIMIT`]), [`run_on`] (a scenario's text), [`bare`]
//! (no library) or [`as_nvidia_smi`]; a test that spawns, signals or times
//! it builds it with [`sim_command`] or [`nvq_command`]. Scenarios come by
//! name ([`scenario`]) or are generated ([`h100s`], [`write_scenario`]).
//! `tests/harness.rs` checks that no file starts nvq another way or has a
//! runner of its own. Not every helper is used everywhere, hence the
//! `dead_code` allowance.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use assert_cmd::Command;
use std::path::{Path, PathBuf};

mod skip;
pub use skip::{
    cannot_run, require_root, require_tool, REQUIRE_NO_DRIVER, REQUIRE_ROOT, REQUIRE_SHARED,
    REQUIRE_TOOLS,
};

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
    // `cargo build` copies the library up to target/debug/; `cargo test`
    // alone rebuilds only the one in deps/, so the newer of the two is the
    // current one (a stale copy above would run yesterday's simulator).
    let newest = [profile.join("libnvml_sim.so"), deps.join("libnvml_sim.so")]
        .into_iter()
        .filter_map(|p| Some((std::fs::metadata(&p).ok()?.modified().ok()?, p)))
        .max_by_key(|(t, _)| *t);
    if let Some((_, p)) = newest {
        return p;
    }
    panic!(
        "libnvml_sim.so not found in {} or {}: run `cargo build -p nvml-sim` first",
        profile.display(),
        deps.display()
    );
}

/// Copy an executable that a test then runs, by `cp` in a child process:
/// were the test process to write it, another test thread forking while the
/// write descriptor is open would hold it until its child execs, and running
/// the copy would fail with "Text file busy" (ETXTBSY; seen under 8 threads).
pub fn copy_executable(from: &Path, to: &Path) {
    let status = std::process::Command::new("cp")
        .arg(from)
        .arg(to)
        .status()
        .expect("cp");
    assert!(status.success(), "cp {} {}", from.display(), to.display());
}

/// A scenario file of `tests/scenarios/`.
pub fn scenario(name: &str) -> PathBuf {
    let p = repo_root().join("tests/scenarios").join(name);
    assert!(p.is_file(), "missing scenario {}", p.display());
    p
}

/// `-lms` of a loop whose test checks the values of each sample, not the
/// timing. A loop's deadline is nine tenths of its interval, at least 50 ms:
/// with `-lms 10`, a machine busy with the whole suite at once (many test
/// threads, two cores) sometimes misses it, and the sample rightly shows
/// `[Timeout]`. At 200 ms (a 180 ms deadline) the values are what is tested.
pub const VALUE_LMS: &str = "200";

/// The trend options the `trend.toml` scenario's tests use (its leak, sawtooth, jump and plateaus last
/// seconds, so the window and the rising time are seconds too).
pub const TREND: [&str; 6] = [
    "--trend-window",
    "4s",
    "--rising-for",
    "2s",
    "--min-rise",
    "32MiB",
];

/// `../shared` beside the repository, the reference material the
/// comparisons with real nvidia-smi output read.
fn shared_root() -> PathBuf {
    repo_root().join("../shared")
}

/// Is `../shared` absent (so that its comparisons are skipped)?
pub fn shared_absent() -> bool {
    !shared_root().is_dir()
}

/// A test cannot read what it compares with. Without `../shared` at all the
/// test skips those checks (recorded for the banner; [`REQUIRE_SHARED`]=1
/// fails instead); a file missing from a `../shared` that is there fails.
pub fn missing_shared(what: &Path, why: &str) {
    if shared_absent() {
        cannot_run(
            REQUIRE_SHARED,
            "../shared (real nvidia-smi captures) is not beside the checkout",
        );
    } else {
        panic!("{} {why}", what.display());
    }
}

/// How many things a comparison loop must have compared: `want`, or 0 when
/// `../shared` is absent (the skip was recorded). A loop that compared
/// nothing proves nothing.
pub fn assert_compared(what: &str, compared: usize, want: usize) {
    if shared_absent() && compared == 0 {
        return;
    }
    assert!(
        compared >= want,
        "{what}: compared {compared}, expected at least {want}"
    );
}

/// `../shared` beside the repository, or `None` (see [`missing_shared`]).
pub fn shared_dir() -> Option<PathBuf> {
    let p = shared_root();
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
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
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
    Some((name, std::fs::read_to_string(p).unwrap()))
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

/// Whether a variable of the tests' own environment is left out of the
/// processes they start: anything that steers nvq or the simulator
/// (`NVQ_*`, `NVML_*`, `NO_COLOR`) and the time zone (set to UTC instead).
fn steers_nvq(name: &std::ffi::OsStr) -> bool {
    let name = name.to_string_lossy();
    name.starts_with("NVQ_") || name.starts_with("NVML_") || name == "NO_COLOR" || name == "TZ"
}

/// The one environment of every process a test starts (nvq, a link to it,
/// a shell or a client that runs it): the test's own environment without
/// the variables of [`steers_nvq`], and `TZ=UTC`. A test adds what it
/// tests on top (`.env(...)` after this), per command: never
/// `std::env::set_var`, as all tests share one process.
///
/// Unless the test started it under [`on_time`], the process runs at a lower
/// priority ([`UNTIMED_NICE`] below the test binary's): many tests run at once on few cores, and
/// those that time nvq against a deadline must not miss it because a client,
/// a Prometheus server or a plot is busy beside them.
pub fn test_env(c: &mut std::process::Command) -> &mut std::process::Command {
    raise_open_file_limit();
    for (name, _) in std::env::vars_os() {
        if steers_nvq(&name) {
            c.env_remove(name);
        }
    }
    let untimed = !ON_TIME.with(std::cell::Cell::get);
    use std::os::unix::process::CommandExt;
    // SAFETY: the closure runs in the child between fork and exec, makes
    // only async-signal-safe system calls (sigaction, nice) and allocates
    // nothing.
    unsafe {
        c.pre_exec(move || {
            // A shell without job control starts a background job with
            // SIGINT and SIGQUIT ignored, `nohup` ignores SIGHUP, and an
            // ignored signal stays ignored across exec: a suite started
            // that way (`nohup cmd &` in a script) would hand that on to
            // every command a test signals. Each starts with the signals
            // the tests send at their defaults, as from a terminal.
            for sig in [
                libc::SIGINT,
                libc::SIGQUIT,
                libc::SIGHUP,
                libc::SIGTERM,
                libc::SIGUSR1,
                libc::SIGUSR2,
                libc::SIGWINCH,
            ] {
                libc::signal(sig, libc::SIG_DFL);
            }
            if untimed {
                // Below the test binary's own priority, whatever it is (a
                // suite run under `nice` starts at 10 already). Best
                // effort: a priority that cannot be lowered changes nothing
                // tested.
                let _ = libc::nice(UNTIMED_NICE);
            }
            Ok(())
        });
    }
    c.env("TZ", "UTC")
}

/// The test binary's open-file limit raised to its hard limit, once: an
/// ordinary user's soft limit (often 1024) is too few for hundreds of tests
/// at once, each with its pipes and files ("Too many open files", issue #55).
fn raise_open_file_limit() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let mut r = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        // SAFETY: getrlimit and setrlimit read and write the rlimit given,
        // which lives on this stack for both calls.
        unsafe {
            if libc::getrlimit(libc::RLIMIT_NOFILE, &mut r) == 0 && r.rlim_cur < r.rlim_max {
                r.rlim_cur = r.rlim_max;
                // Best effort: at the old limit the tests still run.
                let _ = libc::setrlimit(libc::RLIMIT_NOFILE, &r);
            }
        }
    });
}

/// How much lower than the test binary the processes of tests that do not
/// time them run (nice levels).
pub const UNTIMED_NICE: libc::c_int = 10;

thread_local! {
    /// Whether this thread's test times what it starts ([`on_time`]).
    static ON_TIME: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// While the guard lives, the processes this thread starts through
/// [`test_env`] keep the test binary's own priority: for tests that assert
/// a deadline (a sample within 100 ms of its time, a scrape within a
/// second). The others' processes yield the CPU to them.
pub fn on_time() -> OnTime {
    ON_TIME.with(|t| t.set(true));
    OnTime(())
}

/// See [`on_time`]: dropping it ends the test's claim.
pub struct OnTime(());

impl Drop for OnTime {
    fn drop(&mut self) {
        ON_TIME.with(|t| t.set(false));
    }
}

/// `program` (nvq, a link to or copy of it, a shell, a client) in
/// [`test_env`], with no arguments yet.
pub fn command<P: AsRef<std::ffi::OsStr>>(program: P) -> std::process::Command {
    let mut c = std::process::Command::new(program);
    test_env(&mut c);
    c
}

/// The nvq binary cargo built for the tests.
pub fn nvq_bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_nvq"))
}

/// `nvq-top`, the program `nvq top` hands its screen to (built beside nvq).
pub fn nvq_top_bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_nvq-top"))
}

/// nvq in [`test_env`], with no arguments yet (not even `--nvml-lib`).
pub fn nvq_command() -> std::process::Command {
    command(nvq_bin())
}

/// nvq on the simulator (`--nvml-lib`) in [`test_env`], reading `scenario`,
/// or the simulator's built-in machine when `None`; not yet run.
pub fn sim_command<S: AsRef<std::ffi::OsStr>>(
    scenario: Option<&Path>,
    args: &[S],
) -> std::process::Command {
    let mut c = nvq_command();
    c.arg("--nvml-lib").arg(sim_lib()).args(args);
    if let Some(s) = scenario {
        c.env("NVML_SIM_SCENARIO", s);
    }
    c
}

/// [`sim_command`] as an `assert_cmd` command (for `timeout`,
/// `write_stdin`, `assert`).
pub fn sim_assert_cmd(scenario: Option<&Path>) -> Command {
    Command::from_std(sim_command::<&str>(scenario, &[]))
}

/// How long a test lets one run of [`run`] or [`ran`] last: a run that hangs
/// is killed and fails its own test (its `code` is `None`) instead of
/// holding the whole suite.
pub const RUN_LIMIT: std::time::Duration = std::time::Duration::from_secs(120);

/// What a finished run printed and how it ended, as text: nvq's output is
/// UTF-8, and reading it through here asserts that too.
#[derive(Debug)]
pub struct Ran {
    /// The arguments it ran with, for messages.
    pub args: String,
    /// The exit code; `None` when a signal ended it (or [`RUN_LIMIT`] did).
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
}

impl Ran {
    /// Whether it exited 0.
    pub fn success(&self) -> bool {
        self.code == Some(0)
    }

    /// Its stdout, asserting that it exited 0 (stderr may hold notes).
    pub fn ok(self) -> String {
        assert!(
            self.success(),
            "{}: exit {:?}: {}{}",
            self.args,
            self.code,
            self.stderr,
            self.stdout
        );
        self.stdout
    }

    /// Itself, asserting what any run owes whatever went wrong: no panic
    /// text on either stream and no half-written line on stdout.
    pub fn whole(self) -> Ran {
        for s in [&self.stdout, &self.stderr] {
            assert!(
                !s.contains("panicked") && !s.contains("this is a bug"),
                "{}: panic: {s}",
                self.args
            );
        }
        assert!(
            self.stdout.is_empty() || self.stdout.ends_with('\n'),
            "{}: half a line on stdout: {:?}",
            self.args,
            self.stdout
        );
        self
    }
}

/// Run `c` (built by [`sim_command`], [`nvq_command`] or [`command`]) to
/// its end, at most [`RUN_LIMIT`]; fails the test where what it printed is
/// not UTF-8.
pub fn ran(c: std::process::Command) -> Ran {
    let args = format!("{:?}", c.get_args().collect::<Vec<_>>());
    let out = Command::from_std(c)
        .timeout(RUN_LIMIT)
        .output()
        .expect("run nvq");
    Ran {
        code: out.status.code(),
        stdout: String::from_utf8(out.stdout)
            .unwrap_or_else(|e| panic!("{args}: stdout is not UTF-8: {e}")),
        stderr: String::from_utf8(out.stderr)
            .unwrap_or_else(|e| panic!("{args}: stderr is not UTF-8: {e}")),
        args,
    }
}

/// No arguments, for [`run`] and [`bare`].
pub const NO_ARGS: &[&str] = &[];

/// nvq on the simulator with `scenario`, run to its end ([`ran`]).
pub fn run<S: AsRef<std::ffi::OsStr>>(scenario: &Path, args: &[S]) -> Ran {
    ran(sim_command(Some(scenario), args))
}

/// nvq on a scenario given as its text (in a temporary file for the run).
pub fn run_on<S: AsRef<std::ffi::OsStr>>(scenario_text: &str, args: &[S]) -> Ran {
    let sc = write_scenario(scenario_text);
    run(sc.path(), args)
}

/// A link named `nvidia-smi` to nvq, in a folder that lives as long as the
/// returned `TempDir`: run through it, nvq speaks as nvidia-smi.
pub fn nvidia_smi_link() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("temporary folder");
    let link = dir.path().join("nvidia-smi");
    std::os::unix::fs::symlink(nvq_bin(), &link).expect("link nvidia-smi to nvq");
    (dir, link)
}

/// nvq as `nvidia-smi` ([`nvidia_smi_link`]) on the simulator with
/// `scenario`, both given through the environment (`NVQ_NVML_LIB`,
/// `NVML_SIM_SCENARIO`) so that the arguments are exactly nvidia-smi's; run
/// to its end ([`ran`]).
pub fn as_nvidia_smi<S: AsRef<std::ffi::OsStr>>(scenario: &Path, args: &[S]) -> Ran {
    let (_dir, link) = nvidia_smi_link();
    let mut c = command(&link);
    c.args(args)
        .env("NVQ_NVML_LIB", sim_lib())
        .env("NVML_SIM_SCENARIO", scenario);
    ran(c)
}

/// nvq with these arguments only: no `--nvml-lib`, no scenario (for what
/// reads no local GPU, or finds its library itself, as `--simulate` does).
pub fn bare<S: AsRef<std::ffi::OsStr>>(args: &[S]) -> Ran {
    let mut c = nvq_command();
    c.args(args);
    ran(c)
}

/// A scenario file as the simulator reads it, for tests that work out what
/// nvq should print from the scenario's own values.
pub fn parsed_scenario(path: &Path) -> nvml_sim::scenario::Scenario {
    nvml_sim::scenario::Scenario::from_file(path).expect("scenario parses")
}

/// [`run`] [`on_time`]: for a test whose samples must each keep their
/// deadline (a scenario whose values follow the clock, where a missed
/// sample is a point missing from what the test reads).
pub fn run_on_time<S: AsRef<std::ffi::OsStr>>(scenario: &Path, args: &[S]) -> Ran {
    let _on_time = on_time();
    run(scenario, args)
}

/// nvq's stdout, asserting a zero exit status and an empty stderr.
pub fn nvq_ok<S: AsRef<std::ffi::OsStr>>(scenario: &Path, args: &[S]) -> String {
    let out = run(scenario, args);
    assert!(
        out.success(),
        "{}: exit {:?}: {}",
        out.args,
        out.code,
        out.stderr
    );
    assert!(out.stderr.is_empty(), "unexpected stderr: {}", out.stderr);
    out.stdout
}

/// Does `s` look like nvidia-smi's timestamp (`YYYY/MM/DD HH:MM:SS.mmm`)?
pub fn is_timestamp(s: &str) -> bool {
    nvq_core::source::time::is_timestamp(s)
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

/// The machines of `../shared/nvidia-smi/captures/sections/`: a short key
/// (used in scenario names) and the folder.
pub const CAPTURE_MACHINES: &[(&str, &str)] = &[
    ("h200", "linux-x86_64__nvidia-h200__590.48.01"),
    ("h100", "linux-x86_64__nvidia-h100-80gb-hbm3__590.48.01"),
    (
        "rtx2080s_linux",
        "linux-x86_64__nvidia-geforce-rtx-2080-super__610.57.04",
    ),
    (
        "rtx2080s_windows",
        "windows-x86_64__nvidia-geforce-rtx-2080-super__610.62",
    ),
];

/// One section capture of a machine as nvidia-smi printed it, or `None`
/// (with a note) when `../shared` is absent. The section files were cut
/// from one long capture: some lack the final newline, and one carries the
/// next section's `####` banner after an empty line; both are undone here.
pub fn section(dir: &str, file: &str) -> Option<String> {
    let text = read_shared(&format!("nvidia-smi/captures/sections/{dir}/{file}"))?;
    let text = text.split("\n\n####").next().unwrap_or_default();
    Some(format!("{}\n", text.trim_end_matches('\n')))
}

/// Run nvq against a scenario until `lines` lines of output came out, then
/// send SIGINT (as Ctrl+C does). Returns the exit code, stdout and stderr.
pub fn run_until_lines(
    scenario: &Path,
    args: &[&str],
    lines: usize,
) -> (Option<i32>, String, String) {
    use std::io::Read;
    use std::time::Duration;
    let mut child = sim_command(Some(scenario), args)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawn nvq");
    let mut out = child.stdout.take().expect("stdout");
    let (enough, seen) = std::sync::mpsc::channel();
    let reader = std::thread::spawn(move || {
        let mut all = Vec::new();
        let mut buf = [0u8; 4096];
        loop {
            match out.read(&mut buf) {
                Ok(0) | Err(_) => return all,
                Ok(n) => all.extend_from_slice(&buf[..n]),
            }
            if all.iter().filter(|b| **b == b'\n').count() >= lines {
                let _ = enough.send(());
            }
        }
    });
    let _ = seen.recv_timeout(Duration::from_secs(30));
    // SAFETY: signalling the child this test spawned.
    assert_eq!(
        unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGINT) },
        0
    );
    let status = child.wait().expect("wait nvq");
    let all = reader.join().expect("reader");
    let mut err = String::new();
    let _ = child.stderr.take().map(|mut e| e.read_to_string(&mut err));
    (status.code(), String::from_utf8(all).expect("utf-8"), err)
}

/// Run nvq on every machine of [`CAPTURE_MACHINES`], idle and under load, and
/// compare its output with that machine's section capture byte for byte.
/// `file(state)` names the capture, `scenario_of(key, state)` the scenario.
/// The runs go side by side (a monitor's five samples take seconds each).
/// Returns how many captures were compared: 0 without `../shared`.
pub fn compare_sections(
    file: fn(&str) -> String,
    scenario_of: fn(&str, &str) -> String,
    args: &'static [&'static str],
) -> usize {
    let runs: Vec<_> = CAPTURE_MACHINES
        .iter()
        .flat_map(|(key, dir)| ["idle", "load"].map(|state| (*key, *dir, state)))
        .map(|(key, dir, state)| {
            std::thread::spawn(move || {
                let expected = section(dir, &file(state))?;
                let got = nvq_ok(&scenario(&scenario_of(key, state)), args);
                Some((format!("{key} {state}"), got, expected))
            })
        })
        .collect();
    let mut compared = 0;
    for r in runs {
        let Some((what, got, expected)) = r.join().expect("run") else {
            continue;
        };
        assert_eq!(got, expected, "{what}");
        compared += 1;
    }
    compared
}

/// A copy of a scenario of `tests/scenarios/` with some lines replaced
/// (`(old, new)`, each of which must occur): the same machine read at
/// another moment.
pub fn scenario_at(name: &str, changes: &[(&str, &str)]) -> tempfile::NamedTempFile {
    let mut text = std::fs::read_to_string(scenario(name)).unwrap();
    for (old, new) in changes {
        assert!(text.contains(old), "{name} has no line {old:?}");
        text = text.replacen(old, new, 1);
    }
    let f = tempfile::Builder::new().suffix(".toml").tempfile().unwrap();
    std::fs::write(f.path(), text).unwrap();
    f
}

/// Compare a `-q` report with a capture line by line. The `Timestamp` line
/// only has to be there; a line whose label is in `gaps` must print `N/A`
/// in nvq (a value nvq has no NVML source for). Returns the differences.
pub fn report_differences(actual: &str, expected: &str, gaps: &[&str]) -> Vec<String> {
    let a: Vec<&str> = actual.split('\n').collect();
    let e: Vec<&str> = expected.split('\n').collect();
    let mut diffs = Vec::new();
    if a.len() != e.len() {
        diffs.push(format!("{} lines, capture {}", a.len(), e.len()));
    }
    for (i, (x, y)) in a.iter().zip(&e).enumerate() {
        if x == y || (x.starts_with("Timestamp ") && y.starts_with("Timestamp ")) {
            continue;
        }
        let (lx, vx) = x.split_once(" : ").unwrap_or((x, ""));
        let (ly, _) = y.split_once(" : ").unwrap_or((y, ""));
        if lx == ly && vx == "N/A" && gaps.contains(&lx.trim()) {
            continue;
        }
        diffs.push(format!("line {}: nvq {x:?}, capture {y:?}", i + 1));
    }
    diffs
}

/// Compare an XML report with a fixture line by line: the `<timestamp>`
/// only has to be there; an element in `gaps` must hold `N/A` in nvq (no
/// NVML source). Fixture artefacts are undone first: a missing final
/// newline, indentation rewritten as spaces (four a level in netdata's, the
/// tabs expanded to eight columns in some of Telegraf's; the first indented
/// line says which), empty lines left inside the document by trimming
/// (nvidia-smi prints one, after each `</gpu>`), and an XML declaration
/// rewritten by hand.
pub fn xml_differences(actual: &str, expected: &str, gaps: &[&str]) -> Vec<String> {
    let mut prev = String::new();
    // Columns a level: eight for tabs (a run of spaces among tabs is an
    // expanded tab), else the first indented line's spaces.
    let level = expected
        .lines()
        .find_map(|l| {
            let body = l.trim_start_matches([' ', '\t']);
            (body.len() < l.len() && !body.is_empty()).then(|| {
                if l.starts_with('\t') {
                    8
                } else {
                    l.len() - body.len()
                }
            })
        })
        .unwrap_or(4);
    let mut expected: String = expected
        .lines()
        .filter(|l| {
            let keep = !l.trim().is_empty() || prev.trim_end().ends_with("</gpu>");
            prev = l.to_string();
            keep
        })
        .map(|l| {
            let body = l.trim_start_matches([' ', '\t']);
            let indent = &l[..l.len() - body.len()];
            let columns: usize = indent.chars().map(|c| if c == '\t' { 8 } else { 1 }).sum();
            format!("{}{body}\n", "\t".repeat(columns / level))
        })
        .collect();
    if expected.is_empty() {
        expected.push('\n');
    }
    let a: Vec<&str> = actual.split('\n').collect();
    let e: Vec<&str> = expected.split('\n').collect();
    let mut diffs = Vec::new();
    if a.len() != e.len() {
        diffs.push(format!("{} lines, fixture {}", a.len(), e.len()));
    }
    let tag = |l: &str| {
        l.trim_start()
            .split('>')
            .next()
            .unwrap_or("")
            .trim_start_matches('<')
            .to_string()
    };
    for (i, (x, y)) in a.iter().zip(&e).enumerate() {
        let declaration = i == 0
            && x.starts_with("<?xml version=\"1.0\"")
            && y.starts_with("<?xml version=\"1.0\"");
        if x == y || declaration || (x.contains("<timestamp>") && y.contains("<timestamp>")) {
            continue;
        }
        let name = tag(x);
        if name == tag(y)
            && x.trim() == format!("<{name}>N/A</{name}>")
            && gaps.contains(&name.as_str())
        {
            continue;
        }
        diffs.push(format!("line {}: nvq {x:?}, fixture {y:?}", i + 1));
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

/// A generated machine of H100s ([`h100`]) for [`write_scenario`]: GPU
/// `i` with `i + 1` GiB of memory in use, and what [`H100s::on`] adds to
/// some of them.
pub struct H100s {
    gpus: usize,
    extra: Vec<(usize, String)>,
}

/// `gpus` H100s; see [`H100s`].
pub fn h100s(gpus: usize) -> H100s {
    H100s {
        gpus,
        extra: Vec::new(),
    }
}

impl H100s {
    /// `text` (a `[[device.fault]]` such as [`delay`]'s, a
    /// `[[device.process]]`) after each of these GPUs' tables.
    pub fn on(mut self, gpus: impl IntoIterator<Item = usize>, text: &str) -> H100s {
        self.extra
            .extend(gpus.into_iter().map(|i| (i, text.to_string())));
        self
    }

    /// The scenario's text.
    pub fn text(&self) -> String {
        let mut text = SIM_HEAD.to_string();
        for i in 0..self.gpus {
            text.push_str(&h100(i, (i as u64 + 1) << 30));
            for (_, extra) in self.extra.iter().filter(|(at, _)| *at == i) {
                text.push_str(extra);
            }
        }
        text
    }

    /// The scenario in a temporary file.
    pub fn write(&self) -> tempfile::NamedTempFile {
        write_scenario(&self.text())
    }
}

/// `text` in a temporary `.toml` file.
pub fn write_scenario(text: &str) -> tempfile::NamedTempFile {
    let mut f = tempfile::Builder::new().suffix(".toml").tempfile().unwrap();
    std::io::Write::write_all(&mut f, text.as_bytes()).unwrap();
    f
}

/// Read a child's output (`out`, its stdout) on a thread of its own until
/// `want` of its lines contain `pat`, or until `limit` has passed; return
/// how many did. A test that waits for its command to say "ready" goes on
/// after the limit instead of hanging (under load a run once waited 15
/// minutes for a line that did not come), and its assertions then say what
/// was missing. The thread reads on to the end, so the child never blocks
/// on a full pipe.
pub fn wait_for_lines<R: std::io::Read + Send + 'static>(
    out: R,
    pat: &'static str,
    want: usize,
    limit: std::time::Duration,
) -> usize {
    use std::io::BufRead;
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(out).lines() {
            let Ok(line) = line else { break };
            if line.contains(pat) && tx.send(()).is_err() {
                // Nobody counts any more: keep draining.
            }
        }
    });
    let end = std::time::Instant::now() + limit;
    let mut seen = 0;
    while seen < want {
        let left = end.saturating_duration_since(std::time::Instant::now());
        match rx.recv_timeout(left) {
            Ok(()) => seen += 1,
            Err(_) => break,
        }
    }
    seen
}
