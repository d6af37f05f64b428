//! `nvq topo -m` against the simulator: nvidia-smi's captures byte for byte
//! (single-GPU machines in `../shared`, public multi-GPU outputs in
//! `tests/topo/`), NICs from a fake `/sys`, errors, and JSON.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;
use common::{ran, read_shared, scenario, sim_command, Ran};

use std::path::{Path, PathBuf};

/// A `/sys` that does not exist: no NICs, whatever the host has.
fn no_sysfs() -> PathBuf {
    common::repo_root().join("tests/topo/no-such-sysfs")
}

/// `nvq topo ARGS` on a scenario, with `sysfs` as `/sys` (the NICs).
fn topo(scenario_file: &Path, sysfs: &Path, args: &[&str]) -> Ran {
    let mut c = sim_command(Some(scenario_file), &[&["topo"][..], args].concat());
    c.env("NVQ_SYSFS_ROOT", sysfs);
    ran(c)
}

use common::CAPTURE_MACHINES as MACHINES;

#[test]
fn single_gpu_captures_byte_for_byte() {
    let mut compared = 0;
    for (key, dir) in MACHINES {
        let Some(expected) = read_shared(&format!(
            "nvidia-smi/captures/sections/{dir}/capabilities_topo_m.txt"
        )) else {
            return;
        };
        // The section files were cut without nvidia-smi's final newline.
        let expected = format!("{}\n", expected.strip_suffix('\n').unwrap_or(&expected));
        let sc = scenario(&format!("topo_{key}.toml"));
        let got = topo(&sc, &no_sysfs(), &["-m"]).ok();
        assert_eq!(got, expected, "{key}");
        assert_eq!(
            topo(&sc, &no_sysfs(), &["--matrix"]).ok(),
            expected,
            "{key}"
        );
        compared += 1;
    }
    assert_eq!(compared, 4);
}

/// Capture 27: nvidia-smi 591.86 on Windows had no `topo` and read `-m` as
/// `--mode`, which needs a value. nvq has `topo`, so the same message comes
/// from a bare `-m`.
#[test]
fn capture_27_missing_value() {
    let Some((_, expected)) = common::capture("27_") else {
        return;
    };
    for personality in ["nvq", "nvidia-smi"] {
        let exe = common::nvq_bin();
        let dir = common::repo_root().join("target/topo-personality");
        std::fs::create_dir_all(&dir).unwrap();
        let link = dir.join(personality);
        let _ = std::fs::remove_file(&link);
        std::os::unix::fs::symlink(&exe, &link).unwrap();
        let mut c = common::command(&link);
        c.arg("-m");
        let out = ran(c);
        if personality == "nvq" {
            // nvq's own words and a usage error's exit code (issue #30).
            assert_eq!(out.code, Some(2));
            let err = out.stderr;
            assert!(err.starts_with("nvq: option -m needs a value"), "{err}");
            continue;
        }
        assert_eq!(out.code, Some(255));
        assert_eq!(out.stdout, expected, "{personality}");
    }
}

#[test]
fn dash_i_needs_n_or_p() {
    let out = topo(&scenario("topo_h200.toml"), &no_sysfs(), &["-m", "-i", "0"]);
    assert_eq!(out.code, Some(2));
    assert_eq!(
        out.stderr,
        "The -i command line argument must be used in conjunction with -n or -p.\n"
    );
}

#[test]
fn unknown_format_is_refused() {
    let out = topo(
        &scenario("topo_h200.toml"),
        &no_sysfs(),
        &["-m", "--format=csv"],
    );
    assert_eq!(out.code, Some(2));
}

/// The body of a `tests/topo/` fixture (after its `---` line), checking
/// that its header names a public source.
fn fixture_body(name: &str) -> String {
    let text = std::fs::read_to_string(common::repo_root().join("tests/topo").join(name)).unwrap();
    let (header, body) = text.split_once("---\n").unwrap();
    assert!(header.contains("# source: "), "{name}: no source");
    body.to_string()
}

