"""Unmodified third-party clients against nvq and its NVML simulator.

Run by scripts/clients-check.sh inside a virtual environment that holds the
pinned clients. Three checks:

1. GPUtil 1.4.0 runs `nvidia-smi --query-gpu=... --format=csv,noheader,nounits`
   and parses it strictly. `nvidia-smi` on PATH is a symlink to nvq. Every GPU
   must come back with the scenario's memory, load, temperature, serial and
   display values, and getAvailable() must pick the GPUs the scenario leaves free.
2. gpustat 1.1.1 (`gpustat --json`) and nvitop (Python API and `nvitop --once`)
   read NVML through pynvml from the simulator. Their memory, utilization,
   temperature, power and per-process memory must equal what
   `nvq --format=json` reports for the same scenario.

Environment: NVQ (path to the nvq binary), SIM_LIB (path to libnvml_sim.so),
WORKDIR (scratch folder). Prints `clients: N passed, M failed`.
"""

import json
import math
import os
import subprocess
import sys
import tomllib

NVQ = os.environ["NVQ"]
SIM_LIB = os.environ["SIM_LIB"]
WORK = os.environ["WORKDIR"]
MIB = 1024 * 1024
GIB = 1024 * MIB

passed = 0
failed = 0


def check(what, ok, detail=""):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        print(f"FAIL: {what} {detail}", flush=True)


def scenario_text(pids):
    """Four GPUs; GPU 0 and 2 are free, GPU 1 is busy, GPU 3 has no
    utilization figure. Memory figures are whole MiB so that every client's
    rounding (nvidia-smi rounds up, gpustat down) gives the same number.
    Processes use real PIDs because gpustat drops PIDs that do not exist."""
    p0, p1, p2, p3 = pids
    return f"""
driver_version = "570.133.07"
nvml_version = "12.570.133.07"
cuda_driver_version = 12080

[[device]]
name = "NVIDIA H100 80GB HBM3"
uuid = "GPU-11111111-2222-3333-4444-555555555550"
serial = "1650000000001"
display_mode = 0
display_active = 0
persistence_mode = 1
performance_state = 0
pci = {{ domain = 0, bus = 0x18, device = 0, device_id = 0x233010DE, subsystem_id = 0x16C110DE }}
memory = {{ total = {81559 * MIB}, reserved = {541 * MIB}, used = {1024 * MIB}, free = {(81559 - 541 - 1024) * MIB} }}
utilization = {{ gpu = 5, memory = 1 }}
temperature = {{ gpu = 34 }}
power = {{ usage = 71000, limit = 700000, enforced_limit = 700000 }}
fans = []

[[device.process]]
pid = {p0}
name = "python3"
used_memory = {512 * MIB}

[[device]]
name = "NVIDIA H100 80GB HBM3"
uuid = "GPU-11111111-2222-3333-4444-555555555551"
serial = "1650000000002"
display_mode = 0
display_active = 0
persistence_mode = 1
performance_state = 0
pci = {{ domain = 0, bus = 0x2A, device = 0, device_id = 0x233010DE, subsystem_id = 0x16C110DE }}
memory = {{ total = {81559 * MIB}, reserved = {541 * MIB}, used = {71680 * MIB}, free = {(81559 - 541 - 71680) * MIB} }}
utilization = {{ gpu = 97, memory = 64 }}
temperature = {{ gpu = 71 }}
power = {{ usage = 655000, limit = 700000, enforced_limit = 700000 }}
fans = []

[[device.process]]
pid = {p1}
name = "train.py"
used_memory = {40960 * MIB}

[[device.process]]
pid = {p2}
name = "eval.py"
used_memory = {30720 * MIB}

[[device]]
name = "NVIDIA GeForce RTX 2080 SUPER"
uuid = "GPU-df6e7a7c-7314-46f8-abc4-b88b36dcf3aa"
display_mode = 1
display_active = 1
persistence_mode = 0
performance_state = 8
pci = {{ domain = 0, bus = 0x65, device = 0, device_id = 0x1E8110DE, subsystem_id = 0x40051458 }}
memory = {{ total = {8192 * MIB}, reserved = {223 * MIB}, used = {500 * MIB}, free = {(8192 - 223 - 500) * MIB} }}
utilization = {{ gpu = 3, memory = 7 }}
temperature = {{ gpu = 41 }}
power = {{ usage = 19000, limit = 250000, enforced_limit = 250000 }}
fans = [38]

[[device.process]]
pid = {p3}
name = "Xorg"
used_memory = {200 * MIB}

[[device]]
name = "NVIDIA H100 80GB HBM3"
uuid = "GPU-11111111-2222-3333-4444-555555555553"
serial = "1650000000004"
display_mode = 0
display_active = 0
persistence_mode = 1
performance_state = 0
pci = {{ domain = 0, bus = 0x9A, device = 0, device_id = 0x233010DE, subsystem_id = 0x16C110DE }}
memory = {{ total = {81559 * MIB}, reserved = {541 * MIB}, used = {0}, free = {(81559 - 541) * MIB} }}
temperature = {{ gpu = 30 }}
power = {{ usage = 68000, limit = 700000, enforced_limit = 700000 }}
fans = []
"""


