#!/usr/bin/env bash
# Build nvq's wheel (pyproject.toml, maturin with `bindings = "bin"`):
#
#   1. scripts/stage-wheel.sh: the simulator (built with the dist profile),
#      the man page, the completions and the project page under
#      target/wheel-stage/, the paths pyproject.toml names (the same step
#      the build backend takes for `pip install .`);
#   2. maturin build --profile dist (Cargo.toml's distribution profile, the
#      .deb's too: scripts/deb-check.sh reuses the build) into
#      $CARGO_TARGET_DIR/wheels (or target/wheels).
#
# maturin comes from PyPI, pinned, into a venv of its own
# ($CARGO_TARGET_DIR/wheel-tools, or target/wheel-tools). The last line of
# output is the wheel's path.
#   Env: PYTHON (default python3), CARGO_TARGET_DIR, NVQ_WHEEL_PROFILE (see
#   scripts/stage-wheel.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
target=${CARGO_TARGET_DIR:-$repo/target}
py=${PYTHON:-python3}
out=$target/wheels
MATURIN_VERSION=1.16.0

fail() {
    echo "build-wheel: FAIL: $*" >&2
    exit 1
}

tools=$target/wheel-tools
if [ "$("$tools/bin/maturin" --version 2>/dev/null || true)" != "maturin $MATURIN_VERSION" ]; then
    [ -x "$tools/bin/python" ] || "$py" -m venv "$tools" \
        || fail "cannot make a venv with $py (Debian: apt-get install python3-venv)"
    "$tools/bin/python" -m pip install --quiet --disable-pip-version-check "maturin==$MATURIN_VERSION"
fi

scripts/stage-wheel.sh

rm -f "$out"/nvq-*.whl
"$tools/bin/maturin" build --quiet --profile "${NVQ_WHEEL_PROFILE:-dist}" --locked --out "$out" >&2
wheels=("$out"/nvq-*.whl)
[ ${#wheels[@]} = 1 ] && [ -f "${wheels[0]}" ] || fail "maturin did not leave one wheel in $out"
echo "${wheels[0]}"