/// `topo -c` and `topo -p`: public nvidia-smi outputs, byte for byte, from
/// the DGX A100 scenario (the machine of `nccl_1505_dgx_a100_nv12.txt`,
/// whose CPU lists are those of the `-c` outputs' machine).
#[test]
fn public_cpu_and_path_outputs() {
    let sc = scenario("topo_nccl_1505.toml");
    let cases: &[(&str, &[&str])] = &[
        ("gengwg_cheatsheets_dgx_a100_c48.txt", &["-c", "48"]),
        ("gengwg_cheatsheets_dgx_a100_c222.txt", &["--cpu", "222"]),
        ("packt_pytorch2x_ch10_p.txt", &["-p", "-i", "0,1"]),
    ];
    for (name, args) in cases {
        assert_eq!(
            topo(&sc, &no_sysfs(), args).ok(),
            fixture_body(name),
            "{name}"
        );
    }
    // The same pair named by UUID and by PCI bus id, in the other order.
    assert_eq!(
        topo(
            &sc,
            &no_sysfs(),
            &[
                "--gpu_path",
                "--id",
                "GPU-00001505-0000-0000-0000-000000000001,00000000:07:00.0"
            ]
        )
        .ok(),
        "Device 1 is connected to device 0 by way of multiple PCIe switches.\n"
    );
    // Across NUMA nodes; a CPU near no GPU.
    assert_eq!(
        topo(&sc, &no_sysfs(), &["-p", "-i", "0,7"]).ok(),
        "Device 0 is connected to device 7 by way of an SMP interconnect link between NUMA nodes.\n"
    );
    assert_eq!(
        topo(&sc, &no_sysfs(), &["-c", "40"]).ok(),
        "The GPUs that have an affinity with CPU 40 are:\n\n"
    );
}

/// `topo -n`: each level lists the GPUs at that level or nearer, read from
/// the same machine description as the matrix (the matrix's GPU0 row: PXB
/// to GPU1, SYS to the rest; -mp shows no NODE pair for GPU0).
#[test]
fn nearest_gpus_by_level() {
    let sc = scenario("topo_nccl_1505.toml");
    let words = [
        "a single PCIe switch on a dual GPU board",
        "a single PCIe switch",
        "multiple PCIe switches",
        "a PCIe host bridge",
        "an on-CPU interconnect link between PCIe host bridges",
        "an SMP interconnect link between NUMA nodes",
    ];
    let lists = ["", "", "1", "1", "1", "1, 2, 3, 4, 5, 6, 7"];
    for level in 0..6 {
        let got = topo(&sc, &no_sysfs(), &["-n", &level.to_string(), "-i", "0"]).ok();
        assert_eq!(
            got,
            format!(
                "Device 0 is connected by way of {} to device(s): {}\n",
                words[level], lists[level]
            ),
            "level {level}"
        );
    }
    let got = topo(&sc, &no_sysfs(), &["--nearest_gpus", "5", "-i", "6"]).ok();
    assert!(
        got.ends_with("to device(s): 0, 1, 2, 3, 4, 5, 7\n"),
        "{got}"
    );
    // A host bridge shared without a switch: PHB in the matrix, level 3.
    let two = scenario("topo_club3090_1229.toml");
    assert!(topo(&two, &no_sysfs(), &["-n", "2", "-i", "0"])
        .ok()
        .ends_with("device(s): \n"));
    assert!(topo(&two, &no_sysfs(), &["-n", "3", "-i", "0"])
        .ok()
        .ends_with("device(s): 1\n"));
}

/// JSON for the three one-sentence queries.
#[test]
fn nearest_path_cpu_json() {
    let sc = scenario("topo_nccl_1505.toml");
    let json = |args: &[&str]| -> serde_json::Value {
        let mut a = args.to_vec();
        a.push("--format=json");
        serde_json::from_str(&topo(&sc, &no_sysfs(), &a).ok()).unwrap()
    };
    assert_eq!(
        json(&["-n", "2", "-i", "0"]),
        serde_json::json!({"gpu": 0, "gpus": [1],
            "level": {"number": 2, "name": "multiple", "link": "PXB", "closeness": 2}})
    );
    assert_eq!(
        json(&["-p", "-i", "2,5"]),
        serde_json::json!({"gpus": [2, 5],
            "level": {"number": 5, "name": "system", "link": "SYS", "closeness": 5}})
    );
    assert_eq!(
        json(&["-c", "222"]),
        serde_json::json!({"cpu": 222, "gpus": [6, 7]})
    );
}

