#!/usr/bin/env bash
# Every test nvq has: the Rust suites, then the checks that drive unmodified
# third-party clients against nvq and its NVML simulator.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --workspace
# (Its layers::the_layers_hold runs scripts/check-layers.py: layers without
# cycles, SAFETY comments, NVML FFI only in the raw layer, line lengths.)
cargo test --workspace
# pynvml (nvidia-ml-py, unmodified) reads the simulator exactly as the scenario says.
scripts/pynvml-check.sh
# Prometheus output accepted by promtool (Debian's prometheus package).
if command -v promtool >/dev/null; then
  scripts/promtool-check.sh
else
  echo "promtool-check: skipped (promtool not installed; apt-get install prometheus)"
fi
# Fleet files: alert rules (promtool check/test rules), Kubernetes manifests
# (kubectl kustomize, kubernetes-validate), a few seconds.
scripts/deploy-check.sh
# Three simulated GPU nodes in network namespaces, one Prometheus with the
# rules, every dashboard query, a node stopped (root; about 90 s).
scripts/fleet-check.sh
# Unmodified nvidia-htop parsing nvq's summary table through an nvidia-smi symlink.
scripts/nvidia-htop-check.sh
# netdata's unmodified nvidia_smi module reading nvq's `-x -q -l 1` stream.
scripts/netdata-check.sh
# GPUtil, gpustat and nvitop against nvq and the simulator.
scripts/clients-check.sh
# The Debian package: built, checked by lintian, installed, used from the
# installed paths and removed (root only; says why when it skips).
scripts/deb-check.sh
# The wheel: built with maturin, checked by auditwheel, installed with pip,
# pipx and uv tool, used from the installed paths and uninstalled.
scripts/wheel-check.sh
