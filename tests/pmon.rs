//! `nvq pmon`: nvidia-smi's scrolling per-process monitor, against the
//! simulator. The real captures in `../shared` are reproduced byte for byte
//! (the utilization samples each sample may see depend on the
//! `lastSeenTimeStamp` nvq passes); processes that start and exit mid-run,
//! `-s`, `-o`, `-i`, the errors and nvq's formats are checked on
//! `tests/scenarios/mon_4gpu.toml`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;
use common::{compare_sections, nvq_ok, run, run_until_lines, scenario};

/// Every `pmon -c 5` capture (4 machines, idle and under load) from the
/// machine's scenario (the one of its summary-table capture).
#[test]
fn reproduces_the_pmon_captures() {
    let compared = compare_sections(
        |state| format!("{state}_pmon_per_process_monitor.txt"),
        |key, state| format!("summary_{key}_{state}.toml"),
        &["pmon", "-c", "5"],
    );
    common::assert_compared("section captures", compared, 8);
}

fn mon4() -> std::path::PathBuf {
    scenario("mon_4gpu.toml")
}

/// Process 300 exits after the first sample, 200 starts before the second;
/// 100's third sample is 0 % everywhere, which prints `0`, not `-`. With
/// confidential computing off the driver reports 0 bytes of protected
/// memory per process: `ccpm` 0, as the public outputs of drivers 550 and
/// later show.
#[test]
fn processes_that_start_and_exit_mid_run() {
    let out = nvq_ok(&mon4(), &["pmon", "-c", "3", "-s", "um", "-i", "0,2"]);
    assert_eq!(
        out,
        "# gpu         pid   type     sm    mem    enc    dec    jpg    ofa     fb   ccpm    command \n\
         # Idx           #    C/G      %      %      %      %      %      %     MB     MB    name \n\
         \x20   0        100   C+G     50     10      -      -      -      -   1000      0    python3        \n\
         \x20   0        300     C      5      1      -      -      -      -    100      0    early-exit?with\n\
         \x20   2       4242     C      7      0      -      -     12      -      2      0    worker         \n\
         \x20   0        100   C+G     60     20      -      -      -      -   2000      0    python3        \n\
         \x20   0        200     C     30      3      -      -      -      -    500      0    late-starter   \n\
         \x20   2       4242     C      7      0      -      -     12      -      2      0    worker         \n\
         \x20   0        100   C+G      0      0      -      -      -      -   1500      0    python3        \n\
         \x20   0        200     C     40      4      -      -      -      -    500      0    late-starter   \n\
         \x20   2       4242     C      7      0      -      -     12      -      2      0    worker         \n"
    );
}

#[test]
fn memory_only_with_time_and_a_gpu_without_processes() {
    let out = nvq_ok(
        &mon4(),
        &["pmon", "-s", "m", "-c", "1", "-o", "T", "-i", "1,2"],
    );
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        lines[0],
        "#Time         gpu         pid   type     fb   ccpm    command "
    );
    assert_eq!(
        lines[1],
        "#HH:MM:SS     Idx           #    C/G     MB     MB    name "
    );
    assert_eq!(
        &lines[2][13..],
        "   1          -     -      -      -    -              "
    );
    assert_eq!(
        &lines[3][13..],
        "   2       4242     C      2      0    worker         "
    );
    assert_eq!(lines.len(), 4);
}

#[test]
fn bad_options_exit_2() {
    for (args, msg) in [
        (
            &["pmon", "-d", "11"][..],
            "pmon: invalid delay \"11\" for -d; give a whole number of seconds from 1 to 10.",
        ),
        (&["pmon", "-d", "0"], "pmon: invalid delay \"0\""),
        (
            &["pmon", "-s", "c"],
            "pmon: unknown metric group 'c' in -s c",
        ),
        (&["pmon", "-c", "-1"], "pmon: invalid count \"-1\""),
    ] {
        let out = run(&mon4(), args);
        assert_eq!(out.code, Some(2), "{args:?}");
        let err = out.stderr;
        assert!(err.contains(msg), "{args:?}: {err}");
    }
    assert!(run(&mon4(), &["pmon", "-d", "10", "-c", "1"]).success());
}

