#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! `--query-gpu` conformance: nvq, run against the simulator with a scenario
//! rebuilt from each real capture, prints what nvidia-smi printed, byte for
//! byte (a timestamp cell only has to be a timestamp).
//!
//! The captures and their command lines are read from
//! `../shared/nvidia-smi/captures/` at run time; without that folder the
//! comparisons say so and skip. Scenarios live in `tests/scenarios/`.

use crate::common;

use assert_cmd::Command;
use common::*;
use std::path::Path;

/// Cells nvq knowingly cannot reproduce, with the reason. Every other cell
/// must match.
const KNOWN_GAPS: &[(&str, &str, &str)] = &[
    (
        "03_",
        "pcie.link.gen.hostmax",
        "no NVML function known for the host's PCIe generation; nvq prints [N/A]",
    ),
    (
        "04_",
        "pcie.link.gen.hostmax",
        "no NVML function known for the host's PCIe generation; nvq prints [N/A]",
    ),
    (
        "04_",
        "bbx.time_run [seconds]",
        "no NVML function known for bbx.time_run; nvq prints [N/A] (610.62 printed [Function Not Found])",
    ),
];

fn gaps(prefix: &str) -> Vec<&'static str> {
    KNOWN_GAPS
        .iter()
        .filter(|(p, _, _)| *p == prefix)
        .map(|(_, col, _)| *col)
        .collect()
}

/// Compare, allowing only the known gaps of this capture (which must print
/// nvq's documented `[N/A]`).
fn check_capture(prefix: &str, scenario_name: &str, args: &[String]) {
    let Some((file, mut expected)) = capture(prefix) else {
        return;
    };
    if !expected.ends_with('\n') {
        // Capture 40 comes from a test fixture saved without its final
        // newline; nvidia-smi ends every line with one.
        expected.push('\n');
    }
    let actual = nvq_ok(&scenario(scenario_name), args);
    let allowed = gaps(prefix);
    let diffs: Vec<String> = csv_differences(&actual, &expected)
        .into_iter()
        .filter(|d| {
            !allowed
                .iter()
                .any(|col| d.contains(&format!("({col}): nvq \"[N/A]\"")))
        })
        .collect();
    assert!(
        diffs.is_empty(),
        "{file} / {scenario_name}:\n{}\n--- nvq:\n{actual}--- capture:\n{expected}",
        diffs.join("\n")
    );
}

fn cmd_args(prefix: &str) -> Option<Vec<String>> {
    let dir = shared_dir()?.join("nvidia-smi/captures/commands");
    // A capture whose command line is missing compares nothing: fail.
    let entry = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok())
        .find(|e| e.file_name().to_string_lossy().starts_with(prefix))
        .unwrap_or_else(|| panic!("no command line {prefix}* in {}", dir.display()));
    let line = std::fs::read_to_string(entry.path()).unwrap();
    Some(command_args(&line))
}

fn words(s: &str) -> Vec<String> {
    command_args(s)
}

#[test]
fn all_fields_h200_590() {
    if let Some(a) = cmd_args("01_") {
        check_capture("01_", "h200_590_idle.toml", &a);
    }
}

#[test]
fn all_fields_rtx2080super_595_linux() {
    if let Some(a) = cmd_args("03_") {
        check_capture("03_", "rtx2080super_595_linux_idle.toml", &a);
    }
}

#[test]
fn all_fields_rtx2080super_610_windows() {
    if let Some(a) = cmd_args("04_") {
        check_capture("04_", "rtx2080super_610_windows_idle.toml", &a);
    }
}

#[test]
fn all_fields_h100_mig_590() {
    if let Some(a) = cmd_args("06_") {
        check_capture("06_", "h100_mig_590_idle.toml", &a);
    }
}

#[test]
fn all_fields_rtx2080super_465_linux() {
    if let Some(a) = cmd_args("31_rtx2080super_465") {
        check_capture("31_rtx2080super_465", "rtx2080super_465_linux.toml", &a);
    }
}

