#!/usr/bin/env bash
# `--hosts` at fleet scale (issue #53): N nodes (default 64) of 8 simulated
# GPUs each, every node an `nvq serve` on a loopback port, read by one nvq.
#
#   first:  time to the first complete row set, `nvq mem --hosts @nodes`
#           (one shot: every node asked at once), median of ROUNDS runs,
#           beside the floor of one node alone;
#   loop:   the client's CPU per refresh, `nvq mem --hosts @nodes -l 1` for
#           SECS refreshes (user + system time over the refreshes), and its
#           peak RSS;
#   top:    `nvq top --hosts @nodes`: the time to its first complete frame
#           (`--once`: start, every node read, one frame printed), median of
#           ROUNDS runs, and its CPU a refresh at `-d 1` on a real terminal
#           (tmux, 200x60), measured from /proc over SECS refreshes after a
#           5 s warm-up, with its RSS.
#
# NVQ=path/to/nvq (default target/release/nvq; the simulator beside it).
# Usage: N=64 ROUNDS=11 SECS=30 benches/hosts_bench.sh
set -euo pipefail
cd "$(dirname "$0")/.."
NVQ=${NVQ:-target/release/nvq}
SIM=${SIM:-$(dirname "$NVQ")/libnvml_sim.so}
N=${N:-64}
ROUNDS=${ROUNDS:-11}
SECS=${SECS:-30}
SCENARIO=${SCENARIO:-tests/scenarios/loops_8gpu.toml}
work=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

# Start the nodes; each says where it listens on stderr.
for i in $(seq 1 "$N"); do
  NVML_SIM_SCENARIO="$SCENARIO" "$NVQ" --nvml-lib "$SIM" serve \
    --web.listen-address=127.0.0.1:0 2>"$work/node$i.log" >/dev/null &
  pids+=($!)
done
: >"$work/nodes"
for i in $(seq 1 "$N"); do
  for _ in $(seq 1 100); do
    addr=$(sed -n 's|.*listening on http://\([0-9.:]*\)/.*|\1|p' "$work/node$i.log")
    [ -n "$addr" ] && break
    sleep 0.1
  done
  [ -n "$addr" ] || { echo "node $i did not start" >&2; exit 1; }
  echo "$addr" >>"$work/nodes"
done
first_node=$(head -1 "$work/nodes")
gpus=$((N * 8))

median() { sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
oneshot() { # hosts -> seconds of wall time; checks the rows are complete
  local t0 t1 rows
  t0=$(date +%s.%N)
  rows=$("$NVQ" mem --hosts "$1" --format=csv,noheader | wc -l)
  t1=$(date +%s.%N)
  [ "$rows" = "$2" ] || { echo "got $rows rows, want $2" >&2; exit 1; }
  echo "$t1 - $t0" | bc -l
}

oneshot "@$work/nodes" "$gpus" >/dev/null # warm every node's first read
for _ in $(seq 1 "$ROUNDS"); do oneshot "@$work/nodes" "$gpus"; done >"$work/first"
for _ in $(seq 1 "$ROUNDS"); do oneshot "$first_node" 8; done >"$work/one"
printf 'first complete row set, %d nodes x 8 GPUs: median %.1f ms (min %.1f, max %.1f) over %d runs\n' \
  "$N" "$(median <"$work/first" | awk '{print $1*1000}')" \
  "$(sort -n "$work/first" | head -1 | awk '{print $1*1000}')" \
  "$(sort -n "$work/first" | tail -1 | awk '{print $1*1000}')" "$ROUNDS"
printf 'floor, 1 node x 8 GPUs: median %.1f ms\n' "$(median <"$work/one" | awk '{print $1*1000}')"

/usr/bin/time -f '%U %S %M' -o "$work/time" \
  "$NVQ" mem --hosts "@$work/nodes" --format=csv,noheader -l 1 --count "$SECS" >"$work/loop.csv" 2>"$work/loop.err"
read -r user sys rss <"$work/time"
lines=$(wc -l <"$work/loop.csv")
printf 'loop at 1 s, %d refreshes of %d nodes: %.2f ms of CPU a refresh (%.2f %% of a core), peak RSS %.1f MiB, %d rows (want %d)\n' \
  "$SECS" "$N" "$(echo "($user + $sys) * 1000 / $SECS" | bc -l)" \
  "$(echo "($user + $sys) * 100 / $SECS" | bc -l)" "$(echo "$rss / 1024" | bc -l)" "$lines" "$((SECS * gpus))"
if [ -s "$work/loop.err" ]; then
  echo "stderr of the loop:"; head -5 "$work/loop.err"
fi

# nvq top --hosts: the first complete frame (every node's GPUs in it).
topframe() {
  local t0 t1 n
  t0=$(date +%s.%N)
  n=$("$NVQ" top --once --hosts "@$work/nodes" | grep -c "$gpus GPUs on $N/$N hosts")
  t1=$(date +%s.%N)
  [ "$n" = 1 ] || { echo "top's frame does not show every node's GPUs" >&2; exit 1; }
  echo "$t1 - $t0" | bc -l
}
for _ in $(seq 1 "$ROUNDS"); do topframe; done >"$work/top"
printf 'nvq top --hosts, first complete frame (--once), %d nodes x 8 GPUs: median %.1f ms (min %.1f, max %.1f) over %d runs\n' \
  "$N" "$(median <"$work/top" | awk '{print $1*1000}')" \
  "$(sort -n "$work/top" | head -1 | awk '{print $1*1000}')" \
  "$(sort -n "$work/top" | tail -1 | awk '{print $1*1000}')" "$ROUNDS"

if command -v tmux >/dev/null; then
  sock="$work/tmux"
  # The script's PID is nvq's (exec), and nvq-top's if nvq hands over to it.
  printf '#!/bin/sh\necho $$ >"%s/top.pid"\nexec "%s" top --hosts "@%s/nodes" -d 1\n' \
    "$work" "$NVQ" "$work" >"$work/top.sh"
  chmod +x "$work/top.sh"
  tmux -S "$sock" new-session -d -x 200 -y 60 "$work/top.sh"
  for _ in $(seq 1 50); do [ -s "$work/top.pid" ] && break; sleep 0.1; done
  pid=$(cat "$work/top.pid")
  ticks() { awk '{print $14 + $15}' "/proc/$pid/stat"; }
  sleep 5
  c0=$(ticks)
  sleep "$SECS"
  c1=$(ticks)
  rss=$(awk '/VmRSS/ {print $2}' "/proc/$pid/status")
  frame=$(tmux -S "$sock" capture-pane -p)
  tmux -S "$sock" send-keys q
  sleep 1
  tmux -S "$sock" kill-server 2>/dev/null || true
  hz=$(getconf CLK_TCK)
  grep -q "$gpus GPUs on $N/$N hosts" <<<"$frame" || { echo "top's screen: not every node answered:"; echo "$frame" | head -3; }
  printf 'nvq top --hosts at -d 1, %d s of %d nodes: %.2f ms of CPU a refresh (%.2f %% of a core), RSS %.1f MiB\n' \
    "$SECS" "$N" "$(echo "($c1 - $c0) * 1000 / $hz / $SECS" | bc -l)" \
    "$(echo "($c1 - $c0) * 100 / $hz / $SECS" | bc -l)" "$(echo "$rss / 1024" | bc -l)"
else
  echo "nvq top --hosts at -d 1: tmux is not installed (apt-get install tmux)"
fi
