#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! `-q` text reports of drivers 470 to 570, against public `nvidia-smi -q`/`-a`
//! outputs people committed or posted (tests/report_public/, one file each,
//! sources in tests/report_public/SOURCES.md and in each file's `% ` lines).
//! Each has a scenario of its machine (tests/scenarios/q_*.toml); the report
//! must be the output byte for byte, but for the timestamp and the lines
//! listed with each test.

use crate::common;

use common::*;

/// Lines nvq cannot reproduce: nvidia-smi prints a value, nvq `N/A`, because
/// no public NVML function gives it (the same gaps as `tests/report.rs`).
const GAPS: &[&str] = &[
    "GPU Part Number",
    "Relaxed Ordering Mode",
    "Host Max",
    "Sparse Operation Mode",
];

/// The fixture's output: its `% ` source lines stripped. nvidia-smi ends a
/// report with an empty line; every posted output but one (`q_535_rtx4090x8`,
/// which keeps it) lost it when it was pasted, so it is put back.
fn fixture(name: &str) -> String {
    let text = std::fs::read_to_string(repo_root().join("tests/report_public").join(name)).unwrap();
    let mut out: String = text
        .lines()
        .filter(|l| !l.starts_with("% "))
        .map(|l| format!("{l}\n"))
        .collect();
    if name != "q_535_rtx4090x8.txt" {
        out.push('\n');
    }
    out
}

/// The voltage section's value: nvq has no NVML source for the graphics
/// voltage yet (`-d VOLTAGE` is another branch's work), so a fixture's
/// `Voltage`/`Graphics : X mV` line is compared as `N/A`.
fn voltage_unread(expected: &str) -> String {
    let mut out = String::new();
    let mut after_voltage = false;
    for l in expected.lines() {
        let masked = match l.split_once(" : ") {
            Some((label, v))
                if after_voltage && label.trim() == "Graphics" && v.ends_with(" mV") =>
            {
                format!("{label} : N/A")
            }
            _ => l.to_string(),
        };
        after_voltage = l == "    Voltage";
        out.push_str(&masked);
        out.push('\n');
    }
    out
}

fn check(fixture_name: &str, scenario_name: &str, args: &[&str]) {
    let expected = voltage_unread(&fixture(fixture_name));
    let actual = nvq_ok(&scenario(scenario_name), args);
    let diffs = report_differences(&actual, &expected, GAPS);
    assert!(
        diffs.is_empty(),
        "{fixture_name}:\n{}\n--- nvq:\n{actual}",
        diffs.join("\n")
    );
}

/// Driver 550.90, an A10 passed through to a VM: the 545-565 layout (C2C
/// mode, vGPU heterogeneous mode, the GSP version after the reset status,
/// class codes, split SRAM counts, one memory power draw, the fabric's
/// clique and bandwidth health), inbound atomics first, `Gpu` utilisation,
/// the colon in column 42.
#[test]
fn a10_550_report_is_the_public_output() {
    check("q_550_a10.txt", "q_a10_550.toml", &["-a"]);
}

/// Driver 470.256, a GeForce GTX 680 (Kepler) that NVML tells little about:
/// no architecture or reserved memory line yet, `Ecc Mode`, ECC errors by
/// location (`Single Bit` padded with twelve spaces), the clocks throttle
/// reasons as one `N/A` line, the pre-535 `Power Readings`.
#[test]
fn gtx680_470_report_is_the_public_output() {
    check("q_470_gtx680.txt", "q_gtx680_470.toml", &["-a"]);
}

/// Driver 535.161, a GeForce GTX 1050 Ti (Pascal): the 535 layout with the
/// branch's late InfoROM BBX flush and sparse operation mode, the GSP
/// version after the operation mode, ECC errors by location, `Remapped Rows
/// : N/A`, the colon in column 42.
#[test]
fn gtx1050ti_535_report_is_the_public_output() {
    check("q_535_gtx1050ti.txt", "q_gtx1050ti_535.toml", &["-a"]);
}

