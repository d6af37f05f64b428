#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! `-q` sections beyond the captures of `tests/report.rs`: `-d VOLTAGE`,
//! the MIG devices of a GPU in MIG mode, and lines read from NVML that
//! used to print `N/A` for want of a source.

use crate::common;

use common::*;

/// The lines of the report after the `GPU <bus id>` heading.
fn gpu_part(report: &str) -> Vec<&str> {
    let mut lines: Vec<&str> = report
        .lines()
        .skip_while(|l| !l.starts_with("GPU "))
        .skip(1)
        .collect();
    // The report's final empty line.
    assert_eq!(lines.pop(), Some(""), "{report}");
    lines
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
    assert!(out.ends_with("GPU 00000000:83:00.0\n\n"), "{out}");
}

/// The MIG part of a 580-on text report, as a user's notes quote it
/// (`nvidia-smi -q`, "MIG section, instance active — verbatim"): `MIG Device`
/// blocks right under the GPU, their memory named "Shared".
const MIG_590: &str = "    MIG Mode
        Current                                        : Enabled
        Pending                                        : Enabled
    MIG Device
        Index                                          : 0
        GPU Instance ID                                : 0
        Compute Instance ID                            : 0
        Device Attributes
            Shared
                Multiprocessor count                   : 70
                Copy Engine count                      : 5
                Encoder count                          : 0
                Decoder count                          : 0
                OFA count                              : 0
                JPG count                              : 0
        Shared FB Memory Usage
            Total                                      : 64912 MiB
            Reserved                                   : 0 MiB
            Used                                       : 1 MiB
            Free                                       : 64912 MiB
        Shared BAR1 Memory
            Total                                      : 65536 MiB
            Used                                       : 0 MiB
            Free                                       : 65535 MiB
";

#[test]
fn mig_devices_in_the_text_report_from_580_on() {
    let out = nvq_ok(&scenario("report_mig.toml"), &["-q"]);
    assert!(out.contains(MIG_590), "{out}");
    // A GPU without MIG devices prints no line for them.
    let plain = nvq_ok(&scenario("h200_590_idle.toml"), &["-q"]);
    assert!(!plain.contains("MIG Device"), "{plain}");
}

#[test]
fn mig_devices_before_580_sit_in_a_mig_devices_section() {
    let s = scenario_at("report_mig.toml", &[("\"590.48.01\"", "\"575.57.08\"")]);
    let out = nvq_ok(s.path(), &["-q"]);
    assert!(
        out.contains("    MIG Devices\n        MIG Device\n            Index "),
        "{out}"
    );
    assert!(out.contains("            FB Memory Usage\n"), "{out}");
    assert!(out.contains("            BAR1 Memory Usage\n"), "{out}");
}

/// One `<mig_device>` of qx-h100-mig-enabled.xml in NVIDIA's k8s-test-infra
/// (tests/e2e/go/assertions/nvidiasmi/testdata; real nvidia-smi 580.65.06
/// against NVIDIA's mock NVML), verbatim but for `{index}` and `{gi}`: each
/// sits at the depth of `<mig_devices>` itself. `{index}` is the MIG
/// device's own index, as a real driver answers (the mock answered the
/// parent GPU's).
const K8S_MIG_DEVICE: &str = "\t\t<mig_device>
\t\t\t<index>{index}</index>
\t\t\t<gpu_instance_id>{gi}</gpu_instance_id>
\t\t\t<compute_instance_id>0</compute_instance_id>
\t\t\t<device_attributes>
\t\t\t\t<shared>
\t\t\t\t\t<multiprocessor_count>16</multiprocessor_count>
\t\t\t\t\t<copy_engine_count>0</copy_engine_count>
\t\t\t\t\t<encoder_count>0</encoder_count>
\t\t\t\t\t<decoder_count>0</decoder_count>
\t\t\t\t\t<ofa_count>0</ofa_count>
\t\t\t\t\t<jpg_count>0</jpg_count>
\t\t\t\t</shared>
\t\t\t</device_attributes>
\t\t\t<ecc_error_count>
\t\t\t\t<volatile_count>
\t\t\t\t\t<sram_uncorrectable>0</sram_uncorrectable>
\t\t\t\t</volatile_count>
\t\t\t</ecc_error_count>
\t\t\t<fb_memory_usage>
\t\t\t\t<total>10240 MiB</total>
\t\t\t\t<reserved>1024 MiB</reserved>
\t\t\t\t<used>0 MiB</used>
\t\t\t\t<free>10240 MiB</free>
\t\t\t</fb_memory_usage>
\t\t\t<bar1_memory_usage>
\t\t\t\t<total>262144 MiB</total>
\t\t\t\t<used>0 MiB</used>
\t\t\t\t<free>262144 MiB</free>
\t\t\t</bar1_memory_usage>
\t\t</mig_device>
";