def env_for(scenario_path, path_first=None):
    env = dict(os.environ)
    env["NVML_SIM_SCENARIO"] = scenario_path
    env["NVQ_NVML_LIB"] = SIM_LIB
    libdir = os.path.join(WORK, "lib")
    env["LD_LIBRARY_PATH"] = libdir + ":" + env.get("LD_LIBRARY_PATH", "")
    if path_first:
        env["PATH"] = path_first + ":" + env["PATH"]
    env.pop("NO_COLOR", None)
    return env


def nvq_json(env, *args):
    out = subprocess.run([NVQ, *args, "--format=json"], env=env, capture_output=True, check=True)
    return json.loads(out.stdout)


def check_gputil(sc, env):
    import GPUtil

    old = dict(os.environ)
    os.environ.clear()
    os.environ.update(env)
    try:
        gpus = GPUtil.getGPUs()
        avail = GPUtil.getAvailable(order="first", limit=8, maxLoad=0.5, maxMemory=0.5)
    finally:
        os.environ.clear()
        os.environ.update(old)
    devs = sc["device"]
    check("GPUtil sees every GPU", len(gpus) == len(devs), f"{len(gpus)} != {len(devs)}")
    for i, (g, d) in enumerate(zip(gpus, devs)):
        mem = d["memory"]
        util = d.get("utilization", {}).get("gpu")
        want_load = util / 100 if util is not None else float("nan")
        same_load = (math.isnan(g.load) and math.isnan(want_load)) or g.load == want_load
        check(f"GPUtil GPU {i} id", g.id == i, str(g.id))
        check(f"GPUtil GPU {i} uuid", g.uuid == d["uuid"], g.uuid)
        check(f"GPUtil GPU {i} load", same_load, f"{g.load} != {want_load}")
        check(f"GPUtil GPU {i} memoryTotal", g.memoryTotal == mem["total"] / MIB, str(g.memoryTotal))
        check(f"GPUtil GPU {i} memoryUsed", g.memoryUsed == mem["used"] / MIB, str(g.memoryUsed))
        check(f"GPUtil GPU {i} memoryFree", g.memoryFree == mem["free"] / MIB, str(g.memoryFree))
        check(f"GPUtil GPU {i} temperature", g.temperature == d["temperature"]["gpu"], str(g.temperature))
        check(f"GPUtil GPU {i} serial", g.serial == d.get("serial", "[N/A]"), g.serial)
        want_active = "Enabled" if d["display_active"] else "Disabled"
        want_mode = "Enabled" if d["display_mode"] else "Disabled"
        check(f"GPUtil GPU {i} display_active", g.display_active == want_active, g.display_active)
        check(f"GPUtil GPU {i} display_mode", g.display_mode == want_mode, g.display_mode)
        check(f"GPUtil GPU {i} name", g.name == d["name"], g.name)
        check(f"GPUtil GPU {i} driver", g.driver == sc["driver_version"], g.driver)
    # Free: load < 50 % and memory use < 50 %. GPU 3 has no load figure (NaN).
    want = [
        i
        for i, d in enumerate(devs)
        if d.get("utilization", {}).get("gpu") is not None
        and d["utilization"]["gpu"] < 50
        and d["memory"]["used"] / d["memory"]["total"] < 0.5
    ]
    check("GPUtil getAvailable", avail == want, f"{avail} != {want}")


def check_gpustat(env, ref_gpus, ref_procs):
    out = subprocess.run(
        [os.path.join(os.path.dirname(sys.executable), "gpustat"), "--json"],
        env=env,
        capture_output=True,
    )
    check("gpustat --json exits 0", out.returncode == 0, out.stderr.decode(errors="replace")[-500:])
    if out.returncode != 0:
        return
    data = json.loads(out.stdout)
    gpus = data["gpus"]
    check("gpustat sees every GPU", len(gpus) == len(ref_gpus), str(len(gpus)))
    for g, r in zip(gpus, ref_gpus):
        i = r["index"]
        check(f"gpustat GPU {i} memory.used", g["memory.used"] == r["memory.used"], f"{g['memory.used']} != {r['memory.used']}")
        check(f"gpustat GPU {i} memory.total", g["memory.total"] == r["memory.total"], f"{g['memory.total']} != {r['memory.total']}")
        check(f"gpustat GPU {i} utilization", g["utilization.gpu"] == r["utilization.gpu"], f"{g['utilization.gpu']} != {r['utilization.gpu']}")
        check(f"gpustat GPU {i} temperature", g["temperature.gpu"] == r["temperature.gpu"], f"{g['temperature.gpu']} != {r['temperature.gpu']}")
        want_power = None if r["power.draw"] is None else int(r["power.draw"])
        check(f"gpustat GPU {i} power", g["power.draw"] == want_power, f"{g['power.draw']} != {want_power}")
        got = {p["pid"]: p["gpu_memory_usage"] for p in g["processes"]}
        want = {p["pid"]: p["used_gpu_memory"] for p in ref_procs if p["gpu_uuid"] == r["uuid"]}
        check(f"gpustat GPU {i} processes", got == want, f"{got} != {want}")


