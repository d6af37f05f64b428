//! `nvq mig -lgi/-lci/-lgip/-lcip` against the simulator: public nvidia-smi
//! outputs (`tests/mig/*.txt`, each naming its source) reproduced from their
//! scenarios, MIG disabled, a lost GPU, `-i` and `-gi`, refused options.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;
use common::{run, scenario};

fn ok(sc: &str, args: &[&str]) -> String {
    common::nvq_ok(&scenario(sc), &[&["mig"], args].concat())
}

/// Each fixture: its header names the source and the command; the body
/// (after `---`) is the program's output, possibly cut short by the page,
/// so nvq's output is compared over the fixture's lines, byte for byte.
#[test]
fn public_outputs() {
    let cases: &[(&str, &str, &[&str])] = &[
        (
            "dra_driver_933_lgi",
            "mig_dra_933.toml",
            &["-lgi", "-i", "3"],
        ),
        ("dcgm_138_lgi", "mig_dcgm_138.toml", &["-lgi"]),
        ("mig_parted_97_lgip", "mig_parted_97.toml", &["-lgip"]),
        (
            "gpu_operator_1303_lgip",
            "mig_gpu_operator_1303.toml",
            &["-lgip"],
        ),
        ("mig_parted_227_lgip", "mig_parted_227.toml", &["-lgip"]),
        ("go_nvml_146_lcip", "mig_go_nvml_146.toml", &["-lcip"]),
        ("scaleway_h100_lgip", "mig_scaleway_h100.toml", &["-lgip"]),
        ("scaleway_h100_lgipp", "mig_scaleway_h100.toml", &["-lgipp"]),
        (
            "gpu_operator_622_lcip",
            "mig_gpu_operator_622.toml",
            &["-lcip", "-gi", "0"],
        ),
    ];
    let dir = common::repo_root().join("tests/mig");
    for (name, sc, args) in cases {
        let fixture = std::fs::read_to_string(dir.join(format!("{name}.txt"))).unwrap();
        let (header, body) = fixture.split_once("---\n").unwrap();
        assert!(header.contains("# source: https://"), "{name}: no source");
        let command = format!("# command: nvidia-smi mig {}", args.join(" "));
        assert!(header.contains(&command), "{name}: not {command}");
        let got = ok(sc, args);
        if header.contains("# lines: all") {
            assert_eq!(got, body, "{name}");
        } else {
            let want: Vec<&str> = body.lines().collect();
            let got: Vec<&str> = got.lines().take(want.len()).collect();
            assert_eq!(got, want, "{name}");
        }
    }
}

#[test]
fn long_spellings() {
    let short = ok("mig_dcgm_138.toml", &["-lgip"]);
    assert_eq!(
        ok("mig_dcgm_138.toml", &["--list-gpu-instance-profiles"]),
        short
    );
    let lgi = ok("mig_dra_933.toml", &["-lgi", "-i", "3"]);
    assert_eq!(
        ok("mig_dra_933.toml", &["--list-gpu-instances", "--id", "3"]),
        lgi
    );
}

#[test]
fn profiles_with_free_capacity_left() {
    // GPU 2 of the DCGM machine holds one 1g.10gb instance of seven.
    let out = ok("mig_dcgm_138.toml", &["-lgip", "-i", "2"]);
    assert!(
        out.contains(
            "\n|   2  MIG 1g.10gb       19     6/7        9.50       No     14     0     0   |\n"
        ),
        "{out}"
    );
}

#[test]
fn compute_instances() {
    let out = ok("mig_instances.toml", &["-lci", "-i", "0"]);
    let rows: Vec<&str> = out.lines().filter(|l| l.starts_with("|   0")).collect();
    assert_eq!(
        rows,
        [
            "|   0      5       MIG 1c.2g.20gb       0         0          0:1     |",
            "|   0      5       MIG 1c.2g.20gb       0         1          1:1     |",
            "|   0      1       MIG 3g.40gb          2         0          0:3     |",
        ],
        "{out}"
    );
    assert!(
        out.starts_with(&format!("+{}+\n| Compute instances:", "-".repeat(68))),
        "{out}"
    );
    // -gi keeps the GPU instances asked for.
    let one = ok("mig_instances.toml", &["-lci", "-i", "0", "-gi", "1"]);
    assert_eq!(
        one.lines().filter(|l| l.starts_with("|   0")).count(),
        1,
        "{one}"
    );
    // The compute instance profiles: the one filling its GPU instance is starred.
    let cip = ok("mig_instances.toml", &["-lcip", "-i", "0", "-gi", "5"]);
    assert!(
        cip.contains("|   0      5       MIG 2g.20gb          1*     0/1  "),
        "{cip}"
    );
    assert!(
        cip.contains("|   0      5       MIG 1c.2g.20gb       0      0/2  "),
        "{cip}"
    );
}