#[test]
fn all_fields_rtx2080super_466_windows() {
    if let Some(a) = cmd_args("31_rtx2080super_466") {
        check_capture("31_rtx2080super_466", "rtx2080super_466_windows.toml", &a);
    }
}

/// The smaller captures; command lines as given in `captures/SOURCES.md`.
#[test]
fn smaller_captures() {
    let cases: &[(&str, &str, &str)] = &[
        (
            "40_",
            "tesla_p100_510.toml",
            "--query-gpu=name,uuid,fan.speed,pstate,memory.reserved,memory.used,memory.free,utilization.gpu,utilization.memory,temperature.gpu,power.draw,clocks.current.graphics,clocks.current.sm,clocks.current.memory,clocks.current.video --format=csv,nounits",
        ),
        (
            "42a_",
            "geforce_2gb_455.toml",
            "--query-gpu=memory.total,memory.free,memory.used,temperature.gpu,fan.speed,utilization.gpu,utilization.memory --format=csv,noheader,nounits",
        ),
        (
            "42b_",
            "geforce_2gb_440.toml",
            "--query-gpu=memory.total,memory.free,memory.used,temperature.gpu,fan.speed,utilization.gpu,utilization.memory --format=csv,noheader,nounits",
        ),
        (
            "43_",
            "gtx770_windows_391.toml",
            "--query-gpu=gpu_name,utilization.gpu,utilization.memory,temperature.gpu,power.draw,power.limit,fan.speed,pstate,clocks.current.graphics,clocks.current.memory,power.max_limit,power.default_limit --format=csv,noheader",
        ),
        (
            "44a_",
            "gtx650_410.toml",
            "--query-gpu=utilization.memory --format=csv",
        ),
        (
            "44b_",
            "gtx650_410.toml",
            "--query-gpu=utilization.gpu --format=csv",
        ),
        (
            "46_",
            "multigpu_5.toml",
            "--query-gpu=uuid,pci.bus_id,pci.domain --format=csv",
        ),
        (
            "51_",
            "ada_570.toml",
            "--query-gpu=compute_cap --format=csv",
        ),
        (
            "52_",
            "gtx1080_510.toml",
            "--query-gpu=clocks_throttle_reasons.supported --format=csv",
        ),
        // The capture does not show the template's field list; this one is
        // reconstructed from the row's shape (27 cells: time, index, name,
        // uuid, three unsupported inforom/serial cells, memory total/free/
        // used, ...). The values and tokens are the capture's.
        (
            "54_",
            "rtx3080_470.toml",
            "--query-gpu=timestamp,index,name,uuid,serial,inforom.ecc,inforom.pwr,memory.total,memory.free,memory.used,ecc.mode.current,ecc.mode.pending,utilization.gpu,temperature.gpu,compute_mode,ecc.errors.corrected.volatile.total,ecc.errors.corrected.aggregate.total,ecc.errors.uncorrected.volatile.total,ecc.errors.uncorrected.aggregate.total,retired_pages.pending,pstate,gom.current,gom.pending,retired_pages.single_bit_ecc.count,retired_pages.double_bit.count,mig.mode.current,mig.mode.pending --format=csv,noheader,nounits",
        ),
    ];
    for (prefix, scen, args) in cases {
        check_capture(prefix, scen, &words(args));
    }
}

/// A scenario file with its `driver_version` replaced, for testing both sides
/// of a driver boundary with the same machine.
fn with_driver(scenario_name: &str, version: &str) -> tempfile::NamedTempFile {
    let text = std::fs::read_to_string(scenario(scenario_name)).unwrap();
    let mut out = String::new();
    for line in text.lines() {
        if line.starts_with("driver_version") {
            out.push_str(&format!("driver_version = \"{version}\"\n"));
        } else {
            out.push_str(line);
            out.push('\n');
        }
    }
    let f = tempfile::Builder::new().suffix(".toml").tempfile().unwrap();
    std::fs::write(f.path(), out).unwrap();
    f
}

