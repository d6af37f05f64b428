#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! `-q -u` (the S-class unit report) against the simulator's `[[unit]]`
//! entries. No public capture of nvidia-smi's unit report was found: these
//! tests check that every value NVML gives reaches the report in each form,
//! in the unverified layout of `crates/nvq-core/src/render/report_unit.rs`.

use crate::common;

use common::*;

/// A label's value in the text report (the text after the colon column).
fn text_value<'a>(report: &'a str, label: &str) -> Vec<&'a str> {
    report
        .lines()
        .filter(|l| l.trim_start().starts_with(label) && l.contains(" : "))
        .filter(|l| l.split(" : ").next().unwrap().trim() == label)
        .map(|l| l.split(" : ").nth(1).unwrap())
        .collect()
}

#[test]
fn a_machine_without_units_reports_none() {
    for args in [&["-q", "-u"][..], &["-u", "-q"], &["--query", "--unit"]] {
        let out = nvq_ok(&scenario("h200_590_idle.toml"), args);
        assert!(
            out.starts_with("\n==============NVSMI LOG==============\n\n"),
            "{out}"
        );
        // No host interface card: the heading alone, as the XML's empty
        // `<hic_info>` (below).
        assert!(out.contains("\nHIC Info\nAttached Units "), "{out}");
        assert_eq!(text_value(&out, "Attached Units"), ["0"], "{out}");
        assert_eq!(text_value(&out, "Driver Version"), ["590.48.01"], "{out}");
        assert!(!out.contains("Unit 0"), "{out}");
        assert!(!out.contains("GPU 0"), "{out}");
    }
}

/// `nvidia-smi -q -u -x` of driver 580.65.06 on a machine without units
/// or host interface cards, verbatim from NVIDIA's k8s-test-infra
/// (tests/e2e/go/assertions/nvidiasmi/testdata/qux-gb200-no-hic.xml, real
/// nvidia-smi against NVIDIA's mock NVML); the timestamp is masked.
const NO_HIC_580: &str = "<?xml version=\"1.0\" ?>
<!DOCTYPE nvidia_smi_log SYSTEM \"nvsmi_unit_v13.dtd\">
<nvidia_smi_log>
\t<timestamp>Tue Sep 15 19:34:33 2026</timestamp>
\t<driver_version>580.65.06</driver_version>
\t<cuda_version>12.4</cuda_version>
\t<hic_info>
\t</hic_info>
\t<attached_units>0</attached_units>
</nvidia_smi_log>
";

/// The same with two host interface cards (qux-gb200-hic.xml).
const HIC_580: &str = "<?xml version=\"1.0\" ?>
<!DOCTYPE nvidia_smi_log SYSTEM \"nvsmi_unit_v13.dtd\">
<nvidia_smi_log>
\t<timestamp>Tue Sep 15 19:34:33 2026</timestamp>
\t<driver_version>580.65.06</driver_version>
\t<cuda_version>12.4</cuda_version>
\t<hic_info>
\t\t<hic id=\"0\">
\t\t\t<firmware>1.2.3.4</firmware>
\t\t</hic>
\t\t<hic id=\"1\">
\t\t\t<firmware>5.6.7.8</firmware>
\t\t</hic>
\t</hic_info>
\t<attached_units>0</attached_units>
</nvidia_smi_log>
";

/// nvq's document with its timestamp line replaced by the capture's.
fn with_capture_stamp(doc: &str, capture: &str) -> String {
    let stamp = |d: &str| {
        d.lines()
            .find(|l| l.contains("<timestamp>"))
            .unwrap_or("")
            .to_string()
    };
    doc.replacen(&stamp(doc), &stamp(capture), 1)
}

#[test]
fn a_machine_without_units_reports_none_in_xml() {
    let driver_580 = [
        ("\"590.48.01\"", "\"580.65.06\""),
        ("\"13.590.48.01\"", "\"13.580.65.06\""),
        ("cuda_driver_version = 13010", "cuda_driver_version = 12040"),
    ];
    let s = scenario_at("h200_590_idle.toml", &driver_580);
    // `-q -u -x` is a form real scripts use.
    for args in [&["-q", "-u", "-x"][..], &["-x", "-q", "-u"]] {
        let out = nvq_ok(s.path(), args);
        assert_eq!(with_capture_stamp(&out, NO_HIC_580), NO_HIC_580);
    }
    let mut with_hics: Vec<(&str, &str)> = driver_580.to_vec();
    with_hics.push((
        "[[device]]\n",
        "[[hic]]\nid = 0\nfirmware = \"1.2.3.4\"\n\n[[hic]]\nid = 1\nfirmware = \"5.6.7.8\"\n\n[[device]]\n",
    ));
    let s = scenario_at("h200_590_idle.toml", &with_hics);
    let out = nvq_ok(s.path(), &["-q", "-u", "-x"]);
    assert_eq!(with_capture_stamp(&out, HIC_580), HIC_580);
}

#[test]
fn a_unit_count_nvml_cannot_give_is_said_on_stderr() {
    // nvidia-smi prints this on stderr, nothing on stdout, and exits 0
    // (NVIDIA's k8s-test-infra, tests/e2e/go/assertions/nvidiasmi/unit.go).
    let s = scenario_at(
        "h200_590_idle.toml",
        &[(
            "driver_version = ",
            "absent_functions = [\"nvmlUnitGetCount\"]\ndriver_version = ",
        )],
    );
    let out = run(s.path(), &["-q", "-u"]);
    assert!(out.success(), "{out:?}");
    assert!(out.stdout.is_empty(), "{out:?}");
    let err = out.stderr;
    assert!(
        err.starts_with("Unable to determine number of available units: "),
        "{err}"
    );
}