#[test]
fn mig_devices_in_xml_are_nvidia_smi_s() {
    let xml = nvq_ok(&scenario("report_mig_k8s.toml"), &["-q", "-x"]);
    for index in 0..2 {
        let devices: String = (0..7)
            .map(|gi| {
                K8S_MIG_DEVICE
                    .replace("{index}", &gi.to_string())
                    .replace("{gi}", &gi.to_string())
            })
            .collect();
        let want = format!("\t\t</mig_mode>\n\t\t<mig_devices>\n{devices}\t\t</mig_devices>\n");
        assert!(xml.contains(&want), "GPU {index}:\n{xml}");
    }
    // JSON: the same tree, `mig_device` an array.
    let json = nvq_ok(&scenario("report_mig_k8s.toml"), &["-q", "--format=json"]);
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    let dev = &v["gpus"][1]["mig_devices"]["mig_device"][6];
    assert_eq!(dev["gpu_instance_id"], 6);
    assert_eq!(dev["index"], 6);
    assert_eq!(
        dev["device_attributes"]["shared"]["multiprocessor_count"],
        16
    );
    assert_eq!(dev["fb_memory_usage"]["reserved"], 1024);
    // A GPU without MIG devices: `None`, one level deeper, as before.
    let plain = nvq_ok(&scenario("h200_590_idle.toml"), &["-q", "-x"]);
    assert!(
        plain.contains("\t\t<mig_devices>\n\t\t\tNone\n\t\t</mig_devices>\n"),
        "{plain}"
    );
}

/// A MIG device without an ECC count: `N/A` in XML, no block in text.
#[test]
fn a_mig_device_without_an_ecc_count() {
    let s = scenario("report_mig.toml");
    let xml = nvq_ok(&s, &["-q", "-x"]);
    assert!(
        xml.contains("\t\t\t</device_attributes>\n\t\t\t<ecc_error_count>N/A</ecc_error_count>\n"),
        "{xml}"
    );
    assert!(!nvq_ok(&s, &["-q"]).contains("ECC Errors\n            Volatile\n                SRAM"));
}

#[test]
fn a_mig_device_with_an_ecc_count_shows_it() {
    let s = scenario_at(
        "report_mig.toml",
        &[(
            "compute_instance_id = 0\n",
            "compute_instance_id = 0\necc_uncorrected_volatile = 2\n",
        )],
    );
    let out = nvq_ok(s.path(), &["-q"]);
    assert!(
        out.contains(
            "        ECC Errors\n            Volatile\n                SRAM Uncorrectable  "
        ),
        "{out}"
    );
    let xml = nvq_ok(s.path(), &["-q", "-x"]);
    assert!(xml.contains("<ecc_error_count>\n\t\t\t\t<volatile_count>\n\t\t\t\t\t<sram_uncorrectable>2</sram_uncorrectable>"), "{xml}");
}

#[test]
fn host_vgpu_and_heterogeneous_modes_come_from_nvml() {
    let s = scenario_at(
        "h200_590_idle.toml",
        &[(
            "[[device]]\n",
            "[[device]]\nhost_vgpu_mode = 1\nvgpu_heterogeneous_mode = 0\n",
        )],
    );
    let out = nvq_ok(s.path(), &["-q"]);
    assert!(
        out.contains("        Host VGPU Mode                                 : SR-IOV\n"),
        "{out}"
    );
    assert!(
        out.contains("        vGPU Heterogeneous Mode                        : Disabled\n"),
        "{out}"
    );
    let xml = nvq_ok(s.path(), &["-q", "-x"]);
    assert!(
        xml.contains("<host_vgpu_mode>SR-IOV</host_vgpu_mode>"),
        "{xml}"
    );
    assert!(
        xml.contains("<vgpu_heterogeneous_mode>Disabled</vgpu_heterogeneous_mode>"),
        "{xml}"
    );
    // Without them, N/A as in the captures.
    let plain = nvq_ok(&scenario("h200_590_idle.toml"), &["-q"]);
    assert!(plain.contains("        Host VGPU Mode                                 : N/A\n"));
}

