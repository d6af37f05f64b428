//! README.md is run, not just read.
//!
//! Every fenced block marked ```sh holds commands. Each command runs in
//! `bash -c` (with `set -eo pipefail`) in an environment that makes it work
//! without a GPU, and must exit 0:
//!
//! - `PATH` starts with a folder holding `nvq` and `nvidia-smi`, links to the
//!   nvq that cargo built for this test;
//! - `NVQ_NVML_LIB` is the simulator cargo built for the tests, and
//!   `NVML_SIM_SCENARIO` is unset (the built-in machine) unless the command
//!   sets it;
//! - `HOME` is an empty temporary folder, so install commands write there;
//! - the working directory is a temporary folder that looks like a checkout:
//!   links to the repository's top-level entries, plus `target/release/`
//!   with `nvq` and `libnvml_sim.so` standing in for what the skipped
//!   `cargo build --release` commands would have made, and a `train.py` that
//!   stands in for a user's training job (it sleeps half a second).
//!
//! The commands of one section (a page's `## ` heading, or the part of a
//! page above its first one) run in page order, sharing the working
//! directory and `HOME`, so a file one command writes (a scenario, an
//! installed library) is there for the next. Each section has a world of its
//! own, and the sections run at the same time: most commands are loops that
//! sleep between samples, and a section that needs another's files should
//! make them itself, as a reader who jumps to it would. A command is one line, or several when bash needs them
//! (a trailing `\`, `|` or `&&`, an open `while`/`{`, a here-document). A line
//! that sends a job to the background (`... &`) runs together with the rest of
//! its block, which uses `$!`.
//!
//! Commands that cannot run in a test are in [`SKIP`], by exact text, with the
//! reason; a skip whose command is no longer in the README fails the test.
//! Commands that need an optional tool ([`NEEDS`]) are skipped when it is
//! missing, through the common skip helper (a failure where
//! `NVQ_REQUIRE_TOOLS=1`, as in CI).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;

use std::os::unix::fs::symlink;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

/// The command of "Try it (no GPU needed)"; CI and other tooling look for it.
const TRY_IT: &str = "cargo build --release && ./target/release/nvq --simulate --query-gpu=index,name,memory.used,memory.total --format=csv";

/// The command of "Test".
const TEST_ALL: &str = "scripts/test-all.sh";

