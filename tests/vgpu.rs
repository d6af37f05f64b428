//! `nvq vgpu` against the simulator: a host without vGPU (every read-only
//! option prints nvidia-smi's one line), a vGPU host's `-s` and `-c` byte
//! for byte against public outputs (`tests/vgpu/`), and what nvq refuses.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;
use common::{nvq, repo_root, scenario};

fn public(name: &str) -> String {
    std::fs::read_to_string(repo_root().join("tests/vgpu").join(name)).unwrap()
}

const HOST: &str = "vgpu_host_p4_460.toml";

#[test]
fn a_host_without_vgpu_says_so_for_every_read_only_option() {
    let expected = public("vgpu_unlock_118_no_vgpu.txt");
    for args in [&[][..], &["-s"], &["-c"], &["-q"], &["-s", "-i", "0"]] {
        let out = common::nvq_ok(&scenario("h100_590_idle.toml"), &[&["vgpu"], args].concat());
        assert_eq!(out, expected, "vgpu {args:?}");
    }
}

#[test]
fn supported_types_byte_for_byte() {
    let expected = public("vgpu_unlock_30_p4_460_s.txt");
    assert_eq!(common::nvq_ok(&scenario(HOST), &["vgpu", "-s"]), expected);
    assert_eq!(
        common::nvq_ok(&scenario(HOST), &["vgpu", "--supported"]),
        expected
    );
}

#[test]
fn creatable_types_follow_the_running_vgpus() {
    // One GRID P4-1Q runs: without heterogeneous mode only more of that type fit.
    let out = common::nvq_ok(&scenario(HOST), &["vgpu", "-c"]);
    assert_eq!(out, "GPU 00000000:01:00.0\n    GRID P4-1Q\n");
}

#[test]
fn the_table_and_query_on_a_vgpu_host_are_refused_not_invented() {
    for args in [&["vgpu"][..], &["vgpu", "-q"]] {
        let out = nvq(&scenario(HOST), args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(out.stdout.is_empty(), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("vGPU host"), "{err}");
    }
}

#[test]
fn unimplemented_and_combined_options_are_refused() {
    for args in [
        &["vgpu", "-s", "-v"][..],
        &["vgpu", "-u"],
        &["vgpu", "-s", "-c"],
    ] {
        let out = nvq(&scenario(HOST), args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(out.stdout.is_empty(), "{args:?}");
    }
}
