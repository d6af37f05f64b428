#!/usr/bin/env bash
# nvq's benchmark harness, one command: builds nvq, the simulator and the
# floor program with the dist profile, installs the pinned peers (gpustat, nvitop)
# in a virtual environment under target/, and writes benches/RESULTS.md.
# Needs hyperfine and GNU time (Debian: apt-get install hyperfine time). QUICK=1 for fewer runs.
set -euo pipefail
cd "$(dirname "$0")/.."
target=${CARGO_TARGET_DIR:-$PWD/target}
command -v hyperfine >/dev/null || { echo "benches/run.sh needs hyperfine (apt-get install hyperfine)" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "benches/run.sh needs GNU time (apt-get install time)" >&2; exit 1; }
cargo build -q --profile dist -p nvml-sim
cargo build -q --profile dist -p nvq --bin nvq --example floor
venv=$target/pyenv-clients
[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
"$venv/bin/pip" install -q --disable-pip-version-check gpustat==1.1.1 nvitop==1.7.2 nvidia-ml-py==13.590.48
NVQ=$target/dist/nvq SIM_LIB=$target/dist/libnvml_sim.so FLOOR=$target/dist/examples/floor \
  PYBIN=$venv/bin "$venv/bin/python" benches/bench.py
