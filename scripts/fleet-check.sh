#!/usr/bin/env bash
# A fleet on one machine: three simulated GPU nodes, each in a network
# namespace of its own, each running `nvq serve` on a different scenario
# (tests/scenarios/fleet_train.toml with pods from a grpcio kubelet,
# fleet_mig.toml with MIG, fleet_hung.toml with a hung GPU), and one
# Prometheus (Debian's) in a fourth namespace scraping all three over veth
# pairs, with deploy/prometheus/nvq-rules.yml loaded. tests/fleet/check.py
# checks every node's series and instance, the hung node answering within
# the scrape timeout, the alerts, every query of deploy/grafana/nvq.json;
# then node B is stopped and must give up == 0 and NvqExporterDown firing.
# nvq --hosts reads the three nodes from the hub too (every node's rows,
# the hung GPU late, then the stopped node named and exit 23), and two
# ssh:// nodes in a fourth namespace: a real sshd (Debian's openssh-server)
# whose sessions find a simulated nvq, and one whose sessions find none
# ("nvq is not installed"). Node A is also read through its dcgm-profile
# /metrics, as a node that runs dcgm-exporter.
#
# Root only (ip netns). All traffic stays on the veths and loopbacks of the
# namespaces made here (198.18.N.0/30, the benchmarking range; none has a
# route elsewhere); the namespaces and processes are removed on exit, also
# on failure. Takes about 90 s (the exporter-down rule waits a minute).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$PWD/target}"
target=$CARGO_TARGET_DIR

. scripts/need.sh
need_root fleet-check "ip netns" || exit 0
need_tool fleet-check ip "apt-get install iproute2" || exit 0
need_tool fleet-check prometheus "apt-get install prometheus" || exit 0
need_tool fleet-check python3 || exit 0
need_tool fleet-check /usr/sbin/sshd "apt-get install openssh-server" || exit 0
need_tool fleet-check ssh-keygen "apt-get install openssh-client" || exit 0

cargo build --quiet --bin nvq
cargo build --quiet -p nvml-sim
nvq=$target/debug/nvq
lib=$target/debug/libnvml_sim.so

venv=$target/pyenv-fleet
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c 'import grpc' 2>/dev/null; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q --disable-pip-version-check grpcio==1.85.1
fi

tag=nvqf$$
hub=$tag-hub
tmp=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
  for ns in "$hub" "$tag-1" "$tag-2" "$tag-3" "$tag-4"; do ip netns del "$ns" 2>/dev/null || true; done
  rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

ip netns add "$hub"
ip -n "$hub" link set lo up
scenarios=(fleet_train.toml fleet_mig.toml fleet_hung.toml)
nodes=()
for i in 1 2 3; do
  ns=$tag-$i
  ip netns add "$ns"
  ip -n "$ns" link set lo up
  ip link add "h$i" netns "$hub" type veth peer name eth0 netns "$ns"
  ip -n "$hub" addr add "198.18.$i.1/30" dev "h$i"
  ip -n "$ns" addr add "198.18.$i.2/30" dev eth0
  ip -n "$hub" link set "h$i" up
  ip -n "$ns" link set eth0 up
  nodes+=("198.18.$i.2:9835")
done

# Node D (namespace 4): two sshd, on port 22 with a simulated nvq on its
# sessions' PATH, on port 2222 with none. The hub's ssh knows their host key
# and logs in with a key of its own (root, as the namespaces need root).
ns=$tag-4
ip netns add "$ns"
ip -n "$ns" link set lo up
ip link add h4 netns "$hub" type veth peer name eth0 netns "$ns"
ip -n "$hub" addr add 198.18.4.1/30 dev h4
ip -n "$ns" addr add 198.18.4.2/30 dev eth0
ip -n "$hub" link set h4 up
ip -n "$ns" link set eth0 up
ssh_dir=$tmp/ssh
mkdir -p "$ssh_dir/sim" "$ssh_dir/none" "$ssh_dir/client" /run/sshd
ssh-keygen -q -t ed25519 -N '' -f "$ssh_dir/host_key"
ssh-keygen -q -t ed25519 -N '' -f "$ssh_dir/client_key"
cp "$ssh_dir/client_key.pub" "$ssh_dir/authorized_keys"
printf '#!/bin/sh\nNVML_SIM_SCENARIO=%s exec %s --nvml-lib %s "$@"\n' \
  "$root/tests/scenarios/fleet_train.toml" "$nvq" "$lib" >"$ssh_dir/sim/nvq"
