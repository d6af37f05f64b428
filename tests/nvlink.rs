//! `nvq nvlink -s/-c/-e` against the simulator: nvidia-smi's captures byte
//! for byte, inactive links, error counters, `-i`, refused options.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;
use common::{nvq, read_shared, scenario};

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
        (&["nvlink", "-g", "0"][..], "does not implement"),
        (&["nvlink", "-s", "-e"][..], "Invalid combination"),
    ] {
        let out = nvq(&sc, args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(
            String::from_utf8_lossy(&out.stderr).contains(text),
            "{args:?}"
        );
    }
    let out = nvq(&sc, &["nvlink", "-s", "-i", "7"]);
    assert_eq!(out.status.code(), Some(6));
}
