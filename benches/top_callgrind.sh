#!/usr/bin/env bash
# What one sample of `nvq top` costs, in instructions (valgrind callgrind,
# which the machine's load does not change), not a test: the dist build in
# a 120x40 tmux window on tests/scenarios/top_8gpu.toml (8 simulated H100s,
# 9 processes, MIG on GPU 7) at --interval 100ms. Counting starts WARM
# seconds after the start (so start-up is left out) and stops SPAN seconds
# later, before `q`. Samples are counted from the simulator's calls of
# nvmlDeviceGetTemperature (one per GPU per sample), frames drawn from
# nvq's calls of its frame writer (`Frames::write`). Prints instructions per
# sample, split into nvq (with the Rust and C libraries) and the simulator
# (libnvml_sim.so), the code each object ran (distinct 64-byte lines: after
# the 100 ms a sample sleeps its code is cold in the caches, so this costs
# as well as the instructions), and the top functions by instructions.
#   benches/top_callgrind.sh          WARM=15 SPAN=30 (seconds), INTERVAL=100ms
#   NVQ=/path/to/nvq benches/top_callgrind.sh   (that binary, no build: a before/after pair;
#   it runs the nvq-top beside it, or the screen itself without one)
#   KEEP=FILE: keep callgrind's output there (for callgrind_annotate --inclusive=yes)
set -euo pipefail
cd "$(dirname "$0")/.."
WARM=${WARM:-15}
SPAN=${SPAN:-30}
INTERVAL=${INTERVAL:-100ms}
. benches/top_build.sh
work=$(mktemp -d)
sock=nvq-top-cg-$$
trap 'tmux -L "$sock" kill-server 2>/dev/null || true; rm -rf "$work"' EXIT
ln -s "$target/dist/libnvml_sim.so" "$work/libnvidia-ml.so.1"
tmux -L "$sock" -f /dev/null new-session -d -s cg -x 120 -y 40 \
  "echo \$\$ > $work/pid; export LD_LIBRARY_PATH=$work TERM=xterm-256color \
   NVML_SIM_SCENARIO=$PWD/tests/scenarios/top_8gpu.toml; exec valgrind --tool=callgrind --trace-children=yes \
   --dump-instr=yes --instr-atstart=no --callgrind-out-file=$work/cg.out $NVQ top \
   --nvml-lib $work/libnvidia-ml.so.1 --interval $INTERVAL 2>$work/valgrind.log"
sleep "$WARM"
pid=$(cat "$work/pid")
tmux -L "$sock" capture-pane -p -t cg | grep -q "8 GPUs" || { echo "no frame after $WARM s"; exit 1; }
callgrind_control -i on "$pid" >/dev/null
sleep "$SPAN"
callgrind_control -i off "$pid" >/dev/null
tmux -L "$sock" send-keys -t cg q
for _ in $(seq 100); do [ -s "$work/cg.out" ] && ! kill -0 "$pid" 2>/dev/null && break; sleep 0.2; done
[ -z "${KEEP:-}" ] || cp "$work/cg.out" "$KEEP"
python3 - "$work/cg.out" <<'EOF'
import re, sys
from collections import defaultdict
names, objs = {}, {}
def name(kind, table, text):
    m = re.match(r"\((\d+)\)(?: (.*))?", text)
    if not m:
        return text
    if m.group(2) is not None:
        table[m.group(1)] = m.group(2)
    return table.get(m.group(1), "?")
self_ir = defaultdict(int)
by_obj = defaultdict(int)
calls = defaultdict(int)
code = defaultdict(set)
fn = obj = cfn = None
pending = None
events = None
npos, addr = 1, 0
for line in open(sys.argv[1], errors="replace"):
    line = line.rstrip("\n")
    if line.startswith("events:"):
        events = line.split()[1:]
    elif line.startswith("positions:"):
        npos = len(line.split()) - 1
    elif line.startswith("ob="):
        obj = name("ob", objs, line[3:])
    elif line.startswith("fn="):
        fn = name("fn", names, line[3:])
    elif line.startswith("cob="):
        name("ob", objs, line[4:])
    elif line.startswith("cfn="):
        cfn = name("fn", names, line[4:])
    elif line.startswith("calls="):
        calls[cfn] += int(line[6:].split()[0])
        pending = True
    elif line and (line[0].isdigit() or line[0] in "+-*"):
        parts = line.split()
        # The first position is the instruction's address: absolute, or
        # relative to the line before ("+n", "-n", "*": the same).
        p = parts[0]
        if p[0] in "+-":
            addr += int(p, 0)
        elif p != "*":
            addr = int(p, 0)
        ir = int(parts[npos]) if len(parts) > npos else 0
        if pending:
            pending = None  # inclusive cost of the call above, not self cost
            continue
        self_ir[fn] += ir
        by_obj[obj] += ir
        if ir:
            code[obj].add(addr >> 6)
samples = calls.get("nvmlDeviceGetTemperature", 0) // 8
frames = sum(n for f, n in calls.items() if "Terminal<B>::try_draw" in f or f.endswith("term::Frames<B>::write"))
total = sum(by_obj.values())
sim = sum(v for o, v in by_obj.items() if "nvml_sim" in o or "libnvidia-ml" in o)
print(f"samples: {samples}, frames drawn: {frames}")
if samples:
    print(f"instructions per sample: {total / samples:,.0f} "
          f"(nvq and its libraries {(total - sim) / samples:,.0f}, simulator {sim / samples:,.0f})")
for o, v in sorted(by_obj.items(), key=lambda x: -x[1])[:6]:
    print(f"  {v / max(samples, 1):>12,.0f}  {o}")
print("code run in the window (distinct 64-byte lines):")
for o, lines in sorted(code.items(), key=lambda x: -len(x[1]))[:6]:
    print(f"  {len(lines):>7,} lines, {len(lines) * 64 / 1024:6.1f} KiB  {o}")
print("top functions (self instructions per sample):")
for f, v in sorted(self_ir.items(), key=lambda x: -x[1])[:25]:
    print(f"  {v / max(samples, 1):>10,.0f}  {f[:110]}")
EOF
