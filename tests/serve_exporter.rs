//! `nvq serve --profile=nvidia_gpu_exporter`: the series that exporter
//! serves, name for name, label for label and value for value, against its
//! captures in `../shared/exporters/nvidia_gpu_exporter/`; its NVML-only
//! families, its MIG families and its process labels.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;
use crate::serve::{promtool, value, Server};
use crate::serve_prometheus::mig_h100;
use common::{h100, write_scenario, SIM_HEAD};
use std::time::{Duration, Instant};

/// The samples of an exposition as a set: (name, sorted labels) → value.
fn sample_set(text: &str) -> std::collections::BTreeMap<(String, Vec<(String, String)>), String> {
    let mut out = std::collections::BTreeMap::new();
    for line in text
        .lines()
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
    {
        let (series, value) = line.rsplit_once(' ').unwrap();
        let (name, labels) = match series.split_once('{') {
            Some((n, rest)) => (n, rest.strip_suffix('}').unwrap()),
            None => (series, ""),
        };
        let mut pairs = Vec::new();
        let mut rest = labels;
        while let Some((key, after)) = rest.split_once("=\"") {
            // The value ends at the first quote not escaped by a backslash.
            let mut end = 0;
            let bytes = after.as_bytes();
            while bytes[end] != b'"' {
                end += if bytes[end] == b'\\' { 2 } else { 1 };
            }
            pairs.push((
                key.trim_start_matches(',').to_string(),
                after[..end].to_string(),
            ));
            rest = &after[end + 1..];
        }
        pairs.sort();
        out.insert((name.to_string(), pairs), value.to_string());
    }
    out
}

/// The machines of `../shared/exporters/nvidia_gpu_exporter/` and the
/// scenarios that hold what nvidia-smi showed that exporter on them.
const EXPORTER_MACHINES: &[(&str, &str)] = &[
    (
        "linux-x86_64__nvidia-h200__590.48.01__idle",
        "h200_590_idle.toml",
    ),
    (
        "linux-x86_64__nvidia-h200__590.48.01__load",
        "h200_590_load.toml",
    ),
    (
        "linux-x86_64__nvidia-h100-80gb-hbm3__590.48.01__idle",
        "h100_590_idle.toml",
    ),
    (
        "linux-x86_64__nvidia-h100-80gb-hbm3__590.48.01__load",
        "h100_590_load.toml",
    ),
    (
        "linux-x86_64__nvidia-geforce-rtx-2080-super__610.57.04__idle",
        "rtx2080super_610_linux_idle.toml",
    ),
    (
        "linux-x86_64__nvidia-geforce-rtx-2080-super__610.57.04__load",
        "rtx2080super_610_linux_load.toml",
    ),
    (
        "windows-x86_64__nvidia-geforce-rtx-2080-super__610.62__idle",
        "rtx2080super_610_windows_idle.toml",
    ),
    (
        "windows-x86_64__nvidia-geforce-rtx-2080-super__610.62__load",
        "rtx2080super_610_windows_load.toml",
    ),
];

/// Families of those files that nvq cannot serve, and why. Every other
/// series must be there, with the same labels and value.
const UNREPRODUCIBLE: &[(&str, &str)] = &[(
    "nvidia_smi_pcie_link_gen_hostmax",
    "nvidia-smi's pcie.link.gen.hostmax has no NVML source that nvq knows of (nvq prints [N/A])",
)];

/// The families that exporter derives from the clock: its own integration
/// test leaves them out of the expected outputs and checks them apart
/// (`wallClockFamilies` in `internal/integration/`), as here.
const WALL_CLOCK: &[&str] = &[
    "nvidia_smi_last_collect_duration_seconds",
    "nvidia_smi_last_collect_success_timestamp_seconds",
];

/// The families only that exporter's NVML backend serves (its
/// `docs/METRICS.md`, "NVML-only metrics"): not in the expected outputs,
/// which its nvidia-smi backend wrote; checked in
/// `nvidia_gpu_exporter_profile_serves_nvml_only_families`.
const NVML_ONLY: &[&str] = &[
    "nvidia_smi_energy_joules_total",
    "nvidia_smi_xid_errors_total",
    "nvidia_smi_xid_last_timestamp_seconds",
    "nvidia_smi_pcie_throughput_",
    "nvidia_smi_mig_info",
    "nvidia_smi_mig_memory_",
    "nvidia_smi_mig_graphics_activity_ratio",
    "nvidia_smi_mig_sm_",
    "nvidia_smi_mig_tensor_activity_ratio",
    "nvidia_smi_mig_pcie_",
];

