#!/usr/bin/env bash
# Compare nvq with the real nvidia-smi on a machine with an NVIDIA GPU.
#
# Runs both tools side by side, each query once with nvidia-smi and right
# after with nvq, and prints every line that differs:
#   1. one query of every field this nvidia-smi knows, in four formats
#      (csv; csv,noheader; csv,nounits; csv,noheader,nounits);
#   2. one query per field, in the same four formats (in parallel).
# Only the timestamp is masked (any YYYY/MM/DD HH:MM:SS.mmm becomes
# <timestamp>). Readings that move between two runs (power, clocks,
# temperature, utilization) can differ on a busy GPU: run it on an idle one.
#
# Usage: scripts/compare-with-nvidia-smi.sh [-j JOBS]
# Environment:
#   NVQ          nvq binary (default: the newer of target/release/nvq and target/debug/nvq)
#   NVIDIA_SMI   nvidia-smi binary (default: nvidia-smi)
#   FIELDS       comma-separated fields to compare (default: every field both know)
# Exit status: 0 when everything matches, 1 when anything differs, 2 on a setup error.
set -u -o pipefail

jobs=$(nproc 2>/dev/null || echo 4)
while getopts "j:" opt; do
    case $opt in
        j) jobs=$OPTARG ;;
        *) echo "usage: $0 [-j JOBS]" >&2; exit 2 ;;
    esac
done

root=$(cd "$(dirname "$0")/.." && pwd)
smi=${NVIDIA_SMI:-nvidia-smi}
nvq=${NVQ:-}
if [ -z "$nvq" ]; then
    target=${CARGO_TARGET_DIR:-$root/target}
    for c in "$target/release/nvq" "$target/debug/nvq"; do
        if [ -x "$c" ] && { [ -z "$nvq" ] || [ "$c" -nt "$nvq" ]; }; then nvq=$c; fi
    done
fi
if [ -z "$nvq" ] || [ ! -x "$nvq" ]; then
    echo "nvq binary not found: build it (cargo build --release) or set NVQ" >&2
    exit 2
fi
if ! command -v "$smi" >/dev/null 2>&1; then
    echo "$smi not found: set NVIDIA_SMI" >&2
    exit 2
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The fields a tool lists in --help-query-gpu: a line starting with a quote
# that follows an empty line; the first quoted word is the canonical name.
list_fields() {
    "$@" --help-query-gpu | awk 'prev == "" && /^"/ { split($0, a, "\""); print a[2] } { prev = $0 }'
}
list_fields "$smi" >"$work/smi.fields" || { echo "cannot run $smi --help-query-gpu" >&2; exit 2; }
list_fields "$nvq" >"$work/nvq.fields" || { echo "cannot run $nvq --help-query-gpu" >&2; exit 2; }

if [ -n "${FIELDS:-}" ]; then
    tr ',' '\n' <<<"$FIELDS" >"$work/fields"
else
    grep -Fxf "$work/nvq.fields" "$work/smi.fields" >"$work/fields"
fi
missing=$(grep -Fxvf "$work/nvq.fields" "$work/smi.fields" || true)
extra=$(grep -Fxvf "$work/smi.fields" "$work/nvq.fields" || true)
status=0
if [ -n "$missing" ]; then
    echo "== fields this nvidia-smi lists that nvq does not know:"
    sed 's/^/   /' <<<"$missing"
    status=1
fi
if [ -n "$extra" ]; then
    echo "== fields nvq knows that this nvidia-smi does not list (not compared): $(tr '\n' ' ' <<<"$extra")"
fi

formats=("csv" "csv,noheader" "csv,nounits" "csv,noheader,nounits")
mask() { sed -E 's#[0-9]{4}/[0-9]{2}/[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}#<timestamp>#g'; }

# compare NAME QUERY FORMAT: run both, write a report to $work/diff.NAME.FORMAT if they differ.
compare() {
    local name=$1 query=$2 format=$3 out
    out="$work/diff.$name.${format//,/_}"
    local a b
    a=$("$smi" --query-gpu="$query" --format="$format" 2>&1; echo "exit $?")
    b=$("$nvq" --query-gpu="$query" --format="$format" 2>&1; echo "exit $?")
    if ! diff <(mask <<<"$a") <(mask <<<"$b") >"$out.tmp" 2>&1; then
        {
            echo "== $name, --format=$format (< nvidia-smi, > nvq)"
            cat "$out.tmp"
        } >"$out"
    fi
    rm -f "$out.tmp"
}
export -f compare mask
export smi nvq work

# 1. Every field in one query.
all=$(paste -sd, "$work/fields")
for f in "${formats[@]}"; do
    compare ALL "$all" "$f"
done

# 2. One query per field, in parallel.
while read -r field; do
    for f in "${formats[@]}"; do
        printf '%s\0%s\0' "$field" "$f"
    done
done <"$work/fields" | xargs -0 -n 2 -P "$jobs" bash -c 'compare "$1" "$1" "$2"' _

reports=$(find "$work" -name 'diff.*' -type f | sort)
if [ -n "$reports" ]; then
    # shellcheck disable=SC2086
    cat $reports
    n=$(wc -l <<<"$reports")
    echo "== $n comparisons differ"
    status=1
else
    echo "== all $(wc -l <"$work/fields") fields match in ${#formats[@]} formats (one query and one per field)"
fi
exit $status
