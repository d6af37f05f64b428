//! `nvq dmon`: nvidia-smi's scrolling per-GPU monitor, against the simulator.
//! The real captures in `../shared` are reproduced byte for byte; every `-s`
//! group, `-o`, `-c`, `-i`, a GPU lost mid-run, the errors and nvq's formats
//! are checked on `tests/scenarios/mon_4gpu.toml`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;
use common::{compare_sections, nvq_ok, run, run_until_lines, scenario};

/// Every `dmon -c 5` capture (4 machines, idle and under load) from its scenario.
#[test]
fn reproduces_the_dmon_captures() {
    let compared = compare_sections(
        |state| format!("{state}_dmon_per_device_monitor_incl_pcie_rx_tx.txt"),
        |key, state| format!("dmon_{key}_{state}.toml"),
        &["dmon", "-c", "5"],
    );
    common::assert_compared("section captures", compared, 8);
}

fn mon4() -> std::path::PathBuf {
    scenario("mon_4gpu.toml")
}

/// The `YYYYMMDD    HH:MM:SS    ` prefix of a `-o DT` line.
fn is_date_time(s: &str) -> bool {
    let b = s.as_bytes();
    s.len() == 24
        && b[..8].iter().all(u8::is_ascii_digit)
        && &s[8..12] == "    "
        && s[12..20].chars().enumerate().all(|(i, c)| {
            if i == 2 || i == 5 {
                c == ':'
            } else {
                c.is_ascii_digit()
            }
        })
        && &s[20..] == "    "
}

#[test]
fn every_group_with_date_and_time_two_of_four_gpus_and_a_lost_gpu() {
    let out = nvq_ok(
        &mon4(),
        &["dmon", "-c", "3", "-s", "pucvmet", "-o", "DT", "-i", "0,3"],
    );
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        lines[0],
        "#Date        Time         gpu    pwr  gtemp  mtemp     sm    mem    enc    dec    jpg    ofa   mclk   pclk  \
         pviol  tviol     fb   bar1   ccpm  sbecc  dbecc    pci  rxpci  txpci "
    );
    assert_eq!(
        lines[1],
        "#YYYYMMDD    HH:MM:SS     Idx      W      C      C      %      %      %      %      %      %    MHz    MHz  \
         \x20   %   bool     MB     MB     MB   errs   errs   errs   MB/s   MB/s "
    );
    let rows: Vec<&str> = lines[2..]
        .iter()
        .map(|l| {
            assert!(is_date_time(&l[1..25]), "{l:?}");
            &l[25..]
        })
        .collect();
    let dash = "      -".repeat(21);
    let expected = [
        // Sample 1: no earlier violation counters, so pviol and tviol are 0.
        "   0    100     40     45     10      5      0      0      0      0   2619   1980      0      0   1000      5      0      0      0      0      0      3 ".to_string(),
        "   3     72     33      -      3      3      0      0      0      0   2619    345      -      -      0      -      -      -      -      -      -      - ".to_string(),
        // Sample 2: 2 s of power capping in a 1 s interval (capped at 100 %), 1 GiB/s received, 2 ECC errors.
        "   0    100     40     45     20      5      0      0      0      0   2619   1980    100      0   2000      5      0      2      0      0   1024      3 ".to_string(),
        // GPU 3 fell off the bus: every cell is -, and the loop goes on.
        format!("   3{dash} "),
        "   0    100     40     45     30      5      0      0      0      0   2619   1980      0      1   3000      5      0      3      0      4      2      3 ".to_string(),
        format!("   3{dash} "),
    ];
    assert_eq!(rows, expected);
}

#[test]
fn each_group_alone_and_the_default() {
    let header = |args: &[&str]| {
        let mut a = vec!["dmon", "-c", "1", "-i", "1"];
        a.extend_from_slice(args);
        nvq_ok(&mon4(), &a).lines().next().unwrap().to_string()
    };
    let cases = [
        ("p", "    pwr  gtemp  mtemp"),
        ("u", "     sm    mem    enc    dec    jpg    ofa"),
        ("c", "   mclk   pclk"),
        ("v", "  pviol  tviol"),
        ("m", "     fb   bar1   ccpm"),
        ("e", "  sbecc  dbecc    pci"),
        ("t", "  rxpci  txpci"),
        ("tp", "  rxpci  txpci    pwr  gtemp  mtemp"),
    ];
    for (s, cols) in cases {
        assert_eq!(header(&["-s", s]), format!("# gpu{cols} "), "-s {s}");
    }
    assert_eq!(header(&[]), header(&["-s", "puc"]));
    assert_eq!(
        header(&["-o", "T"]),
        format!(
            "#Time         gpu{} ",
            &header(&[])[5..header(&[]).len() - 1]
        )
    );
    assert!(header(&["-o", "D"]).starts_with("#Date         gpu    pwr"));
}

