#!/usr/bin/env bash
# Compare nvq with the real nvidia-smi on a machine with an NVIDIA GPU, mode
# by mode, and keep every raw output in a bundle.
#
# Each command runs once with nvidia-smi and right after with nvq:
#   query   --query-gpu with every field both know, in four csv formats, and
#           one query per field (skipped with QUICK=1); every other
#           --query-* mode with all its fields, in the same formats
#   report  -q, each -d type, -q -x, -q -x --dtd
#   table   the summary table, -L, --version
#   dmon    every -s group and all together, --format csv (nounit,
#           noheader), --gpm-metrics
#   pmon    every -s group and both
#   topo    -m, -mp, each -p2p capability, -n, -p, -c
#   nvlink  -s, -c, -e, -p, -R, -ec, -gt d, -gt r
#   mig     -lgi, -lci, -lgip, -lcip, -lgipp, -lcipp
#   vgpu    vgpu, vgpu -q, vgpu -s, vgpu -c, vgpu -s -v
#   errors  bad options and values: their texts and exit codes
# and the bundle (-o DIR, default ./nvq-compare-<host>-<time>) gets, for
# each command, both outputs with the command line, exit code and wall time
# (cases/NAME.smi, cases/NAME.nvq, cases/NAME.diff when they differ), the
# driver version, the GPUs' and their upstream PCIe ports' max_link_speed /
# max_link_width from sysfs (whether `Host Max` is the host side of the
# link), what nvmlDeviceGetBoardPartNumber returns (through pynvml, when
# installed) beside `-q`'s part numbers, and summary.txt: per mode, how
# many commands and lines differ, and both tools' total wall time.
# Two open questions get their own files: day-padding.txt (the `-q` and
# `-q -x` timestamps of both tools run under faketime on the 5th of a
# month, when faketime is installed: apt-get install faketime; a run on
# days 1-9 settles it without), and, with LOAD_CMD set (a command that
# keeps the GPU busy, e.g. an ffmpeg NVENC encode), pmon under that load
# (cases/pmon.load-*: which engines print `-` and which `0`).
#
# Masked before comparing: timestamps (YYYY/MM/DD HH:MM:SS.mmm), the date
# line of the summary table and dmon/pmon -o T, `-q`'s Timestamp. Readings
# that move between two runs (power, clocks, temperature, utilization)
# differ on a busy GPU: run it on an idle one. About 2-5 minutes on one GPU
# (at most 8), most of it the per-field queries.
#
# Usage: scripts/compare-with-nvidia-smi.sh [-j JOBS] [-o DIR] [--dry-run]
#   --dry-run  no GPU needed: nvidia-smi is nvq itself under that name (a
#              link), both reading the simulator (NVQ_NVML_LIB, default
#              target/debug/libnvml_sim.so; NVML_SIM_SCENARIO, default the
#              simulator's own): checks the script, not nvidia-smi.
# Environment:
#   NVQ          nvq binary (default: the newer of target/release/nvq and target/debug/nvq)
#   NVIDIA_SMI   nvidia-smi binary (default: nvidia-smi)
#   FIELDS       comma-separated --query-gpu fields to compare (default: every field both know)
#   QUICK=1      skip the per-field queries and the GPM sampling
#   LOAD_CMD     a command run in the background during pmon's load cases
# Exit status: 0 when everything matches, 1 when anything differs, 2 on a setup error.
set -u -o pipefail

jobs=$(nproc 2>/dev/null || echo 4)
bundle=""
dry=0
while [ $# -gt 0 ]; do
    case $1 in
        -j) jobs=$2; shift 2 ;;
        -o) bundle=$2; shift 2 ;;
        --dry-run) dry=1; shift ;;
        *) echo "usage: $0 [-j JOBS] [-o DIR] [--dry-run]" >&2; exit 2 ;;
    esac
done

root=$(cd "$(dirname "$0")/.." && pwd)
target=${CARGO_TARGET_DIR:-$root/target}
nvq=${NVQ:-}
if [ -z "$nvq" ]; then
    for c in "$target/release/nvq" "$target/debug/nvq"; do
        if [ -x "$c" ] && { [ -z "$nvq" ] || [ "$c" -nt "$nvq" ]; }; then nvq=$c; fi
    done
