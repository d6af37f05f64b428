#!/usr/bin/env python3
"""`nvq run`'s cost to a job and what it catches (issue 51), beside the usual monitors, on the NVML simulator.

Not a test. Everything runs side by side in one run of this script, and it prints Markdown for benches/RESULTS.md:

1. Overhead, 8 simulated H100s with 64 processes (7 other processes a GPU in the scenario, and the job: 8 live
   workload processes, one a GPU, each holding 2 GiB), for DURATION seconds after a 3 s warm-up, all at once:
   - `nvq run -- JOB` at its default interval (100 ms), logging (--log);
   - a hand-written pynvml polling loop at 100 ms (nvidia-ml-py from PyPI: each GPU's memory and compute processes,
     the most per PID kept), the usual monitor script;
   - `nvidia-smi --query-compute-apps=pid,used_memory --format=csv -lms 100`, nvq under the name nvidia-smi as the
     stand-in for nvidia-smi;
   - `nvq top --interval 0.1` in tmux (120x40), for the goal (nvq run at most a third of nvq top's CPU).
   Each tool's CPU is its own process's user + system time (/proc/PID/stat, every thread; not its children's) over
   the window, as a share of one core; RSS is VmRSS at the end and VmHWM (peak). The simulator runs inside each tool
   (it is their libnvidia-ml.so), so its reading of the live processes' files is in each tool's figure alike.
2. Start delay: the time from asking for `date +%s%N` to the time it prints, through `nvq run --` and bare,
   alternated, ROUNDS times each (median of each, and the median of the differences).
3. Spikes: TRIALS runs of a job holding 1 GiB that spikes to 6 GiB for 200 ms, then for 50 ms, at a random moment,
   under `nvq run` at the default interval; caught when the report's peak (or accounting mode's) reaches 6 GiB; the
   pynvml loop and the nvidia-smi loop run all along, caught when they saw the PID at 6 GiB. With the GPU's
   accounting mode off, then on.
4. A long job, from the measured stretch of (1): nvq run's RSS every 5 s (flat or not), and its log's growth,
   extrapolated to an hour and to 24 hours, for this machine (8 GPUs, 64 processes) and for one GPU with one process.

Usage (the dist build, what is shipped: the release profile is the quick one since issue 55, its simulator
unoptimized; nvidia-ml-py is installed into target/pyenv as scripts/pynvml-check.sh does):
    cargo build --profile dist -p nvq -p nvml-sim
    NVQ=target/dist/nvq DURATION=60 ROUNDS=50 TRIALS=20 python3 benches/run_bench.py
"""
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NVQ = os.path.abspath(os.environ.get("NVQ", os.path.join(ROOT, "target/dist/nvq")))
SIM = os.path.abspath(os.environ.get("SIM", os.path.join(os.path.dirname(NVQ), "libnvml_sim.so")))
DURATION = float(os.environ.get("DURATION", "60"))
ROUNDS = int(os.environ.get("ROUNDS", "50"))
TRIALS = int(os.environ.get("TRIALS", "20"))
PIN = os.environ.get("NVML_PY_VERSION", "13.615.71")
VENV = os.path.join(ROOT, "target/pyenv")
WORKLOAD = os.path.join(ROOT, "nvml-sim/workload.py")
HZ = os.sysconf("SC_CLK_TCK")
GIB = 1 << 30

PYNVML_LOOP = r'''
import sys, time, pynvml
pynvml.nvmlInit()
handles = [pynvml.nvmlDeviceGetHandleByIndex(i) for i in range(pynvml.nvmlDeviceGetCount())]
interval, out = float(sys.argv[1]), open(sys.argv[2], "w", buffering=1)
peak, next_t = {}, time.monotonic()
while True:
    for h in handles:
        pynvml.nvmlDeviceGetMemoryInfo(h)
        for p in pynvml.nvmlDeviceGetComputeRunningProcesses(h):
            used = p.usedGpuMemory or 0
            if used > peak.get(p.pid, 0):
                peak[p.pid] = used
                out.write(f"{p.pid} {used}\n")
    next_t += interval
    time.sleep(max(0.0, next_t - time.monotonic()))
'''


