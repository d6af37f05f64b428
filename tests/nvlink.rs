//! `nvq nvlink` against the simulator: nvidia-smi's captures and public
//! outputs (`tests/nvlink/`) byte for byte, inactive links, error counters,
//! far ends, traffic counters, `-l`, `-i`, refused options.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;
use common::{read_shared, run, scenario};

fn ok(sc: &str, args: &[&str]) -> String {
    common::nvq_ok(&scenario(sc), &[&["nvlink"], args].concat())
}

#[test]
fn captures_byte_for_byte() {
    for (key, dir) in common::CAPTURE_MACHINES {
        let Some(section) = read_shared(&format!(
            "nvidia-smi/captures/sections/{dir}/capabilities_nvlink_s.txt"
        )) else {
            return;
        };
        // The section was cut without its final newline; one file also runs
        // on into the next section (`####...`) after two empty lines.
        let end = section.find("\n####").unwrap_or(section.len());
        let expected = format!("{}\n", section[..end].trim_end_matches('\n'));
        let sc = format!("topo_{key}.toml");
        assert_eq!(ok(&sc, &["-s"]), expected, "{key}");
        assert_eq!(ok(&sc, &["--status"]), expected, "{key}");
    }
}

#[test]
fn inactive_links_and_missing_speeds() {
    let out = ok("topo_nvlink_pairs.toml", &["-s", "-i", "0,3"]);
    assert_eq!(
        out,
        "GPU 0: NVIDIA RTX A6000 (UUID: GPU-00000001-0000-0000-0000-000000000000)\n\
         \t Link 0: 14.062 GB/s\n\t Link 1: 14.062 GB/s\n\t Link 2: 14.062 GB/s\n\t Link 3: 14.062 GB/s\n\
         \t Link 4: <inactive>\n\t Link 5: <inactive>\n\
         GPU 3: NVIDIA RTX A6000 (UUID: GPU-00000004-0000-0000-0000-000000000000)\n\
         NVML: Unable to retrieve Nvlink information as all links are inActive\n"
    );
    // GPU 1 reports no speed: the cell says why.
    assert!(ok("topo_nvlink_pairs.toml", &["-s", "-i", "1"]).contains("\t Link 0: [N/A]\n"));
}

#[test]
fn error_counters_of_active_links() {
    let out = ok("topo_nvlink_pairs.toml", &["-e", "-i", "0"]);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 1 + 4 * 3, "{out}");
    assert_eq!(lines[1], "\t Link 0: Replay Errors: 3");
    assert_eq!(lines[2], "\t Link 0: Recovery Errors: 1");
    assert_eq!(lines[12], "\t Link 3: CRC Errors: 0");
}

#[test]
fn capabilities() {
    let out = ok("topo_h200.toml", &["--capabilities"]);
    assert_eq!(out.lines().count(), 1 + 18 * 6);
    assert!(
        out.contains("\t Link 17, SLI is supported: false\n\t Link 17, Link is supported: true\n")
    );
}

#[test]
fn refusals() {
    let sc = scenario("topo_h200.toml");
    for (args, text) in [
        (&["nvlink", "-re"][..], "changes the GPU's state"),
        (&["nvlink", "-r", "0"][..], "changes the GPU's state"),
        (&["nvlink", "-info"][..], "does not implement"),
        (&["nvlink", "-sc", "0bz"][..], "changes the GPU's state"),
        (&["nvlink", "-s", "-e"][..], "do not go together"),
    ] {
        let out = run(&sc, args);
        assert_eq!(out.code, Some(2), "{args:?}");
        assert!(out.stderr.contains(text), "{args:?}");
    }
    let out = run(&sc, &["nvlink", "-s", "-i", "7"]);
    assert_eq!(out.code, Some(6));
}

/// A public output of `tests/nvlink/`: its body (after the `---` line),
/// checking that the header names its source.
fn fixture(name: &str) -> String {
    let path = common::repo_root().join("tests/nvlink").join(name);
    let text = std::fs::read_to_string(&path).unwrap();
    let (header, body) = text.split_once("---\n").unwrap();
    assert!(header.contains("# source: https://"), "{name}: no source");
    body.to_string()
}

