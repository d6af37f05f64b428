#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! nvidia-smi fidelity, round 3 (issue 29) and the contradictions between
//! views of one fact (issue 28): what real machines nvq had not been tested
//! on print, each rule keyed on what NVML says (driver version, driver
//! model, MIG mode, return codes), never on a GPU's name.

use crate::common;

use common::*;

/// One GPU on driver `driver`, with `extra` scenario lines under it.
fn one_gpu(driver: &str, extra: &str) -> tempfile::NamedTempFile {
    write_scenario(&format!(
        "driver_version = \"{driver}\"\nnvml_version = \"13.{driver}\"\n\n[[device]]\n\
         name = \"NVIDIA Test GPU\"\nuuid = \"GPU-00000000-0000-0000-0000-000000000000\"\n\
         pci = {{ domain = 0, bus = 1, device = 0 }}\n{extra}"
    ))
}

/// The `-q` line whose label (trimmed) is `label`, as (label, value).
fn q_line<'a>(report: &'a str, label: &str) -> Option<&'a str> {
    report
        .lines()
        .find(|l| l.split(" : ").next().is_some_and(|x| x.trim() == label))
        .map(|l| l.split(" : ").nth(1).unwrap_or(""))
}

// ---- -q and -q -x ------------------------------------------------------

/// 590, 591 and 595 name the two temperature lines of a GPU without a
/// T.Limit margin `GPU T.Limit Temp` and `GPU Target Temperature`; only
/// 610 says `GPU Current T.Limit Temp` and `... Specification`.
#[test]
fn temperature_labels_switch_at_610() {
    let s = scenario("rtx2080super_595_linux_idle.toml");
    let out = nvq_ok(&s, &["-q", "-d", "TEMPERATURE"]);
    assert!(out.contains("        GPU T.Limit Temp "), "{out}");
    assert!(out.contains("        GPU Target Temperature "), "{out}");
    assert!(!out.contains("GPU Current T.Limit Temp"), "{out}");
    assert!(!out.contains("Specification"), "{out}");
    let out = nvq_ok(
        &scenario("rtx2080super_610_linux_idle.toml"),
        &["-q", "-d", "TEMPERATURE"],
    );
    assert!(out.contains("        GPU Current T.Limit Temp "), "{out}");
    assert!(
        out.contains("        GPU Target Temperature Specification "),
        "{out}"
    );
}

const REMAPPED_595: &str = "remapped_rows = { correctable = 1, uncorrectable = 4, pending = 0, \
                            failure = 0, correctable_inactive = 2, uncorrectable_inactive = 3 }\n";

/// 595 prints the inactive remapped rows after each count: in the text,
/// in the XML and in the DTD written from the document.
#[test]
fn inactive_remapped_rows_on_595() {
    let s = one_gpu("595.84", REMAPPED_595);
    let out = nvq_ok(s.path(), &["-q", "-d", "ROW_REMAPPER"]);
    let labels: Vec<&str> = out
        .lines()
        .skip_while(|l| l.trim() != "Remapped Rows")
        .skip(1)
        .take(4)
        .map(|l| l.split(" : ").next().unwrap_or("").trim())
        .collect();
    assert_eq!(
        labels,
        [
            "Correctable Error",
            "Inactive Correctable Error",
            "Uncorrectable Error",
            "Inactive Uncorrectable Error"
        ],
        "{out}"
    );
    assert_eq!(q_line(&out, "Inactive Correctable Error"), Some("2"));
    assert_eq!(q_line(&out, "Inactive Uncorrectable Error"), Some("3"));
    let xml = nvq_ok(s.path(), &["-q", "-x"]);
    assert!(
        xml.contains(
            "<remapped_row_corr>1</remapped_row_corr>\n\t\t\t<remapped_row_corr_inactive>2</remapped_row_corr_inactive>\n"
        ),
        "{xml}"
    );
    assert!(
        xml.contains("<remapped_row_unc_inactive>3</remapped_row_unc_inactive>"),
        "{xml}"
    );
    let dtd = nvq_ok(s.path(), &["-q", "-x", "--dtd"]);
    assert!(
        dtd.contains("remapped_row_corr, remapped_row_corr_inactive, remapped_row_unc, remapped_row_unc_inactive"),
        "{dtd}"
    );
    // 590 has neither.
    let s = one_gpu("590.48.01", REMAPPED_595);
    let out = nvq_ok(s.path(), &["-q", "-d", "ROW_REMAPPER"]);
    assert!(!out.contains("Inactive"), "{out}");
}

