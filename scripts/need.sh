# Sourced by the check scripts: what a check needs that a machine may lack
# (a tool, root, python3's venv module). Each need_* returns 0 when the need
# is met. When it is not, and the environment requires it (CI sets
# NVQ_REQUIRE_TOOLS=1 and NVQ_REQUIRE_ROOT=1 in .ci/run), the script fails
# (exit 1); otherwise the skip is said, recorded in $NVQ_SKIP_LOG (the file
# whose banner scripts/test-all.sh prints at the end; tests/common/skip.rs
# writes the same lines) and the function returns 1, and the caller skips:
#   need_root fleet-check "ip netns" || exit 0

# skip_or_fail CHECK VAR WHY
skip_or_fail() {
    local check=$1 var=$2 why=$3
    if [ "${!var:-}" = 1 ]; then
        echo "$check: FAIL: $why ($var=1: required here)" >&2
        exit 1
    fi
    echo "$check: skipped ($why)"
    if [ -n "${NVQ_SKIP_LOG:-}" ]; then
        printf '%s (with %s=1 this fails)\t%s\n' "$why" "$var" "$check" >>"$NVQ_SKIP_LOG"
    fi
    return 1
}

# need_tool CHECK TOOL [HOW TO INSTALL]
need_tool() {
    command -v "$2" >/dev/null && return 0
    skip_or_fail "$1" NVQ_REQUIRE_TOOLS "$2 is not installed${3:+ ($3)}"
}

# need_root CHECK WHAT-NEEDS-IT
need_root() {
    [ "$(id -u)" = 0 ] && return 0
    skip_or_fail "$1" NVQ_REQUIRE_ROOT "not root ($2 needs root)"
}

# need_venv CHECK [PYTHON]: a venv with pip in it (Debian's python3 needs
# python3-venv for that).
need_venv() {
    local py=${2:-python3} probe ok=0
    probe=$(mktemp -d)
    "$py" -m venv "$probe/venv" >/dev/null 2>&1 && ok=1
    rm -rf "$probe"
    [ "$ok" = 1 ] && return 0
    skip_or_fail "$1" NVQ_REQUIRE_TOOLS "$py's venv module is not installed (Debian: apt-get install python3-venv)"
}