/// `--format=ndjson`: one object per process per sample, typed, with the
/// PID, so a script can follow each process over time.
#[test]
fn ndjson_is_a_per_process_time_series() {
    let out = nvq_ok(
        &mon4(),
        &["pmon", "-c", "2", "-i", "0", "-s", "um", "--format=ndjson"],
    );
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 4, "{out}");
    assert!(
        lines[0].contains("\"index\":0,\"pid\":100,\"type\":\"C+G\",\"sm\":50,\"mem\":10,"),
        "{out}"
    );
    assert!(lines[0].contains("\"fb\":1000,"), "{out}");
    assert!(
        lines[1].contains("\"pid\":300,")
            && lines[1].contains("\"command\":\"early-exit\\twith-tab\""),
        "{out}"
    );
    assert!(
        lines[3].contains("\"pid\":200,\"type\":\"C\",\"sm\":30,"),
        "{out}"
    );
    let csv = nvq_ok(&mon4(), &["pmon", "-c", "1", "-i", "2", "--format=csv"]);
    assert_eq!(
        csv,
        "index, pid, type, sm [%], mem [%], enc [%], dec [%], jpg [%], ofa [%], command\n\
         2, 4242, C, 7 %, 0 %, 0 %, 0 %, 12 %, 0 %, worker\n"
    );
    let prom = nvq_ok(
        &mon4(),
        &["pmon", "-c", "1", "-i", "2", "--format=prometheus"],
    );
    assert!(prom.contains("pid=\"4242\""), "{prom}");
}

/// The command lines real scripts use; plain `pmon` runs until Ctrl+C.
#[test]
fn the_forms_scripts_use() {
    let one = nvq_ok(&mon4(), &["pmon", "-c", "1"]);
    // GPU 0: two processes; 1: none; 2: one; 3: none.
    assert_eq!(one.lines().count(), 2 + 2 + 1 + 1 + 1, "{one}");
    let t = nvq_ok(&mon4(), &["pmon", "-s", "m", "-c", "1", "-o", "T"]);
    assert!(
        t.starts_with("#Time         gpu         pid   type     fb   ccpm    command \n"),
        "{t}"
    );
    let by_id = nvq_ok(&mon4(), &["pmon", "--count=1", "--id=0"]);
    assert_eq!(by_id.lines().count(), 2 + 2, "{by_id}");
    let (code, out, err) = run_until_lines(&mon4(), &["pmon"], 7);
    assert_eq!((code, err.as_str()), (Some(0), ""));
    assert!(out.lines().count() >= 7 && out.ends_with('\n'), "{out}");
}

/// `--summary`: each process's min, max and mean over the run; the max of
/// `fb` is the peak memory of each process. `--where` filters rows first.
#[test]
fn summary_gives_each_process_its_peak_memory() {
    let o = run(
        &mon4(),
        &[
            "pmon",
            "-s",
            "m",
            "-c",
            "3",
            "-i",
            "0",
            "--format=csv",
            "--summary",
        ],
    );
    assert!(o.success());
    // The summary is on stderr, apart from the data.
    assert!(!o.stdout.contains("max"));
    let err = o.stderr;
    let summary = err.strip_prefix('\n').unwrap();
    let max: Vec<&str> = summary
        .lines()
        .filter(|l| l.starts_with("0, max,"))
        .collect();
    assert_eq!(
        max,
        [
            "0, max, 0, 100, C+G, 2000 MiB, 0 MiB, python3",
            "0, max, 0, 200, C, 500 MiB, 0 MiB, late-starter",
            "0, max, 0, 300, C, 100 MiB, 0 MiB, early-exit?with-tab",
        ],
        "{err}"
    );
    let busy = nvq_ok(
        &mon4(),
        &[
            "pmon",
            "-c",
            "2",
            "--where",
            "sm >= 30",
            "--format=csv,noheader",
        ],
    );
    assert_eq!(
        busy,
        "0, 100, C+G, 50 %, 10 %, 0 %, 0 %, 0 %, 0 %, python3\n\
         0, 100, C+G, 60 %, 20 %, 0 %, 0 %, 0 %, 0 %, python3\n\
         0, 200, C, 30 %, 3 %, 0 %, 0 %, 0 %, 0 %, late-starter\n"
    );
}