#[test]
fn bad_options_exit_2_before_nvml_is_read() {
    for (args, msg) in [
        (&["dmon", "-d", "0"][..], "dmon: invalid delay \"0\""),
        (&["dmon", "-d", "x"], "dmon: invalid delay \"x\""),
        (&["dmon", "-c", "0"], "dmon: invalid count \"0\""),
        (
            &["dmon", "-s", "pux"],
            "dmon: unknown metric group 'x' in -s pux",
        ),
        (&["dmon", "-o", "X"], "dmon: invalid value \"X\" for -o"),
        (
            &["dmon", "--format", "xml"],
            "Invalid format option \"xml\"",
        ),
        (&["dmon", "--bogus"], "unknown option or word --bogus"),
    ] {
        let out = run(&mon4(), args);
        assert_eq!(out.code, Some(2), "{args:?}");
        let err = out.stderr;
        assert!(err.contains(msg), "{args:?}: {err}");
        assert!(out.stdout.is_empty(), "{args:?}");
    }
}

#[test]
fn nvq_formats_carry_the_same_rows() {
    let csv = nvq_ok(
        &mon4(),
        &["dmon", "-c", "2", "-i", "1,2", "-s", "pm", "--format=csv"],
    );
    assert_eq!(
        csv,
        "index, pwr [W], gtemp [C], mtemp [C], fb [MiB], bar1 [MiB], ccpm [MiB]\n\
         1, 70 W, 31 C, [N/A], 0 MiB, [N/A], [N/A]\n\
         2, 71 W, 32 C, [N/A], 0 MiB, [N/A], [N/A]\n\
         1, 70 W, 31 C, [N/A], 0 MiB, [N/A], [N/A]\n\
         2, 71 W, 32 C, [N/A], 0 MiB, [N/A], [N/A]\n"
    );
    // nvidia-smi's dmon spells the option `nounit`.
    let bare = nvq_ok(
        &mon4(),
        &[
            "dmon",
            "-c",
            "1",
            "-i",
            "1",
            "-s",
            "p",
            "--format",
            "csv,noheader,nounit",
        ],
    );
    assert_eq!(bare, "1, 70, 31, [N/A]\n");
    let nd = nvq_ok(
        &mon4(),
        &[
            "dmon",
            "-c",
            "2",
            "-i",
            "0",
            "-s",
            "u",
            "--format=ndjson",
            "-o",
            "T",
        ],
    );
    let lines: Vec<&str> = nd.lines().collect();
    assert_eq!(lines.len(), 2, "{nd}");
    for l in &lines {
        // Every row carries the sample's timestamp, then the columns.
        assert!(l.starts_with("{\"timestamp\":\""), "{l}");
        assert!(l.contains(",\"time\":\""), "{l}");
        assert!(l.contains("\"index\":0,\"sm\":"), "{l}");
    }
    let json = nvq_ok(
        &mon4(),
        &["dmon", "-c", "1", "-i", "0", "-s", "c", "--format=json"],
    );
    assert!(
        json.contains("\"mclk\": 2619") || json.contains("\"mclk\":2619"),
        "{json}"
    );
    let prom = nvq_ok(
        &mon4(),
        &[
            "dmon",
            "-c",
            "1",
            "-i",
            "0",
            "-s",
            "p",
            "--format=prometheus",
        ],
    );
    assert!(
        prom.contains("uuid=\"GPU-11111111-0000-0000-0000-000000000000\""),
        "{prom}"
    );
}

