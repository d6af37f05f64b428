#!/usr/bin/env bash
# The two build profiles side by side, not a test (issue #55): `release`
# (cargo's defaults, the README's first command) and `dist` (fat LTO, one
# codegen unit: the .deb, the wheel, the benches). For each, in a target folder
# of its own made empty first, one after the other:
#   - the clean build's wall and CPU time of what the README's first command
#     builds (`cargo build --profile P --locked`: the default members, nvq and
#     the simulator; under `nice`: the wall time includes whatever else the
#     machine runs, so the load average is printed beside it);
#   - the sizes of nvq, nvq-top and libnvml_sim.so;
# then, both builds done:
#   - a one-shot query, `nvq --simulate --query-gpu=index,name,memory.used
#     --format=csv`, both binaries in one hyperfine run (Debian's hyperfine);
#   - `nvq top`'s CPU (user + system, % of one core) in a 120x40 tmux window
#     on tests/scenarios/top_8gpu.toml at a 100 ms interval, over DURATION
#     seconds after a 3 s warm-up, ROUNDS rounds alternating the two builds.
#   benches/profile_bench.sh     OUT=/tmp/nvq-profiles (the target folders' prefix)
#   DURATION=20 ROUNDS=3 RUNS=300
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/nvq-profiles}
DURATION=${DURATION:-20}
ROUNDS=${ROUNDS:-3}
RUNS=${RUNS:-300}
profiles=(release dist)

echo "## clean builds ($(nproc) cores, $(rustc --version))"
echo "| profile | clean build (wall) | CPU (user + system) | load average before; after | nvq | nvq-top | libnvml_sim.so |"
echo "|---|---:|---:|---|---:|---:|---:|"
for p in "${profiles[@]}"; do
  dir=$OUT-$p
  rm -rf "$dir"
  before=$(cut -d' ' -f1-3 /proc/loadavg)
  TIMEFORMAT='%R %U %S'
  # cargo's own messages go to a log of their own, printed when it fails: the
  # time line alone is read from the group's stderr.
  log=$dir.build.log
  if ! took=$( { time CARGO_TARGET_DIR=$dir nice cargo build -q --profile "$p" --locked 2>"$log"; } 2>&1 ); then
    echo "profile_bench: the $p build failed:" >&2
    cat "$log" >&2
    exit 1
  fi
  took=$(tail -n 1 <<<"$took")
  read -r real user sys <<<"$took"
  after=$(cut -d' ' -f1-3 /proc/loadavg)
  size() { printf '%.2f MiB' "$(echo "$(stat -c %s "$dir/$p/$1") / 1048576" | bc -l)"; }
  printf '| %s | %.0f s | %.0f s | %s; %s | %s | %s | %s |\n' "$p" "$real" "$(echo "$user + $sys" | bc -l)" \
    "$before" "$after" "$(size nvq)" "$(size nvq-top)" "$(size libnvml_sim.so)"
done

echo
echo "## one-shot query (hyperfine)"
query=(--simulate --query-gpu=index,name,memory.used --format=csv)
cmds=()
for p in "${profiles[@]}"; do cmds+=("$OUT-$p/$p/nvq ${query[*]}"); done
hyperfine -N --warmup 20 --runs "$RUNS" --style basic -n release -n dist "${cmds[@]}"

echo
echo "## nvq top at 100 ms, $DURATION s a round"
work=$(mktemp -d)
sock=nvq-profile-bench-$$
trap 'tmux -L "$sock" kill-server 2>/dev/null || true; rm -rf "$work"' EXIT
hz=$(getconf CLK_TCK)
scenario=$PWD/tests/scenarios/top_8gpu.toml
echo "| round | profile | CPU |"
echo "|---|---|---:|"
for r in $(seq 1 "$ROUNDS"); do
  for p in "${profiles[@]}"; do
    name=$p-$r
    tmux -L "$sock" -f /dev/null new-session -d -s "$name" -x 120 -y 40 \
      "echo \$\$ > $work/$name.pid; export NVML_SIM_SCENARIO=$scenario TERM=xterm-256color; exec $OUT-$p/$p/nvq --simulate top --interval 0.1"
    until [ -s "$work/$name.pid" ] && tmux -L "$sock" capture-pane -p -t "$name" | grep -q "8 GPUs"; do sleep 0.05; done
    pid=$(cat "$work/$name.pid")
    sleep 3
    a=$(awk '{ print $14 + $15 }' "/proc/$pid/stat"); w0=$(date +%s%N)
    sleep "$DURATION"
    b=$(awk '{ print $14 + $15 }' "/proc/$pid/stat"); w1=$(date +%s%N)
    printf '| %s | %s | %.2f %% |\n' "$r" "$p" "$(echo "($b - $a) / $hz / (($w1 - $w0) / 1000000000) * 100" | bc -l)"
    tmux -L "$sock" kill-session -t "$name"
  done
done
