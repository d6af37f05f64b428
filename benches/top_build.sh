# Sourced by the top_* benches from the repository's root: builds the
# simulator, and nvq with nvq-top unless NVQ names an nvq already built;
# sets `target` (the build's folder) and NVQ.
target=${CARGO_TARGET_DIR:-$PWD/target}
cargo build -q --profile dist -p nvml-sim
if [ -z "${NVQ:-}" ]; then
  cargo build -q --profile dist -p nvq --bin nvq --bin nvq-top
  NVQ=$target/dist/nvq
fi