/// The command lines real scripts use; those without `-c` run until Ctrl+C.
#[test]
fn the_forms_scripts_use() {
    let out = nvq_ok(&mon4(), &["dmon", "-c", "1", "-s", "pucvmet"]);
    assert_eq!(out.lines().count(), 2 + 4, "{out}");
    for (args, lines) in [
        (&["dmon", "--format", "csv", "-s", "pucvmet"][..], 1 + 4),
        (&["dmon", "-d", "5", "-s", "mu"], 2 + 4),
        (&["dmon", "-s", "u"], 2 + 4),
        (&["dmon"], 2 + 4),
    ] {
        let (code, out, err) = run_until_lines(&mon4(), args, lines);
        assert_eq!(code, Some(0), "{args:?}: {err}");
        assert_eq!(err, "", "{args:?}");
        assert!(
            out.lines().count() >= lines && out.ends_with('\n'),
            "{args:?}: {out}"
        );
    }
}

#[test]
fn writes_to_a_file_with_dash_f() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("dmon.log");
    let out = run(
        &mon4(),
        &["dmon", "-c", "2", "-i", "2", "-f", path.to_str().unwrap()],
    );
    assert!(out.success() && out.stdout.is_empty());
    let text = std::fs::read_to_string(&path).unwrap();
    assert_eq!(
        text.lines().filter(|l| l.starts_with("    2 ")).count(),
        2,
        "{text}"
    );
}

/// With PCIe throughput taking about 20 ms per direction on each of 8 GPUs
/// (320 ms of driver time per sample), `dmon -s t` still starts every
/// sample on its 1 s tick and no GPU misses the sample's deadline.
#[test]
fn slow_pcie_counters_keep_the_one_second_cadence() {
    let mut c = common::sim_command(
        Some(&scenario("mon_8gpu_slow_pcie.toml")),
        &["dmon", "-s", "t", "-c", "4"],
    );
    c.env("NVQ_TRACE_SCHEDULE", "1");
    let out = common::ran(c);
    assert!(out.success());
    let text = out.stdout;
    let rows: Vec<&str> = text.lines().filter(|l| !l.starts_with('#')).collect();
    assert_eq!(rows.len(), 4 * 8, "{text}");
    assert!(
        rows.iter().all(|r| r.ends_with("    200    100 ")),
        "{text}"
    );
    let trace = out.stderr;
    let samples: Vec<(u64, u64, u64)> = trace
        .lines()
        .map(|l| {
            let num = |key: &str| -> u64 {
                let v = l.split(&format!("{key}=")).nth(1).unwrap();
                v.split(' ').next().unwrap().parse().unwrap()
            };
            (num("sample"), num("tick"), num("late_us"))
        })
        .collect();
    assert_eq!(samples.len(), 4, "{trace}");
    for (i, (sample, tick, late_us)) in samples.into_iter().enumerate() {
        assert_eq!((sample, tick), (i as u64, i as u64), "{trace}");
        assert!(
            late_us < 250_000,
            "sample {i} started {late_us} µs late: {trace}"
        );
    }
}

/// A public `dmon -i 0 -s mutc -d 1 -o TD` output (tests/fixtures/public/,
/// sources in SOURCES.md): the groups come in the order `-s` gives them, the
/// date and time columns lead, and every value matches, column for column.
/// Its date and time columns are narrower than today's drivers print them
/// (an older driver), so the lines are compared cell by cell.
#[test]
fn a_public_dmon_output_cell_for_cell() {
    let path = common::repo_root().join("tests/fixtures/public/dmon_mutc_TD.txt");
    let fixture = std::fs::read_to_string(path).unwrap();
    let expected: Vec<&str> = fixture.lines().filter(|l| !l.starts_with('%')).collect();
    let got = nvq_ok(
        &scenario("dmon_public_a10.toml"),
        &[
            "dmon", "-i", "0", "-s", "mutc", "-d", "1", "-o", "TD", "-c", "6",
        ],
    );
    let got: Vec<&str> = got.lines().collect();
    assert_eq!(got.len(), expected.len());
    for (n, (g, e)) in got.iter().zip(&expected).enumerate() {
        let cells = |l: &str| -> Vec<String> {
            let words = l.split_whitespace().map(str::to_string);
            // The data rows' date and time differ from run to run.
            if n < 2 {
                words.collect()
            } else {
                words.skip(2).collect()
            }
        };
        assert_eq!(cells(g), cells(e), "line {}", n + 1);
    }
}

/// `nvidia-smi dmon` through the symlink prints what `nvq dmon` prints.
#[test]
fn as_nvidia_smi_too() {
    let args = ["dmon", "-c", "1", "-i", "1", "-s", "pu"];
    let out = common::as_nvidia_smi(&mon4(), &args).ok();
    assert_eq!(out, nvq_ok(&mon4(), &args));
}