#[test]
fn assert_and_until_end_the_run() {
    let out = run(
        &mon4(),
        &["pmon", "-c", "3", "-i", "0", "--assert", "sm < 55"],
    );
    assert_eq!(out.code, Some(20));
    let err = out.stderr;
    assert!(err.contains("GPU 0 pid 100: sm = 60 %"), "{err}");
    // Stopped after the sample that failed: two samples printed.
    assert_eq!(out.stdout.matches("python3").count(), 2);
    let out = nvq_ok(
        &mon4(),
        &[
            "pmon",
            "-c",
            "3",
            "-i",
            "0",
            "--until",
            "pid == 200",
            "--format=csv,noheader",
        ],
    );
    assert_eq!(out.lines().count(), 2 + 2, "{out}");
    let out = run(
        &mon4(),
        &["pmon", "-c", "2", "-i", "2", "--until", "sm > 90"],
    );
    assert_eq!(out.code, Some(21));
    let bad = run(&mon4(), &["pmon", "--where", "bogus > 1"]);
    assert_eq!(bad.code, Some(2));
    let bad = run(&mon4(), &["pmon", "--summary", "--format=prometheus"]);
    assert_eq!(bad.code, Some(2));
}

/// Public `pmon -c 1 -s u` outputs of drivers 545, 550 and 560
/// (tests/fixtures/public/, sources in SOURCES.md), byte for byte: the
/// layout without `jpg`/`ofa` before 550, processes in NVML's order before
/// 550 and by PID after, `-` rows for GPUs without processes, and `0 0`
/// for a process sampled at 0 %.
#[test]
fn public_pmon_outputs_of_three_drivers() {
    for driver in ["545", "550", "560"] {
        let path = common::repo_root().join(format!("tests/fixtures/public/pmon_{driver}_s_u.txt"));
        let fixture = std::fs::read_to_string(path).unwrap();
        let expected: String = fixture
            .lines()
            .filter(|l| !l.starts_with('%'))
            .map(|l| format!("{l}\n"))
            .collect();
        let got = nvq_ok(
            &scenario(&format!("pmon_public_{driver}.toml")),
            &["pmon", "-c", "1", "-s", "u"],
        );
        assert_eq!(got, expected, "driver {driver}");
    }
}

/// Drivers without `nvmlDeviceGetProcessesUtilizationInfo` (545 here) are
/// read through `nvmlDeviceGetProcessUtilization`, which has no JPEG or
/// OFA figure: those cells are `[N/A]`, the others as before.
#[test]
fn older_drivers_fall_back_to_the_older_call() {
    let out = nvq_ok(
        &scenario("pmon_public_545.toml"),
        &["pmon", "-c", "1", "-i", "0", "--format=csv,noheader"],
    );
    assert_eq!(
        out,
        "0, 1174916, C, 88 %, 54 %, 0 %, 0 %, [N/A], [N/A], python\n\
         0, 1186862, C, [Not Found], [Not Found], [Not Found], [Not Found], [Not Found], [Not Found], python3\n"
    );
}

/// `ccpm` comes from `nvmlDeviceGetRunningProcessDetailList` (a value the
/// driver marks unavailable prints `-`), and a process's name is read once:
/// PID 600 keeps the name it had, while PID 500, which left the list, shows
/// the program that reused it.
#[test]
fn protected_memory_per_process_and_names_read_once() {
    let out = nvq_ok(
        &scenario("pmon_ccpm_names.toml"),
        &["pmon", "-s", "m", "-c", "3"],
    );
    assert_eq!(
        out,
        "# gpu         pid   type     fb   ccpm    command \n\
         # Idx           #    C/G     MB     MB    name \n\
         \x20   0        500     C   1000    100    old-job        \n\
         \x20   0        600     C      2      -    steady         \n\
         \x20   0        600     C      2      -    steady         \n\
         \x20   0        500     C   1000    200    new-job        \n\
         \x20   0        600     C      2      -    steady         \n"
    );
    // A driver without the detail list: the plain lists, `ccpm` unknown.
    let old = common::scenario_at(
        "pmon_ccpm_names.toml",
        &[(
            "cuda_driver_version = 13010",
            "cuda_driver_version = 13010\nabsent_functions = [\"nvmlDeviceGetRunningProcessDetailList\"]",
        )],
    );
    let out = nvq_ok(
        old.path(),
        &["pmon", "-s", "m", "-c", "1", "--format=csv,noheader"],
    );
    assert_eq!(
        out,
        "0, 500, C, 1000 MiB, [N/A], old-job\n0, 600, C, 2 MiB, [N/A], steady\n"
    );
}