/// Commands not run, by exact text (lines joined with `\n`), and why.
const SKIP: &[(&str, &str)] = &[
    (
        "pipx install .",
        "builds nvq from the checkout (minutes, maturin from PyPI); scripts/wheel-check.sh installs it so, uses and removes it",
    ),
    (
        "uv tool install .",
        "builds nvq from the checkout (minutes, maturin from PyPI); scripts/wheel-check.sh installs it so, uses and removes it",
    ),
    (
        "python3 -m pip install .",
        "builds nvq from the checkout (minutes, maturin from PyPI); scripts/wheel-check.sh installs it so, uses and removes it",
    ),
    (
        "scripts/build-wheel.sh",
        "a release build and maturin from PyPI; scripts/wheel-check.sh builds the wheel",
    ),
    (
        "pipx install target/wheels/nvq-*.whl",
        "needs the built wheel and pipx; scripts/wheel-check.sh installs, uses and removes it with pipx",
    ),
    (
        "uv tool install target/wheels/nvq-*.whl",
        "needs the built wheel and uv; scripts/wheel-check.sh installs, uses and removes it with uv",
    ),
    (
        "python3 -m pip install target/wheels/nvq-*.whl",
        "needs the built wheel and a venv; scripts/wheel-check.sh installs, uses and removes it with pip",
    ),
    (
        "cargo install cargo-deb --locked",
        "installs a cargo subcommand into the real ~/.cargo; .ci/run installs it for scripts/deb-check.sh",
    ),
    (
        "cargo build --profile dist --workspace --locked",
        "a dist build of the workspace takes minutes; scripts/deb-check.sh runs it",
    ),
    (
        "cargo deb -p nvq --profile dist --no-build",
        "needs cargo-deb and the dist build; scripts/deb-check.sh builds the package",
    ),
    (
        "sudo apt install ./target/debian/nvq_*.deb",
        "installs into the system as root; scripts/deb-check.sh installs, uses and removes the package",
    ),
    (
        "sudo ln -s /usr/bin/nvq /usr/local/bin/nvidia-smi",
        "writes into /usr/local/bin as root; the ~/bin link below runs instead",
    ),
    (
        "cargo install --profile dist --path .",
        "installs into the real ~/.cargo; the test build's nvq is on PATH instead",
    ),
    (
        TRY_IT,
        "a release build of the workspace takes minutes; the same query runs below with the test build",
    ),
    (
        TEST_ALL,
        "runs every suite, this one included",
    ),
    (
        "cargo build --release -p nvml-sim",
        "a release build; target/release/libnvml_sim.so is the test build's simulator",
    ),
    (
        "nvq --query-gpu=memory.used,utilization.gpu,temperature.gpu,power.draw --format=prometheus -l 15 -f /var/lib/node_exporter/textfile_collector/nvq.prom",
        "a loop without end, writing under /var/lib; the one-shot Prometheus command runs",
    ),
    (
        "nvq --query-gpu=index,temperature.gpu --format=csv,noheader -l 10 --assert 'temperature.gpu <= 90C'",
        "a watchdog: runs until a GPU gets hot, which the built-in machine never does; the same --assert in a loop runs against ci.toml",
    ),
    (
        "nvq -i 0 --query-gpu=index,memory.used --format=csv,noheader \\\n    --until 'memory.used < 1GiB && utilization.gpu < 5' --timeout 30m \\\n  && python3 train.py",
        "GPU 0 of the built-in machine stays busy, so this waits 30 minutes; the same --until runs against ci.toml",
    ),
    (
        "benches/run.sh",
        "installs pinned Python packages and benchmarks for minutes",
    ),
    (
        "scripts/regen.sh",
        "runs cargo inside the repository and rewrites committed files",
    ),
    (
        ".ci/run",
        "CI's entry point: installs packages, then fmt, clippy and every suite",
    ),
];

/// Commands that need a tool that may be missing: (text in the command,
/// the check, what is missing when the check fails).
const NEEDS: &[(&str, &str, &str)] = &[
    ("jq ", "command -v jq", "jq"),
    ("python3 ", "command -v python3", "python3"),
    (
        "import pynvml",
        "python3 -c 'import pynvml'",
        "pynvml for python3 (scripts/pynvml-check.sh makes target/pyenv with it)",
    ),
    ("man -l", "command -v man", "man"),
];

/// The info strings a fenced block may carry: `sh` is run, the others are
/// output samples or file contents.
const BLOCK_KINDS: &[&str] = &["sh", "text", "console", "toml"];

/// A command that has not ended after this long is stuck (a loop without
/// `--count`?) and fails the test instead of hanging it.
const STUCK_AFTER: Duration = Duration::from_secs(60);

fn root() -> PathBuf {
    common::repo_root()
}

fn readme() -> String {
    std::fs::read_to_string(root().join("README.md")).unwrap()
}

/// The pages whose commands run, in this order (one sequence: a file one
/// page writes is there for the next): the front page, then the guide and
/// the maintainers' page it sends readers to.
const PAGES: &[&str] = &["README.md", "docs/guide.md", "docs/dev/development.md"];

/// Every page of [`PAGES`], one after another; [`place`] turns a line of
/// this text back into the page and its line.
fn all_pages() -> String {
    PAGES
        .iter()
        .map(|p| std::fs::read_to_string(root().join(p)).unwrap())
        .map(|t| {
            if t.ends_with('\n') {
                t
            } else {
                format!("{t}\n")
            }
        })
        .collect()
}

/// "PAGE:LINE" for a line of [`all_pages`].
fn place(line: usize) -> String {
    let mut first = 1;
    for p in PAGES {
        let n = std::fs::read_to_string(root().join(p))
            .unwrap()
            .lines()
            .count();
        if line < first + n {
            return format!("{p}:{}", line - first + 1);
        }
        first += n;
    }
    format!("?:{line}")
}

