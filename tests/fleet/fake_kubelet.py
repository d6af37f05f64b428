"""A stand-in kubelet for scripts/fleet-check.sh: grpcio (PyPI) serving the
pod-resources API's List on a unix socket, answering with pods that hold
the GPUs of tests/scenarios/fleet_train.toml. The answer is protobuf
encoded here by hand (field numbers of the kubelet's podresources v1
api.proto), so nvq's client is checked against an independent gRPC server.

usage: fake_kubelet.py SOCKET [PODS UUID,UUID,...]
With PODS and UUIDs (benches/pods_bench.sh): PODS pods, pod i holding
GPU i mod len(UUIDs) as a time-slicing replica.
"""
import sys
from concurrent import futures

import grpc


def varint(v):
    out = bytearray()
    while v >= 0x80:
        out.append((v & 0x7F) | 0x80)
        v >>= 7
    out.append(v)
    return bytes(out)


def ld(field, data):
    if isinstance(data, str):
        data = data.encode()
    return varint(field << 3 | 2) + varint(len(data)) + data


def devices(resource, ids):
    return ld(1, resource) + b"".join(ld(2, i) for i in ids)


def container(name, devs):
    return ld(1, name) + b"".join(ld(2, d) for d in devs)


def pod(name, namespace, containers):
    return ld(1, name) + ld(2, namespace) + b"".join(ld(3, c) for c in containers)


ANSWER = b"".join(
    ld(1, p)
    for p in [
        pod("train-0", "ml", [container("trainer", [devices("nvidia.com/gpu", ["GPU-f1ee0000-0000-4000-8000-000000000000"])])]),
        pod("serve-1", "web", [container("server", [devices("nvidia.com/gpu", ["GPU-f1ee0000-0000-4000-8000-000000000001"])])]),
    ]
)


def many(pods, uuids):
    return b"".join(
        ld(1, pod(f"job-{i}", f"team-{i % 5}", [container("worker", [devices("nvidia.com/gpu", [f"{uuids[i % len(uuids)]}::{i}"])])]))
        for i in range(pods)
    )


def main():
    answer = many(int(sys.argv[2]), sys.argv[3].split(",")) if len(sys.argv) > 3 else ANSWER
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
    handler = grpc.method_handlers_generic_handler(
        "v1.PodResourcesLister",
        {"List": grpc.unary_unary_rpc_method_handler(lambda request, context: answer)},
    )
    server.add_generic_rpc_handlers((handler,))
    server.add_insecure_port("unix:" + sys.argv[1])
    server.start()
    server.wait_for_termination()


if __name__ == "__main__":
    main()
