#!/usr/bin/env bash
# Build deploy/Containerfile with podman and prove that the image serves
# metrics, from the simulator, as a user who is not root:
#
#   1. the build context (.dockerignore) holds no target/ and no .git; then
#      podman build --pull=never (the two base images must already be in
#      podman's local storage; nothing is pulled);
#   2. the image: its user is 65534:65534, its size is printed and bounded,
#      `nvq --simulate --version` runs;
#   3. the image's own CMD (`serve` on :9835) with NVQ_NVML_LIB pointing at the
#      simulator the image carries: /metrics over a published port on
#      127.0.0.1, /healthz, PID 1 runs as uid 65534, and `podman stop`
#      (SIGTERM) ends it with exit code 0;
#   4. `serve --simulate --profile=dcgm` with a scenario mounted read-only:
#      the simulator is found where the image installs it, and every GPU's
#      temperature and memory in use are the scenario's;
#   5. without any NVML (no toolkit, no simulator), nvq exits 12 and says why.
#
# Without podman, curl or either base image it prints why and exits 0
# ("skipped"). It is not part of scripts/test-all.sh or CI (no container
# runtime there). Settings, for hosts where podman's defaults do not run:
#   NVQ_CTR_PODMAN      the podman command with global options
#                       (e.g. "podman --runtime runc" on cgroup v1 hybrid hosts)
#   NVQ_CTR_OPTS        options for every build and run (e.g. "--ulimit
#                       nofile=20000:20000 --ulimit nproc=4096:4096" where the
#                       runtime may not raise those limits)
#   NVQ_CTR_BUILD_OPTS  options for the build only (e.g. "-v /etc/ssl/certs/
#                       ca-certificates.crt:/etc/ssl/certs/ca-certificates.crt:ro"
#                       behind a TLS-intercepting proxy, so cargo reaches crates.io)
#   NVQ_CTR_KEEP=1      keep the image (tagged localhost/nvq-check) afterwards
#   NVQ_CTR_IMAGE=NAME  check this image, already built from deploy/Containerfile,
#                       instead of building one (step 1 is skipped; it is kept)
set -euo pipefail
cd "$(dirname "$0")/.."

fail() {
    echo "container-check: FAIL: $*" >&2
    exit 1
}

read -r -a podman <<<"${NVQ_CTR_PODMAN:-podman}"
read -r -a opts <<<"${NVQ_CTR_OPTS:-}"
read -r -a build_opts <<<"${NVQ_CTR_BUILD_OPTS:-}"
base_images=(docker.io/library/rust:1-bookworm docker.io/library/debian:bookworm-slim)

