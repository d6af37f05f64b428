#!/usr/bin/env bash
# Build nvq's Debian package and prove that it installs, works from the
# installed paths only, and removes cleanly:
#
#   1. cargo build --profile dist --workspace (Cargo.toml's distribution
#      profile, into target/dist/), then cargo deb --profile dist --no-build
#      (nvq and the simulator are built once, and a dist build that is
#      already there, scripts/build-wheel.sh's, is reused);
#   2. lintian: no errors;
#   3. dpkg -i;
#   4. from a scratch directory with a minimal environment: the simulator
#      query, the README's simulated examples (topo, the built-in example
#      machines by name, mem), --version, the message when NVML is missing, man -w nvq, bash
#      completion through bash-completion's on-demand loader (and zsh and
#      fish when installed), systemd-analyze verify on any unit;
#   5. dpkg -r, then no file or directory of the package is left.
#
# It installs into the running system, so it needs root and dpkg, and it
# refuses to run when an nvq package or a stray /usr/bin/nvq is already there.
# Without root, dpkg, cargo-deb, lintian, man or bash-completion it prints why,
# records the skip for scripts/test-all.sh's banner and exits 0 ("skipped"),
# unless NVQ_REQUIRE_ROOT=1 or NVQ_REQUIRE_TOOLS=1 (scripts/need.sh; CI sets
# both) or NVQ_DEB_CHECK=required (both at once), when it fails.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD

fail() {
    echo "deb-check: FAIL: $*" >&2
    exit 1
}

. scripts/need.sh
if [ "${NVQ_DEB_CHECK:-}" = required ]; then
    export NVQ_REQUIRE_ROOT=1 NVQ_REQUIRE_TOOLS=1
fi
need_root deb-check "installing the package with dpkg" || exit 0
need_tool deb-check dpkg || exit 0
need_tool deb-check lintian "apt-get install lintian" || exit 0
cargo deb --version >/dev/null 2>&1 \
    || skip_or_fail deb-check NVQ_REQUIRE_TOOLS "cargo-deb is not installed (cargo install cargo-deb --locked)" \
    || exit 0
need_tool deb-check man "apt-get install man-db" || exit 0
[ -f /usr/share/bash-completion/bash_completion ] \
    || skip_or_fail deb-check NVQ_REQUIRE_TOOLS "bash-completion is not installed (apt-get install bash-completion)" \
    || exit 0

if dpkg-query -W -f='${db:Status-Status}' nvq 2>/dev/null | grep -qv '^not-installed$'; then
    fail "an nvq package is already installed here; this check would replace and remove it"
fi
if [ -e /usr/bin/nvq ] || [ -e /usr/lib/nvq ]; then
    fail "/usr/bin/nvq or /usr/lib/nvq exists outside a package; this check would overwrite it"
fi

start=$SECONDS
phase() { echo "deb-check: [$((SECONDS - start))s] $*"; }
work=$(mktemp -d)
installed=0
cleanup() {
    if [ "$installed" = 1 ]; then
        dpkg -P nvq >/dev/null 2>&1 || true
    fi
    rm -rf "$work"
}
trap cleanup EXIT

version=$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -n 1)
entry=$(sed -n '1s/^nvq (\([^)]*\)).*/\1/p' packaging/debian/changelog)
[ "$entry" = "$version-1" ] || fail "packaging/debian/changelog starts with $entry, not $version-1: add an entry"

# 1. Build.
phase "cargo build --profile dist --workspace"
cargo build --quiet --profile dist --workspace --locked
phase "cargo deb --profile dist"
deb=$(cargo deb --quiet -p nvq --profile dist --no-build --locked | tail -n 1)
[ -f "$deb" ] || fail "cargo deb did not print the path of a .deb (got: $deb)"
size=$(stat -c %s "$deb")
phase "built $deb ($((size / 1024)) KiB)"
dpkg-deb -c "$deb"
depends=$(dpkg-deb -f "$deb" Depends)
echo "Depends: $depends"
if grep -qi nvidia <<<"$depends"; then
    fail "the package depends on an NVIDIA package: $depends"
fi

# 2. lintian: warnings are shown, errors fail.
phase "lintian"
lintian_out=$work/lintian.txt
lintian_rc=0
lintian --fail-on error "$deb" >"$lintian_out" 2>&1 || lintian_rc=$?
cat "$lintian_out"
if [ "$lintian_rc" != 0 ] || grep -q '^E: ' "$lintian_out"; then
    fail "lintian reports errors (exit $lintian_rc)"
fi
echo "lintian: $(grep -c '^E: ' "$lintian_out" || true) errors, $(grep -c '^W: ' "$lintian_out" || true) warnings"

