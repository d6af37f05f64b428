//! Plain `nvq`, the summary table, in the layout of each driver branch:
//! public `nvidia-smi` tables people committed (tests/summary_public/, one
//! file each, sources in its SOURCES.md and in each file's `% ` line), each
//! reproduced byte for byte from a scenario of its machine. A capture that
//! kept its date line has it compared by shape; one that did not is
//! compared from the banner's rule on.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;

use common::*;

/// (capture, scenario): the captures of every layout, oldest driver first.
const CAPTURES: &[(&str, &str)] = &[
    ("t_419_mx250_windows", "sp_419_mx250_windows"),
    ("t_440_rtx2070", "sp_440_rtx2070"),
    ("t_460_rtx2070", "sp_460_rtx2070"),
    ("t_460_t4_mps", "sp_460_t4_mps"),
    ("t_470_rtx3080laptop", "sp_470_rtx3080laptop"),
    ("t_470_gtx680", "q_gtx680_470"),
    ("t_470_t4", "sp_470_t4"),
    ("t_470_a6000x2_container", "sp_470_a6000x2_container"),
    ("t_520_a2000laptop", "sp_520_a2000laptop"),
    ("t_525_a2000laptop", "sp_525_a2000laptop"),
    ("t_535_gtx1050ti", "q_gtx1050ti_535"),
    ("t_550_a10", "q_a10_550"),
    ("t_550_rtx2000ada", "sp_550_rtx2000ada"),
    ("t_550_v100x8", "sp_550_v100x8"),
    ("t_555_a100x4", "sp_555_a100x4"),
    ("t_560_rtx3090x2", "q_rtx3090x2_560"),
    ("t_560_a2000laptop", "sp_560_a2000laptop"),
    ("t_565_h100x8", "sp_565_h100x8"),
    ("t_570_rtx5090", "sp_570_rtx5090"),
    ("t_580_rtx2000ada", "sp_580_rtx2000ada"),
];

/// `Sat Sep  6 12:38:38 2025` and the spaces after it.
fn is_date_line(s: &str) -> bool {
    const DAYS: [&str; 7] = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"];
    s.len() >= 24 && DAYS.contains(&&s[..3]) && s.as_bytes()[13] == b':' && s.as_bytes()[16] == b':'
}

/// Marks a capture whose paste lost its trailing spaces: it is compared
/// with nvq's lines trimmed at the end.
const TRIMMED: &str = "% pasted";

/// The capture without its `% ` source lines, ending in a newline, and
/// whether its lines lost their trailing spaces.
fn capture(name: &str) -> (String, bool) {
    let path = repo_root().join(format!("tests/summary_public/{name}.txt"));
    let text = std::fs::read_to_string(&path).unwrap();
    let trimmed = text.lines().any(|l| l.starts_with(TRIMMED));
    let body = text
        .lines()
        .filter(|l| !l.starts_with("% "))
        .map(|l| format!("{l}\n"))
        .collect();
    (body, trimmed)
}

fn trim_lines(text: &str) -> String {
    text.lines()
        .map(|l| format!("{}\n", l.trim_end()))
        .collect()
}

/// nvq's table for `scenario_name` and the capture, both from the line
/// after the date (the capture's date line, when it has one, only has to
/// be a date).
fn compared(capture_name: &str, scenario_name: &str) -> (String, String) {
    let (expected, trimmed) = capture(capture_name);
    let actual = nvq_ok(&scenario(&format!("{scenario_name}.toml")), &[] as &[&str]);
    let (date, rest) = actual.split_once('\n').unwrap();
    assert!(is_date_line(date), "date line {date:?}");
    let expected = match expected.split_once('\n') {
        Some((first, tail)) if is_date_line(first) => {
            if !trimmed {
                assert_eq!(first.len(), date.len(), "{capture_name}: date line width");
            }
            tail.to_string()
        }
        _ => expected,
    };
    if trimmed {
        (trim_lines(rest), trim_lines(&expected))
    } else {
        (rest.to_string(), expected)
    }
}

