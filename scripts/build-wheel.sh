#!/usr/bin/env bash
# Build nvq's wheel (pyproject.toml, maturin with `bindings = "bin"`):
#
#   1. cargo build --release --workspace (the same build scripts/deb-check.sh
#      makes, so whichever runs second reuses it);
#   2. stage what the wheel carries besides the binary under
#      target/wheel-stage/ (the path pyproject.toml names): the simulator in
#      nvq.data/data/lib/nvq/ (installed as PREFIX/lib/nvq/, found by
#      `nvq --simulate` as ../lib/nvq/ beside PREFIX/bin/nvq), the man page and
#      the completions under nvq.data/data/share/, and the project page, a part
#      of README.md (its introduction and the block between the
#      `wheel-readme` markers of its Install section);
#   3. maturin build --release into $CARGO_TARGET_DIR/wheels (or target/wheels).
#
# maturin comes from PyPI, pinned, into a venv of its own
# ($CARGO_TARGET_DIR/wheel-tools, or target/wheel-tools). The last line of
# output is the wheel's path.
#   Env: PYTHON (default python3), CARGO_TARGET_DIR.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
target=${CARGO_TARGET_DIR:-$repo/target}
py=${PYTHON:-python3}
stage=$repo/target/wheel-stage
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

cargo build --quiet --release --workspace --locked
sim=$target/release/libnvml_sim.so
[ -f "$sim" ] || fail "$sim was not built"

rm -rf "$stage"
data=$stage/nvq.data/data
install -d "$data/lib/nvq" "$data/share/man/man1" "$data/share/bash-completion/completions" \
    "$data/share/zsh/site-functions" "$data/share/fish/vendor_completions.d"
install -m 644 "$sim" "$data/lib/nvq/libnvml_sim.so"
# The binary is stripped by maturin (strip = true); the simulator is a data
# file to maturin, so it is stripped here (its dynamic symbols stay).
if command -v strip >/dev/null; then
    strip --strip-unneeded "$data/lib/nvq/libnvml_sim.so"
fi
install -m 644 man/nvq.1 "$data/share/man/man1/nvq.1"
install -m 644 completions/nvq.bash "$data/share/bash-completion/completions/nvq"
install -m 644 completions/_nvq "$data/share/zsh/site-functions/_nvq"
install -m 644 completions/nvq.fish "$data/share/fish/vendor_completions.d/nvq.fish"

# The project page: the title, the first paragraph, then the marked block.
awk '
    NR == 1 { print; print ""; next }
    intro == 0 && /^$/ && seen { intro = 1; print ""; print "## Install"; print ""; next }
    intro == 0 && NR > 2 { print; seen = 1; next }
    /^<!-- wheel-readme:start -->$/ { inside = 1; found = 1; next }
    /^<!-- wheel-readme:end -->$/ { inside = 0; next }
    inside { print }
    END { if (!found) exit 3 }
' README.md >"$stage/README.md" || fail "README.md lacks the <!-- wheel-readme:start --> block"

rm -f "$out"/nvq-*.whl
"$tools/bin/maturin" build --quiet --release --locked --out "$out" >&2
wheels=("$out"/nvq-*.whl)
[ ${#wheels[@]} = 1 ] && [ -f "${wheels[0]}" ] || fail "maturin did not leave one wheel in $out"
echo "${wheels[0]}"
