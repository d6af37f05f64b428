#!/usr/bin/env bash
# `nvq top` against nvtop at the same refresh, CPU time measured by `perf stat`
# (task-clock, all threads), not a test. Each tool runs alone in a 120x40 tmux
# window on tests/scenarios/top_8gpu.toml (8 simulated H100s with processes;
# GPU 0's memory and utilization change every sample for the first 100
# samples, then nothing changes) at 100 ms (nvtop -d 1). Two windows:
# "changing", CHANGE seconds from 4 s after the start (default 5, at most 6:
# the values change until 10 s, so every sample of it draws a frame), and
# "steady", SPAN seconds from 14 s. (Until session 12 the changing window was
# SPAN seconds too, 4-24 s, of which only 6 s changed.) Rounds alternate the
# tools, so a machine that gets busier slows both; prints each run, then the
# medians and their ratios. Needs perf, tmux and nvtop (Debian contrib).
# TOGETHER=1: each round runs both tools at once, started together, and
# measures both windows of both in the same seconds (four perf stats), so
# that a busier stretch of the machine weighs on both alike; the median of
# the rounds' own ratios is printed too.
# BASE=/path/to/nvq: that nvq build (with its nvq-top) in nvtop's place, so
# that two builds are compared the same way (ratios: NVQ's CPU over BASE's).
# LATENCY=1: the simulator takes as long for each call as NVML does on a real
# GPU (its `[latency] realistic`); nvtop, which reads its GPUs one after the
# other, then refreshes less often than asked.
#   benches/top_perf.sh                  ROUNDS=3 CHANGE=5 SPAN=20 TOGETHER= LATENCY=
#   NVQ=/path/to/nvq benches/top_perf.sh (that nvq, with its nvq-top beside it)
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${ROUNDS:-3}
SPAN=${SPAN:-20}
CHANGE=${CHANGE:-5}
if [ "$CHANGE" -gt 6 ]; then
  echo "CHANGE is at most 6 (seconds): the values change only until 10 s" >&2
  exit 2
fi
declare -A span=([changing]=$CHANGE [steady]=$SPAN)
. benches/top_build.sh
work=$(mktemp -d)
# A tmux server of its own for each run (its socket named after the run): a
# session begun just as the server of the run before exits would go with it.
sock=nvq-top-perf-$$
sockets() { find "${TMUX_TMPDIR:-/tmp}/tmux-$(id -u)" -name "$sock-*" 2>/dev/null || true; }
trap 'for s in $(sockets); do tmux -S "$s" kill-server 2>/dev/null || true; done; rm -rf "$work"' EXIT
ln -s "$target/dist/libnvml_sim.so" "$work/libnvidia-ml.so.1"
# Copies, so that a build while this runs changes nothing.
cp "$NVQ" "$work/nvq"
[ ! -x "$(dirname "$NVQ")/nvq-top" ] || cp "$(dirname "$NVQ")/nvq-top" "$work/nvq-top"
# nvq top as measured, and the other tool: nvtop, or the nvq build BASE names.
mine=("$work/nvq" top --nvml-lib "$work/libnvidia-ml.so.1" --interval 100ms)
other=(nvtop -d 1) other_name=nvtop
declare -A label=([nvq]=nvq [nvtop]=nvtop)
if [ -n "${BASE:-}" ]; then
  mkdir "$work/base"
  cp "$BASE" "$work/base/nvq"
  [ ! -x "$(dirname "$BASE")/nvq-top" ] || cp "$(dirname "$BASE")/nvq-top" "$work/base/nvq-top"
  other=("$work/base/nvq" top --nvml-lib "$work/libnvidia-ml.so.1" --interval 100ms) other_name="BASE nvq top"
  label[nvtop]=base
fi
scenario=$PWD/tests/scenarios/top_8gpu.toml
if [ -n "${LATENCY:-}" ]; then
  # The simulator's realistic call times (PCIe rates 20 ms a call, power
  # and sample buffers 1 ms), which NVML's own calls take on a real GPU.
  cp "$scenario" "$work/scenario.toml"
  printf '\n[latency]\nrealistic = true\n' >>"$work/scenario.toml"
  scenario=$work/scenario.toml
fi

