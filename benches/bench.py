"""nvq's benchmark harness: speed, memory and scaling, side by side with the
peers (gpustat, nvitop) and the floor (examples/floor.rs) on the same
simulated GPUs. Run through benches/run.sh, which builds everything first.

Every tool reads the same NVML simulator, so the simulator's own cost is part
of every figure. Whole-process timings come from hyperfine (median of its
runs); loop costs from wait4()'s rusage of the child.
"""

import json
import os
import platform
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import shutil
import glob

NVQ = os.environ["NVQ"]
SIM = os.environ["SIM_LIB"]
FLOOR = os.environ["FLOOR"]
PYBIN = os.environ["PYBIN"]
OUT = os.environ.get("RESULTS", "benches/RESULTS.md")
QUICK = os.environ.get("QUICK") == "1"
WORK = tempfile.mkdtemp(prefix="nvq-bench-")
LIBDIR = os.path.join(WORK, "lib")
os.makedirs(LIBDIR)
os.symlink(SIM, os.path.join(LIBDIR, "libnvidia-ml.so.1"))

rows = []  # (section, case, tool, median_ms, note)


def scenario(devices, procs_per_device):
    path = os.path.join(WORK, f"gen_{devices}_{procs_per_device}.toml")
    with open(path, "w") as f:
        f.write(f"[generate]\ndevices = {devices}\nprocesses_per_device = {procs_per_device}\n")
    return path


def env_for(path):
    env = dict(os.environ)
    env["NVML_SIM_SCENARIO"] = path
    env["LD_LIBRARY_PATH"] = LIBDIR
    env["NVQ_NVML_LIB"] = SIM
    env["NO_COLOR"] = "1"
    env["TERM"] = "dumb"
    return env


def all_gpu_fields():
    out = subprocess.run([NVQ, "--help-query-gpu"], capture_output=True, check=True, text=True).stdout
    names = []
    for line in out.splitlines():
        if line.startswith('"'):
            names.append(line.split('"')[1])
    return names


def hyperfine(cmds, env, runs=None):
    """Median wall time in ms for each command (hyperfine, whole process)."""
    js = os.path.join(WORK, "hf.json")
    args = ["hyperfine", "-N", "--warmup", "3", "--export-json", js, "--style", "none"]
    if runs:
        args += ["--runs", str(runs)]
    elif QUICK:
        args += ["--runs", "5"]
    else:
        args += ["--min-runs", "15"]
    subprocess.run(args + cmds, env=env, check=True, stdout=subprocess.DEVNULL)
    with open(js) as f:
        data = json.load(f)
    return [statistics.median(r["times"]) * 1000 for r in data["results"]]


def quote(argv):
    return " ".join(a if all(c.isalnum() or c in "-_=./,:" for c in a) else "'" + a + "'" for a in argv)


def oneshot():
    fields = all_gpu_fields()
    allf = "--query-gpu=" + ",".join(fields)
    for n in (1, 8, 64):
        env = env_for(scenario(n, 2))
        tools = [
            ("nvq, 1 field", [NVQ, "--query-gpu=memory.used", "--format=csv"]),
            (f"nvq, all {len(fields)} fields", [NVQ, allf, "--format=csv"]),
            ("floor (load, init, 1 value/GPU)", [FLOOR, SIM]),
            ("gpustat --json", [os.path.join(PYBIN, "gpustat"), "--json"]),
            ("nvitop --once", [os.path.join(PYBIN, "nvitop"), "--once"]),
        ]
        runs = 5 if n == 64 else None
        meds = hyperfine([quote(t[1]) for t in tools], env, runs=runs)
        for (name, _), m in zip(tools, meds):
            rows.append(("one-shot", f"{n} GPUs", name, m, ""))


