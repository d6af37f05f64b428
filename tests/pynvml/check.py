#!/usr/bin/env python3
"""Check that unmodified nvidia-ml-py (pynvml) reads what an nvml-sim scenario says.

Run through scripts/pynvml-check.sh (which sets up the venv, builds the simulator and points
LD_LIBRARY_PATH at a directory with a libnvidia-ml.so.1 symlink). Each case runs in its own
Python process (NVML state is per process). Prints `pynvml: N passed, M failed`; exit 1 on failure.
"""
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
RESULTS = []


def check(name, cond, detail=""):
    RESULTS.append((name, bool(cond), detail))
    print(("PASS " if cond else "FAIL ") + name + ("" if cond else f": {detail}"), flush=True)


def expect_error(name, exc_name, fn, *args):
    import pynvml

    exc = getattr(pynvml, exc_name)
    try:
        v = fn(*args)
    except exc:
        check(name, True)
        return
    except Exception as e:  # noqa: BLE001
        check(name, False, f"expected {exc_name}, got {type(e).__name__}: {e}")
        return
    check(name, False, f"expected {exc_name}, got value {v!r}")


def load_scenario(path):
    try:
        import tomllib
    except ImportError:  # Python < 3.11
        return None
    with open(path, "rb") as f:
        return tomllib.load(f)


def case_main():
    import pynvml as n

    sc = load_scenario(os.environ["NVML_SIM_SCENARIO"])
    n.nvmlInit()
    check("driver version", n.nvmlSystemGetDriverVersion() == "580.82.07", n.nvmlSystemGetDriverVersion())
    check("cuda driver version", n.nvmlSystemGetCudaDriverVersion() == 13000)
    check("device count", n.nvmlDeviceGetCount() == 2, n.nvmlDeviceGetCount())
    h0 = n.nvmlDeviceGetHandleByIndex(0)
    h1 = n.nvmlDeviceGetHandleByIndex(1)
    check("name 0", n.nvmlDeviceGetName(h0) == "NVIDIA H100 80GB HBM3", n.nvmlDeviceGetName(h0))
    check("name 1", n.nvmlDeviceGetName(h1) == "NVIDIA A100-SXM4-40GB", n.nvmlDeviceGetName(h1))
    check("uuid 0", n.nvmlDeviceGetUUID(h0) == "GPU-11111111-2222-3333-4444-555555555555")
    check("uuid 1", n.nvmlDeviceGetUUID(h1) == "GPU-66666666-7777-8888-9999-000000000000")
    check("serial 0", n.nvmlDeviceGetSerial(h0) == "1650000000001")
    check("pci bus id 0", n.nvmlDeviceGetPciInfo(h0).busId in ("00000000:18:00.0", b"00000000:18:00.0"))
    hb = n.nvmlDeviceGetHandleByUUID("GPU-66666666-7777-8888-9999-000000000000")
    check("handle by uuid", n.nvmlDeviceGetIndex(hb) == 1)

    total, reserved, used = 85520809984, 567279616, 10737418240
    if sc:
        m = sc["device"][0]["memory"]
        total, reserved, used = m["total"], m["reserved"], m["used"]
    m1 = n.nvmlDeviceGetMemoryInfo(h0)
    check("memory v1 total", m1.total == total, m1.total)
    check("memory v1 used (includes reserved)", m1.used == used + reserved, m1.used)
    check("memory v1 free", m1.free == total - reserved - used, m1.free)
    m2 = n.nvmlDeviceGetMemoryInfo(h0, version=n.nvmlMemory_v2)
    check("memory v2 total", m2.total == total, m2.total)
    check("memory v2 reserved", m2.reserved == reserved, m2.reserved)
    check("memory v2 used", m2.used == used, m2.used)
    check("memory v2 free", m2.free == total - reserved - used, m2.free)

    seq = [n.nvmlDeviceGetUtilizationRates(h0).gpu for _ in range(4)]
    check("utilization series", seq == [10, 20, 90, 90], seq)
    check("utilization memory", n.nvmlDeviceGetUtilizationRates(h0).memory == 33)
    check("temperature", n.nvmlDeviceGetTemperature(h0, n.NVML_TEMPERATURE_GPU) == 45)
    check("temperature threshold", n.nvmlDeviceGetTemperatureThreshold(h0, n.NVML_TEMPERATURE_THRESHOLD_SHUTDOWN) == 92)
    check("power usage", n.nvmlDeviceGetPowerUsage(h0) == 250000)
    check("enforced power limit", n.nvmlDeviceGetEnforcedPowerLimit(h0) == 700000)
    check("fan speed", n.nvmlDeviceGetFanSpeed(h0) == 0)

    procs = n.nvmlDeviceGetComputeRunningProcesses(h0)
    check("compute process count", len(procs) == 4, len(procs))
    got = {p.pid: p.usedGpuMemory for p in procs}
    check("process memory", got.get(1001) == 8589934592, got)
    check("process memory unavailable is None", 1002 in got and got[1002] is None, got)
    check("process name", n.nvmlSystemGetProcessName(1001) == "python3")
    expect_error("process name NO_PERMISSION", "NVMLError_NoPermission", n.nvmlSystemGetProcessName, 1003)
    expect_error("vanished process NOT_FOUND", "NVMLError_NotFound", n.nvmlSystemGetProcessName, 1004)
    gp = n.nvmlDeviceGetGraphicsRunningProcesses(h0)
    check("graphics processes", [p.pid for p in gp] == [2001], [p.pid for p in gp])
    check("no processes on device 1", n.nvmlDeviceGetComputeRunningProcesses(h1) == [])

    # GPM: support per GPU, metrics between two samples, a missing metric NOT_SUPPORTED in its slot.
    check("gpm supported 0", n.nvmlGpmQueryDeviceSupport(h0).isSupportedDevice == 1)
    check("gpm not supported 1", n.nvmlGpmQueryDeviceSupport(h1).isSupportedDevice == 0)
    s1, s2 = n.nvmlGpmSampleAlloc(), n.nvmlGpmSampleAlloc()
    n.nvmlGpmSampleGet(h0, s1)
    n.nvmlGpmSampleGet(h0, s2)
    mg = n.c_nvmlGpmMetricsGet_t()
    mg.version = n.NVML_GPM_METRICS_GET_VERSION
    mg.numMetrics = 3
    mg.sample1, mg.sample2 = s1, s2
    for i, mid in enumerate((1, 5, 3)):
        mg.metrics[i].metricId = mid
    n.nvmlGpmMetricsGet(mg)
    got = [(m.nvmlReturn, m.value) for m in mg.metrics[:3]]
    check("gpm metrics", got == [(0, 20.0), (0, 37.5), (n.NVML_ERROR_NOT_SUPPORTED, 0.0)], got)
    mg.version = 2
    expect_error("gpm version mismatch", "NVMLError_ArgumentVersionMismatch", n.nvmlGpmMetricsGet, mg)
    expect_error("gpm sample before Hopper", "NVMLError_NotSupported", n.nvmlGpmSampleGet, h1, s1)
    n.nvmlGpmSampleFree(s1)
    n.nvmlGpmSampleFree(s2)

    # Injected faults.
    expect_error("fault NO_PERMISSION", "NVMLError_NoPermission", n.nvmlDeviceGetPowerManagementLimit, h0)
    expect_error("fault NOT_SUPPORTED", "NVMLError_NotSupported", n.nvmlDeviceGetEncoderUtilization, h0)
    expect_error("absent value NOT_SUPPORTED", "NVMLError_NotSupported", n.nvmlDeviceGetBAR1MemoryInfo, h0)
    expect_error("absent function FUNCTION_NOT_FOUND", "NVMLError_FunctionNotFound", n.nvmlDeviceGetPcieReplayCounter, h0)
    check("temperature before GPU_IS_LOST", n.nvmlDeviceGetTemperature(h1, n.NVML_TEMPERATURE_GPU) == 30)
    expect_error("fault GPU_IS_LOST after 1 call", "NVMLError_GpuIsLost", n.nvmlDeviceGetTemperature, h1, n.NVML_TEMPERATURE_GPU)
    check("error string", n.nvmlErrorString(n.NVML_ERROR_NOT_SUPPORTED) in ("Not Supported", b"Not Supported"))
    n.nvmlShutdown()
    expect_error("uninitialized after shutdown", "NVMLError_Uninitialized", n.nvmlDeviceGetCount)