def h100(i, accounting):
    return f"""
[[device]]
name = "NVIDIA H100 80GB HBM3"
uuid = "GPU-00000000-0000-4000-8000-{i:012x}"
pci = {{ domain = 0, bus = {i + 1}, device = 0, device_id = 0x233010DE, subsystem_id = 0x16C110DE }}
memory = {{ total = 85520809984, reserved = 567279616, used = 1073741824 }}
utilization = {{ gpu = 87, memory = 41 }}
temperature = {{ gpu = 54 }}
power = {{ usage = 412345, limit = 700000 }}
accounting_mode = {1 if accounting else 0}
"""


def scenario(path, live, gpus, others, accounting):
    text = 'driver_version = "580.82.07"\nnvml_version = "13.580.82.07"\n'
    for i in range(gpus):
        text += h100(i, accounting)
        for k in range(others):
            text += f'\n[[device.process]]\npid = {4200000 + 10 * i + k}\nname = "other"\nused_memory = 1073741824\n'
    text += f'\n[live]\ndir = "{live}"\n'
    with open(path, "w") as f:
        f.write(text)


def pynvml_python():
    py = os.path.join(VENV, "bin/python")
    if not os.path.exists(py):
        subprocess.run([sys.executable, "-m", "venv", VENV], check=True)
    have = subprocess.run([py, "-c", f"import importlib.metadata as m, sys; sys.exit(m.version('nvidia-ml-py') != '{PIN}')"],
                          stderr=subprocess.DEVNULL)
    if have.returncode != 0:
        subprocess.run([py, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", f"nvidia-ml-py=={PIN}"],
                       check=True)
    return py


def ticks(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])


def kib(pid, key):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1])
    return 0


def loadavg():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


class Tools:
    """The two peers, polling at 100 ms into files, for the scenario in the environment."""

    def __init__(self, work, env, py, smi):
        self.pynvml_out = os.path.join(work, f"pynvml-{id(self)}.txt")
        self.smi_out = os.path.join(work, f"smi-{id(self)}.csv")
        loop = os.path.join(work, "pynvml_loop.py")
        with open(loop, "w") as f:
            f.write(PYNVML_LOOP)
        self.pynvml = subprocess.Popen([py, loop, "0.1", self.pynvml_out], env=env)
        self.smi = subprocess.Popen([smi, "--query-compute-apps=pid,used_memory", "--format=csv,noheader,nounits",
                                     "-lms", "100"], env=env, stdout=open(self.smi_out, "w"))

    def stop(self):
        for p in (self.pynvml, self.smi):
            p.terminate()
            p.wait()

    def peaks(self):
        """Each PID's most, bytes, as each peer saw it."""
        pyn, smi = {}, {}
        with open(self.pynvml_out) as f:
            for line in f:
                pid, used = line.split()
                pyn[int(pid)] = max(pyn.get(int(pid), 0), int(used))
        with open(self.smi_out) as f:
            for line in f:
                cells = [c.strip() for c in line.split(",")]
                if len(cells) == 2 and cells[0].isdigit() and cells[1].isdigit():
                    smi[int(cells[0])] = max(smi.get(int(cells[0]), 0), int(cells[1]) << 20)
        return pyn, smi


