#!/usr/bin/env bash
# What the history costs a loop (not a test): instructions per sample
# (valgrind callgrind, independent of the machine's load) of
#   nvq --query-gpu=<20 fields> --format=csv,noheader -lms 300 --count N
# on 8 simulated GPUs (tests/scenarios/loops_8gpu.toml), without a history,
# with --summary (a history, no trend per sample), and with
# --assert 'time_to_full(memory.used) > 0s' (a history and a trend per GPU
# per sample, the costliest use). Each figure is the difference between a
# run of B and one of A samples, divided by B - A, which leaves out start-up;
# the history keeps A points per series (--history A), so from sample A on
# the series are full and the trend reads a whole window of A points (the
# trend's cost grows with A; the default --history is 3600).
#
#   benches/history_bench.sh [A] [B]      (defaults 10 30; HIST=N sets --history)
#   NVQ_BIN=... NVML_SIM_LIB=... benches/history_bench.sh   (measure given builds, e.g. an older commit's)
set -euo pipefail
cd "$(dirname "$0")/.."
A=${1:-10}
B=${2:-30}
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$PWD/target}
if [ -z "${NVQ_BIN:-}" ]; then
  cargo build --quiet --profile dist --bin nvq
  cargo build --quiet --profile dist -p nvml-sim
fi
BIN=${NVQ_BIN:-$CARGO_TARGET_DIR/dist/nvq}
LIB=${NVML_SIM_LIB:-$CARGO_TARGET_DIR/dist/libnvml_sim.so}
F=index,name,uuid,pci.bus_id,pstate,temperature.gpu,temperature.memory,utilization.gpu,utilization.memory
F=$F,memory.total,memory.used,memory.free,memory.reserved,power.draw,power.limit,clocks.current.graphics
F=$F,clocks.current.sm,clocks.current.memory,clocks.current.video,fan.speed
export NVML_SIM_SCENARIO=tests/scenarios/loops_8gpu.toml
HIST=${HIST:-3600}
# 300 ms between samples: under valgrind a sample takes tens of milliseconds, and at 100 ms a loaded machine
# made samples late, so the number of GPU reads (and the count) changed from run to run; at 300 ms two runs of
# one build agree to within a few hundred instructions a sample. LMS=100 measures at 10 Hz anyway.
LMS=${LMS:-300}
refs() { # COUNT ARGS...
  local n=$1; shift
  local out rows; out=$(mktemp)
  rows=$(valgrind --tool=callgrind --callgrind-out-file=/dev/null "$BIN" --nvml-lib "$LIB" --query-gpu=$F \
    --format=csv,noheader -lms "$LMS" --count "$n" --history "$HIST" "$@" 2>"$out" | grep -c . || true)
  # Under a heavy load a sample can miss its deadline ([Timeout] cells), and --assert then stops the run early:
  # its count would not be of N samples.
  [ "$rows" -eq $((n * 8)) ] || echo "warning: $n samples printed $rows rows, not $((n * 8)): rerun" >&2
  grep -o 'refs: *[0-9,]*' "$out" | tail -1 | tr -dc 0-9
  rm -f "$out"
}
per() { # NAME ARGS...
  local name=$1; shift
  local a b; a=$(refs "$A" "$@"); b=$(refs "$B" "$@")
  echo "$name: $(( (b - a) / (B - A) )) instructions per sample"
}
per "no history" 
per "--summary (history)" --summary
per "--assert time_to_full (history + trend)" --assert 'time_to_full(memory.used) > 0s'
# The scripting path alone (recording, statistics, trends, the expressions): Script::sample_at, inclusive, per
# sample, from one callgrind run of B samples (needs callgrind_annotate).
path() { # NAME ARGS...
  local name=$1; shift
  local cg; cg=$(mktemp)
  valgrind --tool=callgrind --callgrind-out-file="$cg" "$BIN" --nvml-lib "$LIB" --query-gpu=$F \
    --format=csv,noheader -lms "$LMS" --count "$B" --history "$HIST" "$@" >/dev/null 2>&1 || true
  local n; n=$(callgrind_annotate --inclusive=yes "$cg" 2>/dev/null | grep 'Script::sample_at' | head -1 \
    | awk '{ gsub(",", "", $1); print $1 }')
  echo "$name: Script::sample_at $(( ${n:-0} / B )) instructions per sample"
  rm -f "$cg"
}
path "--summary (history)" --summary
path "--assert time_to_full (history + trend)" --assert 'time_to_full(memory.used) > 0s'