/// A reader that goes away ends the monitor quietly with exit 0, at once
/// (not at the next sample's write).
#[test]
fn a_closed_pipe_ends_the_monitor_quietly() {
    use std::io::{BufRead, BufReader, Read};
    let mut child = common::nvq_command()
        .arg("--nvml-lib")
        .arg(common::sim_lib())
        .args(["dmon", "-d", "5"])
        .env("NVML_SIM_SCENARIO", mon4())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    out.read_line(&mut line).unwrap();
    assert!(line.starts_with("# gpu"), "{line}");
    let t0 = std::time::Instant::now();
    drop(out);
    let status = child.wait().unwrap();
    assert!(
        t0.elapsed() < std::time::Duration::from_secs(4),
        "waited for the next sample"
    );
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    assert_eq!((status.code(), err.as_str()), (Some(0), ""));
}

/// A GPU whose driver hangs (5 s per power reading from its second sample
/// on) misses the sample's deadline: it prints as a row of `-`, GPU 0 keeps
/// its values, and the run does not wait for the hung calls.
#[test]
fn a_hung_gpu_prints_late_rows_without_stalling_the_others() {
    let t0 = std::time::Instant::now();
    let out = nvq_ok(
        &scenario("mon_hung_gpu.toml"),
        &["dmon", "-c", "4", "-s", "p"],
    );
    assert!(
        t0.elapsed() < std::time::Duration::from_secs(8),
        "{:?}",
        t0.elapsed()
    );
    let rows: Vec<&str> = out.lines().skip(2).collect();
    assert_eq!(
        rows,
        [
            "    0    100     40      - ",
            "    1    101     41      - ",
            "    0    100     40      - ",
            "    1      -      -      - ",
            "    0    100     40      - ",
            "    1      -      -      - ",
            "    0    100     40      - ",
            "    1      -      -      - ",
        ]
    );
}

/// `nvidia-smi dmon --format csv`: nvidia-smi's own CSV (the same cells as
/// its columns, `-` for a missing value), with `nounit` and `noheader` in
/// any order; nvq run as itself keeps its typed CSV for the same spelling.
/// The layout is unverified (no public capture found; docs/formats.md).
#[test]
fn nvidia_smis_own_dmon_csv() {
    for (format, want) in [
        (
            "csv",
            "#gpu, pwr, gtemp, mtemp\n#Idx, W, C, C\n 1, 70, 31, -\n",
        ),
        ("csv,nounit", "#gpu, pwr, gtemp, mtemp\n 1, 70, 31, -\n"),
        ("csv,nounit,noheader", " 1, 70, 31, -\n"),
        ("noheader,csv", " 1, 70, 31, -\n"),
    ] {
        let out = common::as_nvidia_smi(
            &mon4(),
            &["dmon", "-c", "1", "-i", "1", "-s", "p", "--format", format],
        );
        assert!(out.success(), "{format}");
        assert_eq!(out.stdout, want, "{format}");
    }
    // Every group, and the date and time columns first.
    let out = common::as_nvidia_smi(
        &mon4(),
        &[
            "dmon", "--format", "csv", "-s", "pucvmet", "-c", "1", "-i", "0", "-o", "DT",
        ],
    );
    let lines: Vec<&str> = out.stdout.lines().collect();
    assert_eq!(
        lines[0],
        "#Date, Time, gpu, pwr, gtemp, mtemp, sm, mem, enc, dec, jpg, ofa, mclk, pclk, pviol, tviol, fb, bar1, \
         ccpm, sbecc, dbecc, pci, rxpci, txpci"
    );
    assert_eq!(
        lines[1],
        "#YYYYMMDD, HH:MM:SS, Idx, W, C, C, %, %, %, %, %, %, MHz, MHz, %, bool, MB, MB, MB, errs, errs, errs, \
         MB/s, MB/s"
    );
    let cells: Vec<&str> = lines[2].strip_prefix(' ').unwrap().split(", ").collect();
    assert_eq!(cells.len(), 24, "{}", lines[2]);
    assert!(
        cells[0].len() == 8 && cells[1].len() == 8 && cells[2] == "0",
        "{}",
        lines[2]
    );
    // nvq's formats stay reachable: json under the nvidia-smi name, and
    // nvq's typed CSV under its own name.
    let out = common::as_nvidia_smi(
        &mon4(),
        &["dmon", "-c", "1", "-i", "1", "-s", "p", "--format=json"],
    );
    assert!(out.stdout.contains("\"pwr\""));
    let own = nvq_ok(
        &mon4(),
        &["dmon", "-c", "1", "-i", "1", "-s", "p", "--format", "csv"],
    );
    assert_eq!(
        own,
        "index, pwr [W], gtemp [C], mtemp [C]\n1, 70 W, 31 C, [N/A]\n"
    );
}

