#!/usr/bin/env bash
# Stage what nvq's wheel carries besides the nvq and nvq-top binaries (which
# maturin builds) under target/wheel-stage/, the paths pyproject.toml names:
#   - README.md, the project page: a part of the repository's README.md (its
#     title and introduction, and the block between the `wheel-readme`
#     markers of its Install section);
#   - nvq.data/data/lib/nvq/libnvml_sim.so, the simulator, built with the
#     dist profile (`cargo build --profile dist --workspace`, the build
#     scripts/deb-check.sh makes too) and stripped
#     (installed as PREFIX/lib/nvq/, found by `nvq --simulate` as ../lib/nvq/
#     beside PREFIX/bin/nvq);
#   - the man page and the shell completions (the committed man/ and
#     completions/) under nvq.data/data/share/.
# `--page` stages the project page alone, and an empty data folder (all the
# wheel's metadata needs).
# Run by the wheel's build backend (packaging/wheel/backend/nvq_build.py), so
# that `pip install .`, `pipx install .`, `uv tool install .` and installs
# from a git URL work from a bare checkout, and by scripts/build-wheel.sh:
# the same files either way.
#   Env: CARGO_TARGET_DIR; NVQ_WHEEL_PROFILE (default dist; `dev` reuses a
#   debug build, to try the packaging itself in seconds, never to ship).
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
target=${CARGO_TARGET_DIR:-$repo/target}
profile=${NVQ_WHEEL_PROFILE:-dist}
dir=$profile
[ "$profile" = dev ] && dir=debug
stage=$repo/target/wheel-stage

fail() {
    echo "stage-wheel: FAIL: $*" >&2
    exit 1
}

rm -rf "$stage"
mkdir -p "$stage"
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
# maturin wants the data folder to exist even to write the metadata.
mkdir -p "$stage/nvq.data"
[ "${1:-}" = --page ] && exit 0

cargo build --quiet --profile "$profile" --workspace --locked
sim=$target/$dir/libnvml_sim.so
[ -f "$sim" ] || fail "$sim was not built"

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