fn query(scen: &Path, fields: &str, format: &str) -> String {
    nvq_ok(
        scen,
        &[
            format!("--query-gpu={fields}"),
            format!("--format={format}"),
        ],
    )
}

/// nvq names the clock event reasons as the driver's nvidia-smi does:
/// `clocks_throttle_reasons.*` before 535, `clocks_event_reasons.*` from 535
/// on; both spellings are accepted on every driver.
#[test]
fn event_reason_spelling_follows_the_driver() {
    for (driver, header) in [
        (
            "510.85.02",
            "clocks_throttle_reasons.supported, clocks_throttle_reasons.gpu_idle",
        ),
        (
            "534.99",
            "clocks_throttle_reasons.supported, clocks_throttle_reasons.gpu_idle",
        ),
        (
            "535.129.03",
            "clocks_event_reasons.supported, clocks_event_reasons.gpu_idle",
        ),
        (
            "590.48.01",
            "clocks_event_reasons.supported, clocks_event_reasons.gpu_idle",
        ),
    ] {
        let s = with_driver("gtx1080_510.toml", driver);
        for list in [
            "clocks_throttle_reasons.supported,clocks_event_reasons.gpu_idle",
            "clocks_event_reasons.supported,clocks_throttle_reasons.gpu_idle",
        ] {
            let out = query(s.path(), list, "csv");
            assert_eq!(
                out,
                format!("{header}\n0x00000000000001FF, Active\n"),
                "{driver} {list}"
            );
        }
    }
}

/// NOT_SUPPORTED prints `[Not Supported]` before driver 450 and `[N/A]` from
/// 450 on (410.78 printed the first, 465.27 the second; the switch happened
/// around the 2020 driver upgrade of captures 42a/42b).
#[test]
fn not_supported_spelling_follows_the_driver() {
    for (driver, token) in [
        ("410.78", "[Not Supported]"),
        ("449.99", "[Not Supported]"),
        ("450.51", "[N/A]"),
        ("590.48.01", "[N/A]"),
    ] {
        let s = with_driver("gtx650_410.toml", driver);
        let out = query(
            s.path(),
            "utilization.gpu,temperature.gpu",
            "csv,noheader,nounits",
        );
        assert_eq!(out, format!("{token}, 35\n"), "driver {driver}");
    }
}

/// From 590 on, the application-clock, display-mode and power-management
/// fields print the deprecation token; before, they print their value.
#[test]
fn deprecated_fields_follow_the_driver() {
    let fields = "display_mode,power.management,clocks.applications.graphics,clocks.applications.memory,clocks.default_applications.graphics,clocks.default_applications.memory";
    let dep = "[Requested functionality has been deprecated]";
    let s = with_driver("rtx2080super_465_linux.toml", "590.48.01");
    assert_eq!(
        query(s.path(), fields, "csv,noheader"),
        format!("{dep}, {dep}, {dep}, {dep}, {dep}, {dep}\n")
    );
    let s = with_driver("rtx2080super_465_linux.toml", "589.99");
    assert_eq!(
        query(s.path(), fields, "csv,noheader"),
        "Enabled, Enabled, [N/A], [N/A], [N/A], [N/A]\n"
    );
}

/// A scenario with extra TOML appended (faults go into the last device).
fn with_extra(scenario_name: &str, extra: &str) -> tempfile::NamedTempFile {
    let mut text = std::fs::read_to_string(scenario(scenario_name)).unwrap();
    text.push('\n');
    text.push_str(extra);
    let f = tempfile::Builder::new().suffix(".toml").tempfile().unwrap();
    std::fs::write(f.path(), text).unwrap();
    f
}

fn fault(function: &str, code: &str) -> String {
    format!("[[device.fault]]\nfunction = \"{function}\"\ncode = \"{code}\"\n")
}