/// A fenced block: its info string, the README line of its opening fence,
/// and its lines.
struct Block {
    kind: String,
    line: usize,
    body: Vec<String>,
}

fn blocks(text: &str) -> Vec<Block> {
    let mut out = Vec::new();
    let mut open: Option<Block> = None;
    for (i, line) in text.lines().enumerate() {
        if let Some(rest) = line.strip_prefix("```") {
            match open.take() {
                None => {
                    open = Some(Block {
                        kind: rest.trim().to_string(),
                        line: i + 1,
                        body: Vec::new(),
                    })
                }
                Some(b) => {
                    assert!(
                        rest.trim().is_empty(),
                        "README.md:{}: a closing fence carries text",
                        i + 1
                    );
                    out.push(b);
                }
            }
        } else if let Some(b) = open.as_mut() {
            b.body.push(line.to_string());
        }
    }
    assert!(open.is_none(), "README.md: a fenced block is not closed");
    out
}

/// Does bash parse `script` as complete commands?
fn bash_complete(script: &str) -> bool {
    crate::common::command("bash")
        .args(["-n", "-c", script])
        .stderr(Stdio::null())
        .status()
        .unwrap()
        .success()
}

/// The delimiter of a here-document that `line` opens (`<<'EOF'`, `<<EOF`,
/// `<<-EOF`), if any.
fn heredoc_delimiter(line: &str) -> Option<String> {
    let at = line.find("<<")?;
    let rest = &line[at + 2..];
    if rest.starts_with('<') {
        return None; // a here-string
    }
    let rest = rest.trim_start_matches('-').trim_start();
    let word: String = rest
        .trim_start_matches(['\'', '"'])
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect();
    (!word.is_empty()).then_some(word)
}

/// The commands of an `sh` block, each with its README line.
fn commands(block: &Block) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut cur: Vec<&str> = Vec::new();
    let mut start = 0;
    let mut heredoc: Option<String> = None;
    let mut rest_of_block = false;
    for (i, line) in block.body.iter().enumerate() {
        if cur.is_empty() {
            let t = line.trim();
            if t.is_empty() || t.starts_with('#') {
                continue;
            }
            start = block.line + 1 + i;
        }
        cur.push(line);
        if let Some(d) = &heredoc {
            if line.trim() == d {
                heredoc = None;
            } else {
                continue;
            }
        } else if let Some(d) = heredoc_delimiter(line) {
            heredoc = Some(d);
            continue;
        }
        let t = line.trim_end();
        if t.ends_with('&') && !t.ends_with("&&") {
            rest_of_block = true;
        }
        if rest_of_block || t.ends_with('\\') || !bash_complete(&cur.join("\n")) {
            continue;
        }
        out.push((start, cur.join("\n")));
        cur.clear();
    }
    if !cur.is_empty() {
        out.push((start, cur.join("\n")));
    }
    out
}

/// Every command of every `sh` block, in README order.
fn readme_commands() -> Vec<(usize, String)> {
    blocks(&all_pages())
        .iter()
        .filter(|b| b.kind == "sh")
        .flat_map(commands)
        .collect()
}

/// The section that installs nvq, its completions and the simulator into
/// `HOME`: it runs first, alone, and the other sections use what it installed.
const SETUP: &str = "## Install";

/// The sections of [`all_pages`]: each page's start and each `## ` heading
/// outside a fenced block, as (first line, heading; "" at a page's start).
fn section_starts() -> Vec<(usize, String)> {
    let mut starts = Vec::new();
    let mut first = 1;
    for p in PAGES {
        let text = std::fs::read_to_string(root().join(p)).unwrap();
        starts.push((first, String::new()));
        let mut in_block = false;
        for (i, line) in text.lines().enumerate() {
            if line.starts_with("```") {
                in_block = !in_block;
            } else if !in_block && line.starts_with("## ") {
                starts.push((first + i, line.to_string()));
            }
        }
        first += text.lines().count();
    }
    starts
}