/// Driver 560.35, two GeForce RTX 3090 without ECC: outbound atomics first,
/// the capabilities (EGM), the SRAM counts split although NVML has none
/// (`N/A` on every line), two GPU blocks with an empty line between them.
#[test]
fn rtx3090_560_report_is_the_public_output() {
    check("q_560_rtx3090.txt", "q_rtx3090x2_560.toml", &["-a"]);
}

/// Driver 570.124, a GeForce RTX 5090 (Blackwell): the 570 layout (platform
/// info with what NVML returns, an empty chassis serial number and a fabric
/// GUID of `0x0` included, the recovery action, `GPU` utilisation, DRAM
/// encryption, average and instant power draws, power smoothing and
/// profiles, the fabric's whole health), T.Limit temperatures, the colon
/// still in column 42.
#[test]
fn rtx5090_570_report_is_the_public_output() {
    check("q_570_rtx5090.txt", "q_rtx5090_570.toml", &["-a"]);
}

/// Driver 550.54, a GeForce RTX 3080: the 545-565 layout without ECC (the
/// SRAM counts split all the same, `Remapped Rows : N/A`), no GSP firmware.
#[test]
fn rtx3080_550_report_is_the_public_output() {
    check("q_550_rtx3080.txt", "q_rtx3080_550.toml", &["-a"]);
}

/// The header and first GPU block of a fixture of several GPUs, against
/// `nvq -q -i 0` (which nvidia-smi prints the same) on the scenario's GPU
/// repeated to make `count` GPUs.
/// (`None`: the fixture holds the first GPU only, its poster trimmed the rest.)
fn check_first_gpu(
    fixture_name: &str,
    scenario_name: &str,
    count: usize,
    second_bus_id: Option<&str>,
) {
    check_first_gpu_trimmed(fixture_name, scenario_name, count, second_bus_id, false);
}

/// The same, for a fixture whose trailing spaces were trimmed (`trimmed`):
/// nvq's are trimmed too before the comparison.
fn check_first_gpu_trimmed(
    fixture_name: &str,
    scenario_name: &str,
    count: usize,
    second_bus_id: Option<&str>,
    trimmed: bool,
) {
    let text = std::fs::read_to_string(scenario(scenario_name)).unwrap();
    let gpu = &text[text.find("[[device]]").unwrap()..];
    let f = tempfile::Builder::new().suffix(".toml").tempfile().unwrap();
    let copies = format!("\n{gpu}").repeat(count - 1);
    std::fs::write(f.path(), format!("{text}{copies}")).unwrap();
    let whole = voltage_unread(&fixture(fixture_name));
    // The first GPU's block, with the empty line that ends `-i 0`'s report.
    let expected = match second_bus_id {
        Some(id) => &whole[..whole.find(&format!("\n\nGPU {id}\n")).unwrap() + 2],
        None => &whole[..],
    };
    let mut actual = nvq_ok(f.path(), &["-q", "-i", "0"]);
    if trimmed {
        actual = actual
            .lines()
            .map(|l| format!("{}\n", l.trim_end()))
            .collect();
    }
    let diffs = report_differences(&actual, expected, GAPS);
    assert!(
        diffs.is_empty(),
        "{fixture_name}:\n{}\n--- nvq:\n{actual}",
        diffs.join("\n")
    );
}

/// Driver 565.57, the first of eight H100 SXM: 565's platform info labels,
/// the recovery action, one memory power draw with a value, T.Limit
/// temperatures, the fabric, the InfoROM BBX flush time and duration. The
/// sparse mode is a gap (no NVML source).
#[test]
fn h100_565_report_is_the_public_output() {
    check_first_gpu(
        "q_565_h100x8.txt",
        "q_h100_565.toml",
        8,
        Some("00000000:2A:00.0"),
    );
}

/// Driver 555.42, the first of four A100 SXM4: the 545-565 layout with ECC
/// and row remapping, inbound atomics first, the capabilities (new in 555).
#[test]
fn a100_555_report_is_the_public_output() {
    check_first_gpu(
        "q_555_a100x4.txt",
        "q_a100_555.toml",
        4,
        Some("00000000:9E:00.0"),
    );
}