#[test]
fn every_public_table_is_reproduced_in_its_drivers_layout() {
    let mut failed = Vec::new();
    for (capture_name, scenario_name) in CAPTURES {
        let (actual, expected) = compared(capture_name, scenario_name);
        if actual != expected {
            let line = actual
                .lines()
                .zip(expected.lines())
                .position(|(a, e)| a != e);
            failed.push(format!(
                "{capture_name} ({scenario_name}), first differing line {line:?}\n--- capture\n{expected}--- nvq\n{actual}"
            ));
        }
    }
    assert!(failed.is_empty(), "{}", failed.join("\n"));
}

#[test]
fn each_layout_has_its_width() {
    // 79 columns up to 525, 89 on 535, 91 from 550: every line of the box
    // (the spacer after the GPU boxes is 89 spaces on 550 to 575).
    for (capture_name, width) in [
        ("t_440_rtx2070", 79),
        ("t_525_a2000laptop", 79),
        ("t_535_gtx1050ti", 89),
        ("t_560_a2000laptop", 91),
        ("t_580_rtx2000ada", 91),
    ] {
        let (actual, _) = compared(
            capture_name,
            CAPTURES.iter().find(|c| c.0 == capture_name).unwrap().1,
        );
        for line in actual.lines().filter(|l| l.starts_with(['|', '+'])) {
            assert_eq!(line.len(), width, "{capture_name}: {line:?}");
        }
    }
}

/// The table of `scenario_file` from the line after the date.
fn table(scenario_file: &std::path::Path) -> String {
    let out = nvq_ok(scenario_file, &[] as &[&str]);
    out.split_once('\n').unwrap().1.to_string()
}

#[test]
fn a_pending_mig_mode_is_marked_with_a_star() {
    // Public 79-column tables of A100s after `nvidia-smi -mig 0`, before the
    // reset: ECC `On` and utilisation `N/A` (MIG still on), `Disabled*`
    // under MIG M., and the MIG devices section (here with its devices).
    let out = table(&scenario("sp_mig_cells.toml"));
    assert!(
        out.contains("|                                         |                      |            Disabled* |\n"),
        "{out}"
    );
    assert!(
        out.contains("|                                         |                      |             Enabled* |\n"),
        "{out}"
    );
    assert!(out.contains("| MIG devices:"), "{out}");
}

#[test]
fn a_mig_gpus_processes_go_by_gpu_instance() {
    let out = table(&scenario("sp_mig_cells.toml"));
    let gi1 = out.find("|    0    1    0       2000      C").expect(&out);
    let gi2 = out.find("|    0    2    0       1000      C").expect(&out);
    assert!(gi1 < gi2, "{out}");
}

#[test]
fn a_mig_mode_nvml_cannot_read_is_err() {
    // nvmlDeviceGetMigMode missing from the library: `ERR!` (N/A is for a
    // GPU without MIG, NOT_SUPPORTED).
    let f = scenario_at(
        "sp_mig_cells.toml",
        &[(
            "cuda_driver_version = 12020  # 12.2",
            "cuda_driver_version = 12020\nabsent_functions = [\"nvmlDeviceGetMigMode\"]",
        )],
    );
    let out = table(f.path());
    assert!(
        out.contains("|                                         |                      |                 ERR! |\n"),
        "{out}"
    );
    let out = table(&scenario("q_gtx1050ti_535.toml"));
    assert!(out.contains("|                  N/A |\n"), "{out}");
}

#[test]
fn a_windows_process_name_nvml_may_not_read_is_insufficient_permissions() {
    // Windows tables and `-q -x` reports print `Insufficient Permissions`
    // for a process whose name NVML may not read (NO_PERMISSION).
    let f = scenario_at(
        "modes_rtx2080_wddm.toml",
        &[(
            "pid = 12444\nname = 'C:\\Windows\\SystemApps\\MicrosoftWindows.Client.CBS_cw5n1h2txyewy\\TextInputHost.exe'",
            "pid = 12444\nname_error = \"NO_PERMISSION\"",
        )],
    );
    let out = table(f.path());
    let line = out.lines().find(|l| l.contains(" 12444 ")).expect(&out);
    assert!(line.contains("   Insufficient Permissions "), "{line}");
}