#[test]
fn the_bridge_chip_comes_from_nvml() {
    let s = scenario_at(
        "h200_590_idle.toml",
        &[(
            "[[device]]\n",
            "[[device]]\nbridge_chips = [{ type = \"PLX\", fw_version = 0xF0472900 }, { type = \"BR04\", fw_version = 1 }]\n",
        )],
    );
    let out = nvq_ok(s.path(), &["-q"]);
    assert!(
        out.contains("        Bridge Chip\n            Type                                       : PLX\n            Firmware                                   : 0xF0472900\n"),
        "{out}"
    );
    let none = scenario_at(
        "h200_590_idle.toml",
        &[("[[device]]\n", "[[device]]\nbridge_chips = []\n")],
    );
    let out = nvq_ok(none.path(), &["-q"]);
    assert!(
        out.contains("            Type                                       : N/A\n"),
        "{out}"
    );
}

#[test]
fn the_gpu_part_number_is_the_board_s_before_520() {
    // A 510 document: <gpu_part_number>900-2H400-6300-031</gpu_part_number>
    // and no <board_part_number>; from 520 on the GPU part number is the
    // chip's, which NVML offers no public function for.
    let s = scenario_at(
        "h200_590_idle.toml",
        &[
            ("\"590.48.01\"", "\"510.47.03\""),
            ("695-2G520-0280-001", "900-2H400-6300-031"),
        ],
    );
    let out = nvq_ok(s.path(), &["-q"]);
    // 510's colon column is 42.
    let line = format!("{:<42}: 900-2H400-6300-031\n", "    GPU Part Number");
    assert!(out.contains(&line), "{out}");
    let now = nvq_ok(&scenario("h200_590_idle.toml"), &["-q"]);
    assert!(
        now.contains("    GPU Part Number                                    : N/A\n"),
        "{now}"
    );
}

#[test]
fn accounted_processes_in_xml() {
    // The elements of a real 460 document (GuanceCloud datakit's test data).
    // Appended, so that the table belongs to the scenario's (only) GPU.
    let text = std::fs::read_to_string(scenario("h200_590_idle.toml")).unwrap()
        + "\n[[device.accounting]]\npid = 54796\ngpu_utilization = 0\nmemory_utilization = 0\n\
           max_memory_usage = 883949568\ntime = 18228\nis_running = 0\n";
    let s = tempfile::Builder::new().suffix(".toml").tempfile().unwrap();
    std::fs::write(s.path(), text).unwrap();
    let xml = nvq_ok(s.path(), &["-q", "-x"]);
    let want = "\t\t<accounted_processes>\n\t\t\t<accounted_process_info>\n\t\t\t\t<pid>54796</pid>\n\
        \t\t\t\t<gpu_util>0 %</gpu_util>\n\t\t\t\t<memory_util>0 %</memory_util>\n\
        \t\t\t\t<max_memory_usage>843 MiB</max_memory_usage>\n\t\t\t\t<time>18228 ms</time>\n\
        \t\t\t\t<is_running>0</is_running>\n\t\t\t</accounted_process_info>\n\t\t</accounted_processes>\n";
    assert!(xml.contains(want), "{xml}");
    let plain = nvq_ok(&scenario("h200_590_idle.toml"), &["-q", "-x"]);
    assert!(
        plain.contains("\t\t<accounted_processes>\n\t\t</accounted_processes>\n"),
        "{plain}"
    );
}

#[test]
fn accounted_processes_in_text_with_d_accounting() {
    // A 525 output of `-q -d ACCOUNTING` without processes ends its GPU with
    // `Accounted Processes : None`; a 580 one (Mila's documentation) lists a
    // `Process ID` block with the process's statistics under it.
    let out = nvq_ok(&scenario("h200_590_idle.toml"), &["-q", "-d", "ACCOUNTING"]);
    assert_eq!(
        gpu_part(&out),
        [
            "    Accounting Mode                                    : Disabled",
            "    Accounting Mode Buffer Size                        : 4000",
            "    Accounted Processes                                : None",
        ],
        "{out}"
    );
    let text = std::fs::read_to_string(scenario("h200_590_idle.toml")).unwrap()
        + "\n[[device.accounting]]\npid = 3072883\ngpu_utilization = 12\nmemory_utilization = 3\n\
           max_memory_usage = 1046478848\ntime = 86816\nis_running = 0\n";
    let s = tempfile::Builder::new().suffix(".toml").tempfile().unwrap();
    std::fs::write(s.path(), text).unwrap();
    let out = nvq_ok(s.path(), &["-q", "-d", "ACCOUNTING"]);
    let want = "    Accounted Processes
        Process ID                                     : 3072883
            GPU Utilization                            : 12 %
            Memory Utilization                         : 3 %
            Max memory usage                           : 998 MiB
            Time                                       : 86816 ms
            Is Running                                 : 0

";
    assert!(out.ends_with(want), "{out}");
    // The whole text report has no such line, as the captures.
    assert!(!nvq_ok(s.path(), &["-q"]).contains("Accounted Processes"));
}

