//! `nvq vgpu` against the simulator: a host without vGPU (every read-only
//! option prints nvidia-smi's one line), a vGPU host's `-s`, `-c`, summary
//! table and `-q` byte for byte against public outputs (`tests/vgpu/`), the
//! VM's name from a stand-in host `/proc` (`NVQ_HOST_PROC`) whatever its
//! processes hold, and what nvq refuses.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;
use common::{repo_root, run, scenario};

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
fn unimplemented_and_combined_options_are_refused() {
    for args in [
        &["vgpu", "-s", "-v"][..],
        &["vgpu", "-u"],
        &["vgpu", "-s", "-c"],
    ] {
        let out = run(&scenario(HOST), args);
        assert_eq!(out.code, Some(2), "{args:?}");
        assert!(out.stdout.is_empty(), "{args:?}");
    }
}

/// The vGPU host of the public 525.147.01 table and `-q` (akb486/vgpu).
const ONE_VM: &str = "vgpu_host_525_one_vm.toml";
const MDEV: &str = "00000000-0000-0000-0000-000000000101";

/// A stand-in host procfs: `self`, and each `(pid, start time, argv)`.
fn procfs(procs: &[(u32, u64, Vec<u8>)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("self")).unwrap();
    std::fs::write(dir.path().join("self/status"), "Name:\tnvq\nNSpid:\t1\n").unwrap();
    for (pid, start, argv) in procs {
        let d = dir.path().join(pid.to_string());
        std::fs::create_dir_all(&d).unwrap();
        std::fs::write(d.join("cmdline"), argv).unwrap();
        let stat = format!(
            "{pid} (kvm) S 1 {pid} {pid} 0 -1 4194560 0 0 0 0 0 0 0 0 20 0 1 0 {start} 1 1\n"
        );
        std::fs::write(d.join("stat"), stat).unwrap();
    }
    dir
}

/// A QEMU command line as Proxmox starts one for a VM with this mdev vGPU.
fn qemu(name: &str, uuid: &str, mdev: &str) -> Vec<u8> {
    let dev =
        format!("vfio-pci,sysfsdev=/sys/bus/mdev/devices/{mdev},id=hostpci0,bus=ich9-pcie-port-1");
    let args = [
        "/usr/bin/kvm",
        "-id",
        "101",
        "-name",
        name,
        "-no-shutdown",
        "-uuid",
        uuid,
        "-device",
        &dev,
    ];
    let mut out = args.join("\0").into_bytes();
    out.push(0);
    out
}

/// The public host's processes: the vGPU manager and the VM's QEMU.
fn public_host() -> tempfile::TempDir {
    let mgr = b"/usr/bin/nvidia-vgpu-mgr\0".to_vec();
    let vm = qemu(
        "win10test,debug-threads=on",
        "f2672e0c-3a51-4b8e-9d0f-1c2b3a4d5e6f",
        MDEV,
    );
    procfs(&[(964, 300, mgr), (1583, 7000, vm)])
}

fn run_with(proc_root: &std::path::Path, args: &[&str]) -> String {
    let out = common::sim_command(Some(&scenario(ONE_VM)), args)
        .env("NVQ_HOST_PROC", proc_root)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success() && err.is_empty(), "{args:?}: {err}");
    String::from_utf8(out.stdout).unwrap()
}

/// The table after its first line, the date (the public output was posted
/// without it); the date line itself has the GPU table's shape.
fn table_body(out: &str) -> &str {
    let (date, body) = out.split_once('\n').unwrap();
    // `Wed Dec  2 02:00:01 2026` and seven spaces, as the GPU table's.
    let b = date.as_bytes();
    assert_eq!(b.len(), 31, "{date:?}");
    assert!(
        date.ends_with("       ") && b[13] == b':' && b[16] == b':',
        "{date:?}"
    );
    body
}

#[test]
fn the_summary_table_of_a_vgpu_host_byte_for_byte() {
    let host = public_host();
    let expected = public("akb486_525_table.txt");
    let out = run_with(host.path(), &["vgpu"]);
    assert_eq!(table_body(&out), expected);
    let out = run_with(host.path(), &["vgpu", "-i", "0"]);
    assert_eq!(table_body(&out), expected);
}

#[test]
fn vgpu_query_of_a_vgpu_host_byte_for_byte() {
    let host = public_host();
    let expected = public("akb486_525_q.txt");
    assert_eq!(run_with(host.path(), &["vgpu", "-q"]), expected);
    assert_eq!(run_with(host.path(), &["vgpu", "-q", "-i", "0"]), expected);
    assert_eq!(
        run_with(host.path(), &["vgpu", "--query", "--id=0"]),
        expected
    );
}

#[test]
fn a_vm_whose_process_is_not_found_is_named_n_a() {
    // No process of the VM (and one that names another mdev device).
    let other = qemu("elsewhere", "aaaa", "00000000-0000-0000-0000-000000000102");
    let host = procfs(&[(42, 1, other)]);
    let q = run_with(host.path(), &["vgpu", "-q"]);
    assert!(
        q.contains("\n        VM Name                           : N/A\n"),
        "{q}"
    );
    let t = run_with(host.path(), &["vgpu"]);
    assert!(
        t.contains(
            "|      3251634190  NVIDIA RTXA... |          N/A                 |      0%    |\n"
        ),
        "{t}"
    );
}