/// A GPU whose ECC mode NVML does not report (a GeForce) but which gives
/// SRAM counts: `--query-gpu` prints them (`0`, `No`), `-q` prints every
/// SRAM line, split, as `N/A`.
#[test]
fn ecc_counts_are_na_without_an_ecc_mode() {
    let s = one_gpu("595.71.05", "sram_ecc_status = {}\n");
    let q = nvq_ok(
        s.path(),
        &[
            "--query-gpu=ecc.mode.current,ecc.errors.uncorrected.aggregate.sram.thresholdExceeded,\
             ecc.errors.uncorrected.aggregate.sram.l2",
            "--format=csv,noheader",
        ],
    );
    assert_eq!(q, "[N/A], No, 0\n");
    let out = nvq_ok(s.path(), &["-q", "-d", "ECC"]);
    for label in [
        "SRAM Correctable",
        "SRAM Uncorrectable Parity",
        "SRAM Uncorrectable SEC-DED",
        "SRAM Threshold Exceeded",
        "SRAM L2",
        "SRAM SM",
        "SRAM Microcontroller",
        "SRAM PCIE",
        "SRAM Other",
    ] {
        assert_eq!(q_line(&out, label), Some("N/A"), "{label}:\n{out}");
    }
    // With ECC on, the same counts are numbers.
    let s = one_gpu(
        "595.71.05",
        "sram_ecc_status = {}\necc_mode = { current = 1, pending = 1 }\n",
    );
    let out = nvq_ok(s.path(), &["-q", "-d", "ECC"]);
    assert_eq!(q_line(&out, "SRAM Threshold Exceeded"), Some("No"), "{out}");
    assert_eq!(q_line(&out, "SRAM L2"), Some("0"), "{out}");
}

// ---- the summary table of a MIG GPU (590) --------------------------------

/// `summary_mig.toml` with the GPU's uncorrected volatile count at 0 and a
/// BAR1 reading on its first MIG device.
fn mig_table() -> String {
    let s = scenario_at(
        "summary_mig.toml",
        &[
            (
                "mig = { current = 1, pending = 1, max_devices = 7 }",
                "mig = { current = 1, pending = 1, max_devices = 7 }\n\
                 ecc_errors = { uncorrected_volatile = { total = 0 } }",
            ),
            (
                "memory = { total = 42949672960, used = 2147483648 }",
                "memory = { total = 42949672960, used = 2147483648 }\n\
                 bar1 = { total = 25940721664, used = 0 }",
            ),
        ],
    );
    run(s.path(), NO_ARGS).ok()
}

#[test]
fn mig_gpu_ecc_cell_says_on() {
    let out = mig_table();
    let gpu0 = out
        .lines()
        .find(|l| l.contains("00000000:18:00.0"))
        .unwrap();
    assert!(gpu0.ends_with("|                   On |"), "{out}");
    // --query-gpu still prints the GPU's counter.
    let s = scenario_at(
        "summary_mig.toml",
        &[(
            "mig = { current = 1, pending = 1, max_devices = 7 }",
            "mig = { current = 1, pending = 1, max_devices = 7 }\n\
             ecc_errors = { uncorrected_volatile = { total = 0 } }",
        )],
    );
    let q = nvq_ok(
        s.path(),
        &[
            "--query-gpu=ecc.errors.uncorrected.volatile.total",
            "--format=csv,noheader",
            "-i",
            "0",
        ],
    );
    assert_eq!(q, "0\n");
}

#[test]
fn mig_box_header_and_bar1_row() {
    let out = mig_table();
    assert!(
        out.contains("| GPU  GI  CI  MIG |              Shared Memory-Usage |"),
        "{out}"
    );
    assert!(
        out.contains("|      ID  ID  Dev |                Shared BAR1-Usage |"),
        "{out}"
    );
    assert!(
        out.contains("|                  |               0MiB / 24739MiB    |"),
        "{out}"
    );
}

// ---- monitors, links, topology ---------------------------------------

/// A WDDM GPU on 591.86 running a process with a long name.
const WDDM_591: &str = "driver_model = { current = 0, pending = 0 }\n\
                        [[device.graphics_process]]\npid = 9121\nname = \"TextInputHost.exe\"\n\
                        utilization = { sm = 1, mem = 0 }\n";

/// Windows before 610 cuts pmon's command names at 16 characters; Linux,
/// and 610's Windows driver, at 15.
#[test]
fn wddm_pmon_names_are_16_characters_before_610() {
    let s = one_gpu("591.86", WDDM_591);
    let out = nvq_ok(s.path(), &["pmon", "-c", "1"]);
    assert!(out.contains(" TextInputHost.ex"), "{out}");
    assert!(!out.contains("TextInputHost.exe"), "{out}");
    let s = one_gpu("610.62", WDDM_591);
    let out = nvq_ok(s.path(), &["pmon", "-c", "1"]);
    assert!(
        out.contains(" TextInputHost.e\n") || out.contains(" TextInputHost.e "),
        "{out}"
    );
}

