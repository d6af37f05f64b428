#!/usr/bin/env bash
# Every test nvq has: the Rust suites, then the checks that drive unmodified
# third-party clients against nvq and its NVML simulator.
#
# What this machine cannot check is skipped, not failed: the comparisons with
# real nvidia-smi captures without ../shared beside the checkout, a test or
# stage whose tool is not installed, the stages that need root. Each skip is
# recorded in $NVQ_SKIP_LOG (target/test-skips.log), and a banner at the end
# names how many were skipped and why. CI (.ci/run) sets NVQ_REQUIRE_SHARED=1,
# NVQ_REQUIRE_TOOLS=1 and NVQ_REQUIRE_ROOT=1: there each of them fails instead.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/need.sh
export NVQ_SKIP_LOG=${CARGO_TARGET_DIR:-$PWD/target}/test-skips.log
mkdir -p "$(dirname "$NVQ_SKIP_LOG")"
: >"$NVQ_SKIP_LOG"
banner() {
  local rc=$?
  if [ -s "$NVQ_SKIP_LOG" ]; then
    # One line per test or stage and reason (a test may skip twice); grouped by reason.
    sort -u "$NVQ_SKIP_LOG" | awk -F'\t' -v file="$NVQ_SKIP_LOG" '
      !($1 in n) { order[++k] = $1 }
      { n[$1]++; total++ }
      END {
        printf "\n==== skipped: %d tests and stages could not run here (which: %s) ====\n", total, file
        for (i = 1; i <= k; i++) printf "%5d x %s\n", n[order[i]], order[i]
      }'
  else
    echo
    echo "==== nothing skipped ===="
  fi
  [ "$rc" = 0 ] || echo "scripts/test-all.sh: FAILED (exit $rc)"
}
trap banner EXIT
cargo build --workspace
# pynvml (nvidia-ml-py, unmodified) reads the simulator exactly as the scenario
# says. First: the venv it makes (target/pyenv) is the python3 that the
# README's pynvml commands run with in tests/readme.rs.
scripts/pynvml-check.sh
# (Its layers::the_layers_hold runs scripts/check-layers.py: layers without
# cycles, SAFETY comments, NVML FFI only in the raw layer, line lengths.)
cargo test --workspace
# Prometheus output accepted by promtool (Debian's prometheus package).
if need_tool promtool-check promtool "apt-get install prometheus"; then
  scripts/promtool-check.sh
fi
# Fleet files: alert rules (promtool check/test rules), Kubernetes manifests
# (kubectl kustomize, kubernetes-validate), a few seconds.
scripts/deploy-check.sh
# Three simulated GPU nodes in network namespaces, one Prometheus with the
# rules, every dashboard query, a node stopped (root only; about 90 s).
scripts/fleet-check.sh
# Unmodified nvidia-htop parsing nvq's summary table through an nvidia-smi symlink.
scripts/nvidia-htop-check.sh
# netdata's unmodified nvidia_smi module reading nvq's `-x -q -l 1` stream.
scripts/netdata-check.sh
# GPUtil, gpustat and nvitop against nvq and the simulator.
scripts/clients-check.sh
# The Debian package (the dist profile): built, checked by lintian, installed,
# used from the installed paths and removed (root only).
scripts/deb-check.sh
# The wheel: built with maturin, checked by auditwheel, installed with pip,
# pipx and uv tool, used from the installed paths and uninstalled.
scripts/wheel-check.sh
