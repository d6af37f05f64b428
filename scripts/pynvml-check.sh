#!/usr/bin/env bash
# Run unmodified nvidia-ml-py (pynvml) against the NVML simulator.
#   scripts/pynvml-check.sh
# Needs python3 (with venv) and PyPI; no GPU. Works as root.
# Env: PYTHON (default python3), NVML_PY_VERSION (default pinned below), CARGO_TARGET_DIR.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
TARGET=${CARGO_TARGET_DIR:-$ROOT/target}
PY=${PYTHON:-python3}
PIN=${NVML_PY_VERSION:-13.615.71}
VENV=$TARGET/pyenv

. scripts/need.sh
if [ ! -x "$VENV/bin/python" ]; then
    need_venv pynvml-check "$PY" || exit 0
    "$PY" -m venv "$VENV"
fi
if ! "$VENV/bin/python" -c "import importlib.metadata as m, sys; sys.exit(m.version('nvidia-ml-py') != '$PIN')" 2>/dev/null; then
    "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check "nvidia-ml-py==$PIN"
fi

cargo build -q -p nvml-sim
LIB=$TARGET/debug/libnvml_sim.so
[ -f "$LIB" ] || { echo "pynvml-check: $LIB not built" >&2; exit 1; }

LIBDIR=$TARGET/pynvml-lib
mkdir -p "$LIBDIR"
ln -sf "$LIB" "$LIBDIR/libnvidia-ml.so.1"
ln -sf "$LIB" "$LIBDIR/libnvidia-ml.so"

LD_LIBRARY_PATH="$LIBDIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
    exec "$VENV/bin/python" "$ROOT/tests/pynvml/check.py"