def rusage_run(argv, env, seconds=None):
    """Run a child under GNU time, optionally stop it with SIGINT after
    `seconds`; return (wall_s, cpu_s, maxrss_kib, stdout_lines).

    GNU time reports the child's own peak RSS; os.wait4() from Python would
    report the Python parent's pre-exec size instead."""
    stats = os.path.join(WORK, "time.out")
    t0 = time.monotonic()
    p = subprocess.Popen(
        ["/usr/bin/time", "-f", "%e %U %S %M", "-o", stats, *argv],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    lines = 0
    if seconds:
        deadline = t0 + seconds
        os.set_blocking(p.stdout.fileno(), False)
        while time.monotonic() < deadline and p.poll() is None:
            try:
                chunk = p.stdout.read()
                if chunk:
                    lines += chunk.count(b"\n")
            except BlockingIOError:
                pass
            time.sleep(0.05)
        os.killpg(p.pid, signal.SIGINT)
    data = p.stdout.read() or b""
    lines += data.count(b"\n")
    p.wait()
    with open(stats) as f:
        last = f.read().strip().splitlines()[-1].split()
    wall, user, system, rss = float(last[0]), float(last[1]), float(last[2]), int(last[3])
    return wall, user + system, rss, lines


def on_cpu_run(argv, env, seconds=None):
    """Run a child; poll the scheduler's on-CPU time of all its threads
    (/proc/PID/task/*/schedstat, nanoseconds) and its peak RSS (VmHWM)
    until it exits; stop it with SIGINT after `seconds` if given. Returns
    (wall_s, on_cpu_s, peak_rss_kib). The last poll misses at most the
    final 20 ms of the run."""
    t0 = time.monotonic()
    p = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    cpu_ns, hwm = 0, 0
    while p.poll() is None:
        total = 0
        for f in glob.glob(f"/proc/{p.pid}/task/*/schedstat"):
            try:
                with open(f) as fh:
                    total += int(fh.read().split()[0])
            except (OSError, ValueError, IndexError):
                pass
        cpu_ns = max(cpu_ns, total)
        try:
            with open(f"/proc/{p.pid}/status") as fh:
                for line in fh:
                    if line.startswith("VmHWM:"):
                        hwm = max(hwm, int(line.split()[1]))
        except OSError:
            pass
        if seconds and time.monotonic() - t0 > seconds:
            p.send_signal(signal.SIGINT)
            seconds = None
        time.sleep(0.02)
    return time.monotonic() - t0, cpu_ns / 1e9, hwm


def loop_cost():
    env = env_for(scenario(8, 2))
    fields = all_gpu_fields()
    twenty = [f for f in fields if f.startswith(("memory.", "utilization.", "temperature.", "power.", "clocks.current", "fan.", "pstate", "index", "name", "uuid"))][:20]
    q = "--query-gpu=" + ",".join(twenty)
    secs = 3 if QUICK else 10
    for ms in (100, 10):
        samples = secs * 1000 // ms
        wall, cpu, rss = on_cpu_run([NVQ, q, "--format=csv,noheader", "-lms", str(ms), "--count", str(samples)], env)
        rows.append(("loop, 8 GPUs, 20 fields", f"-lms {ms}, {samples} samples", "nvq",
                     cpu / samples * 1000, f"{cpu / wall * 100:.2f}% of a core (on-CPU time), peak RSS {rss / 1024:.1f} MiB"))
    # For scale: what merely waking up 10 times a second costs here (a
    # python sleep loop, less python's own start-up).
    n = secs * 10
    _, idle, _ = on_cpu_run([sys.executable, "-c", f"import time\nfor _ in range({n}): time.sleep(0.1)"], env)
    _, start, _ = on_cpu_run([sys.executable, "-c", "pass"], env)
    rows.append(("loop, 8 GPUs, 20 fields", f"bare wake-up every 100 ms, {n} times", "floor of a periodic process",
                 max(0.0, idle - start) / n * 1000, "on-CPU time per wake-up of a process that does nothing"))
    wall, cpu, rss = on_cpu_run([os.path.join(PYBIN, "gpustat"), "-i", "0.1", "--no-color"], env, seconds=secs)
    samples = max(1, int(wall / 0.1))
    rows.append(("loop, 8 GPUs, 20 fields", f"-i 0.1 for {secs} s (~{samples} samples)", "gpustat -i",
                 cpu / samples * 1000, f"{cpu / wall * 100:.2f}% of a core (on-CPU time), peak RSS {rss / 1024:.1f} MiB"))


def monitor_cost():
    """dmon and pmon on 8 GPUs x 50 processes, one sample a second (-d 1),
    against what merely waking up once a second costs, in the same run."""
    env = env_for(scenario(8, 50))
    n = 5 if QUICK else 20
    sec = "monitors, 8 GPUs x 50 processes, -d 1"
    for tool, args in (
        ("nvq dmon", ["dmon", "-d", "1"]),
        ("nvq dmon -s pucvmet", ["dmon", "-d", "1", "-s", "pucvmet"]),
        ("nvq pmon", ["pmon", "-d", "1"]),
        ("nvq pmon -s um", ["pmon", "-d", "1", "-s", "um"]),
        ("nvq pmon -s um --format=ndjson", ["pmon", "-d", "1", "-s", "um", "--format=ndjson"]),
    ):
        wall, cpu, rss = on_cpu_run([NVQ, *args, "-c", str(n)], env)
        rows.append((sec, f"{n} samples", tool, cpu / n * 1000,
                     f"{cpu / wall * 100:.3f}% of a core (on-CPU time), peak RSS {rss / 1024:.1f} MiB"))
    # The floor: CPU time of the sleeping loop alone, measured inside the
    # process (start-up costs milliseconds and varies more than the loop).
    loop = f"import time\nt = time.process_time()\nfor _ in range({n}): time.sleep(1)\nprint(time.process_time() - t)"
    idle = float(subprocess.run([sys.executable, "-c", loop], env=env, capture_output=True, text=True, check=True).stdout)
    rows.append((sec, f"bare wake-up every 1 s, {n} times", "floor of a periodic process",
                 idle / n * 1000, "CPU time per wake-up of a sleeping loop (python, measured in-process)"))


def loop_instructions():
    """Instructions per loop sample (valgrind callgrind): deterministic,
    unlike CPU time on a shared virtual machine. The difference between a
    run of 30 samples and one of 10, divided by 20, leaves out start-up."""
    if not shutil.which("valgrind"):
        return
    env = env_for(scenario(8, 2))
    fields = all_gpu_fields()
    twenty = [f for f in fields if f.startswith(("memory.", "utilization.", "temperature.", "power.", "clocks.current", "fan.", "pstate", "index", "name", "uuid"))][:20]
    q = "--query-gpu=" + ",".join(twenty)
    refs = {}
    for count in (10, 30):
        out = os.path.join(WORK, f"cg.{count}")
        r = subprocess.run(
            ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}",
             NVQ, q, "--format=csv,noheader", "-lms", "100", "--count", str(count)],
            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
        )
        line = [l for l in r.stderr.splitlines() if "refs:" in l][-1]
        refs[count] = int(line.split("refs:")[1].strip().replace(",", ""))
    per = (refs[30] - refs[10]) / 20
    rows.append(("loop, 8 GPUs, 20 fields", "-lms 100, instructions per sample (callgrind)", "nvq + simulator",
                 per / 1000, "thousand instructions per sample; at 10 Hz and 1 instruction/ns: "
                 f"{per * 10 / 1e9 * 100:.3f}% of a core"))


