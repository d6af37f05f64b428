#!/usr/bin/env bash
# Check nvq's Prometheus exposition with promtool (Debian: apt-get install prometheus).
#
# Builds nvq and the NVML simulator, then runs
#   nvq --query-gpu=<every --query-gpu field nvq knows> --format=prometheus
# against the simulator's built-in scenario and against tests/scenarios/formats.toml
# (unsupported values, a refused call, a GPU that falls off the bus), and pipes each
# output to `promtool check metrics`. Any complaint, or any failure, fails the script.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v promtool >/dev/null; then
    echo "promtool-check: promtool not found (apt-get install prometheus)" >&2
    exit 1
fi

export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$PWD/target}"
cargo build --quiet --bin nvq
cargo build --quiet -p nvml-sim
nvq="$CARGO_TARGET_DIR/debug/nvq"
lib="$CARGO_TARGET_DIR/debug/libnvml_sim.so"

# Every field: the first name on each field line of --help-query-gpu.
fields=$("$nvq" --help-query-gpu | grep -E '^"[^" ]+"( or "[^" ]+")*$' | cut -d'"' -f2 | paste -sd, -)
if [ -z "$fields" ]; then
    echo "promtool-check: no fields found in nvq --help-query-gpu" >&2
    exit 1
fi

status=0
for scenario in nvml-sim/scenarios/default.toml tests/scenarios/formats.toml; do
    out=$(mktemp)
    if ! NVML_SIM_SCENARIO="$scenario" "$nvq" --nvml-lib "$lib" \
        --query-gpu="$fields" --format=prometheus >"$out"; then
        echo "promtool-check: $scenario: nvq failed" >&2
        status=1
    elif [ ! -s "$out" ]; then
        echo "promtool-check: $scenario: empty output" >&2
        status=1
    else
        said=$(promtool check metrics <"$out" 2>&1) && rc=0 || rc=$?
        if [ "$rc" -ne 0 ] || [ -n "$said" ]; then
            echo "promtool-check: $scenario: promtool complained (exit $rc):" >&2
            echo "$said" >&2
            status=1
        else
            echo "promtool-check: $scenario: ok ($(grep -vc '^#' "$out") samples, $(grep -c '^# TYPE' "$out") families)"
        fi
    fi
    rm -f "$out"
done
exit "$status"
