#!/usr/bin/env bash
# Run netdata's unmodified nvidia_smi python.d module (Debian's
# netdata-plugins-python) against nvq through an `nvidia-smi` symlink.
#   scripts/netdata-check.sh
# The module starts `nvidia-smi -x -q -l 1` and parses the stream of XML
# documents; python.d.plugin prints what it collects in netdata's plugin
# protocol (BEGIN/SET/END). This checks that the values are the scenario's.
# The package is fetched with `apt-get download` and unpacked under target/
# (not installed: it would pull in netdata itself). Needs python3 with
# PyYAML; no GPU. Prints "netdata: N passed, M failed"; exits 1 on failure.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
TARGET=${CARGO_TARGET_DIR:-$ROOT/target}
ND=$TARGET/netdata
. scripts/need.sh
need_tool netdata-check apt-get "Debian's apt fetches the module" || exit 0
python3 -c 'import yaml' 2>/dev/null \
    || skip_or_fail netdata-check NVQ_REQUIRE_TOOLS "python3's yaml module is not installed (apt-get install python3-yaml)" \
    || exit 0

if [ ! -f "$ND/root/usr/lib/netdata/python.d/nvidia_smi.chart.py" ]; then
    mkdir -p "$ND"
    fetch() { (cd "$ND" && apt-get download -qq netdata-plugins-python >/dev/null 2>&1); }
    # A fresh machine may have no package lists yet (root can fetch them).
    fetch || { [ "$(id -u)" = 0 ] && apt-get update -qq >/dev/null 2>&1 && fetch; } \
        || { echo "netdata-check: cannot download netdata-plugins-python (apt-get download)" >&2; exit 1; }
    dpkg -x "$(ls "$ND"/netdata-plugins-python_*.deb | head -1)" "$ND/root"
fi

cargo build -q --bin nvq
cargo build -q -p nvml-sim
BIN=$ND/bin
mkdir -p "$BIN" "$ND/etc/python.d" "$ND/var"
ln -sf "$TARGET/debug/nvq" "$BIN/nvidia-smi"
# The module is off in the stock python.d.conf: switch it on.
printf 'enabled: yes\ndefault_run: yes\nnvidia_smi: yes\n' > "$ND/etc/python.d.conf"
cat > "$ND/etc/python.d/nvidia_smi.conf" <<'CONF'
loop_mode: yes
poll_seconds: 1
update_every: 1
CONF

export PATH="$BIN:$PATH"
export NVQ_NVML_LIB=$TARGET/debug/libnvml_sim.so
export NETDATA_USER_CONFIG_DIR=$ND/etc
export NETDATA_STOCK_CONFIG_DIR=$ND/root/usr/lib/netdata/conf.d
export NETDATA_PLUGINS_DIR=$ND/root/usr/lib/netdata/plugins.d
export NETDATA_LIB_DIR=$ND/var
export NETDATA_LOCK_DIR=$ND/var

exec python3 - "$ROOT/tests/scenarios" "$NETDATA_PLUGINS_DIR/python.d.plugin" <<'PY'
import os, subprocess, sys, threading

scenarios, plugin = sys.argv[1], sys.argv[2]
passed = failed = 0

def check(name, ok, detail=""):
    global passed, failed
    if ok:
        passed += 1
        print(f"ok   {name}")
    else:
        failed += 1
        print(f"FAIL {name}\n{detail}")

def collect(scenario, updates=2, limit=120):
    """The last value of every chart dimension python.d.plugin printed, once
    it has printed `updates` updates of the GPU utilization chart (or after
    `limit` seconds: a niced run beside other work is slow to start)."""
    env = dict(os.environ, NVML_SIM_SCENARIO=os.path.join(scenarios, scenario))
    p = subprocess.Popen([sys.executable, plugin, "1", "debug", "nvidia_smi"], env=env,
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    timer = threading.Timer(limit, p.kill)
    timer.start()
    lines, seen = [], 0
    try:
        for line in p.stdout:
            lines.append(line)
            if line.startswith("BEGIN ") and line.split()[1].endswith("_gpu_utilization"):
                seen += 1
            # An update is complete at the END after its last chart: wait
            # for the next update's first chart, then stop.
            if seen > updates:
                break
    finally:
        timer.cancel()
        p.kill()
        p.wait()
    out = "".join(lines)
    values, chart, samples = {}, None, 0
    for line in out.splitlines():
        parts = line.split()
        if parts[:1] == ["BEGIN"]:
            chart = parts[1]
            samples += 1
        elif parts[:1] == ["SET"] and chart:
            values[f"{chart}.{parts[1].strip(chr(39))}"] = parts[3] if len(parts) > 3 else ""
    return values, samples, out

# The RTX 3080 of Telegraf's 595 fixture: the module's charts for it.
v, samples, out = collect("xml_rtx3080_595.toml")
check("the module collects in loop mode (several samples)", samples >= 2, out[-2000:])
want = {
    "nvidia_smi.gpu0_gpu_utilization.gpu0_gpu_util": "65",
    "nvidia_smi.gpu0_mem_utilization.gpu0_memory_util": "9",
    "nvidia_smi.gpu0_encoder_utilization.gpu0_encoder_util": "0",
    "nvidia_smi.gpu0_mem_usage.gpu0_fb_memory_used": "9184",
    "nvidia_smi.gpu0_mem_usage.gpu0_fb_memory_free": "660",
    "nvidia_smi.gpu0_bar1_mem_usage.gpu0_bar1_memory_used": "9218",
    "nvidia_smi.gpu0_bar1_mem_usage.gpu0_bar1_memory_free": "7166",
    "nvidia_smi.gpu0_temperature.gpu0_gpu_temp": "27",
    "nvidia_smi.gpu0_clocks.gpu0_graphics_clock": "1950",
    "nvidia_smi.gpu0_clocks.gpu0_sm_clock": "1950",
    "nvidia_smi.gpu0_clocks.gpu0_mem_clock": "9251",
    "nvidia_smi.gpu0_clocks.gpu0_video_clock": "1710",
    "nvidia_smi.gpu0_pci_bandwidth.gpu0_rx_util": "14742333",
    "nvidia_smi.gpu0_pci_bandwidth.gpu0_tx_util": "1066699",
    "nvidia_smi.gpu0_fan_speed.gpu0_fan_speed": "0",
    "nvidia_smi.gpu0_user_num.gpu0_user_num": "0",
}
for key, val in want.items():
    got = v.get(key)
    check(f"{key} = {val}", got == val, f"got {got!r}")
# The H200 under load (from a scenario with processes): eight GPUs' worth
# of documents are not needed; one GPU with three processes is.
v, samples, out = collect("summary_h200_load.toml")
check("h200: memory used", v.get("nvidia_smi.gpu0_mem_usage.gpu0_fb_memory_used") == "32362",
      f"got {v.get('nvidia_smi.gpu0_mem_usage.gpu0_fb_memory_used')!r}")
check("h200: gpu utilization", v.get("nvidia_smi.gpu0_gpu_utilization.gpu0_gpu_util") == "100", str(samples))

print(f"netdata: {passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
PY
