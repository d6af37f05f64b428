#!/usr/bin/env bash
# Load on `nvq serve` (issue #22): wrk against eight simulated GPUs, every
# field, in the nvq profile. Prints a Markdown table for benches/RESULTS.md:
# requests per second and latency (p50, p99) at 1, 10 and 100 connections
# with --collect.interval=1s, plain and gzip'd (as Prometheus asks); the cost of a collection (--collect.interval=0,
# one connection); RSS after 100,000 scrapes against RSS after the first
# 10,000 (it must be flat); CPU time per scrape.
# Needs a dist build (cargo build --profile dist) and wrk (apt-get install wrk).
set -euo pipefail
cd "$(dirname "$0")/.."
nvq=target/dist/nvq
sim=target/dist/libnvml_sim.so
[ -x "$nvq" ] && [ -f "$sim" ] || { echo "build first: cargo build --profile dist" >&2; exit 1; }
command -v wrk >/dev/null || { echo "wrk is missing (apt-get install wrk)" >&2; exit 1; }
export NVML_SIM_SCENARIO=tests/scenarios/loops_8gpu.toml
dur=${DURATION:-10}
log=$(mktemp)
server=""
trap '[ -n "$server" ] && kill "$server" 2>/dev/null; rm -f "$log"' EXIT

start() { # $1: --collect.interval
    "$nvq" --nvml-lib "$sim" serve --web.listen-address=127.0.0.1:0 --collect.interval="$1" \
        --web.max-connections=1024 2>"$log" &
    server=$!
    for _ in $(seq 100); do grep -q "listening on" "$log" && break; sleep 0.05; done
    addr=$(sed -n 's|.*listening on http://\([^/]*\)/.*|\1|p' "$log" | head -1)
}
stop() { kill "$server"; wait "$server" 2>/dev/null || true; server=""; }
rss_kib() { awk '/^VmRSS/ {print $2}' "/proc/$server/status"; }
cpu_ticks() { awk '{print $14 + $15}' "/proc/$server/stat"; }
# wrk's summary: requests/s, p50 and p99 (ms), total requests.
run_wrk() { # $1: connections, $2: seconds, $3...: more wrk options
    local threads=$(( $1 < 2 ? 1 : 2 )) c=$1 d=$2
    shift 2
    wrk -t"$threads" -c"$c" -d"$d"s --latency "$@" "http://$addr/metrics" | awk '
        function ms(v) { if (v ~ /us$/) return v / 1000; if (v ~ /ms$/) return v + 0; if (v ~ /s$/) return v * 1000; return v }
        /^ +50%/ { p50 = ms($2) } /^ +99%/ { p99 = ms($2) }
        /requests in/ { total = $1 } /^Requests\/sec/ { rps = $2 }
        END { printf "%s %.3f %.3f %s\n", rps, p50, p99, total }'
}
hz=$(getconf CLK_TCK)
echo "| case | requests/s | p50 (ms) | p99 (ms) | note |"
echo "|---|---:|---:|---:|---|"
start 1s
for c in 1 10 100; do
    read -r rps p50 p99 total < <(run_wrk "$c" "$dur")
    echo "| --collect.interval=1s, $c connection(s), ${dur} s | $rps | $p50 | $p99 | $total requests |"
done
# As Prometheus scrapes: it always sends Accept-Encoding: gzip.
for c in 1 10 100; do
    read -r rps p50 p99 total < <(run_wrk "$c" "$dur" -H "Accept-Encoding: gzip")
    echo "| --collect.interval=1s, gzip, $c connection(s), ${dur} s | $rps | $p50 | $p99 | $total requests |"
done
stop

start 0
read -r rps p50 p99 total < <(run_wrk 1 "$dur")
echo "| --collect.interval=0 (a collection per scrape), 1 connection | $rps | $p50 | $p99 | $total requests: each reads 8 GPUs, every field |"
stop

# RSS and CPU over 100,000 scrapes (10 connections, interval 1s).
start 1s
scrapes=0; first_rss=""
c0=$(cpu_ticks)
while [ "$scrapes" -lt 100000 ]; do
    read -r _ _ _ total < <(run_wrk 10 2)
    scrapes=$(( scrapes + total ))
    [ -n "$first_rss" ] || { [ "$scrapes" -ge 10000 ] && first_rss=$(rss_kib); }
done
c1=$(cpu_ticks)
last_rss=$(rss_kib)
cpu_us=$(awk -v t=$(( c1 - c0 )) -v hz="$hz" -v n="$scrapes" 'BEGIN { printf "%.1f", t / hz * 1e6 / n }')
echo "| RSS after ${first_rss} KiB at 10,000 scrapes, ${last_rss} KiB after $scrapes |  |  |  | CPU ${cpu_us} us per scrape (user+system, 10 connections, interval 1s) |"
stop