fi
if [ -z "$nvq" ] || [ ! -x "$nvq" ]; then
    echo "nvq binary not found: build it (cargo build --release) or set NVQ" >&2
    exit 2
fi
nvq=$(cd "$(dirname "$nvq")" && pwd)/$(basename "$nvq")

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if [ "$dry" = 1 ]; then
    mkdir -p "$work/bin"
    ln -s "$nvq" "$work/bin/nvidia-smi"
    smi=$work/bin/nvidia-smi
    if [ -z "${NVQ_NVML_LIB:-}" ]; then
        NVQ_NVML_LIB=$target/debug/libnvml_sim.so
        [ -e "$NVQ_NVML_LIB" ] || NVQ_NVML_LIB=$target/debug/deps/libnvml_sim.so
    fi
    export NVQ_NVML_LIB
    if [ ! -e "$NVQ_NVML_LIB" ]; then
        echo "no simulator at $NVQ_NVML_LIB: cargo build -p nvml-sim, or set NVQ_NVML_LIB" >&2
        exit 2
    fi
else
    smi=${NVIDIA_SMI:-nvidia-smi}
fi
if ! command -v "$smi" >/dev/null 2>&1; then
    echo "$smi not found: set NVIDIA_SMI" >&2
    exit 2
fi
if [ -z "$bundle" ]; then
    bundle=nvq-compare-$(hostname 2>/dev/null || echo host)-$(date +%Y%m%d-%H%M%S)
fi
mkdir -p "$bundle/cases" || exit 2
bundle=$(cd "$bundle" && pwd)
export smi nvq work bundle

# The fields a tool lists in --help-query-MODE: a line starting with a quote
# that follows an empty line; the first quoted word is the canonical name.
list_fields() {
    local mode=$1
    shift
    "$@" "--help-query-$mode" | awk 'prev == "" && /^"/ { split($0, a, "\""); print a[2] } { prev = $0 }'
}
list_fields gpu "$smi" >"$work/smi.fields" || { echo "cannot run $smi --help-query-gpu" >&2; exit 2; }
list_fields gpu "$nvq" >"$work/nvq.fields" || { echo "cannot run $nvq --help-query-gpu" >&2; exit 2; }

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

# What moves between two runs and is not a difference.
mask() {
    sed -E \
        -e 's#[0-9]{4}/[0-9]{2}/[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}#<timestamp>#g' \
        -e 's#^(Mon|Tue|Wed|Thu|Fri|Sat|Sun) [A-Z][a-z]{2} [ 0-9][0-9] [0-9:]{8} [0-9]{4} *$#<date>#' \
        -e 's#^(Timestamp +: ).*#\1<date>#' \
        -e 's#<timestamp>[^<]*</timestamp>#<timestamp/>#' \
        -e 's#^(exit [0-9]+) in [0-9]+ ms$#\1#'
}

# Microseconds since the epoch: bash's own clock (5.0 and later), else date's.
now_us() {
    if [ -n "${EPOCHREALTIME:-}" ]; then
        echo "${EPOCHREALTIME/[.,]/}"
    else
        echo $(($(date +%s%N) / 1000))
    fi
}

# run TOOL ARGS...: the output (stdout and stderr), then `exit N in T ms`.
run() {
    local tool=$1 t0 t1 rc
    shift
    t0=$(now_us)
    "$tool" "$@" 2>&1
    rc=$?
    t1=$(now_us)
    echo "exit $rc in $(((t1 - t0) / 1000)) ms"
}

# case MODE NAME ARGS...: run both, keep both outputs, and the diff if they differ.
case_() {
    local mode=$1 name=$2 out
    shift 2
    out="$bundle/cases/$mode.$name"
    { echo "\$ nvidia-smi $*"; run "$smi" "$@"; } >"$out.smi"
    { echo "\$ nvq $*"; run "$nvq" "$@"; } >"$out.nvq"
    if ! diff <(tail -n +2 "$out.smi" | mask) <(tail -n +2 "$out.nvq" | mask) >"$out.diff" 2>&1; then
        :
    else
        rm -f "$out.diff"
    fi
}
export -f now_us mask run case_

formats=("csv" "csv,noheader" "csv,nounits" "csv,noheader,nounits")
fmt_name() { tr ',' '_' <<<"$1"; }