missing=()
command -v "${podman[0]}" >/dev/null || missing+=("podman (apt-get install podman)")
command -v curl >/dev/null || missing+=("curl")
if [ ${#missing[@]} -eq 0 ]; then
    for image in "${base_images[@]}"; do
        "${podman[@]}" image exists "$image" || missing+=("base image $image (podman pull $image)")
    done
fi
if [ ${#missing[@]} -gt 0 ]; then
    echo "container-check: skipped (missing: ${missing[*]})"
    exit 0
fi

tag=localhost/nvq-check:latest
name=nvq-check-$$
start=$SECONDS
phase() { echo "container-check: [$((SECONDS - start))s] $*"; }
scratch=$(mktemp -d)
cleanup() {
    "${podman[@]}" rm -f -t 0 "$name" >/dev/null 2>&1 || true
    if [ "${NVQ_CTR_KEEP:-}" != 1 ]; then
        "${podman[@]}" rmi -f "$tag" >/dev/null 2>&1 || true
    fi
    rm -rf "$scratch"
}
trap cleanup EXIT

build() {
    phase "the build context"
    cat >"$scratch/Containerfile" <<'END'
FROM docker.io/library/debian:bookworm-slim
COPY . /ctx
RUN if [ -e /ctx/target ] || [ -e /ctx/.git ]; then echo "target/ or .git is in the context" >&2; exit 1; fi
END
    local ctx_id
    ctx_id=$("${podman[@]}" build --pull=never --layers=false -q "${opts[@]}" -f "$scratch/Containerfile" .) \
        || fail "the build context holds target/ or .git; see .dockerignore"
    "${podman[@]}" rmi -f "$ctx_id" >/dev/null 2>&1 || true

    phase "podman build --pull=never -f deploy/Containerfile"
    # --layers=false: no image is left behind for the build stage.
    "${podman[@]}" build --pull=never --layers=false "${opts[@]}" "${build_opts[@]}" \
        -f deploy/Containerfile -t "$tag" . || fail "podman build failed"
}

if [ -n "${NVQ_CTR_IMAGE:-}" ]; then
    tag=$NVQ_CTR_IMAGE
    NVQ_CTR_KEEP=1
    "${podman[@]}" image exists "$tag" || fail "no image $tag"
    phase "checking $tag (not built here)"
else
    build
fi

user=$("${podman[@]}" image inspect --format '{{.Config.User}}' "$tag")
[ "$user" = 65534:65534 ] || fail "the image runs as '$user', not 65534:65534 (nobody)"
size=$("${podman[@]}" image inspect --format '{{.Size}}' "$tag")
phase "image size: $((size / 1000000)) MB ($size bytes)"
# bookworm-slim is about 75 MB and nvq with the simulator about 15 MB.
[ "$size" -lt 150000000 ] || fail "the image is $size bytes, over the 150 MB bound"
# --version reports the driver's versions too, so it needs an NVML: the simulator's.
version=$("${podman[@]}" run --rm "${opts[@]}" "$tag" --simulate --version) \
    || fail "nvq --simulate --version failed in the image"
phase "nvq --simulate --version: $(tr '\n' ' ' <<<"$version")"

# Wait until URL answers 200, at most 30 s.
wait_for() {
    local url=$1 i
    for i in $(seq 1 60); do
        if curl -fsS -o /dev/null --max-time 2 "$url" 2>/dev/null; then
            return 0
        fi
        sleep 0.5
    done
    "${podman[@]}" logs "$name" >&2 || true
    fail "$url did not answer within 30 s"
}

# The port podman published for the container's 9835 on 127.0.0.1.
published() {
    local hostport
    hostport=$("${podman[@]}" port "$name" 9835/tcp) || fail "no published port"
    echo "${hostport##*:}"
}

phase "the image's own CMD, NVML from the simulator the image carries"
"${podman[@]}" run -d --name "$name" "${opts[@]}" -p 127.0.0.1::9835 \
    -e NVQ_NVML_LIB=/usr/lib/nvq/libnvml_sim.so "$tag" >/dev/null
port=$(published)
wait_for "http://127.0.0.1:$port/metrics"
metrics=$(curl -fsS "http://127.0.0.1:$port/metrics")
# The default scenario: two GPUs.
gpus=$(grep -c '^nvq_gpu_info{' <<<"$metrics" || true)
[ "$gpus" = 2 ] || fail "the default scenario has 2 GPUs; /metrics served $gpus nvq_gpu_info series"
curl -fsS -o /dev/null "http://127.0.0.1:$port/healthz" || fail "/healthz did not answer 200"
uid=$("${podman[@]}" exec "$name" sh -c 'grep "^Uid:" /proc/1/status') || fail "cannot read PID 1's status"
read -r _ ruid euid _ <<<"$uid"
if [ "$ruid" != 65534 ] || [ "$euid" != 65534 ]; then
    fail "PID 1 runs as uid $ruid/$euid, not 65534"
fi
phase "/metrics: ${#metrics} bytes, $gpus GPUs, PID 1 uid $ruid"
"${podman[@]}" stop -t 10 "$name" >/dev/null
code=$("${podman[@]}" inspect --format '{{.State.ExitCode}}' "$name")
[ "$code" = 0 ] || fail "after SIGTERM nvq exited $code, not 0"
"${podman[@]}" rm "$name" >/dev/null

# Three GPUs: GPU i at 40 + 7i degrees C with i + 1 GiB of memory in use.
scenario=$scratch/scenario.toml
printf 'driver_version = "580.82.07"\nnvml_version = "13.580.82.07"\n' >"$scenario"
for i in 0 1 2; do
    printf '\n[[device]]\nname = "NVIDIA H100 80GB HBM3"\nuuid = "GPU-00000000-0000-4000-8000-%012d"\n' "$i"
    printf 'pci = { domain = 0, bus = %d, device = 0 }\n' "$((i + 1))"
    printf 'memory = { total = 85520809984, reserved = 567279616, used = %d }\n' "$(((i + 1) << 30))"
    printf 'temperature = { gpu = %d }\n' "$((40 + 7 * i))"
done >>"$scenario"
chmod 644 "$scenario"
phase "serve --simulate --profile=dcgm on a mounted 3-GPU scenario"
"${podman[@]}" run -d --name "$name" "${opts[@]}" -p 127.0.0.1::9835 \
    -v "$scenario:/etc/nvq/scenario.toml:ro" -e NVML_SIM_SCENARIO=/etc/nvq/scenario.toml \
    "$tag" serve --simulate --profile=dcgm >/dev/null
port=$(published)
wait_for "http://127.0.0.1:$port/metrics"
metrics=$(curl -fsS "http://127.0.0.1:$port/metrics")
# The value of FAMILY for GPU i.
value() { awk -v f="$1{" -v g="gpu=\"$2\"" 'index($0, f) == 1 && index($0, g) { print $NF }' <<<"$metrics"; }
for i in 0 1 2; do
    temp=$(value DCGM_FI_DEV_GPU_TEMP "$i")
    used=$(value DCGM_FI_DEV_FB_USED "$i")
    want_temp=$((40 + 7 * i))
    want_used=$(((i + 1) * 1024))
    [ "$temp" = "$want_temp" ] || fail "GPU $i: DCGM_FI_DEV_GPU_TEMP is '$temp', the scenario says $want_temp"
    [ "$used" = "$want_used" ] || fail "GPU $i: DCGM_FI_DEV_FB_USED is '$used' MiB, the scenario says $want_used"
done
phase "dcgm profile: the scenario's temperatures and memory for 3 GPUs"
"${podman[@]}" rm -f -t 10 "$name" >/dev/null

phase "no NVML at all"
set +e
out=$("${podman[@]}" run --rm "${opts[@]}" "$tag" 2>&1)
code=$?
set -e
[ "$code" = 12 ] || fail "without NVML nvq exited $code, not 12: $out"
phase "exit 12: $out"

phase "passed"
