#!/usr/bin/env bash
# Build nvq's wheel and prove that pip, pipx and uv install it, that nvq works
# from each installed path, and that it goes away again:
#
#   1. scripts/build-wheel.sh (the dist build, shared with deb-check.sh,
#      then maturin);
#   2. the wheel's contents (nvq, the simulator, man page, completions,
#      licenses; no nvidia-smi) and auditwheel show: the binary and the
#      simulator need nothing outside the manylinux policy of the wheel's tag;
#   3. pip install into a fresh venv, pipx install and uv tool install, each
#      with its own throw-away HOME and directories; from each installed
#      entry, in a scratch directory with a minimal environment:
#      `nvq --simulate --query-gpu=index,name --format=csv` and
#      `nvq --simulate --version`, `topo -m` on a built-in example machine (and `python -m nvq --version` for pip);
#   4. pip uninstall -y (every file of the RECORD must be gone), pipx
#      uninstall and uv tool uninstall (their entries and venvs must be gone);
#   5. from the checkout: the wheel `pip wheel .` builds is build-wheel.sh's,
#      file for file; `pip install .`, `pipx install .`, `uv tool install .`
#      and `pipx install git+file://` of the current commit, each checked as
#      in 3 and removed.
#
# The tools come from PyPI, pinned, into the venv build-wheel.sh makes
# ($CARGO_TARGET_DIR/wheel-tools or target/wheel-tools); installing the wheel
# itself needs no index (it has no dependencies). Without python3's venv
# module it says so, records the skip for scripts/test-all.sh's banner and
# exits 0 ("skipped"), unless NVQ_REQUIRE_TOOLS=1 or NVQ_WHEEL_CHECK=required
# (CI sets them).
#   Env: PYTHON (default python3), CARGO_TARGET_DIR, NVQ_WHEEL_CHECK.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
target=${CARGO_TARGET_DIR:-$repo/target}
py=${PYTHON:-python3}
AUDITWHEEL_VERSION=6.8.2
PIPX_VERSION=1.18.4
UV_VERSION=0.13.9

fail() {
    echo "wheel-check: FAIL: $*" >&2
    exit 1
}

. scripts/need.sh
[ "${NVQ_WHEEL_CHECK:-}" = required ] && export NVQ_REQUIRE_TOOLS=1
need_venv wheel-check "$py" || exit 0

start=$SECONDS
phase() { echo "wheel-check: [$((SECONDS - start))s] $*"; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
version=$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -n 1)

# 1. Build.
phase "scripts/build-wheel.sh"
wheel=$(scripts/build-wheel.sh | tail -n 1)
[ -f "$wheel" ] || fail "build-wheel.sh did not print a wheel's path (got: $wheel)"
size=$(stat -c %s "$wheel")
phase "built $wheel ($((size / 1024)) KiB)"
tools=$target/wheel-tools
want="auditwheel==$AUDITWHEEL_VERSION pipx==$PIPX_VERSION uv==$UV_VERSION"
if ! "$tools/bin/python" - $want <<'EOF'; then
import sys
from importlib import metadata
for pin in sys.argv[1:]:
    name, version = pin.split("==")
    try:
        if metadata.version(name) != version:
            sys.exit(1)
    except metadata.PackageNotFoundError:
        sys.exit(1)
EOF
    # shellcheck disable=SC2086
    "$tools/bin/python" -m pip install --quiet --disable-pip-version-check $want
fi

# 2. What the wheel holds, and auditwheel.
name=$(basename "$wheel")
case "$name" in
    "nvq-$version-py3-none-"*.whl) ;;
    *) fail "the wheel's name $name is not nvq-$version-py3-none-PLATFORM.whl" ;;
esac
tag=${name#"nvq-$version-py3-none-"}
tag=${tag%.whl}
case "$tag" in
    manylinux_*) ;;
    *) fail "the wheel's platform tag is $tag, not a manylinux tag" ;;
esac
"$tools/bin/python" -m zipfile -l "$wheel" | awk 'NR > 1 { print $1 }' | sort >"$work/contents.txt"
cat "$work/contents.txt"
data="nvq-$version.data"
for f in "$data/scripts/nvq" "$data/scripts/nvq-top" "$data/data/lib/nvq/libnvml_sim.so" "$data/data/share/man/man1/nvq.1" \
    "$data/data/share/bash-completion/completions/nvq" "$data/data/share/zsh/site-functions/_nvq" \
    "$data/data/share/fish/vendor_completions.d/nvq.fish" nvq/__init__.py nvq/__main__.py \
    "nvq-$version.dist-info/licenses/LICENSE-MIT" "nvq-$version.dist-info/licenses/LICENSE-APACHE"; do
    grep -qxF "$f" "$work/contents.txt" || fail "the wheel lacks $f"