/// Each NVML error injected into one field's function prints nvidia-smi's
/// token in that cell only; the other cells keep their values.
#[test]
fn injected_errors_print_their_token_in_their_cell_only() {
    let cases = [
        ("NOT_SUPPORTED", "[N/A]"),
        ("NO_PERMISSION", "[Insufficient Permissions]"),
        ("NOT_FOUND", "[Not Found]"),
        ("TIMEOUT", "[Timeout]"),
        ("FUNCTION_NOT_FOUND", "[Function Not Found]"),
        ("GPU_IS_LOST", "[GPU is lost]"),
        ("RESET_REQUIRED", "[GPU requires reset]"),
        ("UNKNOWN", "[Unknown Error]"),
        ("INVALID_ARGUMENT", "[Invalid Argument]"),
        ("CORRUPTED_INFOROM", "[Corrupted infoROM]"),
        (
            "OPERATING_SYSTEM",
            "[GPU access blocked by the operating system]",
        ),
        ("NO_DATA", "[No data]"),
        (
            "INSUFFICIENT_RESOURCES",
            "[Insufficient resources for request]",
        ),
        (
            "DEPRECATED",
            "[Requested functionality has been deprecated]",
        ),
        ("NOT_READY", "[System is not ready for the request]"),
        ("GPU_NOT_FOUND", "[GPU not found]"),
        ("INVALID_STATE", "[Invalid state]"),
    ];
    // One field per kind of getter: wrapper method, raw symbol, struct
    // shared by several fields, field value.
    let targets = [
        ("nvmlDeviceGetPowerUsage", "power.draw", 1),
        (
            "nvmlDeviceGetMarginTemperature",
            "temperature.gpu.tlimit",
            1,
        ),
        ("nvmlDeviceGetPciInfoExt", "pci.baseClass", 1),
    ];
    for (code, token) in cases {
        for (function, field, pos) in targets {
            let s = with_extra("h200_590_idle.toml", &fault(function, code));
            let out = query(
                s.path(),
                &format!("index,{field},temperature.gpu"),
                "csv,noheader",
            );
            let cells: Vec<&str> = out.trim_end().split(", ").collect();
            assert_eq!(cells.len(), 3, "{out}");
            assert_eq!(cells[0], "0", "{code} on {function}: {out}");
            assert_eq!(cells[pos], token, "{code} on {function}");
            assert_eq!(cells[2], "28", "{code} on {function}: {out}");
        }
    }
}

/// A failed field-value entry prints its token; the other entries of the
/// same call keep their values. temperature.memory prints a bare N/A.
#[test]
fn field_value_entries_fail_one_by_one() {
    let base = query(
        &scenario("h200_590_idle.toml"),
        "power.draw.average,power.draw.instant,temperature.memory,edpp_multiplier",
        "csv,noheader",
    );
    assert_eq!(base, "77.71 W, 78.21 W, 32, 100.00 %\n");
    let text = std::fs::read_to_string(scenario("h200_590_idle.toml"))
        .unwrap()
        .replace("\"186:0\" = 78210", "\"186:0\" = \"NO_PERMISSION\"")
        .replace("\"82:0\" = 32", "\"82:0\" = \"NOT_SUPPORTED\"");
    let f = tempfile::Builder::new().suffix(".toml").tempfile().unwrap();
    std::fs::write(f.path(), text).unwrap();
    assert_eq!(
        query(
            f.path(),
            "power.draw.average,power.draw.instant,temperature.memory,edpp_multiplier",
            "csv,noheader"
        ),
        "77.71 W, [Insufficient Permissions], N/A, 100.00 %\n"
    );
}