def overhead(work, env, py, smi):
    live = os.path.join(work, "live8")
    sc = os.path.join(work, "eight.toml")
    scenario(sc, live, 8, 7, False)
    env = dict(env, NVML_SIM_SCENARIO=sc, NVML_SIM_LIVE_DIR=live)
    log = os.path.join(work, "run8.ndjson")
    job_s = DURATION + 8
    job = " & ".join(f"python3 {WORKLOAD} --dir {live} --gpu {g} --start 2GiB --duration {job_s} >/dev/null"
                     for g in range(8)) + " & wait"
    run = subprocess.Popen([NVQ, "--nvml-lib", SIM, "run", "--log", log, "--report-file",
                            os.path.join(work, "run8.txt"), "--", "sh", "-c", job], env=env)
    peers = Tools(work, env, py, smi)
    sock = f"nvq-run-bench-{os.getpid()}"
    top_pid_file = os.path.join(work, "top.pid")
    subprocess.run(["tmux", "-L", sock, "-f", "/dev/null", "new-session", "-d", "-s", "top", "-x", "120", "-y", "40",
                    f"echo $$ > {top_pid_file}; export TERM=xterm-256color NVML_SIM_SCENARIO={sc} "
                    f"NVML_SIM_LIVE_DIR={live}; exec {NVQ} top --nvml-lib {SIM} --interval 0.1"], check=True)
    time.sleep(3)
    with open(top_pid_file) as f:
        top = int(f.read())
    procs = {"nvq run (job: 8 processes, --log)": run.pid, "pynvml loop": peers.pynvml.pid,
             "nvidia-smi --query-compute-apps -lms 100": peers.smi.pid, "nvq top --interval 0.1": top}
    before = {k: ticks(p) for k, p in procs.items()}
    log_before, t0 = os.path.getsize(log), time.monotonic()
    rss = []
    while time.monotonic() - t0 < DURATION:
        rss.append(kib(run.pid, "VmRSS"))
        time.sleep(5)
    wall = time.monotonic() - t0
    after = {k: ticks(p) for k, p in procs.items()}
    log_after = os.path.getsize(log)
    mem = {k: (kib(p, "VmRSS"), kib(p, "VmHWM")) for k, p in procs.items()}
    lines = sum(1 for _ in open(log))
    subprocess.run(["tmux", "-L", sock, "kill-server"], check=False)
    peers.stop()
    run.wait()
    cpu = {k: (after[k] - before[k]) / HZ / wall * 100 for k in procs}
    print(f"\n### Overhead: 8 GPUs, 64 processes, {wall:.0f} s at 100 ms (load average before: {load0})\n")
    print("| tool | CPU, % of a core | vs nvq run | RSS | peak RSS |")
    print("|---|---:|---:|---:|---:|")
    base = cpu["nvq run (job: 8 processes, --log)"]
    for k in procs:
        print(f"| {k} | {cpu[k]:.2f} % | {cpu[k] / base if base else 0:.1f}x | {mem[k][0] / 1024:.1f} MiB | "
              f"{mem[k][1] / 1024:.1f} MiB |")
    top_cpu = cpu["nvq top --interval 0.1"]
    print(f"\nnvq run / nvq top CPU: {base / top_cpu if top_cpu else 0:.2f} (goal: at most 0.33); "
          f"nvq run's peak RSS {mem['nvq run (job: 8 processes, --log)'][1] / 1024:.1f} MiB (goal: at most 8 MiB)")
    per_hour = (log_after - log_before) / wall * 3600
    print(f"\n### A long job, from the {wall:.0f} s stretch\n")
    print(f"nvq run's RSS every 5 s (KiB): {' '.join(str(r) for r in rss)}; first {rss[0]}, last {rss[-1]}, "
          f"max {max(rss)}")
    print(f"log: {log_after - log_before} bytes in {wall:.1f} s, {lines} lines in all "
          f"({(log_after / max(lines, 1)):.0f} bytes a line): {per_hour / 2**20:.0f} MiB an hour, "
          f"{per_hour * 24 / 2**30:.1f} GiB in 24 h at 72 lines a sample")
    return per_hour


def one_gpu_log(work, env):
    live = os.path.join(work, "live1")
    sc = os.path.join(work, "one.toml")
    scenario(sc, live, 1, 0, False)
    env = dict(env, NVML_SIM_SCENARIO=sc, NVML_SIM_LIVE_DIR=live)
    log = os.path.join(work, "run1.ndjson")
    secs = 20
    subprocess.run([NVQ, "--nvml-lib", SIM, "run", "--log", log, "--report-file", os.path.join(work, "run1.txt"),
                    "--", "python3", WORKLOAD, "--dir", live, "--start", "2GiB", "--duration", str(secs)],
                   env=env, stdout=subprocess.DEVNULL, check=True)
    size = os.path.getsize(log)
    per_hour = size / secs * 3600
    print(f"one GPU, one process: {size} bytes in {secs} s: {per_hour / 2**20:.1f} MiB an hour, "
          f"{per_hour * 24 / 2**20:.0f} MiB in 24 h")