#[test]
fn one_unit_shows_every_nvml_value() {
    let out = nvq_ok(&scenario("unit_s_class.toml"), &["-q", "-u"]);
    assert_eq!(text_value(&out, "Attached Units"), ["1"], "{out}");
    assert!(out.contains("\nUnit 0\n"), "{out}");
    for (label, want) in [
        ("Product Name", vec!["S2090"]),
        ("Product Id", vec!["SA1234"]),
        ("Product Serial", vec!["0324010000123"]),
        ("Firmware Version", vec!["6.2"]),
        ("Color", vec!["AMBER"]),
        ("Cause", vec!["Fan failure"]),
        ("Intake", vec!["21 C"]),
        ("Exhaust", vec!["23 C"]),
        ("Board", vec!["30 C"]),
        ("State", vec!["Normal", "NORMAL", "FAILED"]),
        ("Voltage", vec!["12 V"]),
        ("Current", vec!["6 A"]),
        ("Power Draw", vec!["74 W"]),
        ("Speed", vec!["5742 RPM", "0 RPM"]),
        ("PCI Bus Id", vec!["00000000:07:00.0", "00000000:08:00.0"]),
    ] {
        assert_eq!(text_value(&out, label), want, "{label}:\n{out}");
    }
}

#[test]
fn one_unit_in_xml_and_json() {
    let s = scenario("unit_s_class.toml");
    let xml = nvq_ok(&s, &["-q", "-u", "-x"]);
    // v12 for a 535 driver, as the GPU report's DOCTYPE.
    assert!(xml.contains("SYSTEM \"nvsmi_unit_v12.dtd\""), "{xml}");
    for want in [
        "\t<unit id=\"0\">\n\t\t<product_name>S2090</product_name>\n",
        "<led_state>\n\t\t\t<color>AMBER</color>\n\t\t\t<cause>Fan failure</cause>\n",
        "<psu_power_draw>74 W</psu_power_draw>",
        "<fan>\n\t\t\t\t<fan_state>FAILED</fan_state>\n\t\t\t\t<fan_speed>0 RPM</fan_speed>\n",
        "<attached_gpus>\n\t\t\t<pci_bus_id>00000000:07:00.0</pci_bus_id>\n\t\t\t<pci_bus_id>00000000:08:00.0</pci_bus_id>\n",
    ] {
        assert!(xml.contains(want), "{want}\n{xml}");
    }
    let json = nvq_ok(&s, &["-q", "-u", "--format=json"]);
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["attached_units"], 1);
    assert_eq!(v["units"][0]["temperature"]["board"], 30);
    assert_eq!(v["units"][0]["psu"]["psu_voltage"], 12);
    assert_eq!(v["units"][0]["fan_info"]["fan"][1]["fan_state"], "FAILED");
}

#[test]
fn i_picks_a_unit_and_a_missing_unit_is_refused() {
    let s = scenario("unit_s_class.toml");
    let out = nvq_ok(&s, &["-q", "-u", "-i", "0"]);
    assert!(out.contains("\nUnit 0\n"), "{out}");
    let bad = run(&s, &["-q", "-u", "-i", "1"]);
    assert!(!bad.success());
}

#[test]
fn display_types_do_not_go_with_units() {
    // nvidia-smi's -h: -d "Doesn't work with -u or -x flags."
    let out = run(
        &scenario("unit_s_class.toml"),
        &["-q", "-u", "-d", "MEMORY"],
    );
    assert_eq!(out.code, Some(2), "{out:?}");
    let alone = run(&scenario("unit_s_class.toml"), &["-u"]);
    assert!(!alone.success());
}

#[test]
fn a_loop_repeats_the_unit_report() {
    // A fast loop, each sample under its deadline: on time (common::on_time).
    let _on_time = common::on_time();
    let out = nvq_ok(
        &scenario("unit_s_class.toml"),
        &["-q", "-u", "-x", "-lms", "50", "--count", "2"],
    );
    assert_eq!(out.matches("<?xml").count(), 2, "{out}");
}

#[test]
fn host_interface_cards_are_listed() {
    // NVIDIA's Go mock parses `<hic_info><hic id="N"><firmware>` from the
    // unit document; the text layout is nvq's (no public capture).
    let s = scenario_at(
        "unit_s_class.toml",
        &[(
            "[[device]]\n",
            "[[hic]]\nid = 1\nfirmware = \"1.03.0\"\n\n[[device]]\n",
        )],
    );
    let xml = nvq_ok(s.path(), &["-q", "-u", "-x"]);
    assert!(
        xml.contains("\t<hic_info>\n\t\t<hic id=\"1\">\n\t\t\t<firmware>1.03.0</firmware>\n\t\t</hic>\n\t</hic_info>\n"),
        "{xml}"
    );
    let out = nvq_ok(s.path(), &["-q", "-u"]);
    assert!(out.contains("HIC Info\n    HIC 1\n"), "{out}");
    assert_eq!(
        text_value(&out, "Firmware Version"),
        ["1.03.0", "6.2"],
        "{out}"
    );
    let json = nvq_ok(s.path(), &["-q", "-u", "--format=json"]);
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["hic_info"][0]["firmware"], "1.03.0");
    assert_eq!(v["hic_info"][0]["id"], "1");
}