done
if grep -q nvidia-smi "$work/contents.txt"; then
    fail "the wheel holds an nvidia-smi file: $(grep nvidia-smi "$work/contents.txt")"
fi
"$tools/bin/python" -m zipfile -e "$wheel" "$work/unpacked"
meta=$work/unpacked/nvq-$version.dist-info/METADATA
grep -qx "Version: $version" "$meta" || fail "METADATA lacks Version: $version"
grep -qx "License-Expression: MIT OR Apache-2.0" "$meta" || fail "METADATA lacks the license expression"
grep -qx "Description-Content-Type: text/markdown" "$meta" || fail "METADATA lacks a markdown project page"
grep -qx "## Install" "$meta" || fail "the project page lacks the Install part of README.md"
if grep -q '^Requires-Python' "$meta"; then
    fail "METADATA limits the Python version: $(grep '^Requires-Python' "$meta")"
fi

phase "auditwheel show"
audit=$("$tools/bin/auditwheel" show "$wheel" 2>&1) || fail "auditwheel show failed: $audit"
echo "$audit"
# auditwheel names the most compatible tag the files allow, e.g.
# "... is consistent with the following platform tag: "manylinux_2_34_x86_64"."
consistent=$(tr '\n' ' ' <<<"$audit" | sed -n 's/.*following platform tag: *"\([^"]*\)".*/\1/p')
[ -n "$consistent" ] || fail "auditwheel show names no platform tag"
[ "$consistent" = "$tag" ] || fail "auditwheel says $consistent, the wheel is tagged $tag"

# 3. and 4. Install, use and remove, three ways. Each installer gets its own
# HOME and directories under $work; nvq runs from a scratch directory with a
# minimal environment, no cargo or build tree on PATH.
mkdir -p "$work/cwd"
isolated() {
    local home=$1
    shift
    mkdir -p "$home"
    env -u NVQ_NVML_LIB -u NVML_SIM_SCENARIO -u PIP_FIND_LINKS -u VIRTUAL_ENV \
        -u PYTHONPATH -u PYTHONHOME -u XDG_DATA_HOME -u XDG_BIN_HOME \
        HOME="$home" PIP_CONFIG_FILE=/dev/null PIP_DISABLE_PIP_VERSION_CHECK=1 "$@"
}
check_nvq() {
    local exe=$1 out
    out=$(cd "$work/cwd" && env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME="$work/cwd" LANG=C.UTF-8 \
        "$exe" --simulate --query-gpu=index,name --format=csv) || fail "$exe --simulate failed"
    echo "$out"
    [ "$(head -n 1 <<<"$out")" = "index, name" ] || fail "unexpected header from $exe --simulate: $out"
    tail -n +2 <<<"$out" | grep -q '^[0-9][0-9]*, ' || fail "no GPU rows from $exe --simulate: $out"
    out=$(cd "$work/cwd" && env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME="$work/cwd" LANG=C.UTF-8 \
        "$exe" --simulate --version) || fail "$exe --simulate --version failed"
    echo "$out"
    [ "$(head -n 1 <<<"$out")" = "nvq version         : $version" ] || fail "$exe --version is not $version"
    # The docs' topology examples: a built-in example machine, by name.
    out=$(cd "$work/cwd" && env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME="$work/cwd" LANG=C.UTF-8 \
        NVML_SIM_SCENARIO=dgx_h100_8gpu "$exe" --simulate topo -m) || fail "$exe --simulate topo -m failed"
    grep -q '^GPU0.*NV18' <<<"$out" || fail "$exe: NVML_SIM_SCENARIO=dgx_h100_8gpu topo -m: $out"
    # nvq top, through nvq-top installed beside nvq.
    out=$(cd "$work/cwd" && env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME="$work/cwd" LANG=C.UTF-8 \
        "$exe" --simulate top --once) || fail "$exe --simulate top --once failed"
    grep -q 'nvq top .* 2 GPUs' <<<"$out" || fail "$exe --simulate top --once: $out"
}
gone() {
    local what=$1
    shift
    for p in "$@"; do
        [ -e "$p" ] || [ -L "$p" ] && fail "left behind after $what: $p"
    done
    return 0
}