/// The commands of [`readme_commands`] grouped by section, in order, each
/// group with its section's heading.
fn sections(cmds: Vec<(usize, String)>) -> Vec<(String, Commands)> {
    let starts = section_starts();
    let mut out: Vec<(usize, String, Commands)> = Vec::new();
    for (line, cmd) in cmds {
        let at = starts.iter().rposition(|(s, _)| *s <= line).unwrap();
        match out.last_mut() {
            Some((last, _, group)) if *last == at => group.push((line, cmd)),
            _ => out.push((at, starts[at].1.clone(), vec![(line, cmd)])),
        }
    }
    out.into_iter().map(|(_, h, group)| (h, group)).collect()
}

/// Commands with their lines (of [`all_pages`]).
type Commands = Vec<(usize, String)>;

/// The temporary world the commands run in.
struct World {
    _tmp: tempfile::TempDir,
    work: PathBuf,
    home: PathBuf,
    path: String,
    sim: PathBuf,
    out: PathBuf,
    err: PathBuf,
}

impl World {
    /// A world whose `HOME` is `home` (shared by every section).
    fn new(home: &Path) -> World {
        let tmp = tempfile::tempdir().unwrap();
        let nvq = common::nvq_bin();
        let sim = common::sim_lib();
        // target/debug/deps/tests-... -> target
        let target = std::env::current_exe()
            .unwrap()
            .ancestors()
            .nth(3)
            .unwrap()
            .to_path_buf();

        let bin = tmp.path().join("bin");
        std::fs::create_dir(&bin).unwrap();
        symlink(&nvq, bin.join("nvq")).unwrap();
        symlink(&nvq, bin.join("nvidia-smi")).unwrap();
        let mut path = vec![bin.clone()];
        // python3: the venv scripts/pynvml-check.sh makes (it has pynvml),
        // else the python3 on PATH, resolved now because HOME changes below.
        let venv = target.join("pyenv/bin");
        if venv.join("python3").exists() {
            path.push(venv);
        } else if let Some(exe) = python_executable() {
            symlink(exe, bin.join("python3")).unwrap();
        }
        let old_path = std::env::var_os("PATH").unwrap_or_default();
        path.extend(std::env::split_paths(&old_path));
        let path = std::env::join_paths(path).unwrap().into_string().unwrap();

        let work = tmp.path().join("work");
        std::fs::create_dir(&work).unwrap();
        for entry in std::fs::read_dir(root()).unwrap() {
            let entry = entry.unwrap();
            let name = entry.file_name();
            if name == "target" || name == ".git" {
                continue;
            }
            symlink(entry.path(), work.join(&name)).unwrap();
        }
        let release = work.join("target/release");
        std::fs::create_dir_all(&release).unwrap();
        symlink(&nvq, release.join("nvq")).unwrap();
        symlink(&sim, release.join("libnvml_sim.so")).unwrap();
        std::fs::write(work.join("train.py"), "import time\ntime.sleep(0.5)\n").unwrap();

        World {
            out: tmp.path().join("stdout"),
            err: tmp.path().join("stderr"),
            _tmp: tmp,
            work,
            home: home.to_path_buf(),
            path,
            sim,
        }
    }

    fn bash(&self, script: &str) -> Command {
        let mut c = common::command("bash");
        c.arg("-c")
            .arg(script)
            .current_dir(&self.work)
            .env("PATH", &self.path)
            .env("HOME", &self.home)
            .env("NVQ_NVML_LIB", &self.sim)
            .env("MANPAGER", "cat")
            .env("PAGER", "cat")
            .env("MANWIDTH", "80")
            .env_remove("LD_LIBRARY_PATH")
            .env_remove("LD_PRELOAD")
            .env_remove("BASH_ENV")
            .env_remove("CARGO_TARGET_DIR")
            .stdin(Stdio::null());
        c
    }