def check_nvitop(env, ref_gpus, ref_procs):
    code = r"""
import json
from nvitop import Device, NA
out = []
for d in Device.all():
    def num(v):
        return None if v is NA or v == 'N/A' else v
    procs = {str(pid): num(p.gpu_memory()) for pid, p in d.processes().items()}
    out.append({
        "uuid": d.uuid(),
        "memory_used": num(d.memory_used()),
        "memory_total": num(d.memory_total()),
        "gpu_utilization": num(d.gpu_utilization()),
        "temperature": num(d.temperature()),
        "power_usage": num(d.power_usage()),
        "processes": procs,
    })
print(json.dumps(out))
"""
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True)
    check("nvitop API runs", out.returncode == 0, out.stderr.decode(errors="replace")[-800:])
    if out.returncode != 0:
        return
    got = json.loads(out.stdout.decode().strip().splitlines()[-1])
    check("nvitop sees every GPU", len(got) == len(ref_gpus), str(len(got)))
    for g, r in zip(got, ref_gpus):
        i = r["index"]
        check(f"nvitop GPU {i} uuid", g["uuid"] == r["uuid"], g["uuid"])
        mu = None if g["memory_used"] is None else math.ceil(g["memory_used"] / MIB)
        mt = None if g["memory_total"] is None else math.ceil(g["memory_total"] / MIB)
        check(f"nvitop GPU {i} memory used", mu == r["memory.used"], f"{mu} != {r['memory.used']}")
        check(f"nvitop GPU {i} memory total", mt == r["memory.total"], f"{mt} != {r['memory.total']}")
        check(f"nvitop GPU {i} utilization", g["gpu_utilization"] == r["utilization.gpu"], f"{g['gpu_utilization']} != {r['utilization.gpu']}")
        check(f"nvitop GPU {i} temperature", g["temperature"] == r["temperature.gpu"], f"{g['temperature']} != {r['temperature.gpu']}")
        pw = None if g["power_usage"] is None else round(g["power_usage"] / 1000, 2)
        check(f"nvitop GPU {i} power", pw == r["power.draw"], f"{pw} != {r['power.draw']}")
        gp = {int(k): (None if v is None else math.ceil(v / MIB)) for k, v in g["processes"].items()}
        want = {p["pid"]: p["used_gpu_memory"] for p in ref_procs if p["gpu_uuid"] == r["uuid"]}
        check(f"nvitop GPU {i} processes", gp == want, f"{gp} != {want}")
    cli = subprocess.run(
        [os.path.join(os.path.dirname(sys.executable), "nvitop"), "--once"],
        env=env,
        capture_output=True,
    )
    text = cli.stdout.decode(errors="replace")
    check("nvitop --once exits 0", cli.returncode == 0, cli.stderr.decode(errors="replace")[-500:])
    check("nvitop --once shows the GPUs", "H100" in text and "2080" in text, text[-500:])


def main():
    os.makedirs(os.path.join(WORK, "lib"), exist_ok=True)
    os.makedirs(os.path.join(WORK, "bin"), exist_ok=True)
    link = os.path.join(WORK, "lib", "libnvidia-ml.so.1")
    if os.path.lexists(link):
        os.remove(link)
    os.symlink(SIM_LIB, link)
    smi = os.path.join(WORK, "bin", "nvidia-smi")
    if os.path.lexists(smi):
        os.remove(smi)
    os.symlink(NVQ, smi)

    sleepers = [subprocess.Popen(["sleep", "600"]) for _ in range(3)]
    try:
        pids = [os.getpid()] + [p.pid for p in sleepers]
        path = os.path.join(WORK, "clients.toml")
        with open(path, "w") as f:
            f.write(scenario_text(pids))
        with open(path, "rb") as f:
            sc = tomllib.load(f)
        env = env_for(path, path_first=os.path.join(WORK, "bin"))

        check_gputil(sc, env)
        ref_gpus = nvq_json(env, "--query-gpu=index,uuid,memory.used,memory.total,utilization.gpu,temperature.gpu,power.draw")
        ref_procs = nvq_json(env, "--query-compute-apps=gpu_uuid,pid,used_gpu_memory")
        check("nvq lists every process", len(ref_procs) == 4, str(ref_procs))
        check_gpustat(env, ref_gpus, ref_procs)
        check_nvitop(env, ref_gpus, ref_procs)
    finally:
        for p in sleepers:
            p.kill()
    print(f"clients: {passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
