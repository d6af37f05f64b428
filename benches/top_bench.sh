#!/usr/bin/env bash
# `nvq top` beside nvtop (Debian) and nvitop (PyPI), not a test: each runs in a
# tmux window of its own (120x40) on the same simulated 8 GPUs with processes
# (tests/scenarios/top_8gpu.toml), one after the other, and this prints, per
# tool: the time from start to its first frame on the screen, its CPU (user +
# system, % of one core) over DURATION seconds after a 3 s warm-up, and its RSS
# (VmRSS and peak VmHWM). Needs tmux, nvtop (contrib) and nvitop:
#   apt-get install tmux nvtop; pip install nvitop==1.7.2 nvidia-ml-py==13.590.48
#   benches/top_bench.sh              DURATION=30 (seconds per tool), INTERVAL=0.1
#   NVQ=/path/to/nvq benches/top_bench.sh   (that nvq binary, not built here)
# nvitop refuses intervals under 0.25 s, so it runs at 1 s, beside nvq and nvtop at 1 s too.
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION=${DURATION:-30}
INTERVAL=${INTERVAL:-0.1}
. benches/top_build.sh
work=$(mktemp -d)
sock=nvq-top-bench-$$
trap 'tmux -L "$sock" kill-server 2>/dev/null || true; rm -rf "$work"' EXIT
ln -s "$target/dist/libnvml_sim.so" "$work/libnvidia-ml.so.1"
export NVML_SIM_SCENARIO=$PWD/tests/scenarios/top_8gpu.toml
hz=$(getconf CLK_TCK)

ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
kib() { awk -v k="$2:" '$1 == k { print $2 }' "/proc/$1/status"; }

# run NAME MARKER COMMAND...: start COMMAND in tmux, wait for MARKER on screen.
run() {
  local name=$1 marker=$2; shift 2
  local t0 t1 pid a b w0 w1
  t0=$(date +%s%N)
  tmux -L "$sock" -f /dev/null new-session -d -s "$name" -x 120 -y 40 \
    "echo \$\$ > $work/$name.pid; export LD_LIBRARY_PATH=$work TERM=xterm-256color; exec $*"
  until tmux -L "$sock" capture-pane -p -t "$name" 2>/dev/null | grep -q -- "$marker"; do
    sleep 0.005
    if (( $(date +%s%N) - t0 > 30000000000 )); then
      echo "$name: no first frame in 30 s:"; tmux -L "$sock" capture-pane -p -t "$name"; return 1
    fi
  done
  t1=$(date +%s%N)
  pid=$(cat "$work/$name.pid")
  sleep 3
  a=$(ticks "$pid"); w0=$(date +%s%N)
  sleep "$DURATION"
  b=$(ticks "$pid"); w1=$(date +%s%N)
  printf '| %s | %s | %.0f ms | %.2f %% | %.1f MiB | %.1f MiB |\n' "$name" "$*" \
    "$(echo "($t1 - $t0) / 1000000" | bc -l)" \
    "$(echo "($b - $a) / $hz / (($w1 - $w0) / 1000000000) * 100" | bc -l)" \
    "$(echo "$(kib "$pid" VmRSS) / 1024" | bc -l)" "$(echo "$(kib "$pid" VmHWM) / 1024" | bc -l)"
  tmux -L "$sock" kill-session -t "$name"
}

echo "| tool | command | start to first frame | CPU | RSS | peak RSS |"
echo "|---|---|---:|---:|---:|---:|"
nvq_top() { run "$1" "8 GPUs" "$NVQ" top --nvml-lib "$work/libnvidia-ml.so.1" --interval "$2"; }
nvq_top nvq "$INTERVAL"
run nvtop "Device 0" nvtop -d "$(echo "$INTERVAL * 10 / 1" | bc)"
nvq_top nvq-1s 1
run nvtop-1s "Device 0" nvtop -d 10
run nvitop-1s "NVITOP" nvitop -m full --interval 1