    /// Does `check` succeed here? (Asked once per check: every world has
    /// the same tools.)
    fn has(&self, check: &str) -> bool {
        static KNOWN: Mutex<Vec<(String, bool)>> = Mutex::new(Vec::new());
        if let Some((_, yes)) = KNOWN.lock().unwrap().iter().find(|(c, _)| c == check) {
            return *yes;
        }
        let yes = self
            .bash(check)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .unwrap()
            .success();
        KNOWN.lock().unwrap().push((check.to_string(), yes));
        yes
    }

    /// Run one command; `Err` says how it failed.
    fn run(&self, cmd: &str) -> Result<(), String> {
        let script = format!("set -eo pipefail\n{cmd}");
        let out = std::fs::File::create(&self.out).unwrap();
        let err = std::fs::File::create(&self.err).unwrap();
        let mut child = self
            .bash(&script)
            .stdout(out)
            .stderr(err)
            .process_group(0)
            .spawn()
            .unwrap();
        let pgid = child.id() as i32;
        let began = Instant::now();
        let status = loop {
            if let Some(s) = child.try_wait().unwrap() {
                break Some(s);
            }
            if began.elapsed() > STUCK_AFTER {
                break None;
            }
            std::thread::sleep(Duration::from_millis(10));
        };
        // Whatever the command left behind (a background job) goes too.
        // SAFETY: kill(2) on the process group this test created.
        unsafe { libc::kill(-pgid, libc::SIGKILL) };
        let _ = child.wait();
        let tail = |p: &Path| {
            let s = std::fs::read_to_string(p).unwrap_or_default();
            let lines: Vec<&str> = s.lines().collect();
            lines[lines.len().saturating_sub(20)..].join("\n")
        };
        match status {
            Some(s) if s.success() => Ok(()),
            Some(s) => Err(format!(
                "exit status {:?}\n--- stdout (end)\n{}\n--- stderr (end)\n{}",
                s.code(),
                tail(&self.out),
                tail(&self.err)
            )),
            None => Err(format!(
                "still running after {STUCK_AFTER:?} (a loop without --count?)\n--- stdout (end)\n{}",
                tail(&self.out)
            )),
        }
    }
}

/// The real file behind `python3` on the current PATH (asked once: through
/// pyenv's shim, python3 takes a good part of a second to start).
fn python_executable() -> Option<&'static PathBuf> {
    static EXE: OnceLock<Option<PathBuf>> = OnceLock::new();
    EXE.get_or_init(|| {
        let out = crate::common::command("python3")
            .args(["-c", "import sys; print(sys.executable)"])
            .output()
            .ok()?;
        let p = PathBuf::from(String::from_utf8(out.stdout).ok()?.trim());
        (out.status.success() && p.is_file()).then_some(p)
    })
    .as_ref()
}

/// What the commands of one section did.
struct Section {
    ran: usize,
    skipped: usize,
    failures: Vec<String>,
}

/// Run the commands of one section, in order, in a world of their own
/// with `HOME` at `home`.
fn run_section(cmds: &[(usize, String)], home: &Path) -> Section {
    let world = World::new(home);
    let mut done = Section {
        ran: 0,
        skipped: 0,
        failures: Vec::new(),
    };
    for (line, cmd) in cmds {
        if let Some((_, why)) = SKIP.iter().find(|(c, _)| c == cmd) {
            eprintln!("{}: skipped ({why}): {cmd}", place(*line));
            done.skipped += 1;
            continue;
        }
        let missing: Vec<&str> = NEEDS
            .iter()
            .filter(|(needle, check, _)| cmd.contains(needle) && !world.has(check))
            .map(|(_, _, what)| *what)
            .collect();
        if !missing.is_empty() {
            // The one way a test skips (tests/common/skip.rs): recorded for
            // the banner, and a failure where tools are required (CI).
            common::cannot_run(
                common::REQUIRE_TOOLS,
                &format!(
                    "{} not installed ({}: {cmd})",
                    missing.join(", "),
                    place(*line)
                ),
            );
            done.skipped += 1;
            continue;
        }
        done.ran += 1;
        if let Err(why) = world.run(cmd) {
            done.failures
                .push(format!("{}: {cmd}\n{why}", place(*line)));
        }
    }
    done
}

