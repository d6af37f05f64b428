//! Files nvq finds beside itself and loads or runs, perhaps as root (issue
//! #54, items 9 and 10): `--simulate`'s `libnvml_sim.so` (beside nvq, in
//! `deps/`, in `../lib/nvq/`) and `nvq-top`, which `nvq top` hands over to.
//! A copy planted where another user could have put it (a file of mode
//! 0666, a world-writable folder anywhere above, another user's file in a
//! mode-1777 folder) is refused with a message naming it; the layouts that
//! installers and cargo make still work. Another user is uid 65534
//! (`nobody`), by `chown`, which needs root: those cases skip otherwise, as
//! in `hostile_users.rs`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;
use common::{sim_lib, Ran};

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

/// Another user (`nobody`).
const OTHER: u32 = 65534;

fn chmod(p: &Path, mode: u32) {
    std::fs::set_permissions(p, std::fs::Permissions::from_mode(mode)).unwrap();
}

fn chown(p: &Path, uid: u32) {
    std::os::unix::fs::chown(p, Some(uid), None).unwrap();
}

/// A copy of nvq at `dir/nvq` (the folder made, mode 0755), and its path.
fn nvq_in(dir: &Path) -> PathBuf {
    std::fs::create_dir_all(dir).unwrap();
    chmod(dir, 0o755);
    let nvq = dir.join("nvq");
    common::copy_executable(&common::nvq_bin(), &nvq);
    nvq
}

/// A copy of the simulator at `at` (its folder made), of mode `mode`.
fn simulator_at(at: &Path, mode: u32) {
    std::fs::create_dir_all(at.parent().unwrap()).unwrap();
    std::fs::copy(sim_lib(), at).unwrap();
    chmod(at, mode);
}

const QUERY: &[&str] = &["--simulate", "--query-gpu=index", "--format=csv,noheader"];

fn simulate(nvq: &Path) -> Ran {
    let mut c = common::command(nvq);
    c.args(QUERY).current_dir(std::env::temp_dir());
    common::ran(c)
}

/// `--simulate` refused the simulator at `lib`: exit 12, no rows, and a
/// message that names the file and says why.
fn assert_refused(out: &Ran, lib: &Path, why: &str) {
    let err = &out.stderr;
    assert_eq!(
        out.code,
        Some(12),
        "{}: loaded it\nstdout: {}\nstderr: {err}",
        lib.display(),
        out.stdout
    );
    assert!(out.stdout.is_empty(), "{}", out.stdout);
    let real = lib.canonicalize().unwrap();
    assert!(
        err.contains("refusing to load")
            && err.contains(real.to_str().unwrap())
            && err.contains(why),
        "{}: {err}",
        lib.display()
    );
}

fn assert_loaded(out: &Ran, what: &str) {
    assert!(out.success(), "{what}: exit {:?}: {}", out.code, out.stderr);
    let rows = &out.stdout;
    assert!(
        !rows.is_empty() && rows.lines().all(|l| l.parse::<u32>().is_ok()),
        "{what}: {rows}"
    );
}

#[test]
fn simulate_refuses_a_simulator_others_can_write() {
    let home = tempfile::tempdir().unwrap();
    // A file of mode 0666 beside nvq.
    let bin = home.path().join("a/bin");
    let nvq = nvq_in(&bin);
    let lib = bin.join("libnvml_sim.so");
    simulator_at(&lib, 0o666);
    assert_refused(&simulate(&nvq), &lib, "writable by other users");
    // Group-writable is writable by others too.
    chmod(&lib, 0o664);
    assert_refused(&simulate(&nvq), &lib, "writable by other users");
    chmod(&lib, 0o644);
    assert_loaded(&simulate(&nvq), "a private copy beside nvq");

    // A world-writable `deps/`, whatever the file's own mode.
    let bin = home.path().join("b/bin");
    let nvq = nvq_in(&bin);
    let lib = bin.join("deps/libnvml_sim.so");
    simulator_at(&lib, 0o644);
    chmod(&bin.join("deps"), 0o777);
    assert_refused(&simulate(&nvq), &lib, "writable by other users");
    chmod(&bin.join("deps"), 0o755);
    assert_loaded(&simulate(&nvq), "a private deps/");

    // `../lib/nvq/` under a prefix that others can write, two levels up.
    let prefix = home.path().join("c");
    let nvq = nvq_in(&prefix.join("bin"));
    let lib = prefix.join("lib/nvq/libnvml_sim.so");
    simulator_at(&lib, 0o644);
    chmod(&prefix, 0o777);
    assert_refused(&simulate(&nvq), &lib, "writable by other users");
    // The Debian package's layout (PREFIX/bin/nvq, PREFIX/lib/nvq/).
    chmod(&prefix, 0o755);
    assert_loaded(&simulate(&nvq), "PREFIX/lib/nvq");
}