def scaling():
    for procs in (10, 1000, 10000):
        env = env_for(scenario(1, procs))
        (m,) = hyperfine([quote([NVQ, "--query-compute-apps=pid,used_gpu_memory", "--format=csv"])], env)
        rows.append(("scaling: --query-compute-apps", f"{procs} processes", "nvq", m, f"{m / procs * 1000:.2f} us/process"))
    for n in (1, 2, 4, 8, 16, 32, 64):
        env = env_for(scenario(n, 0))
        (m,) = hyperfine([quote([NVQ, "--query-gpu=index,memory.used,memory.total,utilization.gpu", "--format=csv"])], env)
        rows.append(("scaling: --query-gpu (4 fields)", f"{n} GPUs", "nvq", m, ""))


def peak_rss():
    env = env_for(scenario(8, 2))
    fields = ",".join(all_gpu_fields())
    for name, argv in [
        ("nvq, all fields", [NVQ, "--query-gpu=" + fields, "--format=csv"]),
        ("floor", [FLOOR, SIM]),
        ("gpustat --json", [os.path.join(PYBIN, "gpustat"), "--json"]),
        ("nvitop --once", [os.path.join(PYBIN, "nvitop"), "--once"]),
    ]:
        _, _, rss, _ = rusage_run(argv, env)
        rows.append(("peak RSS, 8 GPUs, one-shot", "MiB", name, rss / 1024, ""))


FULL_NOTE = [
    "Command: `benches/run.sh`. All tools read the same NVML simulator; times are medians (hyperfine),",
    "loop figures are on-CPU time per sample from the scheduler (/proc/PID/task/*/schedstat),",
    "and instructions per sample from valgrind's callgrind (independent of the machine's load).",
]
MONITOR_NOTE = [
    "Command: `benches/monitor_bench.sh`. On-CPU time per sample from the scheduler",
    "(/proc/PID/task/*/schedstat) over a whole run of N samples, start-up included, divided by N.",
]


