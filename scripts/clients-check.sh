#!/usr/bin/env bash
# Real, published clients, unmodified, against nvq and the NVML simulator:
# GPUtil (through nvq installed as `nvidia-smi`), gpustat and nvitop (through
# pynvml and the simulator), compared with what nvq reports. Pinned versions
# in a virtual environment under target/. Only PyPI is needed.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
target=${CARGO_TARGET_DIR:-$root/target}
venv=$target/pyenv-clients
. scripts/need.sh
if [ ! -x "$venv/bin/python" ]; then
  need_venv clients-check || exit 0
  python3 -m venv "$venv"
fi
"$venv/bin/pip" install -q --disable-pip-version-check \
  GPUtil==1.4.0 gpustat==1.1.1 nvitop==1.7.2 nvidia-ml-py==13.590.48
cargo build -q --bin nvq -p nvq -p nvml-sim
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
NVQ=$target/debug/nvq SIM_LIB=$target/debug/libnvml_sim.so WORKDIR=$work \
  "$venv/bin/python" tests/clients/check_clients.py