/// A PID reused between two samples without ever leaving the process list:
/// where nvq can read the host's `/proc` (here a stand-in named by
/// `NVQ_HOST_PROC`), the process behind the PID changed start time, so its
/// name is read again.
#[test]
fn a_pid_reused_between_samples_shows_the_new_name() {
    use std::io::{BufRead, BufReader, Read};
    let procfs = tempfile::tempdir().unwrap();
    let stat = |start: u64| {
        format!(
            "600 (steady) S 1 600 600 0 -1 4194560 100 0 0 0 0 0 0 0 20 0 1 0 {start} 1000 100\n"
        )
    };
    std::fs::create_dir_all(procfs.path().join("self")).unwrap();
    std::fs::write(procfs.path().join("self/status"), "Name:\tnvq\nNSpid:\t1\n").unwrap();
    std::fs::create_dir_all(procfs.path().join("600")).unwrap();
    std::fs::write(procfs.path().join("600/stat"), stat(12345)).unwrap();
    let mut child = common::nvq_command()
        .arg("--nvml-lib")
        .arg(common::sim_lib())
        .args(["pmon", "-s", "m", "-c", "3", "--format=csv,noheader"])
        .env("NVML_SIM_SCENARIO", scenario("pmon_ccpm_names.toml"))
        .env("NVQ_HOST_PROC", procfs.path())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut first = String::new();
    for _ in 0..2 {
        out.read_line(&mut first).unwrap();
    }
    assert_eq!(
        first,
        "0, 500, C, 1000 MiB, 100 MiB, old-job\n0, 600, C, 2 MiB, [N/A], steady\n"
    );
    // Another program now has PID 600 (the first sample is out; the second
    // comes a second later).
    std::fs::write(procfs.path().join("600/stat"), stat(99999)).unwrap();
    let mut rest = String::new();
    out.read_to_string(&mut rest).unwrap();
    assert!(child.wait().unwrap().success());
    assert_eq!(
        rest,
        "0, 600, C, 2 MiB, [N/A], renamed\n\
         0, 500, C, 1000 MiB, 200 MiB, new-job\n\
         0, 600, C, 2 MiB, [N/A], renamed\n"
    );
}

/// A `-i` that matches no GPU ends both monitors as it ends every
/// nvidia-smi command: `No devices were found`, exit 6, before any line.
#[test]
fn a_bad_id_finds_no_devices() {
    for args in [
        &["pmon", "-i", "9", "-c", "1"][..],
        &["pmon", "-i", "x", "-c", "1"],
        &["dmon", "-i", "0,9", "-c", "1"],
    ] {
        let out = run(&mon4(), args);
        assert_eq!(out.code, Some(6), "{args:?}");
        assert!(out.stdout.is_empty(), "{args:?}");
        assert!(out.stderr.contains("No devices were found"), "{args:?}");
    }
}

/// The process lists are read with a buffer of the size last read first
/// (one NVML call while the list fits). A list that outgrows it between
/// two samples (2 processes, then 32) is still read whole: NVML answers
/// INSUFFICIENT_SIZE with the count it needs, and nvq asks again.
#[test]
fn a_process_list_that_outgrows_its_buffer_is_read_whole() {
    let mut text = format!("{}{}", common::SIM_HEAD, common::h100(0, 1 << 30));
    for pid in 1..=32u32 {
        let alive = if pid <= 2 { "" } else { "alive = [0, 1]\n" };
        text.push_str(&format!(
            "\n[[device.process]]\npid = {pid}\nname = \"job{pid}\"\nused_memory = {}\n{alive}",
            u64::from(pid) << 20
        ));
    }
    let sc = common::write_scenario(&text);
    let out = nvq_ok(
        sc.path(),
        &["pmon", "-s", "m", "-c", "2", "--format=csv,noheader"],
    );
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 2 + 32, "{out}");
    assert_eq!(
        lines[..2],
        ["0, 1, C, 1 MiB, 0 MiB, job1", "0, 2, C, 2 MiB, 0 MiB, job2"]
    );
    let second: Vec<String> = (1..=32)
        .map(|p| format!("0, {p}, C, {p} MiB, 0 MiB, job{p}"))
        .collect();
    assert_eq!(lines[2..], second[..], "{out}");
}
