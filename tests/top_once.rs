//! `nvq top` without a terminal: `--once` prints one plain frame (the same
//! as `nvq-top`'s), bad options are usage errors, and what a GPU or a
//! process is named never puts an invisible or double-width character
//! wrong in any text view.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;
use std::path::Path;

#[test]
fn once_prints_one_plain_frame() {
    let out = common::command(common::nvq_bin())
        .args(["top", "--once", "--nvml-lib"])
        .arg(common::sim_lib())
        .env("NVML_SIM_SCENARIO", common::scenario("top_8gpu.toml"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(!text.contains('\x1b'), "plain text, no escapes:\n{text}");
    assert_eq!(
        text.lines().count(),
        24,
        "80×24 without a terminal:\n{text}"
    );
    assert!(text.contains("8 GPUs") && text.contains("leaky"), "{text}");
}

#[test]
fn once_is_the_same_frame_without_nvq_top_beside_nvq() {
    // An nvq without nvq-top beside it (a binary copied alone) runs the
    // screen itself.
    let dir = tempfile::tempdir().unwrap();
    let alone = dir.path().join("nvq");
    common::copy_executable(&common::nvq_bin(), &alone);
    let frame = |exe: &Path| {
        let out = common::command(exe)
            .args([
                "top",
                "--once",
                "--leak-after",
                "60",
                "-i",
                "0,3",
                "--nvml-lib",
            ])
            .arg(common::sim_lib())
            .env("NVML_SIM_SCENARIO", common::scenario("top_8gpu.toml"))
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
        String::from_utf8(out.stdout).unwrap()
    };
    let (handed, own) = (frame(&common::nvq_bin()), frame(&alone));
    assert!(handed.contains("2 GPUs"), "{handed}");
    assert_eq!(handed, own);
}

#[test]
fn nvq_top_alone_says_to_run_nvq_top() {
    let top = common::nvq_top_bin();
    for args in [&[][..], &["--help"], &["--interval-ms", "5"]] {
        let out = common::command(&top).args(args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}: {out:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("run `nvq top`"), "{args:?}: {err}");
        assert!(out.stdout.is_empty());
    }
}

#[test]
fn bad_options_are_usage_errors() {
    for args in [
        &["top", "--interval", "0.01"][..],
        &["top", "--interval", "20"],
        &["top", "--interval", "fast"],
        &["top", "--leak-after", "0"],
        // Not a terminal, not --once.
        &["top"],
    ] {
        let out = common::command(common::nvq_bin())
            .args(args)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}: {out:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("top: invalid") || err.contains("top: needs a terminal"),
            "{args:?}: {err}"
        );
    }
}

/// One H100 named `gpu`, running one process named `proc` (a PID that no
/// host process has, so the screen shows NVML's name).
fn one_gpu_named(gpu: &str, proc: &str) -> tempfile::NamedTempFile {
    common::write_scenario(&format!(
        "{head}{dev}\n[[device.process]]\npid = 4100001\nname = \"{proc}\"\n\
         used_memory = 1073741824\n",
        head = common::SIM_HEAD,
        dev = common::h100(0, 8589934592).replace("NVIDIA H100 80GB HBM3", gpu),
    ))
}

/// `nvq top --once` on a scenario, as text (80×24: no terminal).
fn once_on(sc: &Path) -> String {
    let out = common::command(common::nvq_bin())
        .args(["top", "--once", "--nvml-lib"])
        .arg(common::sim_lib())
        .env("NVML_SIM_SCENARIO", sc)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    String::from_utf8(out.stdout).unwrap()
}

/// Characters that hide or reorder text but are neither control characters
/// nor the bidirectional overrides: word joiner and invisible operators,
/// the Arabic letter mark, the Mongolian vowel separator, tag characters.
const INVISIBLE: &str =
    "\u{2060}\u{2061}\u{2062}\u{2063}\u{2064}\u{61c}\u{180e}\u{e0001}\u{e0041}\u{e007f}";

/// The same invisible characters, as a TOML string's escapes.
const INVISIBLE_TOML: &str =
    "\\u2060\\u2061\\u2062\\u2063\\u2064\\u061C\\u180E\\U000E0001\\U000E0041\\U000E007F";

#[test]
fn invisible_characters_never_reach_any_text_view() {
    let sc = one_gpu_named(
        &format!("NVIDIA H1{INVISIBLE_TOML}00"),
        &format!("/bin/ev{INVISIBLE_TOML}il"),
    );
    let q = "?".repeat(INVISIBLE.chars().count());
    let views = [
        ("nvq top --once", once_on(sc.path())),
        (
            "--query-gpu=name",
            common::nvq_ok(sc.path(), &["--query-gpu=name", "--format=csv,noheader"]),
        ),
        (
            "--query-compute-apps=name",
            common::nvq_ok(
                sc.path(),
                &["--query-compute-apps=name", "--format=csv,noheader"],
            ),
        ),
        ("-L", common::nvq_ok(sc.path(), &["-L"])),
        (
            "the summary table",
            common::nvq_ok(sc.path(), &[] as &[&str]),
        ),
    ];
    for (what, text) in views {
        assert!(
            !text.chars().any(|c| INVISIBLE.contains(c)),
            "{what} shows an invisible character:\n{text}"
        );
        assert!(
            text.contains(&format!("H1{q}00")) || text.contains(&format!("/bin/ev{q}il")),
            "{what} shows neither name with its `?`s:\n{text}"
        );
    }
}

/// Columns a line takes on a terminal, for the characters these tests
/// print: fullwidth forms take two, the others one.
fn columns(line: &str) -> usize {
    line.chars()
        .map(|c| {
            if ('\u{ff01}'..='\u{ff60}').contains(&c) {
                2
            } else {
                1
            }
        })
        .sum()
}

#[test]
fn once_prints_double_width_characters_without_a_gap() {
    let fullwidth: String = ('\u{ff21}'..='\u{ff3a}')
        .chain('\u{ff41}'..='\u{ff49}')
        .collect();
    assert_eq!(fullwidth.chars().count(), 35);
    let sc = one_gpu_named("NVIDIA H100 80GB HBM3", &format!("/opt/{fullwidth}"));
    let text = once_on(sc.path());
    assert!(text.contains("ＡＢＣＤＥＦ"), "{text}");
    for line in text.lines() {
        assert!(
            columns(line) <= 80,
            "a line of {} columns in an 80-column frame:\n{text}",
            columns(line)
        );
    }
}