chmod 755 "$ssh_dir/sim/nvq"
key=$(cut -d' ' -f1,2 "$ssh_dir/host_key.pub")
printf '198.18.4.2 %s\n[198.18.4.2]:2222 %s\n' "$key" "$key" >"$ssh_dir/known_hosts"
printf 'Host *\n  IdentityFile %s/client_key\n  IdentitiesOnly yes\n  UserKnownHostsFile %s/known_hosts\n  GlobalKnownHostsFile /dev/null\n' \
  "$ssh_dir" "$ssh_dir" >"$ssh_dir/ssh_config"
printf '#!/bin/sh\nexec /usr/bin/ssh -F %s/ssh_config "$@"\n' "$ssh_dir" >"$ssh_dir/client/ssh"
chmod 755 "$ssh_dir/client/ssh"
for port in 22 2222; do
  bin=sim
  [ "$port" = 2222 ] && bin=none
  printf 'Port %s\nListenAddress 198.18.4.2\nHostKey %s/host_key\nPidFile none\nAuthorizedKeysFile %s/authorized_keys\nPasswordAuthentication no\nKbdInteractiveAuthentication no\nPermitRootLogin prohibit-password\nStrictModes no\nUsePAM no\nLogLevel ERROR\nSetEnv PATH=%s/%s\n' \
    "$port" "$ssh_dir" "$ssh_dir" "$ssh_dir" "$bin" >"$ssh_dir/sshd_$port"
  ip netns exec "$ns" /usr/sbin/sshd -D -e -f "$ssh_dir/sshd_$port" 2>"$tmp/sshd_$port.log" &
  pids+=($!)
done

# Node A's kubelet: grpcio on a unix socket (no network).
"$venv/bin/python" tests/fleet/fake_kubelet.py "$tmp/kubelet.sock" &
pids+=($!)
for _ in $(seq 50); do [ -S "$tmp/kubelet.sock" ] && break; sleep 0.1; done

node_pid=()
for i in 1 2 3; do
  extra=()
  [ "$i" = 1 ] && extra=(--collect.pods "--collect.pods.socket=$tmp/kubelet.sock" --collect.pods.interval=1s)
  ip netns exec "$tag-$i" env NVML_SIM_SCENARIO="$root/tests/scenarios/${scenarios[$((i - 1))]}" \
    "$nvq" --nvml-lib "$lib" serve "--web.listen-address=198.18.$i.2:9835" --collect.processes "${extra[@]}" \
    2>"$tmp/node$i.log" &
  pids+=($!)
  node_pid+=($!)
done

cat >"$tmp/prometheus.yml" <<YML
global:
  scrape_interval: 2s
  scrape_timeout: 1s
  evaluation_interval: 1s
rule_files:
  - $root/deploy/prometheus/nvq-rules.yml
scrape_configs:
  - job_name: nvq
    static_configs:
      - targets: ['${nodes[0]}', '${nodes[1]}', '${nodes[2]}']
YML
ip netns exec "$hub" prometheus --config.file="$tmp/prometheus.yml" --storage.tsdb.path="$tmp/data" \
  --web.listen-address=127.0.0.1:9090 --log.level=warn 2>"$tmp/prometheus.log" &
pids+=($!)