#[test]
fn every_readme_command_runs() {
    let cmds = readme_commands();
    assert!(cmds.len() > 20, "found only {} commands", cmds.len());

    let stale: Vec<&str> = SKIP
        .iter()
        .map(|(c, _)| *c)
        .filter(|c| !cmds.iter().any(|(_, cmd)| cmd == c))
        .collect();
    assert!(
        stale.is_empty(),
        "skipped commands no longer in README.md (remove them from SKIP):\n{}",
        stale.join("\n")
    );

    // The section that installs into HOME first, alone; then the others,
    // which may use what it installed, all at once.
    let home = tempfile::tempdir().unwrap();
    let home = home.path();
    let (setup, rest): (Vec<_>, Vec<_>) = sections(cmds).into_iter().partition(|(h, _)| h == SETUP);
    assert_eq!(
        setup.len(),
        1,
        "README.md has no section {SETUP:?} with commands"
    );
    let mut results = vec![run_section(&setup[0].1, home)];
    results.extend(std::thread::scope(|scope| {
        let running: Vec<_> = rest
            .iter()
            .map(|(_, cmds)| scope.spawn(move || run_section(cmds, home)))
            .collect();
        running
            .into_iter()
            .map(|t| t.join().unwrap())
            .collect::<Vec<_>>()
    }));
    let ran: usize = results.iter().map(|r| r.ran).sum();
    let skipped: usize = results.iter().map(|r| r.skipped).sum();
    let failures: Vec<String> = results.into_iter().flat_map(|r| r.failures).collect();
    eprintln!("README commands: {ran} run, {skipped} skipped");
    assert!(
        failures.is_empty(),
        "{} README command(s) failed:\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}

#[test]
fn the_two_commands_keep_their_sections() {
    let text = readme();
    for (heading, cmd) in [("## Try it (no GPU needed)", TRY_IT), ("## Test", TEST_ALL)] {
        let at = text
            .lines()
            .position(|l| l == heading)
            .unwrap_or_else(|| panic!("README.md has no section {heading:?}"));
        let section: Vec<&str> = text
            .lines()
            .skip(at + 1)
            .take_while(|l| !l.starts_with("## "))
            .collect();
        let first = blocks(&section.join("\n"))
            .into_iter()
            .find(|b| b.kind == "sh")
            .unwrap_or_else(|| panic!("{heading:?} has no sh block"));
        assert_eq!(first.body, [cmd], "the command of {heading:?}");
    }
}

#[test]
fn every_block_says_what_it_holds() {
    for b in blocks(&all_pages()) {
        assert!(
            BLOCK_KINDS.contains(&b.kind.as_str()),
            "{}: a block marked {:?}; use sh for commands (this test runs them), \
             text or console for output, toml for scenarios",
            place(b.line),
            b.kind
        );
    }
}

/// The rows of the first table under `heading` in `text`, as cells.
fn table_under(text: &str, heading: &str) -> Vec<Vec<String>> {
    let at = text
        .lines()
        .position(|l| l == heading)
        .unwrap_or_else(|| panic!("no section {heading:?}"));
    text.lines()
        .skip(at + 1)
        .take_while(|l| !l.starts_with("## "))
        .skip_while(|l| !l.starts_with('|'))
        .take_while(|l| l.starts_with('|'))
        .skip(2) // header and separator
        .map(|l| {
            l.trim()
                .trim_matches('|')
                .split('|')
                .map(|c| c.trim().to_string())
                .collect()
        })
        .collect()
}

#[test]
fn exit_code_table_is_exit_code_all() {
    let want: Vec<(String, String)> = nvq::ExitCode::ALL
        .iter()
        .map(|(c, m)| (c.code().to_string(), m.to_string()))
        .collect();
    let guide = std::fs::read_to_string(root().join("docs/guide.md")).unwrap();
    let got: Vec<(String, String)> = table_under(&guide, "## Exit codes")
        .into_iter()
        .map(|row| {
            assert_eq!(row.len(), 2, "exit-code row {row:?}");
            (row[0].clone(), row[1].clone())
        })
        .collect();
    assert_eq!(
        got, want,
        "docs/guide.md's exit codes vs nvq::ExitCode::ALL"
    );

    // docs/errors.md explains each code at length; its codes are the same.
    let errors = std::fs::read_to_string(root().join("docs/errors.md")).unwrap();
    let codes: Vec<String> = table_under(&errors, "## Exit codes")
        .into_iter()
        .map(|row| row[0].clone())
        .collect();
    let want_codes: Vec<String> = want.into_iter().map(|(c, _)| c).collect();
    assert_eq!(codes, want_codes, "docs/errors.md's exit codes");
}

#[test]
fn commands_are_split_as_bash_reads_them() {
    let block = Block {
        kind: "sh".into(),
        line: 10,
        body: [
            "# a comment",
            "a --x \\",
            "  --y",
            "",
            "b |",
            "  while read -r l; do",
            "    echo \"$l\"",
            "  done",
            "cat > f <<'EOF'",
            "x = 1",
            "EOF",
            "c && d",
            "e &",
            "f",
            "kill $!",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect(),
    };
    let got = commands(&block);
    let lines: Vec<usize> = got.iter().map(|(l, _)| *l).collect();
    let texts: Vec<&str> = got.iter().map(|(_, c)| c.as_str()).collect();
    assert_eq!(
        texts,
        [
            "a --x \\\n  --y",
            "b |\n  while read -r l; do\n    echo \"$l\"\n  done",
            "cat > f <<'EOF'\nx = 1\nEOF",
            "c && d",
            "e &\nf\nkill $!",
        ]
    );
    assert_eq!(lines, [12, 15, 19, 22, 23]);
}

/// GitHub's anchor for a heading: lower case, punctuation dropped, spaces
/// to hyphens.
fn slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || matches!(c, ' ' | '-' | '_'))
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

#[test]
fn links_lead_somewhere() {
    let mut bad = Vec::new();
    for page in PAGES {
        let text = std::fs::read_to_string(root().join(page)).unwrap();
        let dir = root().join(page).parent().unwrap().to_path_buf();
        bad.extend(
            bad_links(&text, &dir)
                .into_iter()
                .map(|b| format!("{page}: {b}")),
        );
    }
    assert!(bad.is_empty(), "links:\n{}", bad.join("\n"));
}

/// The headings' anchors of a page.
fn anchors_of(text: &str) -> Vec<String> {
    let mut in_block = false;
    let mut anchors = Vec::new();
    for line in text.lines() {
        if line.starts_with("```") {
            in_block = !in_block;
        } else if !in_block && line.starts_with('#') {
            anchors.push(slug(line.trim_start_matches('#')));
        }
    }
    anchors
}

/// The links of a page (in folder `dir`) that lead nowhere: a missing file,
/// or an anchor that is no heading of its page.
fn bad_links(text: &str, dir: &Path) -> Vec<String> {
    let anchors = anchors_of(text);
    let mut bad = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find("](") {
        rest = &rest[at + 2..];
        let Some(end) = rest.find(')') else { break };
        let target = &rest[..end];
        if target.starts_with("http") {
            continue;
        }
        let (file, anchor) = target.split_once('#').unwrap_or((target, ""));
        if file.is_empty() {
            if !anchors.iter().any(|a| a == anchor) {
                bad.push(format!("#{anchor}: no such heading"));
            }
            continue;
        }
        let path = dir.join(file);
        // benches/RESULTS.md is what benches/run.sh writes.
        if !path.exists() && !file.ends_with("benches/RESULTS.md") {
            bad.push(format!("{file}: no such file"));
        } else if !anchor.is_empty() && file.ends_with(".md") && path.is_file() {
            let other = std::fs::read_to_string(&path).unwrap();
            if !anchors_of(&other).iter().any(|a| a == anchor) {
                bad.push(format!("{file}#{anchor}: no such heading"));
            }
        }
    }
    bad
}
