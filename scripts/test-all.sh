#!/usr/bin/env bash
# Every test nvq has: the Rust suites, then the checks that drive unmodified
# third-party clients against nvq and its NVML simulator.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --workspace
cargo test --workspace
# pynvml (nvidia-ml-py, unmodified) reads the simulator exactly as the scenario says.
scripts/pynvml-check.sh