/// Fields that share an NVML struct read it once per GPU and sample: a
/// function that fails from its second call on does not disturb them.
#[test]
fn shared_structs_are_read_once_per_row() {
    for (function, fields, expected) in [
        (
            "nvmlDeviceGetMemoryInfo_v2",
            "memory.total,memory.reserved,memory.used,memory.free",
            "143771 MiB, 614 MiB, 0 MiB, 143158 MiB\n",
        ),
        (
            "nvmlDeviceGetFieldValues",
            "power.draw.average,power.draw.instant,temperature.memory,clocks_event_reasons_counters.sw_power_cap,gpu_recovery_action",
            "77.71 W, 78.21 W, 32, 0 us, None\n",
        ),
        (
            "nvmlDeviceGetCurrentClocksEventReasons",
            "clocks_event_reasons.active,clocks_event_reasons.gpu_idle,clocks_event_reasons.sw_power_cap",
            "0x0000000000000001, Active, Not Active\n",
        ),
        (
            "nvmlDeviceGetPlatformInfo",
            "platform.host_id,platform.module_id,platform.peer_type",
            "1, 1, Direct Connected\n",
        ),
    ] {
        let extra = format!(
            "[[device.fault]]\nfunction = \"{function}\"\ncode = \"UNKNOWN\"\nafter_calls = 1\n"
        );
        let s = with_extra("h200_590_idle.toml", &extra);
        assert_eq!(query(s.path(), fields, "csv,noheader"), expected, "{function}");
    }
}

/// Memory falls back to the v1 call when v2 is missing or rejects its struct
/// version; other v2 failures are printed as they are.
#[test]
fn memory_v2_falls_back_to_v1_only_when_v2_is_unusable() {
    let fields = "memory.total,memory.reserved,memory.used,memory.free";
    for code in ["FUNCTION_NOT_FOUND", "ARGUMENT_VERSION_MISMATCH"] {
        let s = with_extra(
            "h200_590_idle.toml",
            &fault("nvmlDeviceGetMemoryInfo_v2", code),
        );
        // v1: used includes the reserved memory; no reserved figure.
        assert_eq!(
            query(s.path(), fields, "csv,noheader"),
            "143771 MiB, [N/A], 614 MiB, 143158 MiB\n",
            "{code}"
        );
    }
    let s = with_extra(
        "h200_590_idle.toml",
        &fault("nvmlDeviceGetMemoryInfo_v2", "GPU_IS_LOST"),
    );
    assert_eq!(
        query(s.path(), fields, "csv,noheader"),
        "[GPU is lost], [GPU is lost], [GPU is lost], [GPU is lost]\n"
    );
}

/// `--format=csv` with every field of the reference table prints exactly the
/// table's csv_header column as its header line.
#[test]
fn header_of_every_field_is_the_reference_header() {
    let Some(tsv) = read_shared("nvidia-smi/query-gpu-fields.tsv") else {
        return;
    };
    let rows: Vec<Vec<&str>> = tsv
        .lines()
        .skip(1)
        .filter(|l| !l.is_empty())
        .map(|l| l.split('\t').collect())
        .collect();
    let names: Vec<&str> = rows.iter().map(|r| r[0]).collect();
    let headers: Vec<&str> = rows.iter().map(|r| r[2]).collect();
    let s = with_driver("h200_590_idle.toml", "610.57.04");
    let out = query(s.path(), &names.join(","), "csv");
    let mut lines = out.lines();
    assert_eq!(lines.next().unwrap(), headers.join(", "));
    let row: Vec<&str> = lines.next().unwrap().split(", ").collect();
    assert_eq!(row.len(), names.len());
    assert!(lines.next().is_none());
}

