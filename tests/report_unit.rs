#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! `-q -u` (the S-class unit report) against the simulator's `[[unit]]`
//! entries. No public capture of nvidia-smi's unit report was found: these
//! tests check that every value NVML gives reaches the report in each form,
//! in the unverified layout of `src/render/report_unit.rs`.

mod common;

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
        assert_eq!(text_value(&out, "HIC Info"), ["N/A"], "{out}");
        assert_eq!(text_value(&out, "Attached Units"), ["0"], "{out}");
        assert_eq!(text_value(&out, "Driver Version"), ["590.48.01"], "{out}");
        assert!(!out.contains("Unit 0"), "{out}");
        assert!(!out.contains("GPU 0"), "{out}");
    }
}

#[test]
fn a_machine_without_units_reports_none_in_xml() {
    // `-q -u -x` is a form real scripts use.
    for args in [&["-q", "-u", "-x"][..], &["-x", "-q", "-u"]] {
        let out = nvq_ok(&scenario("h200_590_idle.toml"), args);
        assert!(out.starts_with(
            "<?xml version=\"1.0\" ?>\n<!DOCTYPE nvidia_smi_log SYSTEM \"nvsmi_unit_v13.dtd\">\n"
        ));
        assert!(out.contains("\t<hic_info>N/A</hic_info>\n\t<attached_units>0</attached_units>\n</nvidia_smi_log>\n"), "{out}");
        assert!(!out.contains("<unit "), "{out}");
    }
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
    let bad = nvq(&s, &["-q", "-u", "-i", "1"]);
    assert!(!bad.status.success());
}

#[test]
fn display_types_do_not_go_with_units() {
    // nvidia-smi's -h: -d "Doesn't work with -u or -x flags."
    let out = nvq(
        &scenario("unit_s_class.toml"),
        &["-q", "-u", "-d", "MEMORY"],
    );
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let alone = nvq(&scenario("unit_s_class.toml"), &["-u"]);
    assert!(!alone.status.success());
}

#[test]
fn a_loop_repeats_the_unit_report() {
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