# start NAME COMMAND...: start COMMAND in a 120x40 window of its own tmux
# server; prints its pid.
start() {
  local name=$1
  shift
  tmux -L "$sock-$name" -f /dev/null new-session -d -s "$name" -x 120 -y 40 \
    "echo \$\$ > $work/$name.pid; export LD_LIBRARY_PATH=$work TERM=xterm-256color \
     NVML_SIM_SCENARIO=$scenario; exec $*"
  while [ ! -s "$work/$name.pid" ]; do sleep 0.01; done
  cat "$work/$name.pid"
}

# clock PID SPAN: PID's task-clock (ms) over the next SPAN s.
clock() {
  perf stat -x, -e task-clock -p "$1" sleep "$2" 2>&1 | awk -F, '/task-clock/ { printf "%.1f", $1 }'
}

# together ROUND: both tools at once; prints "WINDOW TOOL MS RSS" lines.
together() {
  local round=$1 first second
  first=nvq second=nvtop
  [ $((round % 2)) = 0 ] && first=nvtop second=nvq
  declare -A pid
  for tool in $first $second; do
    if [ "$tool" = nvq ]; then
      pid[$tool]=$(start "$tool-$round" "${mine[@]}")
    else
      pid[$tool]=$(start "$tool-$round" "${other[@]}")
    fi
  done
  sleep 4
  clock "${pid[nvq]}" "$CHANGE" >"$work/changing.nvq" &
  clock "${pid[nvtop]}" "$CHANGE" >"$work/changing.nvtop" &
  sleep 10
  clock "${pid[nvq]}" "$SPAN" >"$work/steady.nvq" &
  clock "${pid[nvtop]}" "$SPAN" >"$work/steady.nvtop" &
  wait
  for tool in nvq nvtop; do
    rss=$(awk '/VmRSS/ { print $2 }' "/proc/${pid[$tool]}/status" 2>/dev/null) || {
      echo "$tool ended before the measure was over" >&2
      exit 1
    }
    for window in changing steady; do
      echo "$window $tool $(cat "$work/$window.$tool") $rss"
    done
    tmux -L "$sock-$tool-$round" kill-server
  done
}

# measure NAME FROM FOR COMMAND...: start COMMAND, wait FROM s, print its
# task-clock (ms) over FOR s and its VmRSS (KiB). NAME is the run's own.
measure() {
  local name=$1 from=$2 for=$3 pid ms rss
  shift 3
  pid=$(start "$name" "$@")
  sleep "$from"
  ms=$(clock "$pid" "$for")
  rss=$(awk '/VmRSS/ { print $2 }' "/proc/$pid/status" 2>/dev/null) || {
    echo "$name ended before the measure was over" >&2
    exit 1
  }
  tmux -L "$sock-$name" kill-server
  echo "$ms $rss"
}

declare -A runs
declare -A ratios
for round in $(seq "$ROUNDS"); do
  if [ -n "${TOGETHER:-}" ]; then
    declare -A ms=()
    while read -r window tool t rss; do
      echo "round $round $window ${label[$tool]}: $t ms in ${span[$window]} s, VmRSS $rss KiB"
      runs[$window.$tool]+="$t "
      ms[$window.$tool]=$t
    done < <(together "$round")
    for window in changing steady; do
      ratios[$window]+="$(awk -v a="${ms[$window.nvq]}" -v b="${ms[$window.nvtop]}" 'BEGIN { printf "%.3f", a / b }') "
    done
    continue
  fi
  for window in changing steady; do
    from=4
    [ "$window" = steady ] && from=14
    for tool in nvq nvtop; do
      if [ "$tool" = nvq ]; then
        r=$(measure "$tool-$window-$round" "$from" "${span[$window]}" "${mine[@]}")
      else
        r=$(measure "$tool-$window-$round" "$from" "${span[$window]}" "${other[@]}")
      fi
      echo "round $round $window ${label[$tool]}: ${r% *} ms in ${span[$window]} s, VmRSS ${r#* } KiB"
      runs[$window.$tool]+="${r% *} "
    done
  done
done
median() { tr ' ' '\n' | grep . | sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
for window in changing steady; do
  a=$(echo "${runs[$window.nvq]}" | median)
  b=$(echo "${runs[$window.nvtop]}" | median)
  echo "$window: nvq top $a ms, $other_name $b ms (medians of $ROUNDS): $(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.2f", a / b }')x"
  if [ -n "${TOGETHER:-}" ]; then
    echo "$window: the rounds' ratios ${ratios[$window]}(median $(echo "${ratios[$window]}" | median)x)"
  fi
done
