//! The committed completions and man page match what the code generates now,
//! and the man page renders without warnings.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use nvq_dev::{self as generate, REGEN_COMMAND};
use std::path::Path;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// With `NVQ_REGEN=1` (what `scripts/regen.sh` sets) this test writes the
/// files instead of comparing them.
#[test]
fn committed_files_match_the_generator() {
    let files = generate::all().unwrap();
    let regen = std::env::var_os("NVQ_REGEN").is_some_and(|v| v == "1");
    let mut problems = Vec::new();
    for f in &files {
        let path = root().join(f.path);
        if regen {
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            if std::fs::read_to_string(&path).ok().as_deref() != Some(f.contents.as_str()) {
                std::fs::write(&path, &f.contents).unwrap();
                eprintln!("wrote {}", f.path);
            }
            continue;
        }
        match std::fs::read_to_string(&path) {
            Ok(text) if text == f.contents => {}
            Ok(text) => {
                let line = text
                    .lines()
                    .zip(f.contents.lines())
                    .position(|(a, b)| a != b)
                    .unwrap_or_else(|| text.lines().count().min(f.contents.lines().count()))
                    + 1;
                problems.push(format!(
                    "{} differs from the generator (first at line {line})",
                    f.path
                ));
            }
            Err(e) => problems.push(format!("{} cannot be read: {e}", f.path)),
        }
    }
    // A file under the generated folders that the generator no longer makes.
    for dir in ["completions", "man"] {
        let Ok(entries) = std::fs::read_dir(root().join(dir)) else {
            continue;
        };
        for e in entries.flatten() {
            let rel = format!("{dir}/{}", e.file_name().to_string_lossy());
            if !files.iter().any(|f| f.path == rel) {
                if regen {
                    std::fs::remove_file(e.path()).unwrap();
                    eprintln!("removed {rel}");
                } else {
                    problems.push(format!("{rel} is not generated any more"));
                }
            }
        }
    }
    assert!(
        problems.is_empty(),
        "generated files are stale:\n  {}\nRun `{REGEN_COMMAND}` and commit the result.",
        problems.join("\n  ")
    );
}

fn have(tool: &str) -> bool {
    crate::common::require_tool(tool).is_some()
}

/// The man page as the code generates it now (so that a stale committed file
/// is reported by the test above, not here).
fn fresh_man_page() -> tempfile::TempPath {
    let page = generate::all()
        .unwrap()
        .into_iter()
        .find(|f| f.path == "man/nvq.1")
        .unwrap();
    let mut tmp = tempfile::Builder::new().suffix(".1").tempfile().unwrap();
    std::io::Write::write_all(&mut tmp, page.contents.as_bytes()).unwrap();
    tmp.into_temp_path()
}

#[test]
fn man_page_renders_without_warnings() {
    if !have("man") {
        return;
    }
    let page = fresh_man_page();
    let out = crate::common::command("man")
        .args(["--warnings", "-l"])
        .arg(&*page)
        .env("MANWIDTH", "80")
        .env_remove("MAN_KEEP_FORMATTING")
        .env_remove("MANPAGER")
        .env("PAGER", "cat")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "man failed: {stderr}");
    assert!(stderr.trim().is_empty(), "man printed warnings:\n{stderr}");
    // The sections a reader looks for, and an entry generated from each registry.
    for want in [
        "NAME",
        "SYNOPSIS",
        "OPTIONS",
        "FIELDS",
        "EXIT STATUS",
        "--query-gpu",
    ] {
        assert!(stdout.contains(want), "rendered page lacks {want:?}");
    }
    let first_field = nvq_core::source::QueryMode::GPU.fields()[0].name;
    assert!(
        stdout.contains(first_field),
        "rendered page lacks field {first_field}"
    );
    for (code, _) in nvq::ExitCode::ALL {
        assert!(
            stdout.lines().any(|l| l
                .split_whitespace()
                .next()
                .is_some_and(|w| w == code.code().to_string())),
            "EXIT STATUS lacks {}",
            code.code()
        );
    }
    let widest = stdout.lines().map(|l| l.chars().count()).max().unwrap_or(0);
    assert!(widest <= 80, "a rendered line is {widest} columns wide");
}

#[test]
fn man_page_passes_groff_checks() {
    if !have("groff") {
        return;
    }
    let page = fresh_man_page();
    let out = crate::common::command("groff")
        .args(["-ww", "-z", "-man", "-Tutf8"])
        .arg(&*page)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success() && stderr.trim().is_empty(),
        "groff: {stderr}"
    );
}
