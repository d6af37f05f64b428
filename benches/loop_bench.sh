#!/usr/bin/env bash
# Loop benchmark (not a test): nvq polling a simulated 8-GPU machine.
#
#   benches/loop_bench.sh [SAMPLES] [INTERVAL_MS] [SCENARIO]
#
# Defaults: 1000 samples at -lms 10 on tests/scenarios/loops_8gpu.toml.
# Builds nvq and the simulator with the dist profile, runs the loop with
# NVQ_TRACE_SCHEDULE=1 (nvq then prints each sample's start time and
# lateness on stderr), watches /proc/<pid>/status while it runs, and prints:
#   - drift: when the last sample started against its tick (start + k x
#     interval), and against start + (N-1) x interval (the difference is the
#     ticks skipped by overrunning samples), the latter also from the CSV
#     timestamp column (ms resolution);
#   - lateness of sample starts against their ticks (median, p99, max) and
#     ticks skipped;
#   - CPU time per sample (user + system, from wait4's rusage);
#   - VmRSS / VmHWM near sample 100 and near the last sample.
# NVQ_BENCH_FIELDS replaces the field list; NVQ_BENCH_EXTRA adds arguments
# (e.g. NVQ_BENCH_EXTRA="--assert 'time_to_full(memory.used) > 0s'", which
# keeps the history and computes a trend per GPU per sample, printing the same
# rows).
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-1000}
MS=${2:-10}
SCENARIO=${3:-tests/scenarios/loops_8gpu.toml}
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$PWD/target}
cargo build --quiet --profile dist --bin nvq
cargo build --quiet --profile dist -p nvml-sim
BIN=$CARGO_TARGET_DIR/dist/nvq
LIB=$CARGO_TARGET_DIR/dist/libnvml_sim.so
FIELDS=${NVQ_BENCH_FIELDS:-timestamp,index,name,uuid,pci.bus_id,temperature.gpu,utilization.gpu,utilization.memory,memory.total,memory.used,memory.free,power.draw}

exec python3 - "$BIN" "$LIB" "$SCENARIO" "$N" "$MS" "$FIELDS" "${NVQ_BENCH_EXTRA:-}" <<'PY'
import os, shlex, subprocess, sys, tempfile, time, statistics, datetime

bin_, lib, scenario, n, ms, fields, extra = sys.argv[1:]
n, ms = int(n), int(ms)
tmp = tempfile.mkdtemp(prefix="nvq-loop-bench-")
out_path, trace_path = os.path.join(tmp, "out.csv"), os.path.join(tmp, "trace")
env = dict(os.environ, NVML_SIM_SCENARIO=scenario, NVQ_TRACE_SCHEDULE="1")
with open(out_path, "wb") as out, open(trace_path, "wb") as err:
    p = subprocess.Popen([bin_, "--nvml-lib", lib, f"--query-gpu={fields}",
                          "--format=csv", "-lms", str(ms), "--count", str(n)] + shlex.split(extra),
                         stdout=out, stderr=err, env=env)
    mon = []  # (samples started, VmRSS kB, VmHWM kB)
    while True:
        try:
            with open(f"/proc/{p.pid}/status") as f:
                st = {l.split(":")[0]: l.split()[1] for l in f if l.startswith(("VmRSS", "VmHWM"))}
            with open(trace_path, "rb") as f:
                started = f.read().count(b"\nnvq-trace") + 1
            if "VmRSS" in st:
                mon.append((started, int(st["VmRSS"]), int(st["VmHWM"])))
        except (FileNotFoundError, ProcessLookupError, ValueError):
            pass
        pid, status, ru = os.wait4(p.pid, os.WNOHANG)
        if pid == p.pid:
            p.returncode = os.waitstatus_to_exitcode(status)
            break
        time.sleep(0.005)
if p.returncode != 0:
    sys.exit(f"nvq exited {p.returncode}: {open(trace_path).read()[-2000:]}")

trace = []
for line in open(trace_path):
    if line.startswith("nvq-trace "):
        kv = dict(t.split("=") for t in line.split()[1:])
        trace.append((int(kv["sample"]), int(kv["tick"]), int(kv["start_us"]), int(kv["late_us"])))
assert len(trace) == n, (len(trace), n)
last = trace[-1]
expect_us = (n - 1) * ms * 1000
late = sorted(t[3] for t in trace)
p99 = late[min(len(late) - 1, int(len(late) * 0.99))]

rows = open(out_path).read().splitlines()[1:]
gpus = len(rows) // n
ts = [datetime.datetime.strptime(r.split(", ")[0], "%Y/%m/%d %H:%M:%S.%f") for r in rows[::gpus]]
ts_span_ms = (ts[-1] - ts[0]).total_seconds() * 1000

def near(k):
    c = [m for m in mon if m[0] >= k]
    return c[0] if c else (mon[-1] if mon else (0, 0, 0))
m100, mlast = near(100), (mon[-1] if mon else (0, 0, 0))
cpu = ru.ru_utime + ru.ru_stime

print(f"nvq loop benchmark: {n} samples at -lms {ms}, {gpus} GPUs ({scenario}), "
      f"{len(fields.split(','))} fields; {datetime.date.today()}, loadavg {open('/proc/loadavg').read().split()[0]}")
print(f"{'measure':44} {'value':>14}")
def row(k, v): print(f"{k:44} {v:>14}")
row(f"sample {n} start vs its tick ({last[1]}x{ms}ms)", f"{(last[2]-last[1]*ms*1000)/1000:+.3f} ms")
row(f"sample {n} start vs start+{n-1}x{ms}ms", f"{(last[2]-expect_us)/1000:+.3f} ms")
row("  same from the timestamp column", f"{ts_span_ms-(n-1)*ms:+.0f} ms")
row("lateness of sample starts: median", f"{statistics.median(late)/1000:.3f} ms")
row("lateness: p99", f"{p99/1000:.3f} ms")
row("lateness: max", f"{late[-1]/1000:.3f} ms")
row("ticks skipped (overruns)", f"{last[1]-(n-1)}")
row("CPU per sample (user+sys)", f"{cpu/n*1e6:.0f} us")
row("  user / sys total", f"{ru.ru_utime:.3f} / {ru.ru_stime:.3f} s")
row(f"VmRSS at sample ~{m100[0]}", f"{m100[1]} kB")
row(f"VmRSS at sample ~{mlast[0]}", f"{mlast[1]} kB")
row(f"VmHWM at sample ~{m100[0]} / ~{mlast[0]}", f"{m100[2]} / {mlast[2]} kB")
PY
