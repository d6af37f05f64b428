#!/usr/bin/env bash
# Check what deploy/ ships for fleets, with the tools operators use:
# - deploy/prometheus/nvq-rules.yml: `promtool check rules`, and
#   `promtool test rules` on tests/prometheus/nvq-rules.test.yml (every rule
#   firing and staying quiet; Debian's prometheus package);
# - deploy/kubernetes/: `kubectl kustomize` of the base and of the
#   servicemonitor overlay (Debian's kubernetes-client, or any kubectl), each
#   output validated by kubernetes-validate (PyPI, in a venv under target/)
#   in strict mode, a deliberately broken copy refused (the validator is not
#   a no-op), and the DaemonSet's privileges checked (no capability, read-only
#   root file system and sockets, the NVIDIA runtime class).
# Takes a few seconds once the venv exists.
set -euo pipefail
cd "$(dirname "$0")/.."
target=${CARGO_TARGET_DIR:-$PWD/target}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

. scripts/need.sh
need_tool deploy-check promtool "apt-get install prometheus" || exit 0
need_tool deploy-check kubectl "apt-get install kubernetes-client" || exit 0
need_venv deploy-check || exit 0

promtool check rules deploy/prometheus/nvq-rules.yml
promtool test rules tests/prometheus/nvq-rules.test.yml

venv=$target/pyenv-deploy
if [ ! -x "$venv/bin/kubernetes-validate" ]; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q --disable-pip-version-check kubernetes-validate==1.37.0 pyyaml
fi

for d in base servicemonitor; do
  kubectl kustomize "deploy/kubernetes/$d" >"$tmp/$d.yaml" 2>"$tmp/$d.err" || {
    cat "$tmp/$d.err" >&2
    echo "deploy-check: kubectl kustomize deploy/kubernetes/$d failed" >&2
    exit 1
  }
  # kubernetes-validate knows the built-in kinds; the ServiceMonitor is a
  # CRD it has no schema for (it says so, a warning).
  "$venv/bin/kubernetes-validate" --strict --quiet "$tmp/$d.yaml"
  echo "deploy-check: deploy/kubernetes/$d: kustomize and strict schema validation ok"
done

# The validator must refuse a misspelt field.
sed 's/readOnlyRootFilesystem/readOnlyRootFilesytem/' "$tmp/base.yaml" >"$tmp/broken.yaml"
if "$venv/bin/kubernetes-validate" --strict --quiet "$tmp/broken.yaml" >/dev/null 2>&1; then
  echo "deploy-check: kubernetes-validate accepted a misspelt field" >&2
  exit 1
fi

"$venv/bin/python" - "$tmp/base.yaml" "$tmp/servicemonitor.yaml" <<'PY'
import sys, yaml
docs = {(d["kind"], d["metadata"]["name"]): d for d in yaml.safe_load_all(open(sys.argv[1])) if d}
ds = docs[("DaemonSet", "nvq")]
pod = ds["spec"]["template"]["spec"]
problems = []
def need(ok, what):
    if not ok:
        problems.append(what)
need(pod.get("runtimeClassName") == "nvidia", "runtimeClassName nvidia")
need(pod.get("automountServiceAccountToken") is False, "no service account token")
need(not pod.get("hostPID") and not pod.get("hostNetwork") and not pod.get("hostIPC"), "no host namespaces")
mounts = {}
for c in pod["containers"]:
    sc = c.get("securityContext", {})
    need(sc.get("privileged") is False, f"{c['name']}: not privileged")
    need(sc.get("allowPrivilegeEscalation") is False, f"{c['name']}: no privilege escalation")
    need(sc.get("readOnlyRootFilesystem") is True, f"{c['name']}: read-only root file system")
    caps = sc.get("capabilities", {})
    need(caps.get("drop") == ["ALL"] and not caps.get("add"), f"{c['name']}: every capability dropped, none added")
    need(c.get("resources", {}).get("limits", {}).get("memory"), f"{c['name']}: a memory limit")
    for m in c.get("volumeMounts", []):
        need(m.get("readOnly") is True, f"{c['name']}: {m['mountPath']} mounted read-only")
        mounts[m["mountPath"]] = m["name"]
    env = {e["name"]: e.get("value") for e in c.get("env", [])}
    need(env.get("NVIDIA_VISIBLE_DEVICES") == "all", "NVIDIA_VISIBLE_DEVICES=all")
    need("--collect.pods" in c.get("args", []), "pod attribution on")
need(mounts.get("/var/lib/kubelet/pod-resources") == "pod-resources", "the pod-resources socket's directory mounted")
sock = [v for v in pod["volumes"] if v["name"] == "pod-resources"]
need(sock and sock[0]["hostPath"]["path"] == "/var/lib/kubelet/pod-resources", "the kubelet's pod-resources directory")
svc = docs[("Service", "nvq")]
need(svc["spec"]["selector"] == ds["spec"]["selector"]["matchLabels"], "the Service selects the DaemonSet's pods")
overlay = [d for d in yaml.safe_load_all(open(sys.argv[2])) if d]
sm = [d for d in overlay if d["kind"] == "ServiceMonitor"]
need(len(sm) == 1, "one ServiceMonitor in the overlay")
if sm:
    spec = sm[0]["spec"]
    need(spec["selector"]["matchLabels"].items() <= svc["metadata"]["labels"].items(), "the ServiceMonitor selects the Service")
    need([e["port"] for e in spec["endpoints"]] == [p["name"] for p in svc["spec"]["ports"]], "the ServiceMonitor scrapes the metrics port")
    need(sm[0]["metadata"].get("namespace") == "nvq", "the ServiceMonitor in nvq's namespace")
if problems:
    print("deploy-check: the DaemonSet lacks: " + "; ".join(problems), file=sys.stderr)
    sys.exit(1)
print("deploy-check: DaemonSet privileges ok (no capability, read-only root and mounts, runtime class nvidia)")
PY