def case_default():
    import pynvml as n

    n.nvmlInit()
    check("default: 2 devices", n.nvmlDeviceGetCount() == 2)
    h = n.nvmlDeviceGetHandleByIndex(0)
    check("default: H100 name", n.nvmlDeviceGetName(h) == "NVIDIA H100 80GB HBM3")
    check("default: processes", len(n.nvmlDeviceGetComputeRunningProcesses(h)) == 2)
    n.nvmlShutdown()


def case_driver_not_loaded():
    import pynvml as n

    expect_error("init DRIVER_NOT_LOADED", "NVMLError_DriverNotLoaded", n.nvmlInit)


def case_malformed():
    import pynvml as n

    expect_error("malformed scenario: init UNKNOWN", "NVMLError_Unknown", n.nvmlInit)


CASES = {
    "main": ("scenario.toml", case_main),
    "default": (None, case_default),
    "driver_not_loaded": ("driver_not_loaded.toml", case_driver_not_loaded),
    "malformed": ("malformed.toml", case_malformed),
}


def run_child(case):
    try:
        CASES[case][1]()
    except Exception as e:  # noqa: BLE001
        check(f"{case}: unexpected exception", False, f"{type(e).__name__}: {e}")
    sys.exit(0 if all(ok for _, ok, _ in RESULTS) else 1)


def main():
    if len(sys.argv) > 2 and sys.argv[1] == "--case":
        run_child(sys.argv[2])
    passed = failed = 0
    for case, (scenario, _) in CASES.items():
        env = dict(os.environ)
        env.pop("NVML_SIM_SCENARIO", None)
        if scenario:
            env["NVML_SIM_SCENARIO"] = os.path.join(HERE, scenario)
        r = subprocess.run([sys.executable, __file__, "--case", case], env=env, capture_output=True, text=True)
        sys.stdout.write(r.stdout)
        lines = r.stdout.splitlines()
        passed += sum(1 for l in lines if l.startswith("PASS "))
        failed += sum(1 for l in lines if l.startswith("FAIL "))
        if case == "malformed":
            ok = "line 4" in r.stderr and "nvml-sim" in r.stderr and len(r.stderr.strip().splitlines()) == 1
            print(("PASS " if ok else "FAIL ") + "malformed scenario: one stderr line naming the line" + ("" if ok else f": {r.stderr!r}"))
            passed, failed = (passed + 1, failed) if ok else (passed, failed + 1)
        elif r.stderr.strip():
            sys.stdout.write(r.stderr)
        if r.returncode != 0 and not any(l.startswith("FAIL ") for l in lines):
            print(f"FAIL {case}: child exited with {r.returncode}")
            failed += 1
    print(f"pynvml: {passed} passed, {failed} failed")
    sys.exit(1 if failed or not passed else 0)


if __name__ == "__main__":
    main()
