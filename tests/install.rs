//! The layouts installers produce: `PREFIX/bin/nvq` with the simulator as
//! `PREFIX/lib/nvq/libnvml_sim.so` (`cargo install` plus docs/install.md, the
//! Debian package with PREFIX=/usr, the wheel with PREFIX a venv or
//! `~/.local`), links to the installed nvq elsewhere (an `nvidia-smi` link,
//! pipx's and uv's entries in `~/.local/bin`), and the working directory,
//! which is never searched. scripts/deb-check.sh and scripts/wheel-check.sh
//! install the real packages.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;
use common::sim_lib;

use std::os::unix::fs::symlink;
use std::path::Path;
use std::process::Output;

fn run_in(exe: &Path, args: &[&str], cwd: &Path) -> Output {
    common::command(exe)
        .args(args)
        .current_dir(cwd)
        .output()
        .unwrap()
}

fn run(exe: &Path, args: &[&str]) -> Output {
    run_in(exe, args, &std::env::temp_dir())
}

const QUERY: &[&str] = &["--simulate", "--query-gpu=index", "--format=csv,noheader"];

/// Copy nvq to `PREFIX/bin/nvq` and return its path.
fn install_nvq(prefix: &Path) -> std::path::PathBuf {
    let nvq = prefix.join("bin/nvq");
    std::fs::create_dir_all(nvq.parent().unwrap()).unwrap();
    common::copy_executable(&common::nvq_bin(), &nvq);
    nvq
}

/// Copy the simulator to `PREFIX/lib/nvq/`.
fn install_simulator(prefix: &Path) {
    let lib = prefix.join("lib/nvq/libnvml_sim.so");
    std::fs::create_dir_all(lib.parent().unwrap()).unwrap();
    std::fs::copy(sim_lib(), &lib).unwrap();
}

/// The GPU indices of a successful `QUERY`.
fn gpu_rows(out: &Output) -> String {
    assert!(
        out.status.success(),
        "exit {:?}: {}{}",
        out.status.code(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let rows = String::from_utf8(out.stdout.clone()).unwrap();
    assert!(
        !rows.is_empty() && rows.lines().all(|l| l.parse::<u32>().is_ok()),
        "{rows}"
    );
    rows
}

#[test]
fn simulate_finds_the_simulator_in_prefix_lib_nvq() {
    let prefix = tempfile::tempdir().unwrap();
    let nvq = install_nvq(prefix.path());

    // Not installed yet: nvidia-smi's "library not found", exit 12.
    let out = run(&nvq, QUERY);
    assert_eq!(
        out.status.code(),
        Some(12),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );

    install_simulator(prefix.path());
    let rows = gpu_rows(&run(&nvq, QUERY));

    // A symlink named nvidia-smi in another directory finds it too.
    let bin = tempfile::tempdir().unwrap();
    let smi = bin.path().join("nvidia-smi");
    symlink(&nvq, &smi).unwrap();
    assert_eq!(gpu_rows(&run(&smi, QUERY)), rows);
}

/// pipx and `uv tool` install into a venv of their own and put a link to
/// `VENV/bin/nvq` in `~/.local/bin`: absolute, relative, or a link to a
/// link. Each finds the venv's `lib/nvq/`, not a `~/.local/lib/nvq/`.
#[test]
fn simulate_from_a_link_into_a_tool_venv() {
    let home = tempfile::tempdir().unwrap();
    let venv = home.path().join(".local/share/tools/nvq");
    let nvq = install_nvq(&venv);
    install_simulator(&venv);
    let direct = gpu_rows(&run(&nvq, QUERY));

    let bin = home.path().join(".local/bin");
    std::fs::create_dir_all(&bin).unwrap();
    let absolute = bin.join("nvq");
    symlink(&nvq, &absolute).unwrap();
    let relative = bin.join("nvq-relative");
    symlink("../share/tools/nvq/bin/nvq", &relative).unwrap();
    let chained = home.path().join("nvq-chained");
    symlink(&absolute, &chained).unwrap();
    for link in [&absolute, &relative, &chained] {
        assert_eq!(gpu_rows(&run(link, QUERY)), direct, "{}", link.display());
    }
}

/// The simulator is looked for beside the executable only: a libnvml_sim.so
/// in the working directory, in its `deps/` or in its `../lib/nvq/` is never
/// loaded.
#[test]
fn simulate_never_loads_from_the_working_directory() {
    let prefix = tempfile::tempdir().unwrap();
    let nvq = install_nvq(prefix.path());

    let cwd = tempfile::tempdir().unwrap();
    let work = cwd.path().join("bin");
    for dir in [work.clone(), work.join("deps"), cwd.path().join("lib/nvq")] {
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::copy(sim_lib(), dir.join("libnvml_sim.so")).unwrap();
    }
    let out = run_in(&nvq, QUERY, &work);
    assert_eq!(
        out.status.code(),
        Some(12),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );

    install_simulator(prefix.path());
    gpu_rows(&run_in(&nvq, QUERY, &work));
}
