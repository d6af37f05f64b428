//! nvq invoked as `nvidia-smi` (a symlink) behaves as nvidia-smi down to the
//! stream: errors on stdout. Invoked as `nvq`, the same texts and exit codes
//! go to stderr. nvidia-smi options that nvq lacks are refused in both modes.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;
use common::{sim_lib, Ran};

use nvq::cli::NOT_IMPLEMENTED;
use std::path::PathBuf;

/// `../shared/nvidia-smi/captures`, or `None` (see `common::missing_shared`).
fn captures() -> Option<PathBuf> {
    common::shared_path("nvidia-smi/captures")
}

/// Either personality: the nvq binary itself, or a symlink to it named
/// `nvidia-smi` in a temporary directory.
struct Bin {
    _dir: Option<tempfile::TempDir>,
    path: PathBuf,
}

fn nvq_bin() -> Bin {
    Bin {
        _dir: None,
        path: common::nvq_bin(),
    }
}

fn nvidia_smi_link() -> Bin {
    let (dir, path) = common::nvidia_smi_link();
    Bin {
        _dir: Some(dir),
        path,
    }
}

impl Bin {
    /// Run with nvidia-smi's own arguments; the simulator is chosen through
    /// the environment so that argv stays exactly nvidia-smi's.
    fn run(&self, args: &[&str]) -> Ran {
        let mut c = common::command(&self.path);
        c.args(args).env("NVQ_NVML_LIB", sim_lib());
        common::ran(c)
    }
}

const INVALID_FIELD: &[&str] = &[
    "--query-gpu=device_minor,gpu_uuid,pci.bus_id",
    "--format=csv,noheader,nounits",
];

#[test]
fn invalid_field_as_nvidia_smi_goes_to_stdout_byte_for_byte() {
    let out = nvidia_smi_link().run(INVALID_FIELD);
    assert_eq!(out.code, Some(2), "{}", out.stdout);
    assert!(out.stderr.is_empty(), "stderr: {}", out.stderr);
    assert!(out.stdout.contains("device_minor"));
    if let Some(dir) = captures() {
        let want = std::fs::read_to_string(dir.join("50_invalid-field_stdout_exit2.txt")).unwrap();
        assert_eq!(out.stdout, want);
    }
}

#[test]
fn invalid_field_as_nvq_goes_to_stderr_with_the_same_text() {
    let smi = nvidia_smi_link().run(INVALID_FIELD);
    let out = nvq_bin().run(INVALID_FIELD);
    assert_eq!(out.code, Some(2));
    assert!(out.stdout.is_empty(), "stdout: {}", out.stdout);
    assert_eq!(out.stderr, smi.stdout);
}

#[test]
fn no_devices_as_nvidia_smi_goes_to_stdout_byte_for_byte() {
    let args = ["-i", "42", "--query-gpu=index,name", "--format=csv"];
    let out = nvidia_smi_link().run(&args);
    assert_eq!(out.code, Some(6), "{}", out.stdout);
    assert!(out.stderr.is_empty(), "stderr: {}", out.stderr);
    if let Some(dir) = captures() {
        let want = std::fs::read_to_string(dir.join("64_no-devices_exit6.txt")).unwrap();
        assert_eq!(out.stdout, want);
    }
    let nvq = nvq_bin().run(&args);
    assert_eq!(nvq.code, Some(6));
    assert!(nvq.stdout.is_empty());
    assert_eq!(nvq.stderr, out.stdout);
}

#[test]
fn a_successful_query_is_the_same_in_both_modes() {
    let args = ["--query-gpu=index,name,uuid", "--format=csv"];
    let smi = nvidia_smi_link().run(&args);
    let nvq = nvq_bin().run(&args);
    assert!(smi.success(), "{}", smi.stdout);
    assert!(smi.stderr.is_empty() && nvq.stderr.is_empty());
    assert_eq!(smi.stdout, nvq.stdout);
    assert!(smi.stdout.starts_with("index, name, uuid\n"));
}

#[test]
fn help_prints_nvqs_own_help_in_both_modes() {
    for flag in ["-h", "--help"] {
        let smi = nvidia_smi_link().run(&[flag]);
        let nvq = nvq_bin().run(&[flag]);
        assert_eq!(smi.code, Some(0), "{flag}");
        assert!(smi.stderr.is_empty(), "{flag}: {}", smi.stderr);
        assert_eq!(smi.stdout, nvq.stdout, "{flag}");
        let help = smi.stdout;
        assert!(
            help.contains("--query-gpu") && help.contains("nvq"),
            "{help}"
        );
        assert!(!help.contains("NVIDIA System Management Interface"));
    }
}