def report():
    lines = [
        "# nvq benchmark results",
        "",
        f"Date: {time.strftime('%Y-%m-%d %H:%M %Z')}. Machine: {platform.machine()}, "
        f"{os.cpu_count()} CPUs, {platform.platform()}, Python {platform.python_version()}.",
        *(MONITOR_NOTE if os.environ.get("ONLY") else FULL_NOTE),
        "",
        "| section | case | tool | median (ms, or MiB) | vs nvq | note |",
        "|---|---|---|---:|---:|---|",
    ]
    base = {}
    for sec, case, tool, m, note in rows:
        if tool.startswith("nvq, all") or (tool == "nvq" and sec.startswith("loop")):
            base[(sec, case)] = m
    for sec, case, tool, m, note in rows:
        b = base.get((sec, case))
        if sec.startswith("loop"):
            b = next((v for (s, c), v in base.items() if s == sec and c.startswith("-lms 100")), None)
        if sec.startswith("monitors"):
            b = next((v for (s2, _, t2, v, _) in rows if s2 == sec and t2 == "nvq dmon"), None)
        if sec.startswith("peak RSS"):
            b = next((v for (s2, c2, t2, v, _) in rows if s2 == sec and t2.startswith("nvq")), None)
        ratio = f"{m / b:.1f}x" if b and "instructions" not in case else ""
        lines.append(f"| {sec} | {case} | {tool} | {m:.2f} | {ratio} | {note} |")
    text = "\n".join(lines) + "\n"
    print(text)
    if os.environ.get("ONLY"):
        # One section alone: it replaces its own block at the end of the
        # results file and leaves the rest of the file as it was.
        start, end = "<!-- monitors: benches/monitor_bench.sh -->", "<!-- /monitors -->"
        try:
            with open(OUT) as f:
                old = f.read()
        except FileNotFoundError:
            old = ""
        if start in old:
            old = old[: old.index(start)] + old[old.index(end) + len(end):].lstrip("\n")
        text = old.rstrip("\n") + "\n\n" + start + "\n" + text.replace("# nvq benchmark results", "## dmon and pmon") + end + "\n"
    with open(OUT, "w") as f:
        f.write(text)


def loop_vs_floor(runs=3):
    """nvq at 10 Hz (8 GPUs, 20 fields, 100 samples) against the floor of a
    process that only wakes at 10 Hz, interleaved in one run: on-CPU time
    per sample (schedstat, as loop_cost). Returns (nvq_ms, floor_ms) medians."""
    env = env_for(scenario(8, 2))
    fields = all_gpu_fields()
    twenty = [f for f in fields if f.startswith(("memory.", "utilization.", "temperature.", "power.",
                                                 "clocks.current", "fan.", "pstate", "index", "name", "uuid"))][:20]
    q = "--query-gpu=" + ",".join(twenty)
    n = 100
    nvq, floor = [], []
    for _ in range(runs):
        _, cpu, _ = on_cpu_run([NVQ, q, "--format=csv,noheader", "-lms", "100", "--count", str(n)], env)
        nvq.append(cpu / n * 1000)
        _, idle, _ = on_cpu_run([sys.executable, "-c", f"import time\nfor _ in range({n}): time.sleep(0.1)"], env)
        _, start, _ = on_cpu_run([sys.executable, "-c", "pass"], env)
        floor.append(max(0.0, idle - start) / n * 1000)
    return statistics.median(nvq), statistics.median(floor), nvq, floor


def main():
    if sys.argv[1:] == ["loop-floor"]:
        m, f, nvq, floor = loop_vs_floor()
        print(f"nvq -lms 100, 8 GPUs x 20 fields: {m:.3f} ms on-CPU per sample (runs: "
              + ", ".join(f"{x:.3f}" for x in nvq) + ")")
        print(f"bare wake-up at 10 Hz: {f:.3f} ms on-CPU per wake-up (runs: "
              + ", ".join(f"{x:.3f}" for x in floor) + ")")
        print(f"ratio: {m / f:.2f}x" if f else "ratio: n/a")
    # ONLY=monitors: just the dmon/pmon section (benches/monitor_bench.sh),
    # written to RESULTS (default benches/RESULTS.md) as a table of its own.
    if os.environ.get("ONLY") == "monitors":
        monitor_cost()
        report()
        return
    oneshot()
    loop_cost()
    monitor_cost()
    loop_instructions()
    scaling()
    peak_rss()
    report()


if __name__ == "__main__":
    main()
