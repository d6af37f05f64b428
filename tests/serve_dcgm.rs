//! `nvq serve --profile=dcgm`: dcgm-exporter's names, units and labels, its
//! GPM profiling families, MIG GPU instances and PCIe replays.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common::{h100, h100s, write_scenario, SIM_HEAD};
use crate::serve::{promtool, value, Server};

/// `--profile=dcgm`: dcgm-exporter's names, units (MiB, MHz, W) and
/// labels, no sentinel for a value NVML does not give, and promtool's only
/// complaints are about DCGM's own naming.
#[test]
fn dcgm_profile_uses_dcgm_names_units_and_labels() {
    let sc = h100s(2).write();
    let server = Server::start(sc.path(), &["--profile=dcgm"]);
    let body = server.metrics();
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap_or_default();
    for i in 0..2u64 {
        let uuid = format!("UUID=\"GPU-00000000-0000-4000-8000-{i:012x}\"");
        assert_eq!(
            value(&body, "DCGM_FI_DEV_FB_USED", &uuid),
            Some(((i + 1) * 1024) as f64),
            "{body}"
        );
        assert_eq!(value(&body, "DCGM_FI_DEV_GPU_TEMP", &uuid), Some(54.0));
        assert_eq!(value(&body, "DCGM_FI_DEV_GPU_UTIL", &uuid), Some(87.0));
        assert_eq!(
            value(&body, "DCGM_FI_DEV_POWER_USAGE", &uuid),
            Some(412.345)
        );
        let line = body
            .lines()
            .find(|l| l.starts_with("DCGM_FI_DEV_FB_USED{") && l.contains(&uuid))
            .unwrap();
        for label in [
            format!("gpu=\"{i}\""),
            "modelName=\"NVIDIA H100 80GB HBM3\"".to_string(),
            "DCGM_FI_DRIVER_VERSION=\"580.82.07\"".to_string(),
            format!("Hostname=\"{}\"", host.trim()),
            format!("pci_bus_id=\"00000000:{:02X}:00.0\"", i + 1),
        ] {
            assert!(line.contains(&label), "{label} not in {line}");
        }
    }
    assert!(body.contains("DCGM_FI_DEV_POWER_USAGE{") && body.contains("} 412.345000\n"));
    // The test GPUs have no memory temperature: left out, never a number.
    assert!(!body.contains("DCGM_FI_DEV_MEMORY_TEMP"), "{body}");
    assert!(!body
        .lines()
        .any(|l| l.ends_with(" 9223372036854775794") || l.ends_with(" -1")));
    if let Some((code, text)) = promtool(&body) {
        let foreign: Vec<&str> = text
            .lines()
            .filter(|l| !l.starts_with("DCGM_FI_"))
            .collect();
        assert!(
            code == 0 || (code == 3 && foreign.is_empty()),
            "promtool ({code}): {text}"
        );
    }
}

/// A Hopper GPU with GPM (tensor activity, DRAM activity, PCIe TX stepping
/// per sample; no SM occupancy) and an Ampere GPU whose scenario has GPM
/// series that NVML must not give (no GPM before Hopper).
const GPM_SCENARIO: &str = r#"
minor_number = 4
architecture = 9
gpm = { "1" = [10.0, 20.0, 30.0], "5" = [12.5, 37.5, 62.5], "10" = [50.0, 25.0], "20" = [100.0, 200.0] }

[[device]]
name = "NVIDIA A100-SXM4-80GB"
uuid = "GPU-00000000-0000-4000-8000-0000000000a1"
pci = { domain = 0, bus = 9, device = 0 }
memory = { total = 85520809984, reserved = 567279616, used = 1073741824 }
minor_number = 7
architecture = 8
gpm = { "1" = 99.0, "5" = 99.0 }
"#;