/// Tabs expanded to spaces as the pages that show these outputs did.
fn expand_tabs(text: &str) -> String {
    text.lines()
        .map(|line| {
            let mut out = String::new();
            for c in line.chars() {
                if c == '\t' {
                    out.push_str(&" ".repeat(8 - out.chars().count() % 8));
                } else {
                    out.push(c);
                }
            }
            out + "\n"
        })
        .collect()
}

/// Public outputs of real machines, each reproduced from a scenario of that
/// machine: an H100 PCIe pair with inactive links between active ones (`-R`
/// numbers its lines by counting active links), a DGX H100's links to its
/// NVSwitches, an H800's speeds, capabilities (SLI, not "Link is supported")
/// and traffic counters.
#[test]
fn public_outputs_byte_for_byte() {
    let cases: &[(&str, &str, &[&str])] = &[
        (
            "hpe_dl380a_h100pcie_pair_R.txt",
            "nvlink_h100pcie_pair.toml",
            &["-R"],
        ),
        (
            "hpe_dl380a_h100pcie_pair_R.txt",
            "nvlink_h100pcie_pair.toml",
            &["--remotelinkinfo"],
        ),
        (
            "hpe_dl380a_h100pcie_pair_s.txt",
            "nvlink_h100pcie_pair.toml",
            &["-s"],
        ),
        ("nccl_1182_dgx_h100_R.txt", "nvlink_dgx_h100.toml", &["-R"]),
        (
            "llm_action_h800_gt_d_training.txt",
            "nvlink_h800.toml",
            &["-i", "0", "-gt", "d"],
        ),
        (
            "llm_action_h800_gt_d_training.txt",
            "nvlink_h800.toml",
            &["--getthroughput", "d"],
        ),
        (
            "llm_action_h800_status.txt",
            "nvlink_h800.toml",
            &["--status", "-i", "0"],
        ),
        (
            "llm_action_h800_capabilities.txt",
            "nvlink_h800.toml",
            &["--capabilities", "-i", "0"],
        ),
        (
            "llm_action_h800_gt_r_training.txt",
            "nvlink_h800.toml",
            &["-i", "0", "-gt", "r"],
        ),
    ];
    for (name, sc, args) in cases {
        assert_eq!(expand_tabs(&ok(sc, args)), fixture(name), "{name} {args:?}");
    }
    // Every fixture is used.
    for entry in std::fs::read_dir(common::repo_root().join("tests/nvlink")).unwrap() {
        let name = entry.unwrap().file_name().into_string().unwrap();
        assert!(
            cases.iter().any(|(f, _, _)| *f == name),
            "{name} is not tested"
        );
    }
}

/// `-p`: the far end's PCI bus id on each active link, by the link's own
/// number (a GPU's peer, or an NVSwitch).
#[test]
fn remote_pci_bus_ids() {
    let out = ok("nvlink_h100pcie_pair.toml", &["-p", "-i", "1"]);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 1 + 12, "{out}");
    assert_eq!(lines[4], "\t Link 3: 00000000:C2:00.0");
    assert_eq!(lines[5], "\t Link 6: 00000000:C2:00.0");
    assert_eq!(lines[12], "\t Link 15: 00000000:C2:00.0");
    let out = ok("nvlink_dgx_h100.toml", &["--pcibusid"]);
    assert!(
        out.contains("\t Link 11: 00000000:06:00.0\n\t Link 12: 00000000:08:00.0\n"),
        "{out}"
    );
}

