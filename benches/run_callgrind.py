#!/usr/bin/env python3
"""What one sample of `nvq run` costs, in instructions (valgrind callgrind, which the machine's load does not
change), not a test: the overhead case of benches/run_bench.py (8 simulated H100s, 7 other processes each, and a job
of 8 live workload processes, one a GPU, --log on) at the default 100 ms. Counting starts WARM seconds after the
start and stops SPAN seconds later; samples are counted from the log's GPU lines written in that window. Prints
instructions per sample, split into nvq (with the Rust and C libraries), the simulator (libnvml_sim.so) and the
kernel's share left out (callgrind counts user space only), and the top functions by their own instructions.
    NVQ=target/dist/nvq python3 benches/run_callgrind.py     WARM=8 SPAN=20 (seconds)
    KEEP=FILE: keep callgrind's output there (for callgrind_annotate --inclusive=yes)
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections import defaultdict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run_bench  # noqa: E402  (its scenario and workload)

WARM = float(os.environ.get("WARM", "8"))
SPAN = float(os.environ.get("SPAN", "20"))


def gpu_lines(path):
    with open(path) as f:
        return sum('"pid":null' in line for line in f)


def summarize(out, samples):
    """Instructions per sample by object and the top functions, from callgrind_annotate's self costs."""
    text = subprocess.run(["callgrind_annotate", "--threshold=100", out], capture_output=True, text=True,
                          check=True).stdout
    rows = []
    for line in text.splitlines():
        m = re.match(r"\s*([\d,]+) \(\s*[\d.]+%\)\s+(.*?) \[(.*)\]$", line)
        if m:
            rows.append((int(m.group(1).replace(",", "")), m.group(2).split(":", 1)[-1], m.group(3)))
    by_obj = defaultdict(int)
    for ir, _, obj in rows:
        by_obj[obj] += ir
    total = sum(by_obj.values())
    sim = sum(v for o, v in by_obj.items() if "nvml_sim" in o or "libnvidia-ml" in o)
    n = max(samples, 1)
    print(f"samples: {samples}")
    print(f"instructions per sample: {total / n:,.0f} (nvq and its libraries {(total - sim) / n:,.0f}, "
          f"simulator {sim / n:,.0f})")
    for o, v in sorted(by_obj.items(), key=lambda x: -x[1])[:6]:
        print(f"  {v / n:>12,.0f}  {o}")
    print("top functions (self instructions per sample):")
    for ir, fn, _ in sorted(rows, reverse=True)[:30]:
        print(f"  {ir / n:>10,.0f}  {fn[:110]}")


def main():
    nvq, sim = run_bench.NVQ, run_bench.SIM
    work = tempfile.mkdtemp(prefix="nvq-run-cg-")
    try:
        live, sc = os.path.join(work, "live"), os.path.join(work, "eight.toml")
        run_bench.scenario(sc, live, 8, 7, False)
        env = dict(os.environ, NVML_SIM_SCENARIO=sc, NVML_SIM_LIVE_DIR=live)
        secs = WARM + SPAN + 4
        job = " & ".join(f"python3 {run_bench.WORKLOAD} --dir {live} --gpu {g} --start 2GiB --duration {secs} "
                         ">/dev/null" for g in range(8)) + " & wait"
        log, out = os.path.join(work, "run.ndjson"), os.path.join(work, "cg.out")
        p = subprocess.Popen(["valgrind", "--tool=callgrind", "--instr-atstart=no", f"--callgrind-out-file={out}",
                              nvq, "--nvml-lib", sim, "run", "--log", log, "--report-file",
                              os.path.join(work, "report.txt"), "--", "sh", "-c", job],
                             env=env, stderr=open(os.path.join(work, "valgrind.log"), "w"))
        time.sleep(WARM)
        subprocess.run(["callgrind_control", "-i", "on", str(p.pid)], stdout=subprocess.DEVNULL, check=True)
        before = gpu_lines(log)
        time.sleep(SPAN)
        subprocess.run(["callgrind_control", "-i", "off", str(p.pid)], stdout=subprocess.DEVNULL, check=True)
        samples = (gpu_lines(log) - before) // 8
        p.wait()
        if os.environ.get("KEEP"):
            shutil.copy(out, os.environ["KEEP"])
        summarize(out, samples)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
