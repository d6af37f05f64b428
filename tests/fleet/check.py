"""Checks of scripts/fleet-check.sh, run inside its Prometheus's network
namespace against that Prometheus (127.0.0.1:9090), which scrapes three
simulated GPU nodes. Standard library only.

usage: check.py up NODE_A NODE_B NODE_C   every node's series, the hung
                                          node, the pods, the dashboard
       check.py down NODE_A NODE_B NODE_C node B stopped: up == 0, the
                                          exporter-down rule fires, C
                                          still answers in time
Each NODE is an instance label (address:port). Exits 1 with a message on
the first failed check.
"""
import json
import re
import sys
import time
import urllib.error
import urllib.parse
import urllib.request

API = "http://127.0.0.1:9090/api/v1/"


def get(path, **params):
    url = API + path + "?" + urllib.parse.urlencode(params, doseq=True)
    with urllib.request.urlopen(url, timeout=10) as r:
        body = json.load(r)
    if body.get("status") != "success":
        fail(f"{path} {params}: {body}")
    return body["data"]


def query(expr):
    return get("query", query=expr)["result"]


def fail(msg):
    print(f"fleet-check: FAILED: {msg}", file=sys.stderr)
    sys.exit(1)


def ok(msg):
    print(f"fleet-check: ok: {msg}")


def wait_for(what, test, timeout):
    end = time.time() + timeout
    while True:
        try:
            got = test()
        except (urllib.error.URLError, ConnectionError) as e:
            # Prometheus may not listen yet (it starts beside this script).
            got, last = None, e
        else:
            last = None
        if got:
            return got
        if time.time() > end:
            fail(f"{what}: not within {timeout} s" + (f" ({last})" if last else ""))
        time.sleep(0.5)


def value(expr):
    r = query(expr)
    if len(r) != 1:
        fail(f"{expr}: {len(r)} series, not one: {r}")
    return float(r[0]["value"][1])


def up(a, b, c):
    nodes = [a, b, c]
    wait_for(
        "three nodes up",
        lambda: sorted(s["metric"]["instance"] for s in query('up{job="nvq"} == 1')) == sorted(nodes),
        40,
    )
    # GPU 1 of node C hangs from its third reading on; XID 79 on A; A's pods.
    wait_for("C's hung GPU late", lambda: query(f'nvq_collection_late_gpus{{instance="{c}"}} == 1'), 40)
    wait_for("A's XID 79", lambda: query(f'nvq_xid_errors_total{{instance="{a}",xid="79"}}'), 40)
    wait_for("A's pods", lambda: query(f'nvq_pods_attribution_success{{instance="{a}"}} == 1'), 40)
    wait_for("C's memory growing", lambda: query(f'deriv(nvq_memory_used_bytes{{instance="{c}",gpu="0"}}[30m]) > 0'), 40)

    # Every node's series arrive with its instance.
    for node, gpus, used0 in [(a, 2, 81604378624), (b, 1, 30064771072), (c, 2, None)]:
        n = value(f'max(nvq_gpus{{instance="{node}"}})')
        if n != gpus:
            fail(f"{node}: nvq_gpus {n}, want {gpus}")
        if used0 is not None:
            v = value(f'nvq_memory_used_bytes{{instance="{node}",gpu="0"}}')
            if v != used0:
                fail(f"{node}: GPU 0 memory used {v}, want {used0}")
    if not query(f'nvq_gpu_info{{instance="{b}",mig_mode_current="Enabled"}}'):
        fail(f"{b}: GPU 0 not in MIG mode")
    ok("each node's series carry its instance (2, 1 and 2 GPUs; memory as the scenarios say; B in MIG mode)")

    # The hung node answers within the scrape timeout, its healthy GPU served.
    d = value(f'scrape_duration_seconds{{instance="{c}"}}')
    if not d < 1.0:
        fail(f"{c}: scrape took {d} s, over the 1 s scrape timeout")
    if value(f'up{{instance="{c}"}}') != 1:
        fail(f"{c} is not up")
    if not query(f'nvq_memory_used_bytes{{instance="{c}",gpu="0"}}'):
        fail(f"{c}: GPU 0's series missing")
    ok(f"the node with a hung GPU answers in {d:.3f} s (timeout 1 s) with its other GPU's series and late_gpus 1")

    # Rules that fire at once on these scenarios.
    for alert, labels in [
        ("NvqGpuXidError", {"instance": a, "gpu": "1", "xid": "79"}),
        ("NvqGpuUncorrectableEccErrors", {"instance": a, "gpu": "1"}),
        ("NvqGpuRowRemapFailure", {"instance": a, "gpu": "1"}),
        ("NvqGpuRecoveryActionRequested", {"instance": a, "gpu": "1", "gpu_recovery_action": "Reset"}),
    ]:
        sel = ",".join(f'{k}="{v}"' for k, v in labels.items())
        wait_for(f"{alert} firing", lambda: query(f'ALERTS{{alertname="{alert}",alertstate="firing",{sel}}}'), 20)
    ok("XID, ECC, row-remap and recovery-action alerts fire for A's GPU 1")

    dashboard(a, b, c)


