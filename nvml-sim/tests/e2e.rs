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

#[path = "e2e/live.rs"]
mod live;

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
    in_child_with(test_name, scenario, &[], body);
}

/// [`in_child`], with `env` set in the child only: the tests share one
/// process, so a variable set in it would reach every other test's child.
fn in_child_with(
    test_name: &str,
    scenario: Option<&str>,
    env: &[(&str, &std::path::Path)],
    body: impl FnOnce(),
) {
    if std::env::var(CHILD_ENV).as_deref() == Ok(test_name) {
        body();
        return;
    }
    let mut cmd = Command::new(std::env::current_exe().unwrap());
    cmd.args([test_name, "--exact", "--nocapture", "--test-threads=1"])
        .env(CHILD_ENV, test_name);
    for (k, v) in env {
        cmd.env(k, v);
    }
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

// ---- raw C-level behaviour -----------------------------------------------------------------

use nvml_wrapper_sys::bindings as sys;
use std::os::raw::{c_char, c_uint};

fn raw_lib() -> sys::NvmlLib {
    unsafe { sys::NvmlLib::new(sim_path()).unwrap() }
}

fn dev(lib: &sys::NvmlLib, i: u32) -> sys::nvmlDevice_t {
    let mut h: sys::nvmlDevice_t = std::ptr::null_mut();
    assert_eq!(unsafe { lib.nvmlDeviceGetHandleByIndex_v2(i, &mut h) }, 0);
    h
}

#[test]
fn raw_protocols_and_checks() {
    in_child("raw_protocols_and_checks", None, || {
        let lib = raw_lib();
        unsafe {
            let mut count: c_uint = 0;
            assert_eq!(
                lib.nvmlDeviceGetCount_v2(&mut count),
                1,
                "uninitialized before init"
            );
            assert_eq!(lib.nvmlInit_v2(), 0);
            assert_eq!(lib.nvmlDeviceGetCount_v2(&mut count), 0);
            assert_eq!(count, 2);
            assert_eq!(lib.nvmlDeviceGetCount(&mut count), 0);
            assert_eq!(
                lib.nvmlDeviceGetCount_v2(std::ptr::null_mut()),
                2,
                "null out pointer"
            );
            let h0 = dev(&lib, 0);
            let h1 = dev(&lib, 1);
            assert!(!h0.is_null() && h0 != h1);
            assert_eq!(dev(&lib, 0), h0, "handles are stable");
            let mut bogus: sys::nvmlDevice_t = std::ptr::null_mut();
            assert_eq!(lib.nvmlDeviceGetHandleByIndex_v2(7, &mut bogus), 2);
            let mut temp = 0;
            assert_eq!(
                lib.nvmlDeviceGetTemperature(0x1234 as sys::nvmlDevice_t, 0, &mut temp),
                2,
                "bad handle"
            );
            assert_eq!(
                lib.nvmlDeviceGetTemperature(std::ptr::null_mut(), 0, &mut temp),
                2,
                "null handle"
            );

            // Strings: exact fit works, one byte short is INSUFFICIENT_SIZE.
            let name = "NVIDIA H100 80GB HBM3";
            let mut buf = [0 as c_char; 96];
            assert_eq!(
                lib.nvmlDeviceGetName(h0, buf.as_mut_ptr(), name.len() as c_uint + 1),
                0
            );
            assert_eq!(
                lib.nvmlDeviceGetName(h0, buf.as_mut_ptr(), name.len() as c_uint),
                7
            );

            // Memory v1 and v2 (+ version check).
            let mut m1: sys::nvmlMemory_t = std::mem::zeroed();
            assert_eq!(lib.nvmlDeviceGetMemoryInfo(h0, &mut m1), 0);
            let mut m2: sys::nvmlMemory_v2_t = std::mem::zeroed();
            assert_eq!(
                lib.nvmlDeviceGetMemoryInfo_v2(h0, &mut m2),
                25,
                "version 0 rejected"
            );
            m2.version = 2;
            assert_eq!(
                lib.nvmlDeviceGetMemoryInfo_v2(h0, &mut m2),
                25,
                "bare 2 rejected"
            );
            m2.version = 0x0200_0028;
            assert_eq!(lib.nvmlDeviceGetMemoryInfo_v2(h0, &mut m2), 0);
            assert_eq!(m1.total, m2.total);
            assert_eq!(m1.used, m2.used + m2.reserved);
            assert_eq!(m1.free, m2.free);

            // Two-call protocol, v3 and v1 structs.
            let mut n: c_uint = 0;
            assert_eq!(
                lib.nvmlDeviceGetComputeRunningProcesses_v3(h0, &mut n, std::ptr::null_mut()),
                7
            );
            assert_eq!(n, 2);
            let mut small: c_uint = 1;
            let mut one: [sys::nvmlProcessInfo_t; 1] = std::mem::zeroed();
            assert_eq!(
                lib.nvmlDeviceGetComputeRunningProcesses_v3(h0, &mut small, one.as_mut_ptr()),
                7
            );
            assert_eq!(small, 2);
            let mut infos: [sys::nvmlProcessInfo_t; 4] = std::mem::zeroed();
            let mut n4: c_uint = 4;
            assert_eq!(
                lib.nvmlDeviceGetComputeRunningProcesses_v3(h0, &mut n4, infos.as_mut_ptr()),
                0
            );
            assert_eq!(n4, 2);
            assert_eq!(infos[0].pid, 4242);
            assert_eq!(infos[0].usedGpuMemory, 17179869184);
            assert_eq!(infos[0].gpuInstanceId, u32::MAX);
            let mut v1: [sys::nvmlProcessInfo_v1_t; 4] = std::mem::zeroed();
            let mut n4: c_uint = 4;
            assert_eq!(
                lib.nvmlDeviceGetComputeRunningProcesses(h0, &mut n4, v1.as_mut_ptr()),
                0
            );
            assert_eq!((n4, v1[1].pid, v1[1].usedGpuMemory), (2, 4243, 4294967296));
            let mut g: c_uint = 0;
            assert_eq!(
                lib.nvmlDeviceGetGraphicsRunningProcesses_v3(h0, &mut g, std::ptr::null_mut()),
                0,
                "empty list"
            );
            assert_eq!(g, 0);

            // Raw-only getters.
            let mut reasons = 0u64;
            assert_eq!(
                lib.nvmlDeviceGetCurrentClocksEventReasons(h0, &mut reasons),
                0
            );
            assert_eq!(reasons, 1);
            let mut margin: sys::nvmlMarginTemperature_t = std::mem::zeroed();
            assert_eq!(lib.nvmlDeviceGetMarginTemperature(h0, &mut margin), 25);
            margin.version =
                (std::mem::size_of::<sys::nvmlMarginTemperature_t>() as u32) | (1 << 24);
            assert_eq!(lib.nvmlDeviceGetMarginTemperature(h0, &mut margin), 0);
            assert_eq!(margin.marginTemperature, 33);
            let (mut a, mut b, mut c, mut d) = (9, 9, 9, 9);
            assert_eq!(
                lib.nvmlDeviceGetRemappedRows(h0, &mut a, &mut b, &mut c, &mut d),
                0
            );
            assert_eq!((a, b, c, d), (0, 0, 0, 0));
            let mut cuda = 0;
            assert_eq!(lib.nvmlSystemGetCudaDriverVersion(&mut cuda), 0);
            assert_eq!(cuda, 13000);
            let mut gen = 0;
            assert_eq!(lib.nvmlDeviceGetGpuMaxPcieLinkGeneration(h0, &mut gen), 0);
            assert_eq!(gen, 5);
            let mut fv: [sys::nvmlFieldValue_t; 2] = std::mem::zeroed();
            fv[0].fieldId = 82;
            fv[1].fieldId = 9999;
            assert_eq!(lib.nvmlDeviceGetFieldValues(h0, 2, fv.as_mut_ptr()), 0);
            assert_eq!(
                (fv[0].nvmlReturn, fv[0].valueType, fv[0].value.ullVal),
                (0, 3, 48)
            );
            assert_eq!(fv[1].nvmlReturn, 3);
            // A stub: correct signature, NOT_SUPPORTED.
            let mut irq: c_uint = 0;
            assert_eq!(lib.nvmlDeviceGetIrqNum(h0, &mut irq), 3);
            // Process samples: two-call protocol; none newer than a
            // timestamp from the future is NOT_FOUND, as NVML answers.
            let mut pu: c_uint = 0;
            assert_eq!(
                lib.nvmlDeviceGetProcessUtilization(h0, std::ptr::null_mut(), &mut pu, 0),
                7
            );
            assert_eq!(pu, 2);
            let mut samples: [sys::nvmlProcessUtilizationSample_t; 2] = std::mem::zeroed();
            assert_eq!(
                lib.nvmlDeviceGetProcessUtilization(h0, samples.as_mut_ptr(), &mut pu, 0),
                0
            );
            assert_eq!(
                (samples[0].pid, samples[0].smUtil, samples[1].pid),
                (4242, 80, 4243)
            );
            // The next call is one second later: a newer sample.
            let seen = samples[0].timeStamp;
            assert_eq!(
                lib.nvmlDeviceGetProcessUtilization(h0, samples.as_mut_ptr(), &mut pu, seen),
                0
            );
            assert_eq!(samples[0].timeStamp, seen + 1_000_000);
            assert_eq!(
                lib.nvmlDeviceGetProcessUtilization(h0, std::ptr::null_mut(), &mut pu, u64::MAX),
                6
            );
            let s = std::ffi::CStr::from_ptr(lib.nvmlErrorString(15));
            assert_eq!(s.to_str().unwrap(), "GPU is lost");

            // Reference-counted init.
            assert_eq!(lib.nvmlInit_v2(), 0);
            assert_eq!(lib.nvmlShutdown(), 0);
            assert_eq!(
                lib.nvmlDeviceGetCount_v2(&mut count),
                0,
                "still initialised after 2 inits, 1 shutdown"
            );
            assert_eq!(lib.nvmlShutdown(), 0);
            assert_eq!(
                lib.nvmlDeviceGetCount_v2(&mut count),
                1,
                "uninitialised after balancing shutdown"
            );
            assert_eq!(lib.nvmlShutdown(), 1);
        }
    });
}

#[test]
fn all_symbols_exported() {
    let path = std::ffi::CString::new(sim_path().to_str().unwrap()).unwrap();
    unsafe {
        let h = libc::dlopen(path.as_ptr(), libc::RTLD_LAZY | libc::RTLD_LOCAL);
        assert!(!h.is_null());
        for s in nvml_sim::SYMBOLS {
            let c = std::ffi::CString::new(*s).unwrap();
            assert!(!libc::dlsym(h, c.as_ptr()).is_null(), "{s} not exported");
        }
    }
    assert_eq!(nvml_sim::SYMBOLS.len(), 396);
    assert!(nvml_sim::implemented_symbols().len() > 100);
}

const FAULTS: &str = r#"
driver_version = "580.82.07"
absent_functions = ["nvmlDeviceGetComputeRunningProcesses_v3"]

[[device]]
name = "Sim GPU"
uuid = "GPU-aaaaaaaa-0000-0000-0000-000000000001"
temperature = { gpu = [40, 50, 60] }
power = { usage = 100000, limit = 300000 }
utilization = { gpu = 5, memory = 6 }
memory = { total = 1000, used = [100, 200], reserved = 0 }

[[device.process]]
pid = 7
name = "a"
used_memory = [1, 2, 3]

[[device.fault]]
function = "nvmlDeviceGetPowerUsage"
code = "NO_PERMISSION"

[[device.fault]]
function = "nvmlDeviceGetUtilizationRates"
code = "GPU_IS_LOST"
after_calls = 2

[[device.fault]]
function = "nvmlDeviceGetPowerManagementLimit"
delay_ms = 300

[[device]]
name = "Doomed GPU"
uuid = "GPU-aaaaaaaa-0000-0000-0000-000000000002"
temperature = { gpu = 33 }
lost_after_calls = 3
"#;

#[test]
fn faults_series_absent() {
    in_child("faults_series_absent", Some(FAULTS), || {
        let nvml = nvml().unwrap();
        let d = nvml.device_by_index(0).unwrap();
        let t: Vec<u32> = (0..5)
            .map(|_| d.temperature(TemperatureSensor::Gpu).unwrap())
            .collect();
        assert_eq!(t, [40, 50, 60, 60, 60]);
        assert!(matches!(d.power_usage(), Err(NvmlError::NoPermission)));
        assert!(d.utilization_rates().is_ok());
        assert!(d.utilization_rates().is_ok());
        assert!(matches!(d.utilization_rates(), Err(NvmlError::GpuLost)));
        let start = std::time::Instant::now();
        assert_eq!(d.power_management_limit().unwrap(), 300000);
        assert!(start.elapsed() >= std::time::Duration::from_millis(300));
        assert!(matches!(
            d.running_compute_processes(),
            Err(NvmlError::FunctionNotFound)
        ));
        // v2 still works; the process memory series advances per fill call only.
        let p1 = d.running_compute_processes_v2().unwrap();
        let p2 = d.running_compute_processes_v2().unwrap();
        assert_eq!(p1[0].used_gpu_memory, UsedGpuMemory::Used(1));
        assert_eq!(p2[0].used_gpu_memory, UsedGpuMemory::Used(2));
        assert_eq!(d.memory_info().unwrap().used, 100);
        assert_eq!(d.memory_info().unwrap().used, 200);
        assert!(matches!(d.fan_speed(0), Err(NvmlError::NotSupported)));
        assert!(matches!(d.serial(), Err(NvmlError::NotSupported)));
        let lost = nvml.device_by_index(1).unwrap();
        for _ in 0..3 {
            assert_eq!(lost.temperature(TemperatureSensor::Gpu).unwrap(), 33);
        }
        assert!(matches!(lost.name(), Err(NvmlError::GpuLost)));
        assert!(matches!(
            lost.temperature(TemperatureSensor::Gpu),
            Err(NvmlError::GpuLost)
        ));
        // Other device unaffected.
        assert_eq!(d.name().unwrap(), "Sim GPU");
    });
}

#[test]
fn init_fault_driver_not_loaded() {
    in_child(
        "init_fault_driver_not_loaded",
        Some("init_fault = \"DRIVER_NOT_LOADED\"\n"),
        || {
            assert!(matches!(nvml(), Err(NvmlError::DriverNotLoaded)));
        },
    );
}

#[test]
fn malformed_scenario_fails_init() {
    in_child(
        "malformed_scenario_fails_init",
        Some("[[device]]\nname = 5\n"),
        || {
            assert!(matches!(nvml(), Err(NvmlError::Unknown)));
        },
    );
}

#[test]
fn generated_big_machine() {
    let sc = "[generate]\ndevices = 64\nprocesses_per_device = 64\n";
    in_child("generated_big_machine", Some(sc), || {
        let nvml = nvml().unwrap();
        assert_eq!(nvml.device_count().unwrap(), 64);
        let mut pids = std::collections::HashSet::new();
        let mut uuids = std::collections::HashSet::new();
        for i in 0..64 {
            let d = nvml.device_by_index(i).unwrap();
            uuids.insert(d.uuid().unwrap());
            let ps = d.running_compute_processes().unwrap();
            assert_eq!(ps.len(), 64);
            pids.extend(ps.iter().map(|p| p.pid));
            let bus = d.pci_info().unwrap().bus_id;
            assert_eq!(nvml.device_by_pci_bus_id(bus).unwrap().index().unwrap(), i);
        }
        assert_eq!(pids.len(), 4096);
        assert_eq!(uuids.len(), 64);
        assert_eq!(
            nvml.sys_process_name(100_000, 64).unwrap(),
            "sim-worker-0-0"
        );
    });
}

#[test]
fn ten_thousand_processes() {
    let sc = "[generate]\ndevices = 1\nprocesses_per_device = 10000\n";
    in_child("ten_thousand_processes", Some(sc), || {
        let nvml = nvml().unwrap();
        let d = nvml.device_by_index(0).unwrap();
        assert_eq!(d.running_compute_processes().unwrap().len(), 10000);
    });
}

const MIG: &str = r#"
[[device]]
name = "NVIDIA H100 80GB HBM3"
uuid = "GPU-bbbbbbbb-0000-0000-0000-000000000001"
mig = { current = 1, pending = 1, max_devices = 7 }
memory = { total = 85520809984, used = 0 }

[[device.mig_instance]]
name = "NVIDIA H100 80GB HBM3 MIG 3g.40gb"
uuid = "MIG-11111111-0000-0000-0000-000000000001"
gpu_instance_id = 1
compute_instance_id = 0
memory = { total = 42949672960, used = 1073741824 }

[[device.mig_instance]]
name = "NVIDIA H100 80GB HBM3 MIG 3g.40gb"
uuid = "MIG-11111111-0000-0000-0000-000000000002"
gpu_instance_id = 2
compute_instance_id = 0
memory = { total = 42949672960, used = 0 }

[[device.process]]
pid = 11
name = "on-gi-1"
used_memory = 1073741824
gpu_instance_id = 1
compute_instance_id = 0
"#;

#[test]
fn mig_instances() {
    in_child("mig_instances", Some(MIG), || {
        let nvml = nvml().unwrap();
        let d = nvml.device_by_index(0).unwrap();
        let mode = d.mig_mode().unwrap();
        assert_eq!((mode.current, mode.pending), (1, 1));
        assert_eq!(d.mig_device_count().unwrap(), 7);
        assert!(!d.mig_is_mig_device_handle().unwrap());
        let m = d.mig_device_by_index(0).unwrap();
        assert!(m.mig_is_mig_device_handle().unwrap());
        assert_eq!(
            m.uuid().unwrap(),
            "MIG-11111111-0000-0000-0000-000000000001"
        );
        let ids = |dev: &nvml_wrapper::Device| unsafe {
            let (mut gi, mut ci) = (9, 9);
            assert_eq!(
                nvml.lib().nvmlDeviceGetGpuInstanceId(dev.handle(), &mut gi),
                0
            );
            assert_eq!(
                nvml.lib()
                    .nvmlDeviceGetComputeInstanceId(dev.handle(), &mut ci),
                0
            );
            (gi, ci)
        };
        assert_eq!(ids(&m), (1, 0));
        assert_eq!(m.memory_info().unwrap().total, 42949672960);
        assert_eq!(m.running_compute_processes().unwrap().len(), 1);
        let m2 = d.mig_device_by_index(1).unwrap();
        assert!(m2.running_compute_processes().unwrap().is_empty());
        assert_eq!(
            m.mig_parent_device().unwrap().uuid().unwrap(),
            d.uuid().unwrap()
        );
        assert!(d.mig_device_by_index(2).is_err());
        let via_uuid = nvml
            .device_by_uuid("MIG-11111111-0000-0000-0000-000000000002")
            .unwrap();
        assert_eq!(ids(&via_uuid), (2, 0));
    });
}

#[test]
fn threads_hammer() {
    in_child("threads_hammer", None, || {
        let nvml = nvml().unwrap();
        std::thread::scope(|s| {
            for _ in 0..8 {
                s.spawn(|| {
                    for i in 0..200 {
                        let d = nvml.device_by_index(i % 2).unwrap();
                        assert!(d.name().unwrap().starts_with("NVIDIA"));
                        assert!(d.running_compute_processes().is_ok());
                    }
                });
            }
        });
    });
}

#[test]
fn scenario_errors_are_one_line_with_position() {
    let e = Scenario::parse(
        "driver_version = \"x\"\n[[device]]\ntemperature = { gpu = \"hot\" }\n",
        "t.toml",
    )
    .unwrap_err();
    assert!(e.0.starts_with("t.toml: line 3"), "{e}");
    assert!(!e.0.contains('\n'));
    let e = Scenario::parse("[[device]]\nbogus_key = 1\n", "t.toml").unwrap_err();
    assert!(e.0.contains("line 2") && e.0.contains("bogus_key"), "{e}");
    let e = Scenario::parse(
        "[[device]]\n[[device.fault]]\nfunction = \"nvmlNope\"\n",
        "t.toml",
    )
    .unwrap_err();
    assert!(e.0.contains("nvmlNope"), "{e}");
    let e = Scenario::parse("init_fault = \"WHATEVER\"\n", "t.toml").unwrap_err();
    assert!(e.0.contains("WHATEVER"), "{e}");
    let sc = Scenario::parse("[[device]]\nfans = [[30, 35], 40]\n", "t.toml").unwrap();
    assert_eq!(sc.device[0].fans.as_ref().unwrap().len(), 2);
}

#[test]
fn an_endless_scenario_file_is_refused_not_read_forever() {
    let e = Scenario::from_file(std::path::Path::new("/dev/zero")).unwrap_err();
    assert!(e.0.starts_with("/dev/zero: larger than 16 MiB"), "{e}");
    assert!(!e.0.contains('\n'));
}

/// GPM through nvml-wrapper's own GPM API: support per GPU (Hopper by
/// architecture, none before), metrics between two samples stepping per
/// sample, a missing metric failing in its own slot, MIG GPU instances.
#[test]
fn gpm_samples_and_metrics() {
    const GPM: &str = r#"
[[device]]
name = "NVIDIA H100 80GB HBM3"
architecture = 9
mig = { current = 1, pending = 1 }
gpm = { "1" = [10.0, 20.0, 30.0], "5" = 37.5 }

[[device.mig_instance]]
name = "NVIDIA H100 80GB HBM3 MIG 1g.10gb"
gpu_instance_id = 5
compute_instance_id = 0
gpm = { "1" = [1.0, 2.0] }

[[device]]
name = "NVIDIA A100-SXM4-80GB"
architecture = 8
gpm = { "1" = 99.0 }
"#;
    in_child("gpm_samples_and_metrics", Some(GPM), || {
        use nvml_wrapper::enums::gpm::GpmMetricId;
        use nvml_wrapper::gpm::gpm_metrics_get;
        let nvml = nvml().unwrap();
        let h100 = nvml.device_by_index(0).unwrap();
        let a100 = nvml.device_by_index(1).unwrap();
        assert!(h100.gpm_support().unwrap());
        assert!(!a100.gpm_support().unwrap());
        assert!(a100.gpm_sample().is_err());
        let ids = [
            GpmMetricId::GraphicsUtil,
            GpmMetricId::AnyTensorUtil,
            GpmMetricId::SmOccupancy,
        ];
        let s1 = h100.gpm_sample().unwrap();
        let s2 = h100.gpm_sample().unwrap();
        let got = gpm_metrics_get(&nvml, &s1, &s2, &ids).unwrap();
        assert_eq!(got[0].as_ref().unwrap().value, 20.0);
        assert_eq!(got[1].as_ref().unwrap().value, 37.5);
        assert!(matches!(got[2], Err(NvmlError::NotSupported)));
        let s3 = h100.gpm_sample().unwrap();
        let got = gpm_metrics_get(&nvml, &s2, &s3, &ids[..1]).unwrap();
        assert_eq!(got[0].as_ref().unwrap().value, 30.0);
        // Samples of different GPUs or instances do not pair.
        let m1 = h100.gpm_mig_sample(5).unwrap();
        assert!(gpm_metrics_get(&nvml, &s3, &m1, &ids[..1]).is_err());
        let m2 = h100.gpm_mig_sample(5).unwrap();
        let got = gpm_metrics_get(&nvml, &m1, &m2, &ids[..1]).unwrap();
        assert_eq!(got[0].as_ref().unwrap().value, 2.0);
        assert!(h100.gpm_mig_sample(6).is_err());
    });
}

const VGPU_HOST: &str = r#"
[[device]]
name = "NVIDIA A10"
virtualization_mode = 3
vgpu_heterogeneous_mode = 0

[[device.vgpu_type]]
id = 594
name = "NVIDIA A10-6Q"
class = "Quadro"
framebuffer = 6442450944
max_instances = 4
display_heads = 4
resolution = [7680, 4320]
frame_rate_limit = 60
license = "NVIDIA-vGPU,1.0"

[[device.vgpu_type]]
id = 595
name = "NVIDIA A10-12Q"
class = "Quadro"
framebuffer = 12884901888
max_instances = 2

[[device.vgpu]]
id = 3251634190
type_id = 594
vm_id = "f2671c9e-0000-4000-8000-000000000001"
vm_id_type = 1
uuid = "4e2c9a10-1b3d-4f5e-8a7b-6c9d0e1f2a3b"
fb_usage = 104857600
encoder_stats = [2, 30, 900]
utilization = [12, 7, 3, 0]

[[device]]
name = "NVIDIA H100 80GB HBM3"
virtualization_mode = 0
"#;

/// A vGPU host: its types and running vGPU through nvml-wrapper's vGPU
/// calls; creatable types follow the running vGPU (homogeneous mode); a
/// bare-metal GPU has no vGPU lists; unknown ids fail as NVML says.
#[test]
fn vgpu_host() {
    use nvml_wrapper::enum_wrappers::device::GpuVirtualizationMode;
    use nvml_wrapper::enum_wrappers::vgpu::VmId;
    in_child("vgpu_host", Some(VGPU_HOST), || {
        let nvml = nvml().unwrap();
        let d = nvml.device_by_index(0).unwrap();
        assert_eq!(
            d.virtualization_mode().unwrap(),
            GpuVirtualizationMode::HostVgpu
        );
        let types = d.vgpu_supported_types().unwrap();
        let names: Vec<String> = types.iter().map(|t| t.name().unwrap()).collect();
        assert_eq!(names, ["NVIDIA A10-6Q", "NVIDIA A10-12Q"]);
        let t = &types[0];
        assert_eq!(t.class_name().unwrap(), "Quadro");
        assert_eq!(t.framebuffer_size().unwrap(), 6442450944);
        assert_eq!(t.max_instances().unwrap(), 4);
        assert_eq!(t.num_display_heads().unwrap(), 4);
        assert_eq!(t.resolution(0).unwrap(), (7680, 4320));
        assert!(t.resolution(4).is_err(), "past the last head");
        assert_eq!(t.frame_rate_limit().unwrap(), 60);
        assert_eq!(t.license().unwrap(), "NVIDIA-vGPU,1.0");
        assert!(matches!(
            types[1].frame_rate_limit(),
            Err(NvmlError::NotSupported)
        ));
        // One 6Q runs: only 6Q can be added, 12Q would mix types.
        let creatable: Vec<u32> = d
            .vgpu_creatable_types()
            .unwrap()
            .iter()
            .map(|t| t.id())
            .collect();
        assert_eq!(creatable, [594]);
        let active = d.active_vgpus().unwrap();
        assert_eq!(active.len(), 1);
        let v = &active[0];
        assert_eq!(v.instance_type().unwrap().id(), 594);
        assert!(matches!(v.vm_id().unwrap(), VmId::Uuid(s) if s.starts_with("f2671c9e")));
        // No driver in the guest: NVML's text for it.
        assert_eq!(v.driver_version().unwrap(), "Not Available");
        assert_eq!(v.gpu_pci_id().unwrap(), "00000000:00:00.0");
        assert_eq!(v.gpu_instance_id().unwrap(), u32::MAX, "not MIG-backed");
        assert!(matches!(v.ecc_mode(), Err(NvmlError::NotSupported)));
        assert!(matches!(v.license_info_v2(), Err(NvmlError::NotSupported)));
        let enc = v.encoder_stats().unwrap();
        assert_eq!((enc.session_count, enc.average_fps), (2, 30));
        assert_eq!(v.fbc_stats().unwrap().sessions_count, 0);
        assert_eq!(v.uuid().unwrap(), "4e2c9a10-1b3d-4f5e-8a7b-6c9d0e1f2a3b");
        assert_eq!(v.fb_usage().unwrap(), 104857600);
        let bare = nvml.device_by_index(1).unwrap();
        assert!(matches!(
            bare.vgpu_supported_types(),
            Err(NvmlError::NotSupported)
        ));
        assert!(matches!(bare.active_vgpus(), Err(NvmlError::NotSupported)));
        unsafe {
            let lib = nvml.lib();
            let mut ty = 0;
            assert_eq!(
                lib.nvmlVgpuInstanceGetType(12345, &mut ty),
                6,
                "unknown vGPU"
            );
            let mut buf = [0 as c_char; 8];
            let mut size: c_uint = 8;
            assert_eq!(lib.nvmlVgpuTypeGetName(594, buf.as_mut_ptr(), &mut size), 7);
            assert_eq!(size, 14, "the size needed, NUL included");
            assert_eq!(
                lib.nvmlVgpuTypeGetName(9, buf.as_mut_ptr(), &mut size),
                2,
                "unknown type"
            );
            assert_eq!(lib.nvmlVgpuInstanceGetType(0, &mut ty), 2, "no instance");
            let mut len: c_uint = 8;
            assert_eq!(
                lib.nvmlVgpuInstanceGetGpuPciId(3251634190, buf.as_mut_ptr(), &mut len),
                7,
                "short buffer"
            );
            assert_eq!(len, 17, "the size needed, NUL included");
            let mut vm = [0 as c_char; 8];
            let mut kind = 0;
            assert_eq!(
                lib.nvmlVgpuInstanceGetVmID(3251634190, vm.as_mut_ptr(), 8, &mut kind),
                7,
                "short VM id buffer"
            );
            // Utilization: sizing call, then the samples, as unsigned ints.
            let h0 = d.handle();
            let (mut vt, mut n) = (0, 0);
            let none = std::ptr::null_mut();
            assert_eq!(
                lib.nvmlDeviceGetVgpuUtilization(h0, 0, &mut vt, &mut n, none),
                7
            );
            assert_eq!(n, 1);
            let mut samples = [std::mem::zeroed::<sys::nvmlVgpuInstanceUtilizationSample_t>(); 2];
            assert_eq!(
                lib.nvmlDeviceGetVgpuUtilization(h0, 0, &mut vt, &mut n, samples.as_mut_ptr()),
                0
            );
            assert_eq!((n, vt, samples[0].vgpuInstance), (1, 1, 3251634190));
            assert_eq!(samples[0].smUtil.uiVal, 12);
            // The placement struct's version is checked before anything else.
            let mut p = std::mem::zeroed::<sys::nvmlVgpuPlacementId_t>();
            assert_eq!(lib.nvmlVgpuInstanceGetPlacementId(3251634190, &mut p), 25);
            p.version = std::mem::size_of::<sys::nvmlVgpuPlacementId_t>() as u32 | (1 << 24);
            assert_eq!(
                lib.nvmlVgpuInstanceGetPlacementId(3251634190, &mut p),
                3,
                "none given"
            );
            let hb = bare.handle();
            assert_eq!(
                lib.nvmlDeviceGetVgpuUtilization(hb, 0, &mut vt, &mut n, none),
                3,
                "no vGPU host"
            );
        }
    });
}

/// A vGPU instance of a type its device lacks is a scenario error.
#[test]
fn vgpu_of_an_unknown_type_is_refused() {
    let bad = VGPU_HOST.replace("type_id = 594", "type_id = 7");
    let err = Scenario::parse(&bad, "t.toml").unwrap_err();
    assert!(err.0.contains("type 7"), "{err}");
}
