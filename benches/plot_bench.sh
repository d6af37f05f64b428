#!/usr/bin/env bash
# nvq plot benchmark (not a test): a day at 1 s on 8 GPUs (86,400 x 8 rows) in
# nvq's CSV format (the columns -f writes for
# --query-gpu=timestamp,index,uuid,memory.used,memory.total,utilization.gpu),
# GPU 3 leaking 1.5 GiB an hour under a 30 s sawtooth, the others sawtooths and
# plateaus; then `nvq plot` to SVG and to PNG, each timed with its peak RSS
# (GNU time's %e and %M, else Python's wait4).
#
#   benches/plot_bench.sh [SAMPLES] [GPUS]     (defaults 86400 8)
#   NVQ_BIN=... benches/plot_bench.sh           (measure a given build, e.g. an older commit's)
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-86400}
G=${2:-8}
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$PWD/target}
if [ -z "${NVQ_BIN:-}" ]; then
  cargo build --quiet --profile dist --bin nvq
fi
BIN=${NVQ_BIN:-$CARGO_TARGET_DIR/dist/nvq}
exec python3 - "$BIN" "$N" "$G" <<'PY'
import datetime, math, os, resource, subprocess, sys, tempfile, time
bin_, n, g = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
tmp = tempfile.mkdtemp(prefix="nvq-plot-bench-")
log = os.path.join(tmp, "day.csv")
t0 = datetime.datetime(2026, 12, 1, 0, 0, 0)
with open(log, "w") as f:
    f.write("timestamp, index, uuid, memory.used [MiB], memory.total [MiB], utilization.gpu [%]\n")
    for i in range(n):
        ts = (t0 + datetime.timedelta(seconds=i)).strftime("%Y/%m/%d %H:%M:%S.000")
        for k in range(g):
            saw = 4096 * ((i + 7 * k) % 30) / 30
            used = 20000 + k * 3000 + saw + (i * 1536 / 3600 if k == 3 else 0)
            util = 50 + 40 * math.sin(i / 600 + k)
            f.write(f"{ts}, {k}, GPU-bench-{k:04d}, {int(used)} MiB, 81559 MiB, {int(util)} %\n")
size = os.path.getsize(log)
print(f"log: {n} samples x {g} GPUs, {n * g} rows, {size / 1e6:.1f} MB")
for ext in ("svg", "png"):
    out = os.path.join(tmp, f"day.{ext}")
    start = time.monotonic()
    p = subprocess.Popen([bin_, "plot", log, "-o", out])
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.monotonic() - start
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"nvq plot failed ({ext})")
    print(f"{ext}: {wall:.2f} s wall, {ru.ru_utime + ru.ru_stime:.2f} s CPU, peak RSS {ru.ru_maxrss / 1024:.0f} MiB, "
          f"{os.path.getsize(out) / 1e3:.0f} kB")
print(f"files in {tmp}")
PY
