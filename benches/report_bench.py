#!/usr/bin/env python3
"""The detail report's figures: `nvq -q` and `nvq -q -x` on 8 simulated GPUs
against the floor program, and the same report read serially and in parallel
with the simulator's realistic per-call latencies switched on, all in one
run. Writes (or replaces) the "Detail report" section of benches/RESULTS.md.

Usage: benches/report_bench.py (after `cargo build --profile dist -p nvml-sim` and
`cargo build --profile dist -p nvq --bin nvq --example floor`; RUNS=n to change the
number of runs). Times are medians of whole-process wall time.
"""

import os
import platform
import statistics
import subprocess
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TARGET = os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target"))
NVQ = os.path.join(TARGET, "dist", "nvq")
FLOOR = os.path.join(TARGET, "dist", "examples", "floor")
SIM = os.path.join(TARGET, "dist", "libnvml_sim.so")
RESULTS = os.path.join(ROOT, "benches", "RESULTS.md")
RUNS = int(os.environ.get("RUNS", "21"))
BASE = os.path.join(ROOT, "tests", "scenarios", "h200_590_idle.toml")
HEADING = "## Detail report (`-q`, `-q -x`)"


def scenario(latency):
    """The H200 of the -q captures, copied to 8 GPUs; with `latency`, the
    simulator's realistic per-call latencies."""
    text = open(BASE).read()
    extra = "\n[generate]\ndevices = 8\nprocesses_per_device = 0\n"
    if latency:
        extra += "\n[latency]\nrealistic = true\n"
    # Top-level tables must come before [[device]]: put them first.
    f = tempfile.NamedTemporaryFile("w", suffix=".toml", delete=False)
    head, sep, rest = text.partition("[[device]]")
    f.write(head + extra + "\n" + sep + rest)
    f.close()
    return f.name


def median_ms(argv, env):
    times = []
    for i in range(RUNS + 2):
        t = time.perf_counter()
        subprocess.run(argv, env=env, check=True, stdout=subprocess.DEVNULL)
        if i >= 2:  # two warm-up runs
            times.append((time.perf_counter() - t) * 1000)
    return statistics.median(times)


def env_for(path, serial=False):
    env = dict(os.environ, NVML_SIM_SCENARIO=path, NVQ_NVML_LIB=SIM, NO_COLOR="1")
    if serial:
        env["NVQ_SERIAL_GPUS"] = "1"
    return env


def main():
    rows = []
    plain, slow = scenario(False), scenario(True)
    for label, argv in [
        ("nvq -q", [NVQ, "-q"]),
        ("nvq -q -x", [NVQ, "-q", "-x"]),
        ("floor (load, init, 1 value/GPU)", [FLOOR, SIM]),
    ]:
        rows.append(("8 GPUs, no latency", label, median_ms(argv, env_for(plain))))
    for label, argv in [("nvq -q", [NVQ, "-q"]), ("nvq -q -x", [NVQ, "-q", "-x"])]:
        rows.append(("8 GPUs, realistic latency", label + ", GPUs in parallel", median_ms(argv, env_for(slow))))
        rows.append(("8 GPUs, realistic latency", label + ", GPUs one after another",
                     median_ms(argv, env_for(slow, serial=True))))
    rows.append(("8 GPUs, realistic latency", "floor (load, init, 1 value/GPU)", median_ms([FLOOR, SIM], env_for(slow))))
    os.unlink(plain)
    os.unlink(slow)
    lines = [
        HEADING,
        "",
        f"Date: {time.strftime('%Y-%m-%d %H:%M %Z')}. Machine: {platform.machine()}, {os.cpu_count()} CPUs. "
        f"Command: `benches/report_bench.py` ({RUNS} runs each, medians of whole-process wall time).",
        "The H200 of the `-q` captures copied to 8 GPUs. \"Realistic latency\" is the simulator's",
        "`[latency] realistic = true` (nvml-sim/README.md: 20 ms per nvmlDeviceGetPcieThroughput call,",
        "1 ms for sample buffers, power and field values); `NVQ_SERIAL_GPUS=1` reads the GPUs one",
        "after another, as nvidia-smi does.",
        "",
        "| case | command | median (ms) |",
        "|---|---|---:|",
    ]
    lines += [f"| {c} | {t} | {m:.2f} |" for c, t, m in rows]
    section = "\n".join(lines) + "\n"
    print(section)
    old = open(RESULTS).read() if os.path.exists(RESULTS) else ""
    keep = old.split("\n" + HEADING)[0].rstrip("\n") + "\n\n" if old else ""
    with open(RESULTS, "w") as f:
        f.write(keep + section)


if __name__ == "__main__":
    main()