/// Wrong combinations: nvidia-smi's text where it is known (`-i` without
/// `-n`/`-p`), its help's words otherwise; bad values; a GPU that is not there.
#[test]
fn nearest_path_cpu_errors() {
    let sc = scenario("topo_nccl_1505.toml");
    let n_text = "The -n command line argument must be used in conjunction with -i which must be a single device ID.\n";
    let p_text = "The -p command line argument must be used in conjunction with -i which must be a pair of device IDs.\n";
    let i_text = "The -i command line argument must be used in conjunction with -n or -p.\n";
    let cases: &[(&[&str], i32, Option<&str>)] = &[
        (&["-n", "1"], 2, Some(n_text)),
        (&["-n", "1", "-i", "0,1"], 2, Some(n_text)),
        (&["-p"], 2, Some(p_text)),
        (&["-p", "-i", "0"], 2, Some(p_text)),
        (&["-p", "-i", "0,1,2"], 2, Some(p_text)),
        (&["-m", "-i", "0"], 2, Some(i_text)),
        (&["-c", "0", "-i", "0"], 2, Some(i_text)),
        (&["-n", "6", "-i", "0"], 2, None),
        (&["-n", "x", "-i", "0"], 2, None),
        (&["-c", "x"], 2, None),
        (&["-n", "1", "-p", "-i", "0"], 2, None),
        (&["-c", "0", "-m"], 2, None),
        (&["-p", "-i", "0,1", "-p2p", "r"], 2, None),
        (&["-n", "1", "-i", "9"], 6, Some("No devices were found\n")),
        (&["-p", "-i", "0,9"], 6, Some("No devices were found\n")),
    ];
    for (args, code, text) in cases {
        let out = topo(&sc, &no_sysfs(), args);
        assert_eq!(out.code, Some(*code), "{args:?}");
        assert!(out.stdout.is_empty(), "{args:?}");
        if let Some(t) = text {
            assert_eq!(out.stderr, *t, "{args:?}");
        }
    }
}

/// A lost GPU: asking about it fails with GPU_IS_LOST (exit 15); asking
/// about its neighbour still lists it (its index is known without calling it).
#[test]
fn nearest_path_cpu_with_a_lost_gpu() {
    let sc = scenario("topo_lost.toml");
    for args in [
        &["-n", "3", "-i", "1"][..],
        &["-p", "-i", "1,0"],
        &["-p", "-i", "0,1"],
    ] {
        let out = topo(&sc, &no_sysfs(), args);
        assert_eq!(out.code, Some(15), "{args:?}");
        assert!(out.stderr.ends_with(": GPU is lost\n"), "{args:?}");
    }
    assert_eq!(
        topo(&sc, &no_sysfs(), &["-n", "3", "-i", "0"]).ok(),
        "Device 0 is connected by way of a PCIe host bridge to device(s): 1\n"
    );
    assert!(topo(&sc, &no_sysfs(), &["-c", "3"])
        .ok()
        .ends_with(":\n0, 1\n"));
    // No topology in the scenario: NVML says NOT_SUPPORTED (exit 3).
    let out = topo(&scenario("h100_590_idle.toml"), &no_sysfs(), &["-c", "0"]);
    assert_eq!(out.code, Some(3));
    assert_eq!(
        out.stderr,
        "Unable to query the GPUs near CPU 0: Not Supported\n"
    );
}

/// A fake `/sys` under `target/`, with a directory per PCI device: the GPUs
/// of the scenario (their `pci_path`) and the NICs of a `.nics` file (a
/// name, then the same kind of path). Each path element after the NUMA node
/// is a host bridge, then PCIe switches; a switch gets one downstream port
/// per child, as the kernel shows real switches.
fn fake_sysfs(name: &str, scenario_file: &Path, nics: &str) -> PathBuf {
    let root = common::repo_root().join("target/topo-sysfs").join(name);
    let _ = std::fs::remove_dir_all(&root);
    let text = std::fs::read_to_string(scenario_file).unwrap();
    let sc = nvml_sim::scenario::Scenario::parse(&text, "scenario").unwrap();
    let place = |path: &[String], leaf: &str| -> PathBuf {
        let mut dir = root.join("devices").join(&path[1]);
        let mut parent: Option<&str> = None;
        for sw in &path[2..] {
            if let Some(p) = parent {
                dir = dir.join(format!("{p}.dp-{sw}"));
            }
            dir = dir.join(sw);
            parent = Some(sw);
        }
        if let Some(p) = parent {
            dir = dir.join(format!("{p}.dp-{leaf}"));
        }
        let dir = dir.join(leaf);
        std::fs::create_dir_all(&dir).unwrap();
        let node = path[0].trim_start_matches("numa");
        std::fs::write(dir.join("numa_node"), format!("{node}\n")).unwrap();
        dir
    };
    let pci = root.join("bus/pci/devices");
    std::fs::create_dir_all(&pci).unwrap();
    for d in &sc.device {
        let bus = d.bus_id().unwrap();
        let (domain, rest) = bus.split_once(':').unwrap();
        let sysname = format!("{}:{}", &domain[4..], rest).to_ascii_lowercase();
        let dir = place(&d.topology.as_ref().unwrap().pci_path, &sysname);
        std::os::unix::fs::symlink(dir, pci.join(&sysname)).unwrap();
    }
    for line in nics
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
    {
        let words: Vec<String> = line.split_whitespace().map(String::from).collect();
        let dir = place(&words[1..], &format!("pci-{}", words[0]));
        let class = root.join("class/infiniband").join(&words[0]);
        std::fs::create_dir_all(&class).unwrap();
        std::os::unix::fs::symlink(dir, class.join("device")).unwrap();
    }
    root
}