phase "pip install into a fresh venv"
venv=$work/venv
"$py" -m venv "$venv"
isolated "$work/pip-home" "$venv/bin/python" -m pip install --quiet --no-index "$wheel"
[ -x "$venv/bin/nvq" ] || fail "pip did not install $venv/bin/nvq"
[ -x "$venv/bin/nvq-top" ] || fail "pip did not install $venv/bin/nvq-top"
[ -f "$venv/lib/nvq/libnvml_sim.so" ] || fail "pip did not install $venv/lib/nvq/libnvml_sim.so"
[ -f "$venv/share/man/man1/nvq.1" ] || fail "pip did not install $venv/share/man/man1/nvq.1"
check_nvq "$venv/bin/nvq"
pym() { (cd "$work/cwd" && env -i PATH=/usr/bin:/bin HOME="$work/cwd" "$venv/bin/python" -m nvq "$@"); }
out=$(pym --simulate --version) || fail "python -m nvq --simulate --version failed"
[ "$(head -n 1 <<<"$out")" = "nvq version         : $version" ] || fail "python -m nvq --version: $out"
echo "python -m nvq --simulate --version: $(head -n 1 <<<"$out")"
rc=0
pym --no-such-option >/dev/null 2>&1 || rc=$?
[ "$rc" = 2 ] || fail "python -m nvq --no-such-option exits $rc, not nvq's 2"
if ! ldconfig -p 2>/dev/null | grep -q 'libnvidia-ml\.so\.1 '; then
    rc=0
    msg=$(env -i PATH=/usr/bin:/bin "$venv/bin/nvq" --version 2>&1) || rc=$?
    [ "$rc" = 12 ] || fail "without NVML, nvq --version exits $rc, not 12: $msg"
    echo "without NVML: nvq --version exits 12"
fi
# Every file the RECORD lists, as an absolute path.
"$venv/bin/python" - >"$work/record.txt" <<'EOF'
import os
from importlib import metadata
for f in metadata.distribution("nvq").files:
    print(os.path.normpath(f.locate()))
EOF
echo "RECORD: $(wc -l <"$work/record.txt") files"
grep -qxF "$venv/bin/nvq" "$work/record.txt" || fail "the RECORD lacks $venv/bin/nvq"
grep -qxF "$venv/lib/nvq/libnvml_sim.so" "$work/record.txt" || fail "the RECORD lacks the simulator"
if grep -q nvidia-smi "$work/record.txt"; then
    fail "pip installed an nvidia-smi file: $(grep nvidia-smi "$work/record.txt")"
fi
isolated "$work/pip-home" "$venv/bin/python" -m pip uninstall --quiet -y nvq
mapfile -t recorded <"$work/record.txt"
gone "pip uninstall" "${recorded[@]}" "$venv/lib/nvq"
phase "pip: installed, used and uninstalled; $(wc -l <"$work/record.txt") files gone"

phase "pipx install"
pipx_env=(PIPX_HOME="$work/pipx/home" PIPX_BIN_DIR="$work/pipx/bin" PIPX_MAN_DIR="$work/pipx/man"
    PIPX_DEFAULT_PYTHON="$py")
isolated "$work/pipx-home" "${pipx_env[@]}" "$tools/bin/pipx" install --pip-args=--no-index "$wheel"
entry=$work/pipx/bin/nvq
[ -L "$entry" ] || fail "pipx did not link $entry"
echo "$entry -> $(readlink "$entry")"
check_nvq "$entry"
[ -e "$work/pipx/man/man1/nvq.1" ] || fail "pipx did not expose the man page"
isolated "$work/pipx-home" "${pipx_env[@]}" "$tools/bin/pipx" uninstall nvq
gone "pipx uninstall" "$entry" "$work/pipx/man/man1/nvq.1" "$work/pipx/home/venvs/nvq"
phase "pipx: installed, used and uninstalled"

phase "uv tool install"
uv_env=(UV_TOOL_DIR="$work/uv/tools" UV_TOOL_BIN_DIR="$work/uv/bin" UV_CACHE_DIR="$work/uv/cache"
    UV_PYTHON_DOWNLOADS=never UV_NO_CONFIG=1 UV_OFFLINE=1)
isolated "$work/uv-home" "${uv_env[@]}" "$tools/bin/uv" tool install --python "$py" "$wheel"
entry=$work/uv/bin/nvq
[ -e "$entry" ] || fail "uv did not install $entry"
[ -L "$entry" ] && echo "$entry -> $(readlink "$entry")"
check_nvq "$entry"
isolated "$work/uv-home" "${uv_env[@]}" "$tools/bin/uv" tool uninstall nvq
gone "uv tool uninstall" "$entry" "$work/uv/tools/nvq"
phase "uv: installed, used and uninstalled"