def start_delay(work, env):
    sc = os.path.join(work, "eight.toml")
    env = dict(env, NVML_SIM_SCENARIO=sc, NVML_SIM_LIVE_DIR=os.path.join(work, "live8"))

    def delay(argv):
        t0 = time.time_ns()
        out = subprocess.run(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, check=True).stdout
        return (int(out.split()[0]) - t0) / 1e6

    bare, through = [], []
    for _ in range(ROUNDS):
        bare.append(delay(["date", "+%s%N"]))
        through.append(delay([NVQ, "--nvml-lib", SIM, "run", "--", "date", "+%s%N"]))
    diffs = [t - b for t, b in zip(through, bare)]
    print(f"\n### Start delay: `nvq run -- date +%s%N` against `date +%s%N`, {ROUNDS} rounds alternated\n")
    print(f"bare: median {statistics.median(bare):.2f} ms; through nvq run: median {statistics.median(through):.2f} ms; "
          f"delay: {statistics.median(through) - statistics.median(bare):.2f} ms (median of the differences "
          f"{statistics.median(diffs):.2f} ms; goal: at most 2 ms)")


def spikes(work, env, py, smi):
    print(f"\n### Spikes: {TRIALS} runs a case, a 1 GiB job spiking to 6 GiB at a random moment, at 100 ms\n")
    print("| accounting mode | spike | nvq run | pynvml loop | nvidia-smi -lms 100 |")
    print("|---|---|---:|---:|---:|")
    for accounting in (False, True):
        live = os.path.join(work, f"live-spike-{accounting}")
        sc = os.path.join(work, f"spike-{accounting}.toml")
        scenario(sc, live, 1, 0, accounting)
        senv = dict(env, NVML_SIM_SCENARIO=sc, NVML_SIM_LIVE_DIR=live)
        peers = Tools(work, senv, py, smi)
        time.sleep(1)
        results = []
        for spike_ms in (200, 50):
            for _ in range(TRIALS):
                at = 0.4 + random.random() * 0.1
                out = subprocess.run([NVQ, "--nvml-lib", SIM, "run", "--report=json", "--", "python3", WORKLOAD,
                                      "--dir", live, "--start", "1GiB", "--spike", "6GiB", "--spike-at", f"{at:.3f}",
                                      "--spike-ms", str(spike_ms), "--duration", f"{at + spike_ms / 1000 + 0.4:.3f}"],
                                     env=senv, capture_output=True, text=True, check=True)
                pid = int(out.stdout.split("workload: pid ")[1].split()[0])
                g = json.loads(out.stderr)["track"]["gpus"].get("0", {})
                seen = max(g.get("peak", 0), g.get("accounting_peak", 0))
                results.append((spike_ms, pid, seen >= 6 * GIB))
        time.sleep(0.5)
        peers.stop()
        pyn, smi_peaks = peers.peaks()
        for spike_ms in (200, 50):
            rows = [r for r in results if r[0] == spike_ms]
            n = len(rows)
            ours = sum(r[2] for r in rows)
            p = sum(pyn.get(r[1], 0) >= 6 * GIB for r in rows)
            s = sum(smi_peaks.get(r[1], 0) >= 6 * GIB for r in rows)
            print(f"| {'on' if accounting else 'off'} | {spike_ms} ms | {ours}/{n} | {p}/{n} | {s}/{n} |")


def main():
    global load0
    if not (os.path.exists(NVQ) and os.path.exists(SIM)):
        sys.exit(f"run_bench: build first: {NVQ} and {SIM} (cargo build --profile dist -p nvq -p nvml-sim)")
    py = pynvml_python()
    work = tempfile.mkdtemp(prefix="nvq-run-bench-")
    try:
        libdir = os.path.join(work, "lib")
        os.makedirs(libdir)
        os.symlink(SIM, os.path.join(libdir, "libnvidia-ml.so.1"))
        smi = os.path.join(work, "nvidia-smi")
        os.symlink(NVQ, smi)
        env = dict(os.environ, LD_LIBRARY_PATH=libdir, NVQ_NVML_LIB=SIM)
        load0 = loadavg()
        rev = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], capture_output=True,
                             text=True).stdout.strip()
        print(f"nvq run bench: {NVQ} ({rev}), {os.cpu_count()} CPUs, load average {load0}, "
              f"DURATION={DURATION:.0f} ROUNDS={ROUNDS} TRIALS={TRIALS}, nvidia-ml-py {PIN}")
        overhead(work, env, py, smi)
        one_gpu_log(work, env)
        start_delay(work, env)
        spikes(work, env, py, smi)
        print(f"\nload average at the end: {loadavg()}")
    finally:
        shutil.rmtree(work, ignore_errors=True)


load0 = ""
if __name__ == "__main__":
    main()
