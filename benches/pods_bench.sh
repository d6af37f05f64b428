#!/usr/bin/env bash
# nvq serve with pod attribution (issue #33): eight simulated GPUs
# (tests/scenarios/loops_8gpu.toml), every field, the nvq profile, 50 pods
# from a grpcio kubelet (tests/fleet/fake_kubelet.py; time-slicing replicas
# spread over the 8 GPUs), against the same without --collect.pods. Then
# nvitop-exporter (PyPI) on the same simulated machine. Prints Markdown
# rows for benches/RESULTS.md.
# - per scrape, --collect.interval=0 (a collection per scrape), one wrk
#   connection for DURATION s, gzip as Prometheus asks: requests/s, p50,
#   p99, CPU (user+system) per scrape, RSS at the end;
# - at one scrape per second for DURATION s (curl): CPU as % of a core.
# Needs a dist build (cargo build --profile dist), wrk, and PyPI once.
set -euo pipefail
cd "$(dirname "$0")/.."
nvq=target/dist/nvq
sim=$PWD/target/dist/libnvml_sim.so
[ -x "$nvq" ] && [ -f "$sim" ] || { echo "build first: cargo build --profile dist" >&2; exit 1; }
command -v wrk >/dev/null || { echo "wrk is missing (apt-get install wrk)" >&2; exit 1; }
export NVML_SIM_SCENARIO=$PWD/tests/scenarios/loops_8gpu.toml
dur=${DURATION:-10}
venv=target/pyenv-bench-pods
if [ ! -x "$venv/bin/nvitop-exporter" ] || ! "$venv/bin/python" -c 'import grpc' 2>/dev/null; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q --disable-pip-version-check grpcio==1.85.1 nvitop-exporter==1.7.2 nvidia-ml-py==13.590.48
fi
tmp=$(mktemp -d)
pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$tmp"' EXIT
hz=$(getconf CLK_TCK)

uuids=$("$nvq" --nvml-lib "$sim" --query-gpu=uuid --format=csv,noheader | paste -sd, -)
"$venv/bin/python" tests/fleet/fake_kubelet.py "$tmp/kubelet.sock" 50 "$uuids" &
pids+=($!)
for _ in $(seq 50); do [ -S "$tmp/kubelet.sock" ] && break; sleep 0.1; done

rss_kib() { awk '/^VmRSS/ {print $2}' "/proc/$1/status"; }
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
wait_port() { for _ in $(seq 200); do curl -sf -o /dev/null "http://127.0.0.1:$1/metrics" && return; sleep 0.05; done; return 1; }
# $1: pid, $2: port, $3: name. One wrk connection, then one scrape a second.
measure() {
  local pid=$1 port=$2 name=$3 c0 c1 out rps p50 p99 total
  c0=$(cpu_ticks "$pid")
  out=$(wrk -t1 -c1 -d"$dur"s --latency -H "Accept-Encoding: gzip" "http://127.0.0.1:$port/metrics")
  c1=$(cpu_ticks "$pid")
  read -r rps p50 p99 total < <(awk '
      function ms(v) { if (v ~ /us$/) return v / 1000; if (v ~ /ms$/) return v + 0; if (v ~ /s$/) return v * 1000; return v }
      /^ +50%/ { p50 = ms($2) } /^ +99%/ { p99 = ms($2) }
      /requests in/ { total = $1 } /^Requests\/sec/ { rps = $2 }
      END { printf "%s %.3f %.3f %s\n", rps, p50, p99, total }' <<<"$out")
  local per=$(awk -v t=$((c1 - c0)) -v hz="$hz" -v n="$total" 'BEGIN { printf "%.0f", t / hz * 1e6 / n }')
  c0=$(cpu_ticks "$pid")
  for _ in $(seq "$dur"); do curl -s -o /dev/null -H "Accept-Encoding: gzip" "http://127.0.0.1:$port/metrics"; sleep 1; done
  c1=$(cpu_ticks "$pid")
  local idle=$(awk -v t=$((c1 - c0)) -v hz="$hz" -v d="$dur" 'BEGIN { printf "%.2f", t / hz / d * 100 }')
  local rss=$(awk -v k="$(rss_kib "$pid")" 'BEGIN { printf "%.1f", k / 1024 }')
  echo "| $name | $rps | $p50 | $p99 | $per | $idle | $rss |"
}

echo "| exporter, 8 GPUs | scrapes/s | p50 (ms) | p99 (ms) | CPU us per scrape | CPU at 1 scrape/s (% of a core) | RSS (MiB) |"
echo "|---|---:|---:|---:|---:|---:|---:|"
port=19871
for pods in off on; do
  extra=()
  [ "$pods" = on ] && extra=(--collect.pods "--collect.pods.socket=$tmp/kubelet.sock")
  "$nvq" --nvml-lib "$sim" serve "--web.listen-address=127.0.0.1:$port" --collect.interval=0 "${extra[@]}" 2>"$tmp/nvq.log" &
  pid=$!; pids+=($pid)
  wait_port "$port"
  if [ "$pods" = on ]; then
    for _ in $(seq 100); do curl -s "http://127.0.0.1:$port/metrics" | grep -q '^nvq_pods_attributed_devices 50$' && break; sleep 0.1; done
    curl -s "http://127.0.0.1:$port/metrics" | grep -q '^nvq_pods_attributed_devices 50$' || { echo "no pods" >&2; exit 1; }
  fi
  measure "$pid" "$port" "nvq serve, --collect.pods $pods$([ "$pods" = on ] && echo ' (50 pods)'), --collect.interval=0"
  kill "$pid"; wait "$pid" 2>/dev/null || true
  port=$((port + 1))
done

# nvitop-exporter loads NVML as libnvidia-ml.so.1: the simulator under that name.
mkdir -p "$tmp/lib"
ln -s "$sim" "$tmp/lib/libnvidia-ml.so.1"
LD_LIBRARY_PATH=$tmp/lib "$venv/bin/nvitop-exporter" --bind-address 127.0.0.1 --port "$port" >"$tmp/nvitop.log" 2>&1 &
pid=$!; pids+=($pid)
wait_port "$port" || { cat "$tmp/nvitop.log" >&2; exit 1; }
measure "$pid" "$port" "nvitop-exporter 1.7.2"
