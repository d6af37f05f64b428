#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! `-q -x`: nvq against the simulator reproduces real `nvidia-smi -q -x`
//! documents (`../shared/nvidia-smi/captures/xml/`, read at test time) of
//! every driver generation seen (418, 510-516, 525, 535/536, 570, 595), one
//! scenario per machine (`tests/scenarios/xml_*.toml`), and every document it
//! writes, each one of a `-l` stream included, parses.

use crate::common;

use common::*;
use std::io::Write;

/// Elements nvq cannot fill yet (no public NVML source): it prints `N/A`.
/// `graphics_volt`: NVML has no call for the graphics voltage.
const GAPS: &[&str] = &[
    "gpu_part_number",
    "max_host_link_gen",
    "sparse_operation_mode",
    "graphics_volt",
];

fn check(fixture: &str, scenario_name: &str) {
    check_edited(fixture, scenario_name, &NONE);
}

/// What the project that keeps a fixture changed in it, undone or masked
/// before comparing.
struct Edits {
    /// Elements whose text the fixture replaced (`[REDACTED]`): their text
    /// is not compared, on either side.
    redacted: &'static [&'static str],
    /// (fixture text, what nvidia-smi printed): a line the fixture's project
    /// broke in two, or rewrote with an XML tool.
    rejoined: &'static [(&'static str, &'static str)],
}

const NONE: Edits = Edits {
    redacted: &[],
    rejoined: &[],
};