/// The dcgm profile's `DCGM_FI_PROF_*` families come from GPM: none on the
/// first collection (one sample, no interval yet), then the metrics between
/// the last two samples, as ratios 0..1 and bytes per second; a metric NVML
/// does not give is left out, and a GPU before Hopper has none at all.
/// Every series has the `device` label (`nvidia<minor number>`).
#[test]
fn dcgm_profile_serves_gpm_profiling_families() {
    let mut text = SIM_HEAD.to_string();
    text.push_str(&h100(0, 1 << 30));
    text.push_str(GPM_SCENARIO);
    let sc = write_scenario(&text);
    let server = Server::start(sc.path(), &["--profile=dcgm", "--collect.interval=0"]);
    let first = server.metrics();
    assert!(!first.contains("DCGM_FI_PROF_"), "{first}");
    let h100 = "UUID=\"GPU-00000000-0000-4000-8000-000000000000\"";
    let a100 = "UUID=\"GPU-00000000-0000-4000-8000-0000000000a1\"";
    // The second sample carries each series' second element.
    let second = server.metrics();
    let v = |body: &str, name: &str, who: &str| value(body, name, who);
    assert_eq!(
        v(&second, "DCGM_FI_PROF_GR_ENGINE_ACTIVE", h100),
        Some(0.2),
        "{second}"
    );
    assert_eq!(
        v(&second, "DCGM_FI_PROF_PIPE_TENSOR_ACTIVE", h100),
        Some(0.375)
    );
    assert_eq!(v(&second, "DCGM_FI_PROF_DRAM_ACTIVE", h100), Some(0.25));
    assert_eq!(
        v(&second, "DCGM_FI_PROF_PCIE_TX_BYTES", h100),
        Some(209_715_200.0)
    );
    assert!(second.contains("} 0.375000\n"), "{second}");
    assert!(!second.contains("DCGM_FI_PROF_SM_OCCUPANCY"), "{second}");
    assert!(!second
        .lines()
        .any(|l| l.starts_with("DCGM_FI_PROF_") && l.contains(a100)));
    assert!(second.contains("# TYPE DCGM_FI_PROF_PIPE_TENSOR_ACTIVE gauge\n"));
    let third = server.metrics();
    assert_eq!(
        v(&third, "DCGM_FI_PROF_PIPE_TENSOR_ACTIVE", h100),
        Some(0.625)
    );
    assert_eq!(v(&third, "DCGM_FI_PROF_DRAM_ACTIVE", h100), Some(0.25));
    for line in third.lines().filter(|l| l.starts_with("DCGM_FI_")) {
        let device = if line.contains(h100) {
            "nvidia4"
        } else {
            "nvidia7"
        };
        assert!(line.contains(&format!("device=\"{device}\"")), "{line}");
    }
    let line = third
        .lines()
        .find(|l| l.starts_with("DCGM_FI_DEV_FB_USED{") && l.contains(h100))
        .unwrap();
    let order: Vec<&str> = ["gpu=", "UUID=", "pci_bus_id=", "device=", "modelName="]
        .iter()
        .map(|k| line.find(k).map(|_| *k).unwrap_or(""))
        .collect();
    assert_eq!(
        order,
        ["gpu=", "UUID=", "pci_bus_id=", "device=", "modelName="]
    );
    let pos: Vec<usize> = order.iter().filter_map(|k| line.find(k)).collect();
    assert!(pos.windows(2).all(|w| w[0] < w[1]), "{line}");
    promtool_accepts_dcgm(&third);
}