# 3. Install.
phase "dpkg -i"
dpkg -i "$deb"
installed=1
dpkg -L nvq | sort >"$work/files.txt"

expect_file() {
    grep -qxF "$1" "$work/files.txt" || fail "the package lacks $1"
    [ -f "$1" ] || fail "$1 is not installed"
}
expect_file /usr/bin/nvq
expect_file /usr/lib/nvq/libnvml_sim.so
expect_file /usr/lib/nvq/nvq-top
[ -x /usr/lib/nvq/nvq-top ] || fail "/usr/lib/nvq/nvq-top is not executable"
expect_file /usr/share/bash-completion/completions/nvq
expect_file /usr/share/zsh/vendor-completions/_nvq
expect_file /usr/share/fish/vendor_completions.d/nvq.fish
expect_file /usr/share/doc/nvq/README.md
expect_file /usr/share/doc/nvq/LICENSE-MIT
expect_file /usr/share/doc/nvq/LICENSE-APACHE
expect_file /usr/share/doc/nvq/copyright
expect_file /usr/share/doc/nvq/changelog.Debian.gz
if grep -q 'nvidia-smi' "$work/files.txt"; then
    fail "the package installs an nvidia-smi file: $(grep nvidia-smi "$work/files.txt")"
fi

# 4. Run from the installed paths only: a scratch directory, no cargo or
#    build tree on PATH, no NVQ_*/NVML_* variables.
phase "installed nvq"
mkdir -p "$work/home" "$work/cwd"
cd "$work/cwd"
run() {
    env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME="$work/home" LANG=C.UTF-8 "$@"
}
where=$(run bash -c 'command -v nvq')
[ "$where" = /usr/bin/nvq ] || fail "nvq on PATH is $where, not /usr/bin/nvq"

out=$(run nvq --simulate --query-gpu=index,name --format=csv)
echo "$out"
[ "$(head -n 1 <<<"$out")" = "index, name" ] || fail "unexpected header from --simulate: $out"
rows=$(tail -n +2 <<<"$out" | grep -c '^[0-9][0-9]*, ' || true)
[ "$rows" -ge 1 ] || fail "no GPU rows from --simulate: $out"
# nvq top hands its screen to /usr/lib/nvq/nvq-top.
out=$(run nvq --simulate top --once)
grep -q 'nvq top .* 2 GPUs' <<<"$out" || fail "nvq --simulate top --once: $out"

# The README's and the guide's simulated examples, from the installed paths:
# the built-in machine's topology and the example machines chosen by name.
out=$(run nvq --simulate topo -m)
echo "$out"
grep -q '^GPU0.*NODE' <<<"$out" || fail "nvq --simulate topo -m shows no topology: $out"
out=$(run env NVML_SIM_SCENARIO=dgx_h100_8gpu nvq --simulate topo -m)
grep -q '^GPU0.*NV18' <<<"$out" || fail "NVML_SIM_SCENARIO=dgx_h100_8gpu topo -m: $out"
out=$(run env NVML_SIM_SCENARIO=pcie_8gpu_2numa nvq --simulate topo -n 1 -i 0)
echo "$out"
grep -q 'single PCIe switch to device(s): 1, 2, 3' <<<"$out" || fail "pcie_8gpu_2numa topo -n 1 -i 0: $out"
out=$(run nvq --simulate mem)
grep -q 'memory.used.percent' <<<"$out" || fail "nvq --simulate mem: $out"

out=$(run nvq --simulate --version)
echo "$out"
[ "$(head -n 1 <<<"$out")" = "nvq version         : $version" ] || fail "nvq --version does not start with nvq $version"
grep -q '^NVML version ' <<<"$out" || fail "nvq --version lacks the NVML version"
grep -q '^DRIVER version ' <<<"$out" || fail "nvq --version lacks the driver version"

if ! ldconfig -p | grep -q 'libnvidia-ml\.so\.1 '; then
    rc=0
    msg=$(run nvq --query-gpu=index --format=csv 2>&1) || rc=$?
    echo "without NVML: exit $rc: $msg"
    [ "$rc" = 12 ] || fail "without NVML nvq exits $rc, not 12"
    # nvq's own words (issue #30): the library it could not load, and the way out.
    grep -q "cannot load NVML from libnvidia-ml.so.1" <<<"$msg" || fail "without NVML nvq does not say so: $msg"
    grep -q -- "--simulate" <<<"$msg" || fail "without NVML nvq does not suggest --simulate: $msg"
fi