/// `-l N` limits every listing to link N; each line is the one the full
/// listing has for that link (`-R` keeps its count of active links).
#[test]
fn one_link() {
    let sc = "nvlink_h100pcie_pair.toml";
    let full = ok(sc, &["-R", "-i", "0"]);
    let one = ok(sc, &["-R", "-i", "0", "-l", "12"]);
    assert_eq!(one.lines().count(), 2, "{one}");
    assert_eq!(one.lines().nth(1), full.lines().nth(9), "{one}");
    assert_eq!(
        one.lines().nth(1),
        Some("\t Link 8: Remote Device 00000000:D5:00.0: Link 12")
    );
    assert!(ok(sc, &["-s", "--link", "4"]).ends_with(")\n\t Link 4: <inactive>\n"));
    // An inactive link has no far end and no counters: only the header.
    let out = ok(sc, &["-p", "-i", "0", "-l", "5"]);
    assert_eq!(
        out,
        "GPU 0: NVIDIA H100 PCIe (UUID: GPU-6968dfc2-d444-d92c-c36b-6abe53445cb9)\n"
    );
    let gt = ok("nvlink_h800.toml", &["-gt", "r", "-l", "7"]);
    assert_eq!(
        gt.lines().skip(1).collect::<Vec<_>>(),
        [
            "\t Link 7: Raw Tx: 1919300185 KiB",
            "\t Link 7: Raw Rx: 1957241622 KiB"
        ]
    );
    // A link the GPU does not have (the H800 has 8): NVML's answer.
    assert!(
        ok("nvlink_h800.toml", &["-e", "-l", "12"]).ends_with("\t Link 12: [Invalid Argument]\n")
    );
    // Past NVML's last link, or not a number: refused.
    for bad in ["18", "x", "99"] {
        let out = run(&scenario(sc), &["nvlink", "-s", "-l", bad]);
        assert_eq!(out.code, Some(2), "{bad}");
        assert!(out.stderr.contains("Invalid link"), "{bad}");
    }
}

/// `-ec`: each active link's CRC error count per lane, as far as NVML
/// answers; a GPU with no per-lane counter says so.
#[test]
fn per_lane_crc() {
    let out = ok("nvlink_h800.toml", &["-ec"]);
    assert!(
        out.contains(
            "\t Link 5: Lane 0 CRC Errors: 2\n\t Link 5: Lane 1 CRC Errors: 7\n\t Link 6: "
        ),
        "{out}"
    );
    assert!(
        out.contains(
            "\t Link 1: Lane 0 CRC Errors: 0\n\t Link 1: Lane 1 CRC Errors: 0\n\t Link 2: "
        ),
        "{out}"
    );
    let none = ok("nvlink_dgx_h100.toml", &["-ec", "-l", "3"]);
    assert!(
        none.ends_with(")\n\t Link 3: Lane 0 CRC Errors: [N/A]\n"),
        "{none}"
    );
    assert_eq!(
        ok("nvlink_h800.toml", &["--crcerrorcounters", "-l", "0"])
            .lines()
            .skip(1)
            .collect::<Vec<_>>(),
        [
            "\t Link 0: Lane 0 CRC Errors: 0",
            "\t Link 0: Lane 1 CRC Errors: 0"
        ]
    );
}

/// A GPU without NVLink (every NVLink call NOT_SUPPORTED: nvidia-smi says
/// the device has none, as on an L40S) and a lost GPU (the all-inactive
/// line), for every listing.
#[test]
fn no_nvlink_and_a_lost_gpu() {
    for args in [
        &["-R"][..],
        &["-p"],
        &["-ec"],
        &["-gt", "d"],
        &["-s", "-l", "0"],
    ] {
        assert_eq!(
            ok("topo_lost.toml", args),
            "GPU 0: NVIDIA L4 (UUID: GPU-00000001-0000-0000-0000-000000000000)\n\
             Device does not have or support Nvlink\n\
             GPU 1: [GPU is lost] (UUID: [GPU is lost])\n\
             NVML: Unable to retrieve Nvlink information as all links are inActive\n",
            "{args:?}"
        );
    }
}

/// `-g` and `-gc`, deprecated in the driver: its notice, nothing read.
#[test]
fn deprecated_counter_options() {
    let sc = "nvlink_dgx_h100.toml";
    assert_eq!(
        ok(sc, &["-g", "0"]),
        "Getting counters using option -g is deprecated. Please use option -gt/--getthroughput instead.\n"
    );
    assert_eq!(
        ok(sc, &["-gc", "1"]),
        "Getting counter control is deprecated!\n"
    );
}

/// Wrong values and combinations of the new options.
#[test]
fn new_option_errors() {
    let sc = scenario("nvlink_h800.toml");
    for (args, text) in [
        (&["nvlink", "-gt", "x"][..], "-gt takes d"),
        (&["nvlink", "-R", "-p"][..], "do not go together"),
        (&["nvlink", "-gt", "d", "-ec"][..], "do not go together"),
        (&["nvlink", "-l", "0"][..], "do not go together"),
        (&["nvlink", "-R", "-i", "3"][..], ""),
    ] {
        let out = run(&sc, args);
        assert_ne!(out.code, Some(0), "{args:?}");
        assert!(out.stderr.contains(text), "{args:?}");
    }
}