/// Expand tabs to the next multiple of 8, as a terminal shows them.
fn expand_tabs(line: &str) -> String {
    let mut out = String::new();
    for c in line.chars() {
        if c == '\t' {
            out.push(' ');
            while out.chars().count() % 8 != 0 {
                out.push(' ');
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// Public `topo -m` outputs of real multi-GPU machines (`tests/topo/*.txt`,
/// each naming its source), each reproduced from its scenario (and NICs).
/// The pages trimmed trailing blanks and dropped the terminal's escapes, and
/// some expanded tabs; the comparison does the same to nvq's output. An
/// excerpt that ends early is compared over the lines it has.
#[test]
fn public_multi_gpu_matrices() {
    let cases: &[(&str, &str)] = &[
        (
            "nccl_1453_h100_nv18_nics",
            "nvml-sim/scenarios/dgx_h100_8gpu.toml",
        ),
        (
            "nccl_tests_307_8x4090_pix_nic",
            "nvml-sim/scenarios/pcie_8gpu_2numa.toml",
        ),
        (
            "club3090_1229_2x5090_phb",
            "tests/scenarios/topo_club3090_1229.toml",
        ),
        (
            "club3090_46_5gpu_2numa",
            "tests/scenarios/topo_club3090_46.toml",
        ),
        (
            "open_gpu_kernel_modules_1_4gpu_phb",
            "tests/scenarios/topo_open_gpu_1.toml",
        ),
        (
            "nccl_1505_dgx_a100_nv12",
            "tests/scenarios/topo_nccl_1505.toml",
        ),
        (
            "sglang_13973_h200_nv18_4numa",
            "tests/scenarios/topo_sglang_13973.toml",
        ),
    ];
    let dir = common::repo_root().join("tests/topo");
    for (name, sc) in cases {
        let fixture = std::fs::read_to_string(dir.join(format!("{name}.txt"))).unwrap();
        let (header, body) = fixture.split_once("---\n").unwrap();
        assert!(header.contains("# source: https://"), "{name}: no source");
        let spaces = header.contains("tabs expanded to spaces");
        let nics = std::fs::read_to_string(dir.join(format!("{name}.nics"))).unwrap_or_default();
        let sc = common::repo_root().join(sc);
        let sysfs = fake_sysfs(name, &sc, &nics);
        let got = topo(&sc, &sysfs, &["-m"]).ok();
        let got = got.replace("\x1b[4m", "").replace("\x1b[0m", "");
        let want: Vec<&str> = body.lines().collect();
        let got: Vec<String> = got
            .lines()
            .map(|l| {
                if spaces {
                    expand_tabs(l)
                } else {
                    l.to_string()
                }
            })
            .map(|l| l.trim_end().to_string())
            .collect();
        if header.contains("lines: all") {
            assert_eq!(
                got.len(),
                want.len(),
                "{name}: line count\n{}",
                got.join("\n")
            );
        }
        for (k, w) in want.iter().enumerate() {
            assert_eq!(
                got.get(k).map(String::as_str),
                Some(w.trim_end()),
                "{name}: line {}",
                k + 1
            );
        }
    }
}

/// The whole text of a scenario's matrix (no NICs), escapes and legend kept.
fn matrix_rows(sc: &str) -> Vec<String> {
    let out = topo(&scenario(sc), &no_sysfs(), &["-m"]).ok();
    out.lines()
        .take_while(|l| !l.is_empty())
        .map(String::from)
        .collect()
}

#[test]
fn nvlink_bridges_and_pcie_levels() {
    assert_eq!(
        matrix_rows("topo_nvlink_pairs.toml"),
        [
            "\t\x1b[4mGPU0\tGPU1\tGPU2\tGPU3\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID\x1b[0m",
            "GPU0\t X \tNV4\tSYS\tSYS\t0-15\t0\t\t4",
            "GPU1\tNV4\t X \tSYS\tSYS\t0-15\t0\t\tN/A",
            "GPU2\tSYS\tSYS\t X \tNV4\t16-31\t1\t\tN/A",
            "GPU3\tSYS\tSYS\tNV4\t X \t16-31\t1\t\tN/A",
        ]
    );
}

/// A GPU that fell off the bus: its cells say N/A, its lists are empty, the
/// other GPUs are unaffected and the command succeeds.
#[test]
fn a_lost_gpu() {
    assert_eq!(
        matrix_rows("topo_lost.toml")[1..],
        ["GPU0\t X \tN/A\t0-7\t0\t\tN/A", "GPU1\tN/A\t X \t\t\t\tN/A"]
    );
    let json = topo(
        &scenario("topo_lost.toml"),
        &no_sysfs(),
        &["-m", "--format=json"],
    )
    .ok();
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["gpus"][0]["links"]["GPU1"]["error"], "gpu_lost");
    assert_eq!(v["gpus"][1]["_errors"]["cpu_affinity"], "gpu_lost");
    assert_eq!(v["gpus"][1]["cpu_affinity"], serde_json::Value::Null);
}

/// JSON: typed links a launcher can sort, the affinities as numbers, NICs.
#[test]
fn json_matrix() {
    let sc = common::repo_root().join("nvml-sim/scenarios/dgx_h100_8gpu.toml");
    let nics = std::fs::read_to_string(
        common::repo_root().join("tests/topo/nccl_1453_h100_nv18_nics.nics"),
    )
    .unwrap();
    let sysfs = fake_sysfs("json", &sc, &nics);
    let out = topo(&sc, &sysfs, &["-m", "--format=json"]).ok();
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let g0 = &v["gpus"][0];
    assert_eq!(
        g0["links"]["GPU7"],
        serde_json::json!({"type": "NV", "nvlinks": 18, "closeness": 0})
    );
    assert_eq!(
        g0["links"]["NIC8"],
        serde_json::json!({"type": "PIX", "closeness": 1})
    );
    assert_eq!(g0["links"]["NIC0"]["type"], "SYS");
    assert_eq!(g0["cpu_affinity"].as_array().unwrap().len(), 80);
    assert_eq!(g0["numa_affinity"], serde_json::json!([0]));
    assert_eq!(v["nics"][8]["device"], "mlx5_8");
    assert_eq!(v["nics"].as_array().unwrap().len(), 9);
    assert!(out.ends_with("}\n"));
}

/// `topo -p2p`: a public output byte for byte (its lines keep their final
/// tab), every capability letter, and the wrong combinations.
#[test]
fn p2p_matrix() {
    let fixture =
        std::fs::read_to_string(common::repo_root().join("tests/topo/club3090_1229_p2p.txt"))
            .unwrap();
    let (header, want) = fixture.split_once("---\n").unwrap();
    assert!(header.contains("# source: https://"));
    let sc = scenario("topo_club3090_1229.toml");
    assert_eq!(topo(&sc, &no_sysfs(), &["-p2p", "r"]).ok(), want);
    assert_eq!(topo(&sc, &no_sysfs(), &["--p2pstatus", "w"]).ok(), want);
    let nvlink = topo(&sc, &no_sysfs(), &["-p2p", "n"]).ok();
    assert!(
        nvlink.starts_with(" \tGPU0\tGPU1\t\n GPU0\tX\tNS\t\n"),
        "{nvlink}"
    );
    // No P2P data in the scenario: the cells say the call failed.
    let none = topo(&scenario("topo_lost.toml"), &no_sysfs(), &["-p2p", "a"]).ok();
    assert!(none.contains(" GPU0\tX\tN/A\t\n"), "{none}");
    for args in [
        &["-p2p", "x"][..],
        &["-p2p", "r", "-m"],
        &["-p2p", "r", "--format=json"],
    ] {
        assert_eq!(topo(&sc, &no_sysfs(), args).code, Some(2), "{args:?}");
    }
}

/// `topo -mp`: the same matrix with PCIe paths only, so NVSwitch-joined
/// GPUs show how PCIe connects them (another host bridge: NODE; another
/// NUMA node: SYS).
#[test]
fn pci_only_matrix() {
    let sc = common::repo_root().join("nvml-sim/scenarios/dgx_h100_8gpu.toml");
    let out = topo(&sc, &no_sysfs(), &["-mp"]).ok();
    let row0 = out.lines().nth(1).unwrap();
    assert_eq!(
        row0,
        "GPU0\t X \tNODE\tNODE\tNODE\tSYS\tSYS\tSYS\tSYS\t0-79\t0\t\tN/A"
    );
    assert_eq!(topo(&sc, &no_sysfs(), &["--matrix_pci"]).ok(), out);
    assert!(topo(&sc, &no_sysfs(), &["-m"])
        .ok()
        .lines()
        .nth(1)
        .unwrap()
        .contains("NV18"));
    assert_eq!(topo(&sc, &no_sysfs(), &["-m", "-mp"]).code, Some(2));
}