# query: every field at once, then one per field (in parallel).
all=$(paste -sd, "$work/fields")
for f in "${formats[@]}"; do
    case_ query "gpu-all.$(fmt_name "$f")" --query-gpu="$all" --format="$f"
done
if [ "${QUICK:-0}" != 1 ]; then
    while read -r field; do
        for f in "${formats[@]}"; do
            printf '%s\0%s\0%s\0' "gpu-$field.$(fmt_name "$f")" "--query-gpu=$field" "--format=$f"
        done
    done <"$work/fields" | xargs -0 -n 3 -P "$jobs" bash -c 'case_ query "$1" "$2" "$3"' _
fi
for mode in compute-apps accounted-apps retired-pages remapped-rows supported-clocks; do
    fields=$(list_fields "$mode" "$smi" 2>/dev/null | paste -sd,)
    [ -n "$fields" ] || fields=$(list_fields "$mode" "$nvq" | paste -sd,)
    for f in "${formats[@]}"; do
        case_ query "$mode.$(fmt_name "$f")" --query-"$mode"="$fields" --format="$f"
    done
done

# report
case_ report q -q
for d in MEMORY UTILIZATION ECC TEMPERATURE POWER CLOCK COMPUTE PIDS PERFORMANCE SUPPORTED_CLOCKS \
    PAGE_RETIREMENT ACCOUNTING ENCODER_STATS SUPPORTED_GPU_TARGET_TEMP VOLTAGE FBC_STATS \
    ROW_REMAPPER GSP_FIRMWARE_VERSION POWER_SMOOTHING POWER_PROFILES; do
    case_ report "d-$d" -q -d "$d"
done
case_ report x -q -x
case_ report dtd -q -x --dtd

# table
case_ table summary
case_ table L -L
case_ table version --version

# dmon and pmon: one sample each (GPM metrics need three: values from the third).
for s in p u c v m e t pucvmet; do
    case_ dmon "s-$s" dmon -c 1 -s "$s"
done
for f in csv csv,nounit csv,noheader csv,nounit,noheader; do
    case_ dmon "format-$(fmt_name "$f")" dmon -c 1 --format "$f"
done
if [ "${QUICK:-0}" != 1 ]; then
    case_ dmon gpm dmon -c 3 --gpm-metrics 1,2,3,5,10,13
fi
for s in u m um; do
    case_ pmon "s-$s" pmon -c 1 -s "$s"
done
# pmon's `-` and `0` (which engines a busy process's sample carries):
# under a load of the caller's choosing, five samples of each tool.
if [ -n "${LOAD_CMD:-}" ]; then
    bash -c "$LOAD_CMD" >"$bundle/load.log" 2>&1 &
    load=$!
    sleep 3
    case_ pmon load-um pmon -c 5 -s um
    kill "$load" 2>/dev/null
    wait "$load" 2>/dev/null
fi

# topo, nvlink, mig
gpus=$("$smi" -L 2>/dev/null | grep -c '^GPU ')
case_ topo m topo -m
case_ topo mp topo -mp
for p in r w n a p; do
    case_ topo "p2p-$p" topo -p2p "$p"
done
case_ topo n topo -n 1 -i 0
case_ topo c topo -c 0
if [ "$gpus" -ge 2 ]; then
    case_ topo p topo -p -i 0,1
fi
for o in -s -c -e -p -R -ec; do
    case_ nvlink "${o#-}" nvlink "$o"
done
case_ nvlink gt-d nvlink -gt d
case_ nvlink gt-r nvlink -gt r
for o in -lgi -lci -lgip -lcip -lgipp -lcipp; do
    case_ mig "${o#-}" mig "$o"
done

# vgpu (read-only family)
case_ vgpu plain vgpu
case_ vgpu q vgpu -q
case_ vgpu s vgpu -s
case_ vgpu c vgpu -c
case_ vgpu s-v vgpu -s -v

# errors: texts and exit codes
case_ errors dmon-d-0 dmon -d 0
case_ errors pmon-d-11 pmon -d 11
case_ errors dmon-s-z dmon -s z
case_ errors pmon-s-z pmon -s z
case_ errors bad-field --query-gpu=no.such.field --format=csv
case_ errors bad-option --no-such-option
case_ errors missing-value --query-gpu
case_ errors format-alone --format=csv
case_ errors topo-i topo -i 0
case_ errors bad-id -i 99 -L
case_ errors bad-display -q -d NO_SUCH_TYPE