#[test]
fn mig_disabled() {
    for flag in ["-lgi", "-lci", "-lgip", "-lcip", "-lgipp", "-lcipp"] {
        assert_eq!(
            ok("mig_instances.toml", &[flag, "-i", "1"]),
            "No MIG-enabled devices found.\n",
            "{flag}"
        );
    }
    // A GPU without MIG keys at all.
    assert_eq!(
        ok("topo_h200.toml", &["-lgi"]),
        "No MIG-enabled devices found.\n"
    );
}

/// `-lgipp` on a GPU that already holds instances: the possible placements
/// do not depend on them; `-lcipp` lists each GPU instance's compute instance
/// profiles (its line's wording is unverified: no public output seen);
/// `-gi` keeps the GPU instances asked for; a lost GPU gets its line.
#[test]
fn placements() {
    assert_eq!(
        ok("mig_instances.toml", &["-lgipp", "-i", "0"]),
        "GPU  0 Profile ID 14 Placements: {0,2,4}:2\nGPU  0 Profile ID  9 Placements: {0,4}:4\n"
    );
    assert_eq!(
        ok(
            "mig_instances.toml",
            &["--list-gpu-instance-possible-placements", "-i", "0"]
        ),
        ok("mig_instances.toml", &["-lgipp", "-i", "0"])
    );
    assert_eq!(
        ok("mig_instances.toml", &["-lcipp", "-i", "0"]),
        "GPU  0 GI  5 Profile ID  0 Placements: {0,1}:1\n\
         GPU  0 GI  5 Profile ID  1 Placement : {0}:2\n\
         GPU  0 GI  1 Profile ID  2 Placement : {0}:3\n"
    );
    assert_eq!(
        ok(
            "mig_instances.toml",
            &[
                "--list-compute-instance-possible-placements",
                "-i",
                "0",
                "-gi",
                "1"
            ]
        ),
        "GPU  0 GI  1 Profile ID  2 Placement : {0}:3\n"
    );
    assert_eq!(
        ok("mig_instances.toml", &["-lgipp", "-i", "2"]),
        "Failed to display GPU instance profile placements: GPU is lost\n"
    );
    let out = ok("mig_instances.toml", &["-lcipp"]);
    assert!(
        out.ends_with(
            ":3\nFailed to display compute instance profile placements of GPU 2: GPU is lost\n"
        ),
        "{out}"
    );
    // Profiles without placements in the scenario (NOT_SUPPORTED) are left out.
    assert_eq!(
        ok("mig_dcgm_138.toml", &["-lgipp", "-i", "0"]),
        "No GPU instance profiles found: Not Found\n"
    );
}

#[test]
fn no_instances_yet() {
    let out = ok("mig_gpu_operator_1303.toml", &["-lgi"]);
    assert_eq!(out, "No GPU instances found: Not Found\n");
}

#[test]
fn a_lost_gpu() {
    assert_eq!(
        ok("mig_instances.toml", &["-lgi", "-i", "2"]),
        "Failed to display GPU instances: GPU is lost\n"
    );
    // Beside a readable GPU: its table, then a line for the lost one.
    let out = ok("mig_instances.toml", &["-lgip", "-i", "0,2"]);
    assert!(out.starts_with("+---"), "{out}");
    assert!(
        out.ends_with("+\nFailed to display GPU instance profiles of GPU 2: GPU is lost\n"),
        "{out}"
    );
}