/// `--help-query-gpu` keeps nvidia-smi's layout: the same field lines
/// (`"name" or "alias"`) and section headings, in the same order.
#[test]
fn help_query_gpu_has_nvidia_smis_layout() {
    let Some(theirs) = read_shared("nvidia-smi/captures/help/help-query-gpu__610.57.04__linux.txt")
    else {
        return;
    };
    let out = Command::from_std(common::nvq_command())
        .arg("--help-query-gpu")
        .output()
        .unwrap();
    assert!(out.status.success());
    let ours = String::from_utf8(out.stdout).unwrap();
    assert_eq!(ours.lines().next(), theirs.lines().next(), "title line");
    let skeleton = |text: &str| -> Vec<String> {
        let lines: Vec<&str> = text.lines().collect();
        let mut out = Vec::new();
        for (i, l) in lines.iter().enumerate() {
            let after_blank = i > 0 && lines[i - 1].is_empty();
            // nvq's own fields (memory.used.percent, ...) are not nvidia-smi's.
            let nvq_own = lines
                .get(i + 1)
                .is_some_and(|h| h.contains("(nvq extension;"));
            if after_blank && l.starts_with('"') && !nvq_own {
                // nvidia-smi lists clocks.max.sm as its own alias; nvq does not.
                out.push(l.replace(" or \"clocks.max.sm\"", ""));
            } else if l.starts_with("Section about ") {
                out.push(l.to_string());
            }
        }
        out.retain(|l| !l.contains("reset_status"));
        out
    };
    assert_eq!(skeleton(&ours), skeleton(&theirs));
    // Every field block ends with an empty line.
    assert!(ours.ends_with("\n\n"));
}

/// `remapped_rows.*_inactive` come from `nvmlDeviceGetRemappedRows_v2`
/// (drivers 595 and later); a library whose `_v2` is missing or unsupported
/// prints `[N/A]` for them and still prints the other counts.
#[test]
fn inactive_remapped_rows_come_from_the_v2_call() {
    const FIELDS: &str = "remapped_rows.correctable,remapped_rows.correctable_inactive,\
                          remapped_rows.uncorrectable,remapped_rows.uncorrectable_inactive";
    let rows = "remapped_rows = { correctable = 2, uncorrectable = 1, pending = 0, failure = 0";
    for (extra_top, inactive, want) in [
        (
            "",
            ", correctable_inactive = 0, uncorrectable_inactive = 3",
            "2, 0, 1, 3\n",
        ),
        ("", "", "2, [N/A], 1, [N/A]\n"),
        (
            "absent_functions = [\"nvmlDeviceGetRemappedRows_v2\"]\n",
            ", correctable_inactive = 0, uncorrectable_inactive = 3",
            "2, [N/A], 1, [N/A]\n",
        ),
    ] {
        let text = format!(
            "driver_version = \"595.80\"\n{extra_top}\n[[device]]\nname = \"NVIDIA L40S\"\n\
             {rows}{inactive} }}\n"
        );
        let f = tempfile::Builder::new().suffix(".toml").tempfile().unwrap();
        std::fs::write(f.path(), &text).unwrap();
        assert_eq!(query(f.path(), FIELDS, "csv,noheader"), want, "{text}");
    }
}

/// `pcie.link.gen.hostmax` has no public NVML source that nvq found: it
/// prints `[N/A]`, and docs/compat.md says so and what was checked.
#[test]
fn pcie_hostmax_gap_is_documented() {
    let f = with_driver("rtx2080super_595_linux_idle.toml", "610.57.04");
    assert_eq!(
        query(f.path(), "pcie.link.gen.hostmax", "csv,noheader"),
        "[N/A]\n"
    );
    let compat = std::fs::read_to_string(repo_root().join("docs/compat.md")).unwrap();
    let row = compat
        .lines()
        .find(|l| l.starts_with("| `pcie.link.gen.hostmax`"))
        .expect("docs/compat.md has a pcie.link.gen.hostmax row");
    for checked in [
        "nvmlDeviceGetMaxPcieLinkGeneration",
        "nvmlDeviceGetGpuMaxPcieLinkGeneration",
        "nvmlPciInfoExt_v1_t",
        "NVML_FI_DEV_PCIE_",
    ] {
        assert!(row.contains(checked), "{checked} missing from: {row}");
    }
}