# What the bundle keeps besides the cases.
{
    echo "nvidia-smi: $smi"
    echo "nvq: $nvq ($("$nvq" --version 2>&1 | head -1))"
    echo "driver: $("$smi" --query-gpu=driver_version --format=csv,noheader 2>&1 | head -1)"
    echo "dry run: $dry"
} >"$bundle/versions.txt"
# `<timestamp>`'s and `Timestamp`'s day padding shows on days 1-9 only.
{
    echo "today: $(date '+%a %b %e %Y')"
    if command -v faketime >/dev/null 2>&1; then
        for tool in "$smi" "$nvq"; do
            echo "== $tool under faketime 2026-01-05 12:00:00"
            faketime '2026-01-05 12:00:00' "$tool" -q 2>&1 | grep -m1 '^Timestamp'
            faketime '2026-01-05 12:00:00' "$tool" -q -x 2>&1 | grep -m1 '<timestamp>'
        done
    else
        echo "faketime not installed (apt-get install faketime): only a run on days 1-9 shows the padding"
    fi
} >"$bundle/day-padding.txt" 2>&1
# Host Max: the GPU's and its upstream ports' link maxima, from sysfs.
{
    "$smi" --query-gpu=index,pci.bus_id,pcie.link.gen.max,pcie.link.gen.gpumax,pcie.link.gen.hostmax,pcie.link.width.max \
        --format=csv 2>&1
    for id in $("$smi" --query-gpu=pci.bus_id --format=csv,noheader 2>/dev/null); do
        # 00000000:01:00.0 -> 0000:01:00.0, as sysfs names it.
        dev=/sys/bus/pci/devices/$(tr 'A-F' 'a-f' <<<"${id#????}")
        [ -e "$dev" ] || { echo "$id: no $dev"; continue; }
        path=$(readlink -f "$dev")
        while [ "$path" != / ] && [ -e "$path/max_link_speed" ]; do
            echo "$path: max_link_speed=$(cat "$path/max_link_speed" 2>&1)" \
                "max_link_width=$(cat "$path/max_link_width" 2>&1)" \
                "current_link_speed=$(cat "$path/current_link_speed" 2>&1)"
            path=$(dirname "$path")
        done
    done
} >"$bundle/pcie-links.txt" 2>&1
# The part numbers: -q's lines and NVML's own call.
{
    echo "nvidia-smi -q:"
    "$smi" -q 2>&1 | grep -E 'Part Number'
    echo "nvq -q:"
    "$nvq" -q 2>&1 | grep -E 'Part Number'
    echo "nvmlDeviceGetBoardPartNumber (pynvml):"
    python3 -c 'import pynvml as n
n.nvmlInit()
for i in range(n.nvmlDeviceGetCount()):
    h = n.nvmlDeviceGetHandleByIndex(i)
    try:
        print(i, n.nvmlDeviceGetBoardPartNumber(h))
    except n.NVMLError as e:
        print(i, "error:", e)' 2>&1 || echo "(pynvml not installed)"
} >"$bundle/part-numbers.txt" 2>&1

# Summary: per mode, commands and differing lines, and the wall time of each tool.
ms() { grep -h '^exit [0-9]* in ' "$@" 2>/dev/null | awk '{ t += $4 } END { print t + 0 }'; }
{
    printf '%-8s %8s %8s %10s %10s %10s\n' mode commands differ lines smi_ms nvq_ms
    for mode in query report table dmon pmon topo nvlink mig vgpu errors; do
        n=$(find "$bundle/cases" -name "$mode.*.smi" | wc -l)
        [ "$n" -gt 0 ] || continue
        d=$(find "$bundle/cases" -name "$mode.*.diff" | wc -l)
        lines=$(find "$bundle/cases" -name "$mode.*.diff" -exec cat {} + | grep -c '^[<>]')
        printf '%-8s %8d %8d %10d %10d %10d\n' "$mode" "$n" "$d" "$lines" \
            "$(ms "$bundle"/cases/"$mode".*.smi)" "$(ms "$bundle"/cases/"$mode".*.nvq)"
    done
} >"$bundle/summary.txt"
if find "$bundle/cases" -name '*.diff' | grep -q .; then
    status=1
fi
cat "$bundle/summary.txt"
echo "== bundle: $bundle"
exit $status