#[test]
fn power_smoothing_comes_from_its_field_value() {
    // A 580 B200 document (NVIDIA's k8s-test-infra, testdata/hardware/
    // qx-b200.xml) has <power_smoothing>Insufficient Permissions</...>: the
    // field value's own failure, printed as nvidia-smi prints errors.
    let field = |v: &str| {
        scenario_at(
            "h200_590_idle.toml",
            // 251: power smoothing's id in the numbering of drivers from
            // 580.82 on (nvq asks for nvml-wrapper's 256).
            &[("\"95:0\" = 0 ", &format!("\"251:0\" = {v}\n\"95:0\" = 0 "))],
        )
    };
    let denied = field("\"NO_PERMISSION\"");
    let xml = nvq_ok(denied.path(), &["-q", "-x"]);
    assert!(
        xml.contains("\t\t<power_smoothing>Insufficient Permissions</power_smoothing>\n"),
        "{xml}"
    );
    let on = field("1");
    let out = nvq_ok(on.path(), &["-q", "-d", "POWER_SMOOTHING"]);
    assert!(
        out.contains("    Power Smoothing                                    : Enabled\n"),
        "{out}"
    );
    // Without the field, N/A as in the captures.
    let out = nvq_ok(
        &scenario("h200_590_idle.toml"),
        &["-q", "-d", "POWER_SMOOTHING"],
    );
    assert!(
        out.contains("    Power Smoothing                                    : N/A\n"),
        "{out}"
    );
}

#[test]
fn workload_power_profiles_come_from_nvml() {
    // Every real document and capture (570-610, the B200/GB200/GB300 580
    // ones of NVIDIA's k8s-test-infra included) prints N/A: no public output
    // with a profile set was found, so the names are NVML's and the layout
    // is the atomic caps' (each name followed by a space), unverified.
    let with = |profiles: &str| {
        scenario_at(
            "h200_590_idle.toml",
            &[(
                "repair_status = {",
                &format!("power_profiles = {profiles}\nrepair_status = {{"),
            )],
        )
    };
    let set = with("{ supported = [0, 1, 2, 5], requested = [1, 2], enforced = [2] }");
    let out = nvq_ok(set.path(), &["-q", "-d", "POWER_PROFILES"]);
    assert!(
        out.contains(concat!(
            "    Workload Power Profiles\n",
            "        Requested Profiles                             : MAX_Q COMPUTE \n",
            "        Enforced Profiles                              : COMPUTE \n",
        )),
        "{out}"
    );
    let xml = nvq_ok(set.path(), &["-q", "-x"]);
    assert!(
        xml.contains(
            "\t\t\t<power_profile_enforced_profiles>COMPUTE </power_profile_enforced_profiles>\n"
        ),
        "{xml}"
    );
    // Supported, none requested: N/A, as the Blackwell documents show.
    let none = with("{ supported = [0, 1], requested = [], enforced = [] }");
    let out = nvq_ok(none.path(), &["-q", "-d", "POWER_PROFILES"]);
    assert!(
        out.contains("        Requested Profiles                             : N/A\n"),
        "{out}"
    );
    // Not supported (no key): N/A, as the H200 capture.
    let out = nvq_ok(
        &scenario("h200_590_idle.toml"),
        &["-q", "-d", "POWER_PROFILES"],
    );
    assert!(
        out.contains("        Enforced Profiles                              : N/A\n"),
        "{out}"
    );
}

#[test]
fn the_bbx_flush_comes_from_nvml_in_xml_too() {
    // The text lines are compared whole against four public reports
    // (tests/report_public.rs); no public document with a value was found,
    // so the XML text (the text report's, as for other units) is unverified.
    let s = scenario("q_h100_545.toml");
    let xml = nvq_ok(&s, &["-q", "-x"]);
    assert!(
        xml.contains(concat!(
            "\t\t<inforom_bbx_flush>\n",
            "\t\t\t<latest_timestamp>2024/02/22 13:09:29.459</latest_timestamp>\n",
            "\t\t\t<latest_duration>119019 us</latest_duration>\n",
        )),
        "{xml}"
    );
    // The start is printed in local time, as nvidia-smi's own timestamp.
    let text = run(&s, &["-q"]).ok();
    assert!(text.contains(": 2024/02/22 13:09:29.459\n"), "{text}");
    let east = common::nvq_command()
        .arg("--nvml-lib")
        .arg(sim_lib())
        .arg("-q")
        .env("NVML_SIM_SCENARIO", &s)
        .env("TZ", "JST-9") // POSIX form: no zoneinfo needed
        .output()
        .unwrap();
    let text = String::from_utf8(east.stdout).unwrap();
    assert!(text.contains(": 2024/02/22 22:09:29.459\n"), "{text}");
}