/// Driver 550.127, an L40S: the 545-565 layout with T.Limit temperatures
/// (thresholds relative to the margin), no fan and no GSP firmware.
#[test]
fn l40s_550_report_is_the_public_output() {
    check("q_550_l40s.txt", "q_l40s_550.toml", &["-a"]);
}

/// Driver 535.247, an A10G with one process in a container (no name): the
/// 535 branch's late lines all there (BBX flush, sparse mode, and the split
/// SRAM counts that 535.129 does not print), the GSP version after the
/// operation mode, no class codes or memory power yet, the process list in
/// its narrower column. The paste has an empty line after `Tx
/// Throughput`, which no other report has: it is taken out.
#[test]
fn a10g_535_report_is_the_public_output() {
    let expected = voltage_unread(&fixture("q_535_a10g.txt")).replace(
        "Tx Throughput                     : 0 KB/s\n\n",
        "Tx Throughput                     : 0 KB/s\n",
    );
    let actual = nvq_ok(&scenario("q_a10g_535.toml"), &["-q"]);
    let diffs = report_differences(&actual, &expected, GAPS);
    assert!(diffs.is_empty(), "{}\n--- nvq:\n{actual}", diffs.join("\n"));
}

/// Driver 418.67, the first of four V100 SXM2 on a POWER9 node (the page
/// keeps that GPU only): the colon in column 36, `Virtualization mode`, ECC
/// errors by location on Volta, the retired pages' `Pending`, no remapped
/// rows, target temperature or voltage. The IBMNPU relaxed ordering mode
/// (`Disabled` there) is a gap: nvq has no NVML source for it.
#[test]
fn v100_418_report_is_the_public_output() {
    check_first_gpu("q_418_v100.txt", "q_v100_418.toml", 4, None);
}

/// Driver 545.23, an H100 SXM: the InfoROM BBX flush, the GSP version still
/// after the operation mode and before the C2C mode, no vGPU heterogeneous
/// mode, class codes, sparse mode or split SRAM counts, one memory power
/// draw, the fabric's state and status only. The page dropped nvidia-smi's
/// empty lines around the banner; they are put back.
#[test]
fn h100_545_report_is_the_public_output() {
    let expected = voltage_unread(&fixture("q_545_h100.txt")).replacen(
        "==============NVSMI LOG==============\n",
        "\n==============NVSMI LOG==============\n\n",
        1,
    );
    let actual = nvq_ok(&scenario("q_h100_545.toml"), &["-a"]);
    let diffs = report_differences(&actual, &expected, GAPS);
    assert!(diffs.is_empty(), "{}\n--- nvq:\n{actual}", diffs.join("\n"));
}

/// Driver 550.127, the first of eight V100 SXM2 16GB: ECC errors still by
/// location on Volta (with `N/A` texture counts), the 545-565 layout around
/// them. Its `Host Max : Unknown Error` is a gap (nvq: N/A).
#[test]
fn v100_550_report_is_the_public_output() {
    check_first_gpu(
        "q_550_v100x8.txt",
        "q_v100_550.toml",
        8,
        Some("00000000:00:05.0"),
    );
}

/// Driver 535.154, the first of eight GeForce RTX 4090: the 535 branch with
/// the InfoROM BBX flush (535.129 on) but no sparse mode yet (535.161 on),
/// T.Limit temperatures with a target temperature.
#[test]
fn rtx4090_535_report_is_the_public_output() {
    check_first_gpu(
        "q_535_rtx4090x8.txt",
        "q_rtx4090_535.toml",
        8,
        Some("00000000:23:00.0"),
    );
}

/// Driver 535.161, the first of eight H100 SXM with the power brake asserted:
/// the 535 branch with the BBX flush, the sparse mode and the split SRAM
/// counts (all three from 535.161 on). gpud's file has its trailing spaces
/// trimmed (nvidia-smi ends the atomic caps with one): nvq's are trimmed too.
#[test]
fn h100_535_report_is_the_public_output() {
    check_first_gpu_trimmed(
        "q_535_h100x8.txt",
        "q_h100_535.toml",
        8,
        Some("00000000:3B:00.0"),
        true,
    );
}