#[test]
fn hostile_command_lines_never_break_a_line_or_take_a_running_vm_over() {
    let normal = run_with(public_host().path(), &["vgpu", "-q"]);
    let lines = normal.lines().count();
    // A name with a newline and an escape sequence: one line, made printable.
    let evil = qemu("a\nVM Name : x\x1b[2J", "u", MDEV);
    let q = run_with(procfs(&[(7, 5, evil)]).path(), &["vgpu", "-q"]);
    assert_eq!(q.lines().count(), lines, "{q}");
    assert!(
        q.contains("VM Name                           : a?VM Name : x?[2J\n"),
        "{q}"
    );
    let t = run_with(procfs(&[(7, 5, qemu("a\nb", "u", MDEV))]).path(), &["vgpu"]);
    assert_eq!(t.lines().count(), 10, "{t}");
    // A process started after the VM's and naming its device does not rename it.
    let real = qemu("win10test,debug-threads=on", "u", MDEV);
    let late = qemu("impostor", "u", MDEV);
    let q = run_with(
        procfs(&[(9, 900, late), (1583, 100, real)]).path(),
        &["vgpu", "-q"],
    );
    assert_eq!(q, normal);
    // A command line too long to be a QEMU one is skipped, not read whole.
    let mut huge = qemu("huge", "u", MDEV);
    huge.extend(std::iter::repeat_n(b'x', 300 * 1024));
    let q = run_with(procfs(&[(11, 1, huge)]).path(), &["vgpu", "-q"]);
    assert!(
        q.contains("VM Name                           : N/A\n"),
        "{q}"
    );
    // A process gone mid-read (its stat already missing) is skipped.
    let gone = procfs(&[(13, 1, qemu("gone", "u", MDEV))]);
    std::fs::remove_file(gone.path().join("13/stat")).unwrap();
    let q = run_with(gone.path(), &["vgpu", "-q"]);
    assert!(
        q.contains("VM Name                           : N/A\n"),
        "{q}"
    );
    // A procfs nvq cannot use: N/A, exit 0.
    let q = run_with(std::path::Path::new("/nonexistent"), &["vgpu", "-q"]);
    assert!(
        q.contains("VM Name                           : N/A\n"),
        "{q}"
    );
}

#[test]
fn a_vm_is_found_by_its_uuid_when_nvml_gives_one() {
    // The P4 host's vGPU has a VM UUID from NVML and no mdev UUID.
    let vm = qemu(
        "guest=ubuntu22,debug-threads=on",
        "7d3f6c1e-0a52-4b8e-9c3d-5e1f2a6b7c80",
        "none",
    );
    let host = procfs(&[(500, 1, vm)]);
    let out = common::sim_command(Some(&scenario(HOST)), &["vgpu", "-q"])
        .env("NVQ_HOST_PROC", host.path())
        .output()
        .unwrap();
    let q = String::from_utf8(out.stdout).unwrap();
    assert!(
        q.contains(
            "        VM UUID                           : 7d3f6c1e-0a52-4b8e-9c3d-5e1f2a6b7c80\n"
        ),
        "{q}"
    );
    assert!(
        q.contains("        VM Name                           : ubuntu22\n"),
        "{q}"
    );
    assert!(!q.contains("MDEV UUID"), "{q}");
}

/// A libvirt QEMU command line (OpenStack's): `-name guest=NAME,debug-threads=on`.
fn libvirt_qemu(name: &str, uuid: &str) -> Vec<u8> {
    let name = format!("guest={name},debug-threads=on");
    let args = ["/usr/libexec/qemu-kvm", "-name", &name, "-S", "-uuid", uuid];
    args.join("\0").into_bytes()
}

#[test]
fn vgpu_query_keeps_the_lines_of_the_public_580_output_in_order() {
    // The public 580.105.06 text may be trimmed (see SOURCES.md): each of its
    // lines is one of nvq's, in the same order, and nvq adds only the lines
    // it lacks (accounting to frame rate limit, encoder and FBC stats).
    let host = procfs(&[
        (
            3001,
            10,
            libvirt_qemu("instance-00000004", "083bc63f-0a3c-4647-9bb4-27f905b7d7bb"),
        ),
        (
            3002,
            20,
            libvirt_qemu("instance-00000005", "f0adb76f-7612-4c68-84b4-375a4e6c5476"),
        ),
    ]);
    let out = common::sim_command(Some(&scenario("vgpu_host_580_sriov.toml")), &["vgpu", "-q"])
        .env("NVQ_HOST_PROC", host.path())
        .output()
        .unwrap();
    assert!(out.status.success());
    let q = String::from_utf8(out.stdout).unwrap();
    let expected = public("cubecos_580_q_part.txt");
    let mut ours = q.lines();
    for line in expected.lines() {
        assert!(
            ours.any(|l| l == line),
            "{line:?} missing or out of order in:\n{q}"
        );
    }
    let added = [
        "Accounting Mode",
        "ECC Mode",
        "Accounting Buffer Size",
        "Frame Rate Limit",
        "Encoder Stats",
        "FBC Stats",
        "Active Sessions",
        "Average FPS",
        "Average Latency",
    ];
    let theirs: Vec<&str> = expected.lines().collect();
    for l in q.lines().filter(|l| !theirs.contains(l)) {
        let label = l.trim_start().split(" :").next().unwrap().trim_end();
        assert!(added.contains(&label), "nvq adds {l:?}");
    }
}