/// Public `dmon` outputs (tests/fixtures/public/, sources in SOURCES.md):
/// fixture, scenario, command line. Driver 352.99's narrow layout (and a
/// 384-era one's) and a 550+ driver's wide one.
const PUBLIC_DMON: &[(&str, &str, &[&str])] = &[
    (
        "dmon_default_dcgm232.txt",
        "dmon_public_dcgm232.toml",
        &["dmon", "-c", "4"],
    ),
    (
        "dmon_vgg_k520_tensorflow.txt",
        "dmon_public_vgg_k520_tensorflow.toml",
        &["dmon", "-c", "6"],
    ),
    (
        "dmon_vgg_k520_tensorflow_slim.txt",
        "dmon_public_vgg_k520_tensorflow_slim.toml",
        &["dmon", "-c", "6"],
    ),
    (
        "dmon_vgg_k520_keras_theano.txt",
        "dmon_public_vgg_k520_keras_theano.toml",
        &["dmon", "-c", "6"],
    ),
    (
        "dmon_pucvmet_deepspeech178.txt",
        "dmon_public_deepspeech178.toml",
        &["dmon", "-d", "1", "-s", "pucvmet", "-c", "1"],
    ),
    (
        "dmon_vgg_v100_mxnet.txt",
        "dmon_public_vgg_v100_mxnet.toml",
        &["dmon", "-c", "6"],
    ),
];

/// Each public `dmon` output reproduced byte for byte from its scenario
/// (trailing blanks, or their absence, included); the runs go side by side.
#[test]
fn public_dmon_outputs_byte_for_byte() {
    std::thread::scope(|s| {
        let runs: Vec<_> = PUBLIC_DMON
            .iter()
            .map(|(file, scenario_name, args)| {
                s.spawn(move || {
                    let path = common::repo_root().join("tests/fixtures/public").join(file);
                    let fixture = std::fs::read_to_string(path).unwrap();
                    let expected: String = fixture
                        .lines()
                        .filter(|l| !l.starts_with('%'))
                        .map(|l| format!("{l}\n"))
                        .collect();
                    (*file, expected, nvq_ok(&scenario(scenario_name), args))
                })
            })
            .collect();
        for run in runs {
            let (file, expected, got) = run.join().unwrap();
            assert_eq!(got, expected, "{file}");
        }
    });
}

/// A public `dmon --gpm-metrics 1,2,13` output (tests/fixtures/public/,
/// sources in SOURCES.md), line for line: the GPM columns follow the `-s`
/// ones, ten wide under `GPM:%`, `-` on the first two samples, whole numbers
/// after. (The page lost any trailing spaces, so lines are compared without.)
#[test]
fn a_public_dmon_gpm_output_line_for_line() {
    let path = common::repo_root().join("tests/fixtures/public/dmon_gpm_1_2_13.txt");
    let fixture = std::fs::read_to_string(path).unwrap();
    let expected: Vec<&str> = fixture.lines().filter(|l| !l.starts_with('%')).collect();
    let got = nvq_ok(
        &scenario("dmon_public_gpm.toml"),
        &["dmon", "--gpm-metrics", "1,2,13", "-c", "4"],
    );
    let got: Vec<&str> = got.lines().map(str::trim_end).collect();
    assert_eq!(got, expected);
}

/// A GPM scenario: `gpus` are written as TOML after the head.
fn gpm_scenario(devices: &str) -> tempfile::NamedTempFile {
    common::write_scenario(&format!("driver_version = \"590.48.01\"\n{devices}"))
}

