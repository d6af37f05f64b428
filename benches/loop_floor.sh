#!/usr/bin/env bash
# What the loop machinery costs a healthy loop (issue #17): nvq at -lms 100
# on 8 simulated GPUs x 20 fields, 100 samples, against a bare process that
# only wakes 10 times a second, interleaved three times in one run; on-CPU
# time per sample from /proc/PID/task/*/schedstat (benches/bench.py's
# method). Prints both medians and their ratio.
set -euo pipefail
cd "$(dirname "$0")/.."
target=${CARGO_TARGET_DIR:-$PWD/target}
cargo build -q --profile dist -p nvml-sim
cargo build -q --profile dist -p nvq --bin nvq
NVQ=$target/dist/nvq SIM_LIB=$target/dist/libnvml_sim.so FLOOR=/bin/true PYBIN=/usr/bin \
  python3 benches/bench.py loop-floor