/// Each `<name>text</name>` of the named elements, with the text masked.
fn mask(doc: &str, names: &[&str]) -> String {
    doc.split('\n')
        .map(|l| {
            for name in names {
                let open = format!("<{name}>");
                let close = format!("</{name}>");
                if let (Some(a), Some(b)) = (l.find(&open), l.rfind(&close)) {
                    return format!("{}(masked){}", &l[..a + open.len()], &l[b..]);
                }
            }
            l.to_string()
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn check_edited(fixture: &str, scenario_name: &str, edits: &Edits) {
    let Some(mut expected) = read_shared(&format!("nvidia-smi/captures/xml/{fixture}")) else {
        return;
    };
    for (from, to) in edits.rejoined {
        assert!(expected.contains(from), "{fixture}: {from:?} is gone");
        expected = expected.replace(from, to);
    }
    let expected = mask(&expected, edits.redacted);
    let actual = mask(
        &nvq_ok(&scenario(scenario_name), &["-q", "-x"]),
        edits.redacted,
    );
    let diffs = xml_differences(&actual, &expected, GAPS);
    assert!(
        diffs.is_empty(),
        "{fixture}:\n{}\n--- nvq:\n{actual}",
        diffs.join("\n")
    );
}

#[test]
fn rtx3080_595_v13_is_the_fixture() {
    check("telegraf_rtx-3080-v13.xml", "xml_rtx3080_595.toml");
}

#[test]
fn rtx3060_570_v12_is_the_fixture() {
    check("telegraf_rtx-3060-v12.xml", "xml_rtx3060_570.toml");
}

/// The 535 layout: clocks event reasons, GPU and module power readings with
/// one draw each, the reset status, the GPU module id, no 570 additions.
/// netdata's fixture broke one line in two; it is joined back.
#[test]
fn rtx4090_535_v12_is_the_fixture() {
    check_edited(
        "netdata_rtx-4090-driver-535.xml",
        "xml_rtx4090_535.toml",
        &Edits {
            redacted: &[],
            rejoined: &[(
                "Not Active\n            </clocks_event_reason_applications_clocks_setting>",
                "Not Active</clocks_event_reason_applications_clocks_setting>",
            )],
        },
    );
}

/// The 535 layout under WDDM (driver 536), with graphics processes.
#[test]
fn rtx3080_536_v12_is_the_fixture() {
    check("telegraf_rtx-3080-v12.xml", "xml_rtx3080_536.toml");
}

/// The v11 layout (510-516): no board part number, device or host PCIe
/// generations, atomic caps, T.Limit temperature, deferred clocks or fabric.
/// Telegraf's T4 and A10G fixtures have zeroed serials, part numbers and
/// (A10G) PCI ids: the scenarios state those zeros, nothing is masked.
#[test]
fn t4_515_v11_is_the_fixture() {
    check("telegraf_tesla-t4.xml", "xml_t4_515.toml");
}

#[test]
fn a10g_515_v11_is_the_fixture() {
    check("telegraf_a10g.xml", "xml_a10g_515.toml");
}

/// A laptop GPU: no fan, power limits or power management.
#[test]
fn rtx3060_laptop_515_v11_is_the_fixture() {
    check("netdata_rtx-3060.xml", "xml_rtx3060_laptop_515.toml");
}

/// WDDM: 26 processes in both lists (`C+G`), some without a name, with no
/// used memory (`N/A` in XML).
#[test]
fn rtx2080_windows_516_v11_is_the_fixture() {
    check("netdata_rtx-2080-win.xml", "xml_rtx2080_win_516.toml");
}

/// Pascal: ECC errors by memory location, single and double bit.
#[test]
fn p100_510_v11_is_the_fixture() {
    check("netdata_tesla-p100.xml", "xml_p100_510.toml");
}

/// The 418 layout: no DOCTYPE, no architecture, MIG, module id, GSP, host
/// vGPU mode, reserved memory, pending blacklist, remapped rows, target
/// temperature or voltage.
#[test]
fn gtx1660ti_418_is_the_fixture() {
    check("telegraf_gtx-1660-ti.xml", "xml_gtx1660ti_418.toml");
}

/// The 418 layout on Pascal without ECC: by-location counts, all `N/A`.
#[test]
fn quadro_p400_418_is_the_fixture() {
    check("telegraf_quadro-p400.xml", "xml_quadro_p400_418.toml");
}

/// The 535 layout on a data-centre GPU in MIG mode (ECC, memory temperature,
/// GSP, reset status), its four `<mig_device>` elements included (one level
/// inside `<mig_devices>`, indexed 0 to 3). Telegraf's fixture kept one of the machine's
/// four GPUs (`attached_gpus` is masked) and was rewritten by an XML tool
/// (`encoding="UTF-8"`, `<processes />`, no empty line after `</gpu>`),
/// which is undone.
#[test]
fn a100_535_v12_in_mig_mode_is_the_fixture() {
    check_edited(
        "telegraf_a100-sxm4-v12.xml",
        "xml_a100_535.toml",
        &Edits {
            redacted: &["attached_gpus"],
            rejoined: &[
                (
                    "        <processes />\n        <accounted_processes />\n    </gpu>\n</nvidia_smi_log>",
                    "        <processes>\n        </processes>\n        <accounted_processes>\n        \
                     </accounted_processes>\n    </gpu>\n\n</nvidia_smi_log>",
                ),
            ],
                },
    );
}

/// The 525 layout: throttle reasons, one "power readings" section, no reset
/// status, addressing mode, protected memory, JPEG or OFA. Telegraf's
/// fixture replaced four ids with `[REDACTED]`; those are not compared.
#[test]
fn rtx3090_525_v12_is_the_fixture() {
    check_edited(
        "telegraf_rtx-3090-v12.xml",
        "xml_rtx3090_525.toml",
        &Edits {
            redacted: &[
                "gpu_part_number",
                "img_version",
                "pci_device_id",
                "pci_sub_system_id",
            ],
            rejoined: &[],
        },
    );
}

/// The XML timestamp does not pad the day of the month, as nvidia-smi's.
#[test]
fn timestamp_shape() {
    let out = nvq_ok(&scenario("xml_rtx3060_570.toml"), &["-q", "-x"]);
    let line = out.lines().find(|l| l.contains("<timestamp>")).unwrap();
    let stamp = line
        .trim()
        .trim_start_matches("<timestamp>")
        .trim_end_matches("</timestamp>");
    let parts: Vec<&str> = stamp.split(' ').collect();
    assert_eq!(parts.len(), 5, "{stamp:?}");
    assert!(
        !parts[2].starts_with('0') && parts[2].parse::<u32>().is_ok(),
        "{stamp:?}"
    );
}

/// Python's `xml.etree` parses each document; returns how many there were.
fn python_parses(docs: &[&str]) -> usize {
    let mut child = crate::common::command("python3")
        .args([
            "-c",
            "import sys, xml.etree.ElementTree as ET\n\
             docs = sys.stdin.read().split('<?xml ')[1:]\n\
             for d in docs:\n    r = ET.fromstring('<?xml ' + d)\n    assert r.tag == 'nvidia_smi_log'\n\
             print(len(docs))",
        ])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("python3");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(docs.concat().as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().parse().unwrap()
}

/// The spellings real scripts use all give the document; `-l` gives one
/// whole document per sample, each of which parses.
#[test]
fn spellings_and_streams_parse() {
    // A fast loop, each sample under its deadline: on time (common::on_time).
    let _on_time = common::on_time();
    let s = scenario("xml_rtx3080_595.toml");
    let one = nvq_ok(&s, &["-q", "-x"]);
    for args in [
        &["-x", "-q"][..],
        &["--xml-format", "-q"],
        &["-q", "-x", "-i", "0"],
        &["-x", "-q", "-a"],
    ] {
        let got = nvq_ok(&s, args);
        assert_eq!(
            xml_differences(&got, &one, &[]),
            Vec::<String>::new(),
            "{args:?}"
        );
    }
    assert_eq!(python_parses(&[&one]), 1);
    let stream = nvq_ok(&s, &["-q", "-x", "-lms", "20", "--count", "3"]);
    assert_eq!(stream.matches("<?xml version=\"1.0\" ?>\n").count(), 3);
    assert_eq!(python_parses(&[&stream]), 3);
    // Every machine of the text captures, too.
    for name in [
        "h200_590_idle.toml",
        "summary_h100_idle.toml",
        "summary_rtx2080s_windows_idle.toml",
    ] {
        assert_eq!(
            python_parses(&[&nvq_ok(&scenario(name), &["-q", "-x"])]),
            1,
            "{name}"
        );
    }
}

/// Text from the GPU is escaped: a process name with markup in it stays text.
#[test]
fn text_is_escaped() {
    let base = std::fs::read_to_string(scenario("summary_rtx2080s_linux_idle.toml")).unwrap();
    let f = tempfile::Builder::new().suffix(".toml").tempfile().unwrap();
    let evil = "[[device.process]]\npid = 77\nname = \"a<b>&\\\"c</process_name>\"\nused_memory = 1048576\n";
    std::fs::write(f.path(), format!("{base}\n{evil}")).unwrap();
    let out = nvq_ok(f.path(), &["-q", "-x"]);
    assert!(
        out.contains("<process_name>a&lt;b&gt;&amp;&quot;c&lt;/process_name&gt;</process_name>"),
        "{out}"
    );
    assert_eq!(python_parses(&[&out]), 1);
}

/// `--dtd` embeds a DTD written from the document's own elements, and the
/// document is valid against it (checked with xmllint where installed);
/// `--dtd` alone prints that DTD.
#[test]
fn embedded_dtd() {
    let s = scenario("xml_rtx3080_595.toml");
    let doc = nvq_ok(&s, &["-q", "-x", "--dtd"]);
    assert!(doc.starts_with(
        "<?xml version=\"1.0\" ?>\n<!DOCTYPE nvidia_smi_log [\n<!ELEMENT nvidia_smi_log ("
    ));
    assert!(
        doc.contains("<!ELEMENT supported_mem_clock (value, supported_graphics_clock*)>"),
        "{doc}"
    );
    assert_eq!(python_parses(&[&doc]), 1);
    let alone = nvq_ok(&s, &["--dtd"]);
    assert!(alone.starts_with("<!ELEMENT nvidia_smi_log ("), "{alone}");
    assert!(doc.contains(&alone));
    // Valid against the embedded DTD, here and on machines with processes,
    // several GPUs, odd names and failing calls.
    if crate::common::require_tool("xmllint").is_none() {
        return;
    }
    let mut docs = vec![doc];
    for name in [
        "summary_rtx2080s_windows_idle.toml",
        "multigpu_5.toml",
        "hostile.toml",
        "formats.toml",
    ] {
        docs.push(nvq_ok(&scenario(name), &["-q", "-x", "--dtd"]));
    }
    for d in docs {
        let f = tempfile::Builder::new().suffix(".xml").tempfile().unwrap();
        std::fs::write(f.path(), &d).unwrap();
        let v = std::process::Command::new("xmllint")
            .args(["--valid", "--noout"])
            .arg(f.path())
            .output()
            .unwrap();
        assert!(
            v.status.success(),
            "{}\n{d}",
            String::from_utf8_lossy(&v.stderr)
        );
    }
}

/// The scenarios of the fixtures' machines, every driver generation.
const FIXTURE_MACHINES: &[&str] = &[
    "xml_rtx3080_595.toml",
    "xml_a100_535.toml",
    "xml_rtx3060_570.toml",
    "xml_rtx4090_535.toml",
    "xml_rtx3080_536.toml",
    "xml_rtx3090_525.toml",
    "xml_t4_515.toml",
    "xml_a10g_515.toml",
    "xml_rtx3060_laptop_515.toml",
    "xml_rtx2080_win_516.toml",
    "xml_p100_510.toml",
    "xml_gtx1660ti_418.toml",
    "xml_quadro_p400_418.toml",
];

/// Every generation's document is well-formed (`xmllint --noout`), and with
/// `--dtd` valid against the DTD it embeds (`xmllint --valid`).
#[test]
fn every_generation_parses_and_is_valid() {
    if crate::common::require_tool("xmllint").is_none() {
        return;
    }
    for name in FIXTURE_MACHINES {
        let s = scenario(name);
        for (args, lint) in [
            (&["-q", "-x"][..], &["--noout"][..]),
            (&["-q", "-x", "--dtd"], &["--valid", "--noout"]),
        ] {
            let doc = nvq_ok(&s, args);
            let f = tempfile::Builder::new().suffix(".xml").tempfile().unwrap();
            std::fs::write(f.path(), &doc).unwrap();
            let v = std::process::Command::new("xmllint")
                .args(lint)
                .arg(f.path())
                .output()
                .unwrap();
            assert!(
                v.status.success(),
                "{name} {args:?}: {}",
                String::from_utf8_lossy(&v.stderr)
            );
        }
    }
}

#[test]
fn display_does_not_go_with_xml() {
    let s = scenario("xml_rtx3080_595.toml");
    for args in [
        &["-q", "-x", "-d", "MEMORY"][..],
        &["-x"],
        &["-x", "--format=csv", "-q"],
    ] {
        let out = run(&s, args);
        assert_eq!(out.code, Some(2), "{args:?}");
        assert!(out.stdout.is_empty());
    }
}

/// The element names of sections no fixture of nvq's scenarios reproduces
/// whole: the remapped rows and the T.Limit-relative temperatures, checked
/// against netdata's RTX 4090 (535) document, which has both.
#[test]
fn remapped_rows_and_tlimit_elements() {
    let Some(fixture) = read_shared("nvidia-smi/captures/xml/netdata_rtx-4090-driver-535.xml")
    else {
        return;
    };
    let names = |doc: &str| -> Vec<String> {
        let start = doc.find("<remapped_rows>").unwrap();
        let end = doc.find("</temperature>").unwrap();
        doc[start..end]
            .lines()
            .map(|l| {
                l.trim()
                    .trim_start_matches('<')
                    .split(['>', ' '])
                    .next()
                    .unwrap_or("")
                    .to_string()
            })
            .collect()
    };
    let ours = nvq_ok(&scenario("h200_590_idle.toml"), &["-q", "-x"]);
    assert_eq!(names(&ours), names(&fixture));
}

/// A GPU that keeps retired-page records but has retired none writes an
/// empty `<retired_pagelist>`, as netdata's Tesla P100 (510) document shows.
#[test]
fn empty_retired_page_list() {
    let base = std::fs::read_to_string(scenario("xml_rtx3080_595.toml")).unwrap();
    let f = tempfile::Builder::new().suffix(".toml").tempfile().unwrap();
    let (head, rest) = base.split_once("fans = [0]").unwrap();
    let pages = "fans = [0]\nretired_pages = { single_bit = [], double_bit = [], pending = 0 }";
    std::fs::write(f.path(), format!("{head}{pages}{rest}")).unwrap();
    let out = nvq_ok(f.path(), &["-q", "-x"]);
    let want = "\t\t\t<multiple_single_bit_retirement>\n\t\t\t\t<retired_count>0</retired_count>\n\
                \t\t\t\t<retired_pagelist>\n\t\t\t\t</retired_pagelist>\n";
    assert!(out.contains(want), "{out}");
    assert!(
        out.contains("\t\t\t<pending_blacklist>No</pending_blacklist>\n"),
        "{out}"
    );
}

/// The leaf elements of an XML document, each as its path and text
/// (`gpu/pci/pci_gpu_link_info/pcie_gen/current_link_gen = 1`), in order.
fn leaves(doc: &str) -> Vec<String> {
    let mut path: Vec<String> = Vec::new();
    let mut out = Vec::new();
    for l in doc.lines().map(str::trim) {
        if l.starts_with("<?") || l.starts_with("<!") || l.is_empty() {
            continue;
        }
        if let Some(name) = l.strip_prefix("</") {
            assert_eq!(
                path.pop().as_deref(),
                Some(name.trim_end_matches('>')),
                "{l}"
            );
        } else if let Some((open, rest)) = l.split_once('>') {
            let name = open.trim_start_matches('<').split(' ').next().unwrap_or("");
            match rest.strip_suffix(&format!("</{name}>")) {
                Some(text) => out.push(format!("{}/{name} = {text}", path.join("/"))),
                None => path.push(name.to_string()),
            }
        }
    }
    out
}

/// Telegraf's GTX 1070 Ti document (DTD v10) was trimmed to 47 lines: no
/// timestamp, no driver version, most elements gone. What it kept is
/// checked: its DOCTYPE, and its leaf elements, each with its path and
/// text, in the same order in nvq's document for that machine.
#[test]
fn gtx1070ti_v10_trimmed_document_is_a_part_of_nvqs() {
    let Some(expected) = read_shared("nvidia-smi/captures/xml/telegraf_gtx-1070-ti.xml") else {
        return;
    };
    let actual = nvq_ok(&scenario("xml_gtx1070ti_v10.toml"), &["-q", "-x"]);
    let doctype = |d: &str| {
        d.lines()
            .find(|l| l.starts_with("<!DOCTYPE"))
            .map(str::to_owned)
    };
    assert_eq!(doctype(&actual), doctype(&expected));
    let ours = leaves(&actual);
    let theirs = leaves(&expected);
    assert_eq!(theirs.len(), 21, "{theirs:#?}");
    let mut at = 0;
    for want in &theirs {
        match ours[at..].iter().position(|l| l == want) {
            Some(i) => at += i + 1,
            None => panic!("{want:?} is not in nvq's document after line {at}:\n{actual}"),
        }
    }
}