/// GPM metrics a GPU does not have (any metric before Hopper, an id NVML
/// lacks on Hopper) stay `-`; ids come in the order given, once each; nvq's
/// formats carry them as typed percent columns.
#[test]
fn gpm_metrics_missing_values_order_and_formats() {
    let sc = gpm_scenario(
        r#"
[[device]]
name = "NVIDIA H100 80GB HBM3"
architecture = 9
gpm = { "5" = [10.0, 20.0, 30.0], "10" = 55.5 }

[[device]]
name = "NVIDIA A100-SXM4-80GB"
architecture = 8
gpm = { "5" = 99.0, "10" = 99.0 }
"#,
    );
    let out = nvq_ok(
        sc.path(),
        &["dmon", "-s", "p", "--gpm-metrics", "10,5,3,10", "-c", "3"],
    );
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        lines[0],
        "# gpu    pwr  gtemp  mtemp       dram     mmaact      smocc "
    );
    let cells = |l: &str| l.split_whitespace().skip(4).collect::<Vec<_>>().join(" ");
    // Two header lines, then GPU 0 and GPU 1 per sample.
    assert_eq!(cells(lines[2]), "- - -");
    assert_eq!(cells(lines[4]), "- - -");
    assert_eq!(cells(lines[6]), "55 30 -", "{out}");
    assert_eq!(cells(lines[7]), "- - -", "{out}");
    let csv = nvq_ok(
        sc.path(),
        &[
            "dmon",
            "-s",
            "p",
            "--gpm-metrics",
            "5",
            "-c",
            "3",
            "-i",
            "0",
            "--format",
            "csv",
        ],
    );
    let csv: Vec<&str> = csv.lines().collect();
    assert_eq!(csv[0], "index, pwr [W], gtemp [C], mtemp [C], mmaact [%]");
    assert!(csv[3].ends_with(", 30 %"), "{csv:?}");
}

/// `--gpm-options dm`: the GPU's row and one row per MIG GPU instance, told
/// apart by a `gi` column (`-` on the GPU's row); `m` alone leaves the GPU's
/// own GPM cells `-`. (nvq's layout: no public capture of MIG rows exists.)
#[test]
fn gpm_mig_rows() {
    let sc = gpm_scenario(
        r#"
[[device]]
name = "NVIDIA H100 80GB HBM3"
architecture = 9
mig = { current = 1, pending = 1, max_devices = 7 }
gpm = { "2" = 40.0 }

[[device.mig_instance]]
name = "NVIDIA H100 80GB HBM3 MIG 3g.40gb"
gpu_instance_id = 1
compute_instance_id = 0
gpm = { "2" = [10.0, 20.0, 30.0] }

[[device.mig_instance]]
name = "NVIDIA H100 80GB HBM3 MIG 1g.10gb"
gpu_instance_id = 9
compute_instance_id = 0
"#,
    );
    let run = |level: &str| {
        nvq_ok(
            sc.path(),
            &[
                "dmon",
                "-s",
                "p",
                "--gpm-metrics",
                "2",
                "--gpm-options",
                level,
                "-c",
                "3",
            ],
        )
    };
    let out = run("dm");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0], "# gpu  gi    pwr  gtemp  mtemp     smutil ");
    assert_eq!(lines[1], "# Idx Idx      W      C      C      GPM:% ");
    let last: Vec<String> = lines[lines.len() - 3..]
        .iter()
        .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
        .collect();
    assert_eq!(
        last,
        ["0 - - - - 40", "0 1 - - - 30", "0 9 - - - -"],
        "{out}"
    );
    let out = run("m");
    let gpu_row = out.lines().rev().nth(2).unwrap();
    assert!(gpu_row.trim_end().ends_with(" -"), "{out}");
}

/// A bad `--gpm-metrics` or `--gpm-options` ends before NVML is read, exit 2.
#[test]
fn bad_gpm_options_exit_2() {
    for (args, msg) in [
        (
            &["dmon", "--gpm-metrics", "1,8"][..],
            "\"8\" in --gpm-metrics 1,8",
        ),
        (
            &["dmon", "--gpm-metrics", "1, 2"],
            "\" 2\" in --gpm-metrics",
        ),
        (
            &["dmon", "--gpm-metrics", "1", "--gpm-options", "x"],
            "--gpm-options takes d, m or dm",
        ),
    ] {
        let out = run(&mon4(), args);
        assert_eq!(out.code, Some(2), "{args:?}");
        let err = out.stderr;
        assert!(err.contains(msg), "{args:?}: {err}");
        assert!(out.stdout.is_empty(), "{args:?}");
    }
}