/// `--profile=nvidia_gpu_exporter` serves exactly that exporter's series
/// (names, labels, values) for every captured machine, types included;
/// the HELP texts are nvq's own; promtool accepts it.
#[test]
fn nvidia_gpu_exporter_profile_matches_that_exporter() {
    for (machine, scenario) in EXPORTER_MACHINES {
        let rel = format!("exporters/nvidia_gpu_exporter/{machine}.metrics");
        let Some(want) = common::read_shared(&rel) else {
            return;
        };
        // Those files come from that exporter's nvidia-smi backend; its NVML
        // backend, which nvq follows, names the status family
        // nvml_return_code in place of command_exit_code (docs/METRICS.md).
        let want = want.replace(
            "nvidia_smi_command_exit_code",
            "nvidia_smi_nvml_return_code",
        );
        let server = Server::start(
            &common::scenario(scenario),
            &["--profile=nvidia_gpu_exporter"],
        );
        let got = server.metrics();
        for family in WALL_CLOCK {
            let v = value(&got, family, "").unwrap_or(-1.0);
            assert!(v > 0.0 && v.is_finite(), "{machine}: {family} = {v}\n{got}");
        }
        let stamp = value(&got, WALL_CLOCK[1], "").unwrap_or(0.0);
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_secs_f64();
        assert!((now - stamp).abs() < 600.0, "{machine}: {stamp} vs {now}");
        let got: String = got
            .lines()
            .filter(|l| !WALL_CLOCK.iter().chain(NVML_ONLY).any(|f| l.contains(f)))
            .map(|l| format!("{l}\n"))
            .collect();
        let (g, w) = (sample_set(&got), sample_set(&want));
        let missing: Vec<_> = w
            .iter()
            .filter(|(k, v)| g.get(*k) != Some(v))
            .filter(|((name, _), _)| !UNREPRODUCIBLE.iter().any(|(n, _)| n == name))
            .collect();
        let extra: Vec<_> = g.iter().filter(|(k, _)| !w.contains_key(*k)).collect();
        assert!(
            missing.is_empty() && extra.is_empty(),
            "{machine}: missing or different {missing:#?}\nextra {extra:#?}"
        );
        let meta = |text: &str, kind: &str| -> std::collections::BTreeMap<String, String> {
            text.lines()
                .filter_map(|l| l.strip_prefix(kind))
                .filter_map(|l| l.split_once(' '))
                .map(|(n, rest)| (n.to_string(), rest.to_string()))
                .collect()
        };
        let mut types = meta(&want, "# TYPE ");
        types.retain(|name, _| !UNREPRODUCIBLE.iter().any(|(n, _)| n == name));
        assert_eq!(meta(&got, "# TYPE "), types, "{machine}: types");
        let (ours, theirs) = (meta(&got, "# HELP "), meta(&want, "# HELP "));
        for (name, help) in &ours {
            assert_ne!(
                Some(help),
                theirs.get(name),
                "{machine}: {name}'s HELP is theirs"
            );
        }
        // promtool parses it; its only complaints (exit 3: naming advice)
        // are about names that exporter chose, which dashboards depend on.
        if let Some((code, text)) = promtool(&got) {
            let theirs = meta(&want, "# TYPE ");
            let foreign: Vec<&str> = text
                .lines()
                .filter(|l| !theirs.contains_key(l.split(' ').next().unwrap_or("")))
                .collect();
            assert!(
                code == 0 || (code == 3 && foreign.is_empty()),
                "promtool ({code}): {text}"
            );
        }
    }
}