#[test]
fn refusals() {
    let sc = scenario("mig_instances.toml");
    for (args, text) in [
        (&["mig", "-cgi", "19"][..], "changes the GPU's state"),
        (&["mig", "-dgi", "-gi", "1"][..], "changes the GPU's state"),
        (
            &["mig", "-cci", "0", "-gi", "1"][..],
            "changes the GPU's state",
        ),
        (&["mig", "-dci"][..], "changes the GPU's state"),
        (&["mig", "-lgi", "-C"][..], "changes the GPU's state"),
        (&["mig", "-ci", "0"][..], "does not implement"),
        (&["mig", "-lgipp", "-lcipp"][..], "do not go together"),
        (&["mig", "-lgipp", "-gi", "1"][..], "do not go together"),
        (&["mig", "-lgi", "-lgip"][..], "do not go together"),
        (&["mig", "-lgip", "-gi", "1"][..], "do not go together"),
        (&["mig", "-lci", "-gi", "x"][..], "GPU instance ids"),
    ] {
        let out = run(&sc, args);
        assert_eq!(out.code, Some(2), "{args:?}");
        assert!(out.stderr.contains(text), "{args:?}");
    }
    // -mig (set the MIG mode) stays refused at the top level.
    let out = run(&sc, &["-mig", "1"]);
    assert_eq!(out.code, Some(2));
    let out = run(&sc, &["mig", "-lgi", "-i", "7"]);
    assert_eq!(out.code, Some(6));
}

/// `--format=json`: the typed model of each listing, the placements with
/// the profile listings that read them, disabled and lost GPUs as values.
#[test]
fn json_listings() {
    let json = |args: &[&str]| -> serde_json::Value {
        let mut a = args.to_vec();
        a.push("--format=json");
        let out = ok("mig_instances.toml", &a);
        assert!(out.ends_with("}\n"), "{out}");
        serde_json::from_str(&out).unwrap()
    };
    let v = json(&["-lgi"]);
    let g0 = &v["gpus"][0];
    assert_eq!(g0["mig_enabled"], true);
    assert_eq!(
        g0["gpu_instances"][1],
        serde_json::json!({"id": 1, "profile_id": 9, "profile_name": "MIG 3g.40gb",
            "placement": {"start": 4, "size": 4}})
    );
    assert_eq!(
        v["gpus"][1],
        serde_json::json!({"index": 1, "mig_enabled": false})
    );
    assert_eq!(v["gpus"][2]["_errors"]["mig"], "gpu_lost");
    assert_eq!(v["gpus"][2]["mig_enabled"], serde_json::Value::Null);

    let v = json(&["-lci", "-i", "0", "-gi", "5"]);
    let cis = &v["gpus"][0]["gpu_instances"][0]["compute_instances"];
    assert_eq!(cis.as_array().unwrap().len(), 2);
    assert_eq!(
        cis[1]["placement"],
        serde_json::json!({"start": 1, "size": 1})
    );

    let v = json(&["-lgip", "-i", "0"]);
    let p = &v["gpus"][0]["gpu_instance_profiles"][0];
    assert_eq!(p["id"], 14);
    assert_eq!(p["instances"], serde_json::json!({"free": 2, "total": 3}));
    assert_eq!(p["memory_mib"], 19968);
    assert!(p.get("placements").is_none(), "{p}");

    let v = json(&["-lgipp", "-i", "0"]);
    assert_eq!(
        v["gpus"][0]["gpu_instance_profiles"][1]["placements"],
        serde_json::json!([{"start": 0, "size": 4}, {"start": 4, "size": 4}])
    );
    let v = json(&["-lcipp", "-i", "0", "-gi", "5"]);
    let ps = &v["gpus"][0]["gpu_instances"][0]["compute_instance_profiles"];
    assert_eq!(
        ps[0]["placements"],
        serde_json::json!([{"start": 0, "size": 1}, {"start": 1, "size": 1}])
    );
    assert!(ps[0].get("memory_mib").is_none());
    let v = json(&["-lcip", "-i", "0", "-gi", "5"]);
    assert_eq!(
        v["gpus"][0]["gpu_instances"][0]["compute_instance_profiles"][1]["id"],
        1
    );

    // Placements the scenario lacks: null, with the reason.
    let out = ok("mig_dcgm_138.toml", &["-lgipp", "-i", "0", "--format=json"]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let p = &v["gpus"][0]["gpu_instance_profiles"][0];
    assert_eq!(p["placements"], serde_json::Value::Null);
    assert_eq!(p["_errors"]["placements"], "not_supported");

    let out = run(
        &scenario("mig_instances.toml"),
        &["mig", "-lgi", "--format=csv"],
    );
    assert_eq!(out.code, Some(2));
}
