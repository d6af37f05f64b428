//! Plain `nvq` prints nvidia-smi's summary table. Each real capture in
//! `../shared/nvidia-smi/captures/sections/<machine>/` is reproduced from a
//! scenario byte for byte, apart from the date line, whose shape is compared.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;
use common::{run, scenario, NO_ARGS};

/// `Fri Jul  3 22:11:09 2026` followed by seven spaces.
fn is_date_line(s: &str) -> bool {
    const DAYS: [&str; 7] = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"];
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let b = s.as_bytes();
    let digit = |i: usize| b[i].is_ascii_digit();
    s.len() == 31
        && DAYS.contains(&&s[0..3])
        && MONTHS.contains(&&s[4..7])
        && b[3] == b' '
        && b[7] == b' '
        && (b[8] == b' ' || digit(8))
        && digit(9)
        && b[10] == b' '
        && digit(11)
        && digit(12)
        && b[13] == b':'
        && digit(14)
        && digit(15)
        && b[16] == b':'
        && digit(17)
        && digit(18)
        && b[19] == b' '
        && (20..24).all(digit)
        && &s[24..] == "       "
}

use common::CAPTURE_MACHINES as MACHINES;

#[test]
fn reproduces_every_default_table_capture() {
    let Some(sections) = common::shared_path("nvidia-smi/captures/sections") else {
        return;
    };
    let mut compared = 0;
    for (key, dir) in MACHINES {
        for state in ["idle", "load"] {
            let capture = sections
                .join(dir)
                .join(format!("{state}_nvidia_smi_default_table.txt"));
            let Ok(expected) = std::fs::read_to_string(&capture) else {
                panic!("missing capture {}", capture.display());
            };
            let got = run(&scenario(&format!("summary_{key}_{state}.toml")), NO_ARGS).ok();
            let (exp_date, exp_rest) = expected.split_once('\n').unwrap();
            let (got_date, got_rest) = got.split_once('\n').unwrap();
            assert!(is_date_line(exp_date), "capture date line {exp_date:?}");
            assert!(
                is_date_line(got_date),
                "{key} {state}: date line {got_date:?}"
            );
            // The section files were cut from a larger capture without the
            // final newline that nvidia-smi ends every line with.
            let exp_rest = if exp_rest.ends_with('\n') {
                exp_rest.to_string()
            } else {
                format!("{exp_rest}\n")
            };
            if got_rest != exp_rest {
                let first = got_rest
                    .lines()
                    .zip(exp_rest.lines())
                    .position(|(g, e)| g != e);
                panic!(
                    "{key} {state}: output differs from {} (first differing line {first:?})\n--- expected\n{exp_rest}--- got\n{got_rest}",
                    capture.display()
                );
            }
            compared += 1;
        }
    }
    assert_eq!(compared, 8);
}

#[test]
fn piped_output_has_no_colour() {
    let out = run(&scenario("summary_mig.toml"), NO_ARGS).ok();
    assert!(!out.contains('\x1b'), "{out}");
}

#[test]
fn mig_section_and_instance_ids() {
    let out = run(&scenario("summary_mig.toml"), NO_ARGS).ok();
    assert!(out.contains("| MIG devices:"), "{out}");
    let mig_rows: Vec<&str> = out.lines().filter(|l| l.starts_with("|  0    ")).collect();
    assert_eq!(mig_rows.len(), 2, "{out}");
    assert!(mig_rows[0].starts_with("|  0    1   0   0  |            2048MiB / 40960MiB    |"));
    assert!(mig_rows[1].starts_with("|  0    2   0   1  |               0MiB / 40960MiB    |"));
    assert!(out.contains("|    0    1    0            31337      C   /opt/venv/bin/python3                  2048MiB |"), "{out}");
    // MIG on: utilisation is N/A and the ECC cell says On; ECC off says Off.
    assert!(out.contains("|     N/A      Default |"));
    assert!(out.contains("|                   On |"));
    assert!(out.contains("|                  Off |"));
    assert!(out.contains("|     42%   E. Process |"));
    for line in out.lines().skip(1).filter(|l| !l.is_empty()) {
        assert_eq!(line.len(), 91, "{line:?}");
    }
}

#[test]
fn dash_i_selects_gpus() {
    let out = run(&scenario("summary_mig.toml"), &["-i", "1"]).ok();
    assert!(!out.contains("|   0  "), "{out}");
    assert!(out.contains("|   1  NVIDIA H100 80GB HBM3          Off |   00000000:2A:00.0 Off |"));
    assert!(
        !out.contains("MIG devices"),
        "GPU 0's MIG section must go with it"
    );
    assert!(!out.contains("31337"), "GPU 0's processes must go with it");
    assert!(out.contains(" 4040 "));

    let out = run(&scenario("summary_mig.toml"), &["-i", "00000000:18:00.0"]).ok();
    assert!(out.contains("|   0  NVIDIA H100 80GB HBM3          On  |"));
    assert!(!out.contains("|   1  "));

    let out = run(&scenario("summary_mig.toml"), &["-i", "7"]);
    assert_eq!(out.code, Some(6));
    assert_eq!(out.stderr, "No devices were found\n");
}

#[test]
fn loops_reprint_the_whole_table() {
    // The values of each table are tested, not the timing: a loop slow
    // enough that a busy machine makes every deadline (common::VALUE_LMS).
    let _on_time = common::on_time();
    let out = run(
        &scenario("summary_h200_load.toml"),
        &["-lms", common::VALUE_LMS, "--count", "3"],
    )
    .ok();
    let dates = out.lines().filter(|l| is_date_line(l)).count();
    assert_eq!(dates, 3, "{out}");
    assert_eq!(out.matches("| Processes:").count(), 3);
    assert_eq!(out.matches(" 10309 ").count(), 3);
}

#[test]
fn as_nvidia_smi_too() {
    let text = common::as_nvidia_smi(&scenario("summary_h100_load.toml"), NO_ARGS).ok();
    assert!(text.contains("| NVIDIA-SMI 590.48.01              Driver Version: 590.48.01      CUDA Version: 13.1     |"));
    assert!(text.contains(" 11345      C   ./gpu_burn                            15690MiB |"));
}

#[test]
fn format_without_query_is_still_an_error() {
    let out = run(&scenario("summary_h100_idle.toml"), &["--format=csv"]);
    assert_eq!(out.code, Some(2));
    assert!(out.stdout.is_empty());
}

#[test]
fn a_table_loop_ends_quietly_when_the_reader_goes_and_on_ctrl_c() {
    use std::io::{BufRead, BufReader};
    use std::process::Stdio;
    let sc = scenario("summary_h200_load.toml");
    let spawn = || {
        common::sim_command(Some(&sc), &["-l", "600"])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    };
    // The reader closes the pipe after one line: nvq must not wait out the
    // 600 s interval, and must not complain.
    let mut child = spawn();
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    assert!(is_date_line(first.trim_end_matches('\n')), "{first:?}");
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(0));
    let mut err = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut err).unwrap();
    assert!(err.is_empty(), "{err}");

    // Ctrl+C after the first table: exit 0, the table whole.
    let mut child = spawn();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut text = String::new();
    // The first table ends with the border under its last process row.
    loop {
        let mut line = String::new();
        if out.read_line(&mut line).unwrap() == 0 {
            break;
        }
        let last_border = line.starts_with('+') && text.contains("gpu_burn");
        text.push_str(&line);
        if last_border {
            break;
        }
    }
    // SAFETY: sending a signal to our own child.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    std::io::Read::read_to_string(&mut out, &mut text).unwrap();
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(0));
    assert!(text.ends_with("+\n"), "{text}");
}