/// A `tools/` folder of mode 1777 holding nvq: another user's simulator
/// there is refused, root's own is loaded (in a sticky folder nobody else
/// can replace it). Another user's file in a private folder is refused too.
#[test]
fn simulate_refuses_another_users_simulator() {
    if !common::require_root("giving a file to another user") {
        return;
    }
    let home = tempfile::tempdir().unwrap();
    let tools = home.path().join("tools");
    let nvq = nvq_in(&tools);
    chmod(&tools, 0o1777);
    let lib = tools.join("libnvml_sim.so");
    simulator_at(&lib, 0o644);
    chown(&lib, OTHER);
    assert_refused(&simulate(&nvq), &lib, "belongs to user 65534");
    chown(&lib, 0);
    assert_loaded(&simulate(&nvq), "root's file in a sticky folder");
    // Not sticky: anyone may replace root's file.
    chmod(&tools, 0o777);
    assert_refused(&simulate(&nvq), &lib, "writable by other users");

    let private = home.path().join("private");
    let nvq = nvq_in(&private);
    let lib = private.join("libnvml_sim.so");
    simulator_at(&lib, 0o644);
    chown(&lib, OTHER);
    assert_refused(&simulate(&nvq), &lib, "belongs to user 65534");
    // Another user's folder: they can rename the file away and put theirs.
    chown(&lib, 0);
    chown(&private, OTHER);
    assert_refused(&simulate(&nvq), &lib, "owner uid 65534");
}

/// cargo's own layout (`target/debug/nvq` with the simulator beside it or
/// in `deps/`) still loads.
#[test]
fn simulate_loads_cargos_simulator() {
    assert_loaded(&common::bare(QUERY), "target/debug");
}

/// A stand-in `nvq-top` beside `nvq`: a script that says it ran.
fn plant_top(dir: &Path, mode: u32) -> PathBuf {
    let top = dir.join("nvq-top");
    std::fs::write(&top, "#!/bin/sh\necho planted-nvq-top-ran\nexit 42\n").unwrap();
    chmod(&top, mode);
    top
}

fn top_once(nvq: &Path) -> Ran {
    let mut c = common::command(nvq);
    c.arg("--nvml-lib")
        .arg(sim_lib())
        .args(["top", "--once"])
        .current_dir(std::env::temp_dir());
    common::ran(c)
}

/// nvq did not run the planted `nvq-top` at `top`: it said so, naming it,
/// and drew the frame itself.
fn assert_not_run(out: &Ran, top: &Path) {
    let (stdout, err) = (&out.stdout, &out.stderr);
    assert!(
        !stdout.contains("planted-nvq-top-ran"),
        "{}: ran it\n{stdout}",
        top.display()
    );
    assert!(out.success(), "exit {:?}: {err}", out.code);
    assert!(stdout.contains("nvq top"), "{stdout}");
    let real = top.canonicalize().unwrap();
    assert!(
        err.contains("not running") && err.contains(real.to_str().unwrap()),
        "{err}"
    );
}

#[test]
fn top_never_runs_an_nvq_top_others_can_write() {
    let home = tempfile::tempdir().unwrap();
    let bin = home.path().join("bin");
    let nvq = nvq_in(&bin);
    let top = plant_top(&bin, 0o777);
    assert_not_run(&top_once(&nvq), &top);
    // Private: handed over (the stand-in runs).
    chmod(&top, 0o755);
    let out = top_once(&nvq);
    assert!(
        out.stdout.contains("planted-nvq-top-ran") && out.code == Some(42),
        "{}",
        out.stderr
    );
    // In a world-writable folder.
    chmod(&bin, 0o777);
    assert_not_run(&top_once(&nvq), &top);
    if common::require_root("giving a file to another user") {
        // Another user's, in a sticky folder, and in a private one.
        chmod(&bin, 0o1777);
        chown(&top, OTHER);
        assert_not_run(&top_once(&nvq), &top);
        chmod(&bin, 0o755);
        assert_not_run(&top_once(&nvq), &top);
    }
}