page=$(run man -w nvq)
echo "man -w nvq: $page"
case "$page" in
    /usr/share/man/man1/nvq.1*) [ -f "$page" ] || fail "man -w names a missing file: $page" ;;
    *) fail "man -w nvq gives $page, not the packaged page" ;;
esac

# bash: bash-completion loads /usr/share/bash-completion/completions/nvq on
# demand; complete `nvq --query-gpu=memory.u` as readline would (default
# COMP_WORDBREAKS, so `=` is a word of its own).
completion_driver='
    source /usr/share/bash-completion/bash_completion
    __load_completion nvq || exit 91
    spec=$(complete -p nvq) || exit 92
    func=${spec#*-F }; func=${func%% *}
    COMP_WORDS=(nvq --query-gpu = memory.u)
    COMP_CWORD=3
    COMP_LINE="nvq --query-gpu=memory.u"
    COMP_POINT=${#COMP_LINE}
    COMPREPLY=()
    "$func" nvq memory.u = 2>/dev/null
    printf "%s\n" "${COMPREPLY[@]}"
'
got=$(run bash --norc --noprofile -c "$completion_driver") || fail "bash completion failed (exit $?)"
echo "bash: nvq --query-gpu=memory.u<TAB>: $(tr '\n' ' ' <<<"$got")"
grep -qxF memory.used <<<"$got" || fail "bash completion of --query-gpu=memory.u lacks memory.used"
if grep -qv '^memory\.u' <<<"$got"; then
    fail "bash completion of --query-gpu=memory.u offers other words: $got"
fi

if command -v zsh >/dev/null; then
    got=$(run zsh -c 'autoload -Uz compinit && compinit -u -D && print -r -- ${_comps[nvq]}')
    [ "$got" = _nvq ] || fail "zsh does not find _nvq in its vendor-completions (got: $got)"
    echo "zsh: nvq completes with _nvq"
else
    echo "zsh: not installed; its completion file was checked only for presence"
fi
if command -v fish >/dev/null; then
    got=$(run fish -c "complete -C 'nvq --query-gpu=memory.u'" 2>/dev/null | cut -f1)
    grep -qxF -- --query-gpu=memory.used <<<"$got" || fail "fish does not complete --query-gpu=memory.u: $got"
    echo "fish: nvq --query-gpu=memory.u completes to memory.used"
else
    echo "fish: not installed; its completion file was checked only for presence"
fi

units=$(grep -E '^/(usr/)?lib/systemd/system/[^/]+\.(service|socket|timer)$' "$work/files.txt" || true)
if [ -n "$units" ]; then
    command -v systemd-analyze >/dev/null \
        || fail "the package has units but systemd-analyze is missing (apt-get install systemd)"
    # shellcheck disable=SC2086
    systemd-analyze verify $units || fail "systemd-analyze verify: $units"
    for u in $units; do
        state=$(systemctl is-enabled "$(basename "$u")" 2>/dev/null || true)
        [ "$state" != enabled ] || fail "$u is enabled by the package"
    done
    echo "systemd units verified: $units"
else
    echo "systemd: the package has no unit (nvq has no service yet)"
fi
cd "$repo"

# 5. Remove: nothing of the package may remain (it has no conffiles).
phase "dpkg -r"
conffiles=$(dpkg-query -W -f='${Conffiles}' nvq)
[ -z "$conffiles" ] || echo "conffiles (dpkg -r keeps these until purge): $conffiles"
dpkg -r nvq
installed=0
status=$(dpkg-query -W -f='${db:Status-Status}' nvq 2>/dev/null || echo not-installed)
case "$status" in
    not-installed) ;;
    config-files) [ -n "$conffiles" ] || fail "nvq is in state config-files without conffiles" ;;
    *) fail "after dpkg -r, nvq is in state $status" ;;
esac
left=()
while read -r path; do
    [ -n "$path" ] || continue
    grep -qxF -- "$path" <<<"$conffiles" && continue
    if [ -L "$path" ] || [ -f "$path" ]; then
        left+=("$path")
    elif [ -d "$path" ] && ! dpkg -S "$path" >/dev/null 2>&1; then
        # A directory that no other package owns must be gone.
        left+=("$path/")
    fi
done <"$work/files.txt"
if [ ${#left[@]} -gt 0 ]; then
    fail "left behind after dpkg -r: ${left[*]}"
fi
if dpkg -S /usr/bin/nvq >/dev/null 2>&1; then
    fail "dpkg still says a package owns /usr/bin/nvq"
fi
if [ -n "$conffiles" ]; then
    dpkg -P nvq
fi
phase "done: package $((size / 1024)) KiB, lintian clean of errors, installed, used and removed"
