#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! `-q` sections beyond the captures of `tests/report.rs`: `-d VOLTAGE`,
//! the MIG devices of a GPU in MIG mode, and lines read from NVML that
//! used to print `N/A` for want of a source.

mod common;

use common::*;

/// The lines of the report after the `GPU <bus id>` heading.
fn gpu_part(report: &str) -> Vec<&str> {
    report
        .lines()
        .skip_while(|l| !l.starts_with("GPU "))
        .skip(1)
        .collect()
}

#[test]
fn voltage_is_its_own_section_before_580() {
    // Drivers before 580 print `Voltage / Graphics` (v12 documents hold
    // `<voltage><graphics_volt>631.250 mV</graphics_volt></voltage>`); NVML
    // has no public reading of it, so nvq prints N/A.
    let s = scenario("ada_570.toml");
    let out = nvq_ok(&s, &["-q", "-d", "VOLTAGE"]);
    let lines = gpu_part(&out);
    assert_eq!(lines.len(), 2, "{out}");
    assert_eq!(lines[0], "    Voltage");
    assert!(
        lines[1].starts_with("        Graphics ") && lines[1].ends_with(": N/A"),
        "{out}"
    );
    // Any case, as scripts write it.
    assert_eq!(
        nvq_ok(&s, &["-q", "-d", "voltage"]).lines().count(),
        out.lines().count()
    );
    // CLOCK no longer carries it; the whole report still does, after the
    // clock policy.
    assert!(!nvq_ok(&s, &["-q", "-d", "CLOCK"]).contains("Voltage"));
    let all = nvq_ok(&s, &["-q"]);
    let policy = all.find("    Clock Policy").unwrap();
    let volt = all.find("    Voltage\n").unwrap();
    let fabric = all.find("    Fabric\n").unwrap();
    assert!(policy < volt && volt < fabric, "{all}");
    let xml = nvq_ok(&s, &["-q", "-x"]);
    assert!(
        xml.contains("\t\t<voltage>\n\t\t\t<graphics_volt>N/A</graphics_volt>\n\t\t</voltage>\n"),
        "{xml}"
    );
}

#[test]
fn voltage_is_gone_from_580_on() {
    // The 580 manual page: "Removed deprecated graphics voltage value from
    // Voltage section". The 590 captures have no Voltage section.
    let out = nvq_ok(&scenario("h200_590_idle.toml"), &["-q", "-d", "VOLTAGE"]);
    assert!(out.ends_with("GPU 00000000:83:00.0\n"), "{out}");
}
