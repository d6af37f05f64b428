#!/usr/bin/env bash
# dmon and pmon alone (not a test): on-CPU time per sample on 8 simulated GPUs
# with 50 processes each, at -d 1, beside a process that only wakes up once a
# second, all in one run. Needs nothing but python3; replaces its own section
# at the end of benches/RESULTS.md (benches/run.sh puts the same rows in its table).
#   benches/monitor_bench.sh        QUICK=1 for 5 samples instead of 20
set -euo pipefail
cd "$(dirname "$0")/.."
target=${CARGO_TARGET_DIR:-$PWD/target}
cargo build -q --profile dist -p nvml-sim
cargo build -q --profile dist -p nvq --bin nvq
ONLY=monitors NVQ=$target/dist/nvq SIM_LIB=$target/dist/libnvml_sim.so \
  FLOOR=/bin/true PYBIN=/nonexistent python3 benches/bench.py