/// Driver 535.129, an A10 with rows pending remapping: the InfoROM BBX flush
/// already there, no sparse mode or split SRAM counts yet. gpud's file lost
/// nvidia-smi's first, empty line; it is put back.
#[test]
fn a10_535_report_is_the_public_output() {
    let expected = format!("\n{}", voltage_unread(&fixture("q_535_a10.txt")));
    let actual = nvq_ok(&scenario("q_a10_535.toml"), &["-q"]);
    let diffs = report_differences(&actual, &expected, GAPS);
    assert!(diffs.is_empty(), "{}\n--- nvq:\n{actual}", diffs.join("\n"));
}

/// Driver 560.35, a TITAN V (Volta) with three graphics processes: ECC
/// errors by location (all `N/A`, no ECC on this board), the process list.
/// gpud's file lost nvidia-smi's first, empty line (put back) and its
/// trailing spaces (nvq's are trimmed too).
#[test]
fn titanv_560_report_is_the_public_output() {
    let expected = format!("\n{}", voltage_unread(&fixture("q_560_titanv.txt")));
    let actual: String = nvq_ok(&scenario("q_titanv_560.toml"), &["-q"])
        .lines()
        .map(|l| format!("{}\n", l.trim_end()))
        .collect();
    let diffs = report_differences(&actual, &expected, GAPS);
    assert!(diffs.is_empty(), "{}\n--- nvq:\n{actual}", diffs.join("\n"));
}

/// The report of `scenario_name` as if its driver were `driver`.
fn report_on(scenario_name: &str, from: &str, driver: &str) -> String {
    let f = scenario_at(
        scenario_name,
        &[(
            &format!("driver_version = \"{from}\""),
            &format!("driver_version = \"{driver}\""),
        )],
    );
    nvq_ok(f.path(), &["-q"])
}

/// Lines 470.129 and 470.256 print that the 450 reports (450.51, 450.57,
/// 450.102) lack: the module id, the GSP firmware version, the target
/// temperature and the voltage section.
#[test]
fn a_450_report_lacks_the_lines_470_added() {
    let lines = [
        "    Module ID ",
        "    GSP Firmware Version ",
        "        GPU Target Temperature ",
        "    Voltage\n",
    ];
    let r450 = report_on("q_gtx680_470.toml", "470.256.02", "450.102.04");
    let r470 = report_on("q_gtx680_470.toml", "470.256.02", "470.129.06");
    for l in lines {
        assert!(!r450.contains(l), "450 has {l:?}:\n{r450}");
        assert!(r470.contains(l), "470 lacks {l:?}:\n{r470}");
    }
}

/// `Ecc Mode` up to 525.125 (the 418, 470 and 525.105/525.125 reports),
/// `ECC Mode` from 535.
#[test]
fn ecc_mode_is_spelt_ecc_up_to_525() {
    let r525 = report_on("q_a10_535.toml", "535.129.03", "525.125.06");
    assert!(r525.contains("\n    Ecc Mode\n"), "{r525}");
    let r535 = report_on("q_a10_535.toml", "535.129.03", "535.129.03");
    assert!(r535.contains("\n    ECC Mode\n"), "{r535}");
}

/// A 525.105 report of a GPU with a T.Limit margin names the thresholds
/// without it (`GPU Shutdown Temp`); 535's name them after it.
#[test]
fn temperature_thresholds_take_the_t_limit_name_from_535() {
    let r525 = report_on("q_h100_535.toml", DRIVER_H100_535, "525.105.17");
    for l in [
        "        GPU Shutdown Temp ",
        "        GPU Slowdown Temp ",
        "        GPU Max Operating Temp ",
        "        Memory Max Operating Temp ",
    ] {
        assert!(r525.contains(l), "525 lacks {l:?}:\n{r525}");
    }
    assert!(!r525.contains("Shutdown T.Limit"), "{r525}");
    let r535 = report_on("q_h100_535.toml", DRIVER_H100_535, DRIVER_H100_535);
    assert!(
        r535.contains("        GPU Shutdown T.Limit Temp "),
        "{r535}"
    );
}
const DRIVER_H100_535: &str = "535.161.08";