# 5. From the checkout, as Python users install a tool: the wheel pip builds
# from it holds what build-wheel.sh's does, byte for byte; then
# `pip install .`, `pipx install .`, `uv tool install .` and
# `pipx install git+file://` of this commit, each used and removed. They
# build through pyproject.toml's backend (maturin from PyPI, in each
# installer's build environment), with cargo's target folder the one above,
# so that cargo reuses that build (a clone's own crates are built again).
# The installers run under a throw-away HOME: cargo and rustup keep theirs.
rust_env=(CARGO_HOME="${CARGO_HOME:-$HOME/.cargo}" RUSTUP_HOME="${RUSTUP_HOME:-$HOME/.rustup}"
    CARGO_TARGET_DIR="$target")
phase "pip wheel . (the same wheel as build-wheel.sh's)"
"$py" -m venv "$work/src-venv"
isolated "$work/src-pip-home" "${rust_env[@]}" "$work/src-venv/bin/python" -m pip wheel --quiet --no-deps \
    -w "$work/pip-wheel" "$repo" >&2
"$tools/bin/python" - "$wheel" "$work"/pip-wheel/nvq-*.whl <<'EOF'
import hashlib, sys, zipfile
def files(path):
    with zipfile.ZipFile(path) as z:
        return {n: hashlib.sha256(z.read(n)).hexdigest() for n in z.namelist()}
# Every file but three of dist-info: WHEEL names the platform tag (maturin
# tags a PEP 517 build plain linux_ARCH; auditwheel's manylinux check is
# build-wheel.sh's), RECORD hashes WHEEL, and the SBOM has a serial number
# of its own each build.
def same(n):
    return not (n.endswith(".dist-info/WHEEL") or n.endswith(".dist-info/RECORD") or "/sboms/" in n)
a, b = files(sys.argv[1]), files(sys.argv[2])
differ = sorted(n for n in a.keys() | b.keys() if same(n) and a.get(n) != b.get(n))
if differ:
    sys.exit(f"wheel-check: FAIL: pip's wheel from the checkout differs from build-wheel.sh's in: {differ}")
print(f"pip's wheel from the checkout: the same {len(a)} files as build-wheel.sh's")
EOF

phase "pip install . into a fresh venv"
isolated "$work/src-pip-home" "${rust_env[@]}" "$work/src-venv/bin/python" -m pip install --quiet "$repo" >&2
check_nvq "$work/src-venv/bin/nvq"
isolated "$work/src-pip-home" "$work/src-venv/bin/python" -m pip uninstall --quiet -y nvq
gone "pip uninstall" "$work/src-venv/bin/nvq" "$work/src-venv/lib/nvq"

phase "pipx install ."
isolated "$work/pipx-home" "${pipx_env[@]}" "${rust_env[@]}" "$tools/bin/pipx" install "$repo" >&2
check_nvq "$work/pipx/bin/nvq"
isolated "$work/pipx-home" "${pipx_env[@]}" "$tools/bin/pipx" uninstall nvq
gone "pipx uninstall" "$work/pipx/bin/nvq" "$work/pipx/home/venvs/nvq"

phase "uv tool install ."
uv_src_env=(UV_TOOL_DIR="$work/uv/tools" UV_TOOL_BIN_DIR="$work/uv/bin" UV_CACHE_DIR="$work/uv/cache"
    UV_PYTHON_DOWNLOADS=never UV_NO_CONFIG=1)
isolated "$work/uv-home" "${uv_src_env[@]}" "${rust_env[@]}" "$tools/bin/uv" tool install --python "$py" "$repo" >&2
check_nvq "$work/uv/bin/nvq"
isolated "$work/uv-home" "${uv_src_env[@]}" "$tools/bin/uv" tool uninstall nvq
gone "uv tool uninstall" "$work/uv/bin/nvq" "$work/uv/tools/nvq"

commit=$(git -C "$repo" rev-parse HEAD)
phase "pipx install git+file://$repo@$commit (a clone: minutes)"
isolated "$work/pipx-home" "${pipx_env[@]}" "${rust_env[@]}" "$tools/bin/pipx" install "git+file://$repo@$commit" >&2
check_nvq "$work/pipx/bin/nvq"
isolated "$work/pipx-home" "${pipx_env[@]}" "$tools/bin/pipx" uninstall nvq
gone "pipx uninstall" "$work/pipx/bin/nvq" "$work/pipx/home/venvs/nvq"

phase "done: wheel $name, $((size / 1024)) KiB, tag $tag checked by auditwheel; pip, pipx and uv tool, from the wheel and from the checkout"