/// nvidia-smi prints the recovery action as `Reset` and `Reboot`; the
/// nvidia_gpu_exporter profile reads those words (as that exporter does),
/// so the series is there exactly when a GPU needs a reset or a reboot.
#[test]
fn nvidia_gpu_exporter_profile_reads_the_recovery_words() {
    let gpu = |i: usize, action: u32| {
        format!(
            "{}\n[device.field_values]\n\"230\" = {action}\n",
            h100(i, 1 << 30)
        )
    };
    let sc = write_scenario(&format!(
        "{SIM_HEAD}{}{}{}",
        gpu(0, 0),
        gpu(1, 1),
        gpu(2, 2)
    ));
    let server = Server::start(sc.path(), &["--profile=nvidia_gpu_exporter"]);
    let body = server.metrics();
    for (i, want) in [(0, 0.0), (1, 1.0), (2, 2.0)] {
        let uuid = format!("uuid=\"00000000-0000-4000-8000-{i:012x}\"");
        assert_eq!(
            value(&body, "nvidia_smi_gpu_recovery_action", &uuid),
            Some(want),
            "GPU {i}:\n{body}"
        );
    }
}

/// The nvidia_gpu_exporter profile serves that exporter's NVML-only
/// families: the energy counter in joules and the XID errors by code, per
/// GPU uuid, with the time the last one was received.
#[test]
fn nvidia_gpu_exporter_profile_serves_nvml_only_families() {
    let gpu0 = h100(0, 1 << 30).replace(
        "power = { usage = 412345, limit = 700000 }",
        "power = { usage = 412345, limit = 700000, total_energy = 123456789 }",
    );
    let xid = "\n[[device.xid]]\nat_ms = 0\ncode = 79\n\n[[device.xid]]\nat_ms = 50\ncode = 79\n";
    let sc = write_scenario(&format!("{SIM_HEAD}{gpu0}{}{xid}", h100(1, 1 << 30)));
    let server = Server::start(
        sc.path(),
        &["--profile=nvidia_gpu_exporter", "--collect.interval=0"],
    );
    let uuid = |i: usize| format!("uuid=\"00000000-0000-4000-8000-{i:012x}\"");
    let t0 = Instant::now();
    let body = loop {
        let body = server.metrics();
        if value(&body, "nvidia_smi_xid_errors_total", &uuid(1)) == Some(2.0)
            || t0.elapsed() > Duration::from_secs(10)
        {
            break body;
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    assert!(
        body.contains("# TYPE nvidia_smi_energy_joules_total counter\n"),
        "{body}"
    );
    assert_eq!(
        value(&body, "nvidia_smi_energy_joules_total", &uuid(0)),
        Some(123456.789)
    );
    assert_eq!(
        value(&body, "nvidia_smi_energy_joules_total", &uuid(1)),
        None
    );
    assert!(
        body.contains("# TYPE nvidia_smi_xid_errors_total counter\n"),
        "{body}"
    );
    let label = format!("{},xid=\"79\"", uuid(1));
    assert_eq!(
        value(&body, "nvidia_smi_xid_errors_total", &label),
        Some(2.0),
        "{body}"
    );
    let at = value(&body, "nvidia_smi_xid_last_timestamp_seconds", &label).unwrap();
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs_f64();
    assert!(now - at < 60.0 && at <= now + 1.0, "{at} vs {now}");
    assert!(!body.contains(&format!("nvidia_smi_xid_errors_total{{{}", uuid(0))));
}

/// The nvidia_gpu_exporter profile's MIG families (that exporter's NVML
/// backend): each MIG device's identity, each GPU instance's memory once,
/// and its GPM activity from the second collection on.
#[test]
fn nvidia_gpu_exporter_profile_serves_mig_families() {
    let sc = write_scenario(&format!("{SIM_HEAD}{}", mig_h100(0)));
    let server = Server::start(
        sc.path(),
        &["--profile=nvidia_gpu_exporter", "--collect.interval=0"],
    );
    let _ = server.metrics();
    let body = server.metrics();
    let uuid = "uuid=\"00000000-0000-4000-8000-000000000000\"";
    let info = format!(
        "{uuid},mig_uuid=\"MIG-00000000-0000-0000-0000-000000000000\",gpu_instance_id=\"1\",\
         compute_instance_id=\"0\",profile=\"3g.40gb\""
    );
    assert_eq!(
        value(&body, "nvidia_smi_mig_info", &info),
        Some(1.0),
        "{body}"
    );
    let gi1 = format!("{uuid},gpu_instance_id=\"1\"");
    let gi9 = format!("{uuid},gpu_instance_id=\"9\"");
    assert_eq!(
        value(&body, "nvidia_smi_mig_memory_total_bytes", &gi1),
        Some(42949672960.0)
    );
    assert_eq!(
        value(&body, "nvidia_smi_mig_memory_used_bytes", &gi9),
        Some(1048576.0)
    );
    assert_eq!(
        value(&body, "nvidia_smi_mig_memory_reserved_bytes", &gi1),
        Some(1048576.0)
    );
    assert_eq!(
        value(&body, "nvidia_smi_mig_tensor_activity_ratio", &gi1),
        Some(0.55)
    );
    assert_eq!(
        value(
            &body,
            "nvidia_smi_mig_pcie_throughput_rx_bytes_per_second",
            &gi1
        ),
        Some(3.0 * 1048576.0)
    );
    assert_eq!(
        value(&body, "nvidia_smi_mig_tensor_activity_ratio", &gi9),
        None
    );
    assert!(body.contains("# TYPE nvidia_smi_mig_info gauge\n"));
}

/// `--collect.compute-apps-mig` (that exporter's NVML backend): each
/// process series also carries its MIG `gpu_instance_id` and
/// `compute_instance_id`, empty off MIG, as that exporter's
/// `internal/integration/testdata/demo__seeded.metrics` shows; the process
/// count per GPU keeps its one label. Without the flag the label set stays
/// that exporter's default; other profiles refuse the flag.
#[test]
fn nvidia_gpu_exporter_profile_labels_processes_with_their_mig_instance() {
    let procs = r#"
[[device.process]]
pid = 4242
name = "train"
used_memory = 1073741824
gpu_instance_id = 9
compute_instance_id = 0
"#;
    let plain = "\n[[device.process]]\npid = 77\nname = \"infer\"\nused_memory = 2097152\n";
    let sc = write_scenario(&format!(
        "{SIM_HEAD}{}{procs}{}{plain}",
        mig_h100(0),
        h100(1, 1 << 30)
    ));
    let args = [
        "--profile=nvidia_gpu_exporter",
        "--collect.interval=0",
        "--collect.compute-apps-mig",
    ];
    let server = Server::start(sc.path(), &args);
    let body = server.metrics();
    let mig =
        "{compute_instance_id=\"0\",gpu_instance_id=\"9\",pid=\"4242\",process_name=\"train\",\
               uuid=\"00000000-0000-4000-8000-000000000000\"}";
    let off = "{compute_instance_id=\"\",gpu_instance_id=\"\",pid=\"77\",process_name=\"infer\",\
               uuid=\"00000000-0000-4000-8000-000000000001\"}";
    for line in [
        format!("nvidia_smi_compute_app_info{mig} 1\n"),
        format!("nvidia_smi_compute_app_used_memory_bytes{mig} 1.073741824e+09\n"),
        format!("nvidia_smi_compute_app_info{off} 1\n"),
        format!("nvidia_smi_compute_app_used_memory_bytes{off} 2.097152e+06\n"),
        "nvidia_smi_compute_apps{uuid=\"00000000-0000-4000-8000-000000000000\"} 1\n".to_string(),
    ] {
        assert!(body.contains(&line), "{line}\n{body}");
    }
    drop(server);
    let server = Server::start(sc.path(), &args[..2]);
    let body = server.metrics();
    assert!(
        body.contains("nvidia_smi_compute_app_info{pid=\"77\",process_name=\"infer\",uuid="),
        "{body}"
    );
    assert!(!body.contains("instance_id=\"\""), "{body}");
    drop(server);
    for profile in ["--profile=nvq", "--profile=dcgm"] {
        let out = common::run(sc.path(), &["serve", profile, "--collect.compute-apps-mig"]);
        assert_eq!(out.code, Some(2), "{profile}");
    }
}

/// That exporter's NVML backend reports its collection status as
/// `nvidia_smi_nvml_return_code` (0 on success) in place of the nvidia-smi
/// backend's `command_exit_code` (its `docs/METRICS.md`); nvq, which reads
/// NVML, serves the NVML backend's family.
#[test]
fn nvidia_gpu_exporter_profile_reports_an_nvml_return_code() {
    let sc = write_scenario(&format!("{SIM_HEAD}{}", h100(0, 1 << 30)));
    let server = Server::start(
        sc.path(),
        &["--profile=nvidia_gpu_exporter", "--collect.interval=0"],
    );
    let body = server.metrics();
    assert!(
        body.contains("# TYPE nvidia_smi_nvml_return_code gauge\nnvidia_smi_nvml_return_code 0\n"),
        "{body}"
    );
    assert!(!body.contains("command_exit_code"), "{body}");
}