#[test]
fn mig_devices_in_each_layout() {
    // The section's head and one device as public tables show them: 79
    // columns (470-era A100 tables, values cut to 21 with `...`), 89 (A30
    // and A100 tables of 535), 91 on 550 (the engines' head of its own,
    // BAR1 two columns further right), 555 on (580's engines' head), 580
    // on (`Shared Memory-Usage`, BAR1 under the memory).
    let cases: &[(&str, &[&str])] = &[
        (
            "470.82.01",
            &[
                "+------------------+----------------------+-----------+-----------------------+",
                "| GPU  GI  CI  MIG |         Memory-Usage |        Vol|         Shared        |",
                "|      ID  ID  Dev |           BAR1-Usage | SM     Unc| CE  ENC  DEC  OFA  JPG|",
                "|                  |                      |        ECC|                       |",
                "|==================+======================+===========+=======================|",
                "|  0    0   0   0  |      1MiB / 64912MiB | 70    N/A |  5   0    0    0    0 |",
                "|                  |      0MiB / 65536MiB |           |                       |",
            ],
        ),
        (
            "535.104.05",
            &[
                "+------------------+--------------------------------+-----------+-----------------------+",
                "| GPU  GI  CI  MIG |                   Memory-Usage |        Vol|      Shared           |",
                "|      ID  ID  Dev |                     BAR1-Usage | SM     Unc| CE ENC DEC OFA JPG    |",
                "|  0    0   0   0  |               1MiB / 64912MiB  | 70    N/A |  5   0    0    0    0 |",
                "|                  |               0MiB / 65536MiB  |           |                       |",
            ],
        ),
        (
            "550.54.15",
            &[
                "| GPU  GI  CI  MIG |                     Memory-Usage |        Vol|      Shared           |",
                "|      ID  ID  Dev |                       BAR1-Usage | SM     Unc| CE ENC DEC OFA JPG    |",
                "|  0    0   0   0  |               1MiB / 64912MiB    | 70    N/A |  5   0    0    0    0 |",
                "|                  |                 0MiB / 65536MiB  |           |                       |",
            ],
        ),
        (
            "560.35.03",
            &[
                "| GPU  GI  CI  MIG |                     Memory-Usage |        Vol|        Shared         |",
                "|      ID  ID  Dev |                       BAR1-Usage | SM     Unc| CE ENC  DEC  OFA  JPG |",
                "|                  |                 0MiB / 65536MiB  |           |                       |",
            ],
        ),
        (
            "590.48.01",
            &[
                "| GPU  GI  CI  MIG |              Shared Memory-Usage |        Vol|        Shared         |",
                "|                  |               0MiB / 65536MiB    |           |                       |",
            ],
        ),
    ];
    for (driver, lines) in cases {
        let f = scenario_at(
            "report_mig.toml",
            &[(
                "driver_version = \"590.48.01\"",
                &format!("driver_version = \"{driver}\""),
            )],
        );
        let out = table(f.path());
        for line in *lines {
            assert!(
                out.contains(&format!("{line}\n")),
                "{driver}: {line}\n{out}"
            );
        }
    }
    // A value wider than the 79-column cell is cut.
    let f = scenario_at(
        "report_mig.toml",
        &[
            (
                "driver_version = \"590.48.01\"",
                "driver_version = \"470.82.01\"",
            ),
            (
                "bar1 = { total = 68719476736,",
                "bar1 = { total = 137438953472,",
            ),
        ],
    );
    let out = table(f.path());
    assert!(out.contains("|      0MiB / 13107... |"), "{out}");
}