/// `nvlink -s`: a GPU in MIG mode, one without NVLink, and one whose links
/// are all down each get their own sentence.
#[test]
fn nvlink_messages_follow_nvml() {
    let mig = nvq_ok(&scenario("summary_mig.toml"), &["nvlink", "-s", "-i", "0"]);
    assert!(
        mig.ends_with(")\nNvlink queries are not supported for Devices in MIG mode\n"),
        "{mig}"
    );
    let none = nvq_ok(&scenario("summary_mig.toml"), &["nvlink", "-s", "-i", "1"]);
    assert!(
        none.ends_with(")\nDevice does not have or support Nvlink\n"),
        "{none}"
    );
    let down = nvq_ok(
        &scenario("topo_nvlink_pairs.toml"),
        &["nvlink", "-s", "-i", "3"],
    );
    assert!(
        down.ends_with(
            ")\nNVML: Unable to retrieve Nvlink information as all links are inActive\n"
        ),
        "{down}"
    );
}

/// Windows 591.86 answers `topo -m` with an argument error and exit 255
/// (captures/27); 610's Windows driver prints the matrix.
#[test]
fn wddm_591_topo_m_is_an_error() {
    let wddm = |driver: &str| {
        scenario_at(
            "topo_rtx2080s_windows.toml",
            &[(
                "[[device]]",
                &format!(
                    "driver_version = \"{driver}\"\n\n[[device]]\n\
                     driver_model = {{ current = 0, pending = 0 }}"
                ),
            )],
        )
    };
    let s = wddm("591.86");
    // As nvidia-smi (under its own name nvq's usage errors exit 2).
    let out = common::as_nvidia_smi(s.path(), &["topo", "-m"]);
    assert_eq!(out.code, Some(255));
    let text = format!("{}{}", out.stdout, out.stderr);
    assert!(
        text.contains(
            "ERROR: Option -m is missing its value. Please run 'nvidia-smi -h' for help.\n\n"
        ),
        "{text}"
    );
    let s = wddm("610.62");
    let out = nvq_ok(s.path(), &["topo", "-m"]);
    assert!(out.contains("GPU0"), "{out}");
}

// ---- one fact, one name, one reading (issue 28's contradictions) ------

/// Remapped rows only grow: a counter in every view (the dcgm profile
/// already said so).
#[test]
fn remapped_rows_are_counters() {
    let out = nvq_ok(
        &scenario("h200_590_idle.toml"),
        &[
            "--query-gpu=remapped_rows.correctable,remapped_rows.uncorrectable",
            "--format=prometheus",
        ],
    );
    assert!(
        out.contains("# TYPE nvq_remapped_rows_correctable_total counter\n"),
        "{out}"
    );
    assert!(
        out.contains("# TYPE nvq_remapped_rows_uncorrectable_total counter\n"),
        "{out}"
    );
}

/// `dmon -s e --format=prometheus` names the corrected and uncorrected
/// volatile counts as `--query-gpu` does (counters), and the GPU index is a
/// label, not a series.
#[test]
fn dmon_ecc_series_are_the_query_fields() {
    let s = scenario("h200_590_idle.toml");
    let dmon = nvq_ok(&s, &["dmon", "-s", "e", "-c", "1", "--format=prometheus"]);
    let query = nvq_ok(
        &s,
        &[
            "--query-gpu=ecc.errors.corrected.volatile.total,ecc.errors.uncorrected.volatile.total",
            "--format=prometheus",
        ],
    );
    for family in [
        "nvq_ecc_errors_corrected_volatile_total",
        "nvq_ecc_errors_uncorrected_volatile_total",
    ] {
        let ty = format!("# TYPE {family} counter\n");
        assert!(dmon.contains(&ty), "{family}:\n{dmon}");
        assert!(query.contains(&ty), "{family}:\n{query}");
    }
    assert!(!dmon.contains("nvq_sbecc"), "{dmon}");
    assert!(!dmon.contains("nvq_index"), "{dmon}");
}

/// The summary table reads the fan with the call `--query-gpu` uses (the
/// unversioned `nvmlDeviceGetFanSpeed`), not the per-fan `_v2`.
#[test]
fn summary_table_fan_is_the_query_fan() {
    let text = std::fs::read_to_string(scenario("summary_rtx2080s_linux_idle.toml")).unwrap()
        + "\n[[device.fault]]\nfunction = \"nvmlDeviceGetFanSpeed_v2\"\ncode = \"NOT_SUPPORTED\"\n";
    let s = write_scenario(&text);
    let q = nvq_ok(
        s.path(),
        &["--query-gpu=fan.speed", "--format=csv,noheader"],
    );
    let fan = q.trim().to_string();
    assert!(fan.ends_with(" %"), "{q}");
    let table = run(s.path(), NO_ARGS).stdout;
    let want = format!("|{:>3}%", fan.trim_end_matches(" %"));
    assert!(table.contains(&want), "{want:?}:\n{table}");
}