/// In MIG mode each GPU instance has its own FB and profiling series,
/// labelled `GPU_I_PROFILE` and `GPU_I_ID` (from its MIG device and from
/// `nvmlGpmMigSampleGet`); the GPU's own series have no instance labels.
#[test]
fn dcgm_profile_labels_mig_gpu_instances() {
    let text = format!(
        "{SIM_HEAD}{}{}",
        h100(0, 3 << 30),
        r#"
minor_number = 0
architecture = 9
mig = { current = 1, pending = 1, max_devices = 7 }
gpm = { "1" = 40.0 }

[[device.mig_instance]]
name = "NVIDIA H100 80GB HBM3 MIG 3g.40gb"
uuid = "MIG-00000000-0000-0000-0000-000000000000"
gpu_instance_id = 1
compute_instance_id = 0
memory = { total = 42949672960, used = 2147483648 }
gpm = { "5" = [10.0, 55.0] }

[[device.mig_instance]]
name = "NVIDIA H100 80GB HBM3 MIG 1g.10gb"
uuid = "MIG-00000001-0000-0000-0000-000000000001"
gpu_instance_id = 9
compute_instance_id = 0
memory = { total = 10737418240, used = 1048576 }
"#
    );
    let sc = write_scenario(&text);
    let server = Server::start(sc.path(), &["--profile=dcgm", "--collect.interval=0"]);
    let _ = server.metrics();
    let body = server.metrics();
    let gi1 = "GPU_I_PROFILE=\"3g.40gb\",GPU_I_ID=\"1\"";
    let gi9 = "GPU_I_PROFILE=\"1g.10gb\",GPU_I_ID=\"9\"";
    assert_eq!(
        value(&body, "DCGM_FI_DEV_FB_USED", gi1),
        Some(2048.0),
        "{body}"
    );
    assert_eq!(value(&body, "DCGM_FI_DEV_FB_USED", gi9), Some(1.0));
    assert_eq!(value(&body, "DCGM_FI_DEV_FB_FREE", gi9), Some(10239.0));
    assert_eq!(
        value(&body, "DCGM_FI_PROF_PIPE_TENSOR_ACTIVE", gi1),
        Some(0.55)
    );
    assert_eq!(value(&body, "DCGM_FI_PROF_PIPE_TENSOR_ACTIVE", gi9), None);
    // In MIG mode the GPU instances' FB and PROF series replace the GPU's
    // own (as dcgm-exporter): a sum over the series counts memory once.
    for family in [
        "DCGM_FI_DEV_FB_USED{",
        "DCGM_FI_DEV_FB_FREE{",
        "DCGM_FI_PROF_",
    ] {
        let own: Vec<&str> = body
            .lines()
            .filter(|l| l.starts_with(family) && !l.contains("GPU_I_ID"))
            .collect();
        assert!(own.is_empty(), "{family}: {own:?}");
    }
    // The GPU's other series stay, without instance labels.
    let util: Vec<&str> = body
        .lines()
        .filter(|l| l.starts_with("DCGM_FI_DEV_GPU_UTIL{"))
        .collect();
    assert_eq!(util.len(), 1, "{body}");
    assert!(!util[0].contains("GPU_I_ID"), "{}", util[0]);
    let gi_line = body
        .lines()
        .find(|l| l.starts_with("DCGM_FI_DEV_FB_USED{") && l.contains(gi1))
        .unwrap();
    assert!(
        gi_line.contains("modelName=\"NVIDIA H100 80GB HBM3\",GPU_I_PROFILE="),
        "{gi_line}"
    );
    promtool_accepts_dcgm(&body);
}

/// promtool accepts an exposition, DCGM's own names apart.
fn promtool_accepts_dcgm(body: &str) {
    if let Some((code, out)) = promtool(body) {
        let foreign: Vec<&str> = out.lines().filter(|l| !l.starts_with("DCGM_FI_")).collect();
        assert!(
            code == 0 || (code == 3 && foreign.is_empty()),
            "promtool ({code}): {out}"
        );
    }
}

/// The dcgm profile serves NVML's PCIe replay counter (dcgm-exporter's
/// `DCGM_FI_DEV_PCIE_REPLAY_COUNTER`, a counter), read as dmon's `pci`
/// column and `-q`'s `Replays Since Reset` read it.
#[test]
fn dcgm_profile_serves_pcie_replays() {
    let gpu0 = format!("{}pcie = {{ replay_counter = 17 }}\n", h100(0, 1 << 30));
    let sc = write_scenario(&format!("{SIM_HEAD}{gpu0}{}", h100(1, 1 << 30)));
    let server = Server::start(sc.path(), &["--profile=dcgm"]);
    let body = server.metrics();
    assert!(
        body.contains("# TYPE DCGM_FI_DEV_PCIE_REPLAY_COUNTER counter\n"),
        "{body}"
    );
    assert_eq!(
        value(&body, "DCGM_FI_DEV_PCIE_REPLAY_COUNTER", "gpu=\"0\""),
        Some(17.0)
    );
    assert_eq!(
        value(&body, "DCGM_FI_DEV_PCIE_REPLAY_COUNTER", "gpu=\"1\""),
        None
    );
    // Remapped rows are counters there as in the registry.
    assert!(!body.contains("# TYPE DCGM_FI_DEV_CORRECTABLE_REMAPPED_ROWS gauge"));
}