def legend_labels(fmt):
    return re.findall(r"\{\{\s*(\w+)\s*\}\}", fmt or "")


def dashboard(a, b, c):
    dash = json.load(open("deploy/grafana/nvq.json"))
    # Variables: label_values(SERIES, LABEL) as Grafana asks Prometheus.
    for var in dash["templating"]["list"]:
        if var["type"] != "query":
            continue
        m = re.fullmatch(r"label_values\((.*),\s*(\w+)\)", var["query"]["query"])
        if not m:
            fail(f"variable {var['name']}: not label_values(): {var['query']}")
        series = m.group(1).replace("$instance", ".+")
        got = get(f"label/{m.group(2)}/values", **{"match[]": series})
        want = {"instance": sorted([a, b, c]), "gpu": ["0", "1"]}[var["name"]]
        if sorted(got) != want:
            fail(f"variable {var['name']}: {got}, want {want}")
    ok("dashboard variables: the three nodes, GPUs 0 and 1")

    # Expected values: panel title -> (label subset, value).
    expect = {
        "GPUs": [({}, 5)],
        "Nodes up": [({}, 3)],
        "Nodes down": [({}, 0)],
        "Late GPUs": [({}, 1)],
        "Memory used per GPU": [({"instance": a, "gpu": "0"}, 81604378624), ({"instance": b, "gpu": "0"}, 30064771072)],
        "Temperature": [({"instance": a, "gpu": "1"}, 88), ({"instance": b, "gpu": "0"}, 51)],
        "GPU utilization": [({"instance": a, "gpu": "0"}, 0.97)],
        "Power": [({"instance": a, "gpu": "0"}, 655)],
        "GPU memory by process": [({"instance": a, "pid": "4101", "process_name": "python3 train.py"}, 81000000000)],
        "GPU memory by pod": [({"namespace": "ml", "pod": "train-0"}, 81604378624), ({"namespace": "web", "pod": "serve-1"}, 21474836480)],
        "XID errors since nvq started": [({"instance": a, "gpu": "1", "xid": "79"}, 1)],
        "Uncorrectable ECC errors": [({"instance": a, "gpu": "1"}, 3)],
        "Recovery and row remapping": [({"instance": a, "gpu": "1", "gpu_recovery_action": "Reset", "remapped_rows_failure": "Yes"}, 1)],
        "Throttled GPUs": [({"instance": a, "gpu": "1"}, 1)],
        "Pod attribution": [({"instance": a}, 1)],
        "Memory growth": [({"instance": c, "gpu": "0"}, None)],
        "Time to full": [({"instance": c, "gpu": "0"}, None)],
    }
    checked = 0
    for p in dash["panels"]:
        for t in p.get("targets", []):
            expr = t["expr"].replace("$instance", ".+").replace("$gpu", ".+")
            res = query(expr)
            if not res:
                fail(f"panel {p['title']!r}: {expr} returns nothing")
            for s in res:
                missing = [l for l in legend_labels(t.get("legendFormat")) if l not in s["metric"]]
                if missing:
                    fail(f"panel {p['title']!r}: a series without the legend's {missing}: {s['metric']}")
            checked += 1
        for labels, want in expect.pop(p.get("title"), []):
            t = p["targets"][0]
            res = query(t["expr"].replace("$instance", ".+").replace("$gpu", ".+"))
            hit = [s for s in res if labels.items() <= s["metric"].items()]
            if len(hit) != 1:
                fail(f"panel {p['title']!r}: {len(hit)} series with {labels}: {res}")
            got = float(hit[0]["value"][1])
            if want is not None and abs(got - want) > 1e-9 * max(1, abs(want)):
                fail(f"panel {p['title']!r} {labels}: {got}, want {want}")
            if want is None and not got > 0:
                fail(f"panel {p['title']!r} {labels}: {got}, want > 0")
    if expect:
        fail(f"no panels titled {sorted(expect)}")
    ok(f"dashboard: {checked} panel queries return series with their legends' labels and the scenarios' values")


def down(a, b, c):
    wait_for(f"{b} down", lambda: query(f'up{{instance="{b}"}} == 0'), 20)
    ok(f"{b} stopped: up == 0")
    wait_for(
        "NvqExporterDown firing",
        lambda: query(f'ALERTS{{alertname="NvqExporterDown",alertstate="firing",instance="{b}"}}'),
        90,
    )
    others = query('ALERTS{alertname="NvqExporterDown"}')
    if [s["metric"]["instance"] for s in others] != [b]:
        fail(f"NvqExporterDown for other nodes: {others}")
    ok(f"NvqExporterDown fires for {b} only")
    d = value(f'scrape_duration_seconds{{instance="{c}"}}')
    u = value(f'up{{instance="{c}"}}')
    if u != 1 or not d < 1.0:
        fail(f"{c}: up {u}, scrape {d} s")
    ok(f"the hung node still answers in {d:.3f} s")


if __name__ == "__main__":
    {"up": up, "down": down}[sys.argv[1]](*sys.argv[2:5])