show_logs() {
  for f in "$tmp"/*.log; do echo "--- $f"; tail -20 "$f"; done >&2
}
in_hub() { ip netns exec "$hub" "$@"; }
if ! in_hub python3 tests/fleet/check.py up "${nodes[@]}"; then show_logs; exit 1; fi
# nvq --hosts from the hub: every node's GPUs with its host first, and node
# C's hung GPU as a [Timeout] row (the node answers its other GPU in time).
hosts=$(IFS=,; echo "${nodes[*]}")
fleet_fail() { echo "fleet-check: FAILED: $1" >&2; show_logs; exit 1; }
rows=$(in_hub "$nvq" --hosts "$hosts" --query-gpu=index,memory.used,power.draw --format=csv,noheader) \
  || fleet_fail "nvq --hosts exited $? with every node up"
for n in "${nodes[@]}"; do
  grep -q "^$n, 0, " <<<"$rows" || fleet_fail "nvq --hosts has no row of $n: $rows"
done
grep -q "^${nodes[2]}, 1, \[Timeout\], \[Timeout\]$" <<<"$rows" \
  || fleet_fail "node C's hung GPU is not a [Timeout] row: $rows"
# The ssh:// node from the hub, through the real sshd: its rows as node
# D's nvq gives them; and the one without nvq named (exit 23).
in_hub_ssh() { ip netns exec "$hub" env "PATH=$ssh_dir/client:$PATH" "$@"; }
for _ in $(seq 1 50); do
  in_hub bash -c 'exec 3<>/dev/tcp/198.18.4.2/22' 2>/dev/null && break
  sleep 0.1
done
rows=$(in_hub_ssh "$nvq" --hosts ssh://root@198.18.4.2 --query-gpu=index,memory.used --format=csv,noheader 2>"$tmp/ssh.err") \
  || fleet_fail "nvq --hosts ssh://root@198.18.4.2 exited $?: $(cat "$tmp/ssh.err")"
want=$(NVML_SIM_SCENARIO="$root/tests/scenarios/fleet_train.toml" "$nvq" --nvml-lib "$lib" \
  --query-gpu=index,memory.used --format=csv,noheader | sed 's|^|ssh://root@198.18.4.2, |')
[ "$rows" = "$want" ] || fleet_fail "the ssh:// node's rows: $rows (want $want)"
set +e
in_hub_ssh "$nvq" mem --hosts ssh://root@198.18.4.2:2222 --format=csv,noheader >/dev/null 2>"$tmp/ssh.err"
rc=$?
set -e
[ "$rc" = 23 ] || fleet_fail "nvq mem --hosts on the ssh:// node without nvq exited $rc"
grep -q "^nvq: nvq is not installed on ssh://root@198.18.4.2:2222$" "$tmp/ssh.err" \
  || fleet_fail "the ssh:// node without nvq is not named so: $(cat "$tmp/ssh.err")"
# Node A read through a dcgm-exporter's /metrics (node A's own nvq serve
# with --profile dcgm on a second port): its GPUs, memory.used as its API says.
ip netns exec "$tag-1" env NVML_SIM_SCENARIO="$root/tests/scenarios/fleet_train.toml" \
  "$nvq" --nvml-lib "$lib" serve --web.listen-address=198.18.1.2:9400 --profile dcgm 2>"$tmp/dcgm.log" &
pids+=($!)
for _ in $(seq 1 50); do
  in_hub bash -c 'exec 3<>/dev/tcp/198.18.1.2/9400' 2>/dev/null && break
  sleep 0.1
done
rows=$(in_hub "$nvq" --hosts http://198.18.1.2:9400/metrics --query-gpu=index,memory.used --format=csv,noheader) \
  || fleet_fail "nvq --hosts on a dcgm-exporter's /metrics exited $?"
want=$(in_hub "$nvq" --hosts "${nodes[0]}" --query-gpu=index,memory.used --format=csv,noheader \
  | sed "s|^${nodes[0]}, |http://198.18.1.2:9400/metrics, |")
[ "$rows" = "$want" ] || fleet_fail "the dcgm node's rows: $rows (want $want)"
# Stop node B (SIGTERM; it exits 0).
kill -TERM "${node_pid[1]}"
wait "${node_pid[1]}" || { echo "fleet-check: node B did not exit 0 on SIGTERM" >&2; exit 1; }
if ! in_hub python3 tests/fleet/check.py down "${nodes[@]}"; then show_logs; exit 1; fi
# nvq --hosts names the stopped node and prints the others (exit 23).
set +e
rows=$(in_hub "$nvq" mem --hosts "$hosts" --format=csv,noheader 2>"$tmp/hosts.err")
rc=$?
set -e
[ "$rc" = 23 ] || fleet_fail "nvq mem --hosts exited $rc with node B stopped"
grep -q "^nvq: ${nodes[1]}: cannot connect" "$tmp/hosts.err" || fleet_fail "node B not named: $(cat "$tmp/hosts.err")"
grep -q "^${nodes[0]}, " <<<"$rows" && grep -q "^${nodes[2]}, " <<<"$rows" \
  || fleet_fail "the nodes still up are missing: $rows"
echo "fleet-check: ok (three namespaced nodes, one Prometheus, rules and dashboard, nvq --hosts: nvq serve, ssh:// through sshd, a dcgm /metrics)"