#[test]
fn every_unimplemented_option_is_refused_with_exit_2_in_both_modes() {
    let smi = nvidia_smi_link();
    let nvq = nvq_bin();
    for opt in NOT_IMPLEMENTED {
        // `-m`/`--mode` alone is a missing value first, as in nvidia-smi
        // (captures/27, tested in tests/topo.rs); with a value it is refused.
        let args: &[&str] = if matches!(*opt, "-m" | "--mode") {
            &[opt, "1"]
        } else {
            &[opt]
        };
        let a = smi.run(args);
        assert_eq!(a.code, Some(2), "nvidia-smi {opt}");
        assert!(a.stderr.is_empty(), "nvidia-smi {opt}: {}", a.stderr);
        let msg = a.stdout;
        assert!(
            msg.contains(opt) && msg.contains("not implement"),
            "nvidia-smi {opt}: {msg}"
        );
        let b = nvq.run(args);
        assert_eq!(b.code, Some(2), "nvq {opt}");
        assert!(b.stdout.is_empty(), "nvq {opt}: {}", b.stdout);
        assert_eq!(b.stderr, msg, "nvq {opt}");
    }
    // Also when it comes after a valid query, or carries a value.
    let out = nvq.run(&["--query-gpu=index", "--format=csv", "-pm", "1"]);
    assert_eq!(out.code, Some(2));
    assert!(out.stderr.contains("-pm"));
    let out = smi.run(&["--list-excluded-gpus", "-q"]);
    assert_eq!(out.code, Some(2));
    assert!(out.stdout.contains("--list-excluded-gpus"));
}

/// Every option and sub-command in nvidia-smi's `-h` (590 and 610): nvq
/// implements it (clap knows it) or refuses it (NOT_IMPLEMENTED).
#[test]
fn not_implemented_covers_every_nvidia_smi_option() {
    let Some(dir) = captures() else { return };
    let known = implemented_options();
    let mut missing = Vec::new();
    for file in [
        "25_h200_590.48.01_help_-h.txt",
        "26_rtx2080super_610.57.04_help_-h.txt",
    ] {
        let help = std::fs::read_to_string(dir.join(file)).unwrap();
        let opts = help_options(&help);
        assert!(opts.len() > 50, "{file}: only {} options found", opts.len());
        for o in opts {
            if !known.contains(&o)
                && !NOT_IMPLEMENTED.contains(&o.as_str())
                && !missing.contains(&o)
            {
                missing.push(o);
            }
        }
    }
    assert!(
        missing.is_empty(),
        "nvidia-smi options that nvq neither implements nor lists in cli::NOT_IMPLEMENTED: {missing:?}"
    );
}

/// No option is both implemented and refused.
#[test]
fn not_implemented_lists_no_implemented_option() {
    let known = implemented_options();
    for o in NOT_IMPLEMENTED {
        assert!(
            !known.contains(&o.to_string()),
            "{o} is implemented yet refused"
        );
    }
    let mut seen = std::collections::HashSet::new();
    for o in NOT_IMPLEMENTED {
        assert!(seen.insert(o), "{o} is listed twice");
    }
}

/// Everything nvq's parser accepts, spelled as on the command line.
fn implemented_options() -> Vec<String> {
    let cmd = nvq::cli::command();
    let mut out = vec!["-h".to_string(), "--help".to_string(), "-lms".to_string()];
    for a in cmd.get_arguments() {
        out.extend(
            a.get_short_and_visible_aliases()
                .into_iter()
                .flatten()
                .map(|c| format!("-{c}")),
        );
        out.extend(
            a.get_long_and_visible_aliases()
                .into_iter()
                .flatten()
                .map(|l| format!("--{l}")),
        );
    }
    out.extend(cmd.get_subcommands().map(|s| s.get_name().to_string()));
    out
}

/// The options (`-x`, `--xyz`) and sub-commands named in nvidia-smi's `-h`.
fn help_options(help: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut push = |s: String| {
        if !out.contains(&s) {
            out.push(s);
        }
    };
    for word in help.split_whitespace() {
        let w = word.trim_end_matches([',', '.', '=', ':', ')']);
        let body = w.trim_start_matches('-');
        let dashes = w.len() - body.len();
        if (dashes == 1 || dashes == 2)
            && body.starts_with(|c: char| c.is_ascii_alphabetic())
            && body.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
        {
            push(w.to_string());
        }
    }
    // Sub-commands: every one is described with `"nvidia-smi NAME -h"`.
    for part in help.split("\"nvidia-smi ").skip(1) {
        if let Some((name, _)) = part.split_once(" -h\"") {
            if !name.is_empty() && !name.contains(char::is_whitespace) {
                push(name.to_string());
            }
        }
    }
    out
}
