//! End-to-end tests: load the built `libnvml_sim.so` through nvml-wrapper, exactly like nvq does.
//!
//! Each test that needs its own scenario re-runs this test binary as a child process with
//! `NVML_SIM_SCENARIO` set (the library reads the scenario at init and keeps process-global
//! state, so scenarios cannot be switched inside one process).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use nvml_sim::scenario::Scenario;
use nvml_wrapper::enum_wrappers::device::{Clock, TemperatureSensor};
use nvml_wrapper::enums::device::UsedGpuMemory;
use nvml_wrapper::error::NvmlError;
use nvml_wrapper::Nvml;
use std::path::PathBuf;
use std::process::Command;

const CHILD_ENV: &str = "NVML_SIM_TEST_CHILD";

fn sim_path() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let deps = exe.parent().unwrap();
    for cand in [deps.join("libnvml_sim.so"), deps.join("../libnvml_sim.so")] {
        if cand.exists() {
            return cand;
        }
    }
    panic!("libnvml_sim.so not found next to {}", exe.display());
}

fn nvml() -> Result<Nvml, NvmlError> {
    Nvml::builder().lib_path(sim_path().as_os_str()).init()
}

/// Run `body` in a child process with `scenario` (TOML text; `None` = built-in default).
fn in_child(test_name: &str, scenario: Option<&str>, body: impl FnOnce()) {
    if std::env::var(CHILD_ENV).as_deref() == Ok(test_name) {
        body();
        return;
    }
    let mut cmd = Command::new(std::env::current_exe().unwrap());
    cmd.args([test_name, "--exact", "--nocapture", "--test-threads=1"])
        .env(CHILD_ENV, test_name);
    let _tmp;
    match scenario {
        Some(text) => {
            let dir = std::env::temp_dir().join(format!(
                "nvml-sim-test-{}-{}",
                std::process::id(),
                test_name
            ));
            std::fs::create_dir_all(&dir).unwrap();
            let path = dir.join("scenario.toml");
            std::fs::write(&path, text).unwrap();
            cmd.env("NVML_SIM_SCENARIO", &path);
            _tmp = dir;
        }
        None => {
            cmd.env_remove("NVML_SIM_SCENARIO");
        }
    }
    let out = cmd.output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success() && stdout.contains("1 passed"),
        "child {test_name} failed:\n{stdout}\n{stderr}"
    );
}

#[test]
fn default_scenario_values() {
    in_child("default_scenario_values", None, || {
        let sc = Scenario::builtin().unwrap();
        let nvml = nvml().unwrap();
        assert_eq!(nvml.sys_driver_version().unwrap(), "580.82.07");
        assert_eq!(nvml.sys_nvml_version().unwrap(), "13.580.82.07");
        assert_eq!(nvml.sys_cuda_driver_version().unwrap(), 13000);
        assert_eq!(nvml.device_count().unwrap(), 2);
        for (i, want) in sc.device.iter().enumerate() {
            let d = nvml.device_by_index(i as u32).unwrap();
            assert_eq!(d.index().unwrap(), i as u32);
            assert_eq!(d.name().unwrap(), want.name.clone().unwrap());
            assert_eq!(d.uuid().unwrap(), want.uuid.clone().unwrap());
            assert_eq!(d.serial().unwrap(), want.serial.clone().unwrap());
            let m = d.memory_info().unwrap();
            assert_eq!(
                m.total,
                want.memory.total.as_ref().unwrap().first().unwrap()
            );
            assert_eq!(m.used, want.memory.used.as_ref().unwrap().first().unwrap());
            assert_eq!(
                m.reserved,
                want.memory.reserved.as_ref().unwrap().first().unwrap()
            );
            assert_eq!(m.total, m.free + m.used + m.reserved);
            let u = d.utilization_rates().unwrap();
            assert_eq!(
                u.gpu,
                want.utilization.gpu.as_ref().unwrap().first().unwrap()
            );
            let p = d.pci_info().unwrap();
            assert_eq!(p.bus_id, want.bus_id().unwrap());
            assert_eq!(p.pci_device_id, 0x233010DE);
            assert_eq!(
                d.temperature(TemperatureSensor::Gpu).unwrap(),
                want.temperature.gpu.as_ref().unwrap().first().unwrap()
            );
            assert_eq!(
                d.power_usage().unwrap(),
                want.power.usage.as_ref().unwrap().first().unwrap()
            );
            assert_eq!(
                d.clock_info(Clock::SM).unwrap(),
                want.clocks.sm.as_ref().unwrap().first().unwrap()
            );
            assert_eq!(d.cuda_compute_capability().unwrap().major, 9);
            let procs = d.running_compute_processes().unwrap();
            assert_eq!(procs.len(), want.process.len());
            for (p, w) in procs.iter().zip(&want.process) {
                assert_eq!(p.pid, w.pid);
                assert!(matches!(p.used_gpu_memory, UsedGpuMemory::Used(_)));
                assert_eq!(
                    nvml.sys_process_name(p.pid, 64).unwrap(),
                    w.name.clone().unwrap()
                );
            }
            assert!(d.running_graphics_processes().unwrap().is_empty());
            let by_uuid = nvml.device_by_uuid(want.uuid.clone().unwrap()).unwrap();
            assert_eq!(by_uuid.index().unwrap(), i as u32);
            let by_bus = nvml.device_by_pci_bus_id(want.bus_id().unwrap()).unwrap();
            assert_eq!(by_bus.index().unwrap(), i as u32);
        }
        assert!(matches!(
            nvml.device_by_index(2),
            Err(NvmlError::InvalidArg)
        ));
    });
}
