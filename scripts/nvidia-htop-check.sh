#!/usr/bin/env bash
# Run unmodified nvidia-htop (PyPI) against nvq's summary table.
#   scripts/nvidia-htop-check.sh
# nvidia-htop runs `nvidia-smi` with no arguments (plus `-i` when given one)
# and parses the table: the GPU lines by regex, the process rows by splitting
# on whitespace (GPU = field 1, PID = field 4, GPU memory = third from last).
# Here `nvidia-smi` is a symlink to the built nvq, which reads the NVML
# simulator. Needs python3 (with venv) and PyPI once; no GPU.
# Env: PYTHON (default python3), NVIDIA_HTOP_VERSION (default pinned below),
# CARGO_TARGET_DIR. Prints "nvidia-htop: N passed, M failed"; exits 1 on any
# failure.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
TARGET=${CARGO_TARGET_DIR:-$ROOT/target}
PY=${PYTHON:-python3}
PIN=${NVIDIA_HTOP_VERSION:-1.2.0}
VENV=$TARGET/pyenv-htop

. scripts/need.sh
if [ ! -x "$VENV/bin/python" ]; then
    need_venv nvidia-htop-check "$PY" || exit 0
    "$PY" -m venv "$VENV"
fi
if ! "$VENV/bin/python" -c "import importlib.metadata as m, sys; sys.exit(m.version('nvidia-htop') != '$PIN')" 2>/dev/null; then
    "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check "nvidia-htop==$PIN"
fi
HTOP=$VENV/bin/nvidia-htop.py
[ -f "$HTOP" ] || { echo "nvidia-htop-check: $HTOP not installed" >&2; exit 1; }

cargo build -q --bin nvq
cargo build -q -p nvml-sim
NVQ=$TARGET/debug/nvq
LIB=$TARGET/debug/libnvml_sim.so
[ -f "$LIB" ] || { echo "nvidia-htop-check: $LIB not built" >&2; exit 1; }

BIN=$TARGET/htop-bin
mkdir -p "$BIN"
ln -sf "$NVQ" "$BIN/nvidia-smi"

export PATH="$BIN:$PATH"
export NVQ_NVML_LIB=$LIB
unset NO_COLOR

exec "$VENV/bin/python" - "$HTOP" "$ROOT/tests/scenarios" <<'PY'
import os, re, subprocess, sys, tomllib

htop, scenarios = sys.argv[1], sys.argv[2]
passed = failed = 0

def check(name, ok, detail=""):
    global passed, failed
    if ok:
        passed += 1
        print(f"ok   {name}")
    else:
        failed += 1
        print(f"FAIL {name}\n{detail}")

def run(scenario, *args, env_extra=None):
    env = dict(os.environ, NVML_SIM_SCENARIO=os.path.join(scenarios, scenario))
    env.update(env_extra or {})
    p = subprocess.run([sys.executable, htop, *args], env=env, stdin=subprocess.DEVNULL,
                       capture_output=True, text=True, timeout=60)
    return p.returncode, p.stdout + p.stderr

def expected_processes(scenario, only_gpu=None):
    """(gpu, pid, "NNNMiB") for every process the scenario puts on a GPU."""
    with open(os.path.join(scenarios, scenario), "rb") as f:
        sc = tomllib.load(f)
    out = {}
    for gpu, dev in enumerate(sc.get("device", [])):
        if only_gpu is not None and gpu != only_gpu:
            continue
        for kind in ("process", "graphics_process", "mps_process"):
            for p in dev.get(kind, []):
                mem = p.get("used_memory")
                mib = f"{-(-mem // (1 << 20))}MiB" if isinstance(mem, int) else "N/A"
                out[(gpu, p["pid"])] = mib
    return [(g, pid, mib) for (g, pid), mib in sorted(out.items())]

def process_rows(text):
    """nvidia-htop's own table: '|  GPU PID USER GPU-MEM ...' rows."""
    rows = {}
    for line in text.splitlines():
        m = re.match(r"^\|\s+(\d+)\s+(\d+)\s+(\S*?)\s*(\d+MiB|N/A)\s", line)
        if m:
            rows[(int(m.group(1)), int(m.group(2)))] = m.group(4)
    return rows

for scenario in ("summary_h200_load.toml", "summary_h100_load.toml",
                 "summary_rtx2080s_linux_load.toml", "summary_mig.toml"):
    rc, out = run(scenario)
    want = expected_processes(scenario)
    got = process_rows(out)
    check(f"{scenario}: exit 0", rc == 0, out)
    for gpu, pid, mib in want:
        check(f"{scenario}: GPU {gpu} PID {pid} {mib}", got.get((gpu, pid)) == mib, out)
    check(f"{scenario}: no extra processes", len(got) == len(want), out)

# -i is passed on to nvidia-smi: only GPU 1's process remains.
rc, out = run("summary_mig.toml", "-i", "1")
want = expected_processes("summary_mig.toml", only_gpu=1)
got = process_rows(out)
check("-i 1: exit 0", rc == 0, out)
check("-i 1: only GPU 1's processes",
      sorted(got) == [(g, p) for g, p, _ in want] and len(want) > 0, out)

# No processes: nvidia-htop recognises nvidia-smi's line.
rc, out = run("summary_h200_idle.toml")
check("idle: 'No running processes found'",
      rc == 0 and "No running processes found" in out and not process_rows(out), out)

# -c colours each GPU box by load, from a regex over the GPU lines.
rc, out = run("summary_h200_load.toml", "-c", env_extra={"FORCE_COLOR": "1"})
gpu_line = next((l for l in out.splitlines() if "628W /  700W" in l), "")
check("-c: the loaded GPU line is red", "\x1b[31m" in gpu_line, out)
rc, out = run("summary_h200_idle.toml", "-c", env_extra={"FORCE_COLOR": "1"})
gpu_line = next((l for l in out.splitlines() if "77W /  700W" in l), "")
check("-c: the idle GPU line is green", "\x1b[32m" in gpu_line, out)

# -m draws meters into the empty line under each GPU's figures.
rc, out = run("summary_h200_load.toml", "-m")
check("-m: meters drawn", rc == 0 and re.search(r"\[\|+\s*\]", out) is not None, out)

print(f"nvidia-htop: {passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
PY