#[test]
fn before_410_the_banner_has_no_cuda_field() {
    // The banner of a public 367.57 table (wookayin/gpustat#16) and a
    // 399.24 one: the version fields 23 and 26 wide, no CUDA field.
    let f = scenario_at(
        "sp_440_rtx2070.toml",
        &[(
            "driver_version = \"440.100\"",
            "driver_version = \"367.57\"",
        )],
    );
    let out = table(f.path());
    let banner = out.lines().nth(1).unwrap();
    assert_eq!(
        banner,
        "| NVIDIA-SMI 367.57                 Driver Version: 367.57                    |"
    );
    assert!(!out.contains("MIG M."), "{out}");
}

#[test]
fn list_gpus_prints_a_uuid_it_cannot_read_as_plain_n_a() {
    // `-L` of a GPU whose UUID NVML does not give (NOT_SUPPORTED): `(UUID:
    // N/A)`, as on some old consumer boards (a public script's note), not
    // the query's bracketed `[N/A]`.
    let out = nvq_ok(&scenario("sp_440_rtx2070.toml"), &["-L"]);
    assert_eq!(
        out,
        "GPU 0: GeForce RTX 2070 with Max-Q Design (UUID: N/A)\n"
    );
}

#[test]
fn a_unified_memory_gpu_has_no_memory_cell() {
    // A GB10 (DGX Spark) answers NOT_SUPPORTED for its memory and power
    // cap: the lines of public 580.95 to 580.178 GB10 tables.
    let out = table(&scenario("sp_gb10_580.toml"));
    for line in [
        "|   0  NVIDIA GB10                    On  |   0000000F:01:00.0 Off |                  N/A |",
        "| N/A   36C    P8              3W /  N/A  | Not Supported          |      0%      Default |",
    ] {
        assert!(out.contains(&format!("{line}\n")), "{line}\n{out}");
    }
}

#[test]
fn a_public_gb10_table_is_reproduced() {
    // ArcticTraining's post stops after the GPU box: nvq's table, from the
    // banner on, begins with its lines (the scenario on the post's driver).
    let (expected, _) = capture("t_580_gb10");
    let sc = scenario_at(
        "sp_gb10_580.toml",
        &[(
            "driver_version = \"580.173.02\"",
            "driver_version = \"580.126.09\"",
        )],
    );
    let rest = table(sc.path());
    assert!(
        rest.starts_with(&expected),
        "--- capture\n{expected}--- nvq\n{rest}"
    );
}

#[test]
fn the_530_head_of_a_wsl_table() {
    // Under WSL nvidia-smi's own version (530.47) differs from the Windows
    // driver's NVML names (531.68); nvq prints the driver's in both banner
    // fields, so the comparison starts under the banner.
    let (actual, expected) = compared("t_531_rtx3070_wsl", "sp_531_rtx3070_wsl");
    let after_banner = |t: &str| {
        t.lines()
            .skip(2)
            .map(|l| format!("{l}\n"))
            .collect::<String>()
    };
    assert_eq!(after_banner(&actual), after_banner(&expected));
}

#[test]
fn an_unreadable_memory_cell_in_the_79_column_table() {
    // `N/A` against the cell's edge, one space short of it (a public table
    // of a GRID A100 vGPU on a 79-column driver: `|                  N/A |`;
    // from 550 it stands three short: `|                  N/A   |`).
    let fault = "\n[[device.fault]]\nfunction = \"nvmlDeviceGetMemoryInfo_v2\"\ncode = \"UNKNOWN\"\n\n[[device.fault]]\nfunction = \"nvmlDeviceGetMemoryInfo\"\ncode = \"UNKNOWN\"\n";
    let text = std::fs::read_to_string(scenario("sp_470_t4.toml")).unwrap();
    let f = tempfile::Builder::new().suffix(".toml").tempfile().unwrap();
    std::fs::write(f.path(), format!("{text}{fault}")).unwrap();
    let out = table(f.path());
    assert!(
        out.contains(
            "| N/A   28C    P8     9W /  70W |                  N/A |      0%      Default |\n"
        ),
        "{out}"
    );
}
