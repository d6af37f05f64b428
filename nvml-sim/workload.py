#!/usr/bin/env python3
"""A test program that "uses" GPU memory under nvml-sim's live processes.

It declares, for its own PID, the GPU memory it holds over time in the simulator's control
directory (`[live] dir` of the scenario, or NVML_SIM_LIVE_DIR): one file per PID, one line per
change, `<epoch_ms> <gpu_index> <bytes>` (nvml-sim/README.md, "Live processes"). No GPU, no
NVML: it only writes those lines, so that nvq (or any NVML client) under the simulator sees a
job that starts, grows, spikes, forks workers and dies.

    python3 nvml-sim/workload.py --start 2GiB --grow 100MiB --spike 10GiB --spike-at 5 \\
        --spike-ms 200 --workers 2 --worker-gpu 1 --worker-mem 1GiB --oom-at 79GiB
    python3 nvml-sim/workload.py --start 4GiB --saw 2GiB --saw-ms 200 --duration 5

Standard library only. Exit status: --exit (0) after --duration, 1 on the out-of-memory
death, 2 on bad arguments, or the signal that ended it.
"""
import argparse
import os
import re
import signal
import sys
import time

UNITS = {"": 1, "b": 1, "k": 1 << 10, "kib": 1 << 10, "m": 1 << 20, "mib": 1 << 20,
         "g": 1 << 30, "gib": 1 << 30, "t": 1 << 40, "tib": 1 << 40}


def size(text):
    """`2GiB`, `100MiB`, `1.5GiB`, `512KiB` or a number of bytes."""
    m = re.fullmatch(r"\s*([0-9]+(?:\.[0-9]+)?)\s*([A-Za-z]*)\s*", text)
    if not m or m.group(2).lower() not in UNITS:
        raise argparse.ArgumentTypeError(f"not a size: {text!r} (e.g. 2GiB, 100MiB, 4096)")
    return int(float(m.group(1)) * UNITS[m.group(2).lower()])


def gib(n):
    return f"{n / (1 << 30):.1f} GiB"


class Control:
    """This process's control file: appended one whole line at a time."""

    def __init__(self, directory, sm=None):
        os.makedirs(directory, exist_ok=True)
        path = os.path.join(directory, str(os.getpid()))
        self.fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        self.held = {}
        self.sm = "" if sm is None else f" {sm}"

    def hold(self, gpu, nbytes):
        if self.held.get(gpu) == nbytes:
            return
        self.held[gpu] = nbytes
        sm = self.sm if nbytes else ""
        os.write(self.fd, f"{int(time.time() * 1000)} {gpu} {int(nbytes)}{sm}\n".encode())

    def release(self):
        for gpu in list(self.held):
            self.hold(gpu, 0)


def say(line, fd=1):
    """Write `line` and its newline in one write(2): with PYTHONUNBUFFERED set, print() writes
    the text and the newline apart, and two workers' lines on one pipe then interleave (a reader
    waiting for three "ready" lines sees two)."""
    os.write(fd, (line + "\n").encode())


def alive(pid):
    try:
        os.kill(pid, 0)
        return True
    except ProcessLookupError:
        return False
    except PermissionError:
        return True


def worker(args):
    """A worker (run through exec, so that /proc/PID/environ holds its RANK as a real
    launcher's worker's does): holds --worker-mem on --worker-gpu until the workload it
    belongs to (--worker-of) ends."""
    ctl = Control(args.dir)
    ctl.hold(args.worker_gpu, args.worker_mem)
    say(f"worker: pid {os.getpid()} ready")
    parent = os.getppid()
    while alive(args.worker_of) and (args.orphan_workers or os.getppid() == parent):
        time.sleep(0.05)
    ctl.release()
    return 0


def start_workers(args):
    """Fork and exec the workers; with --orphan-workers through a process that exits at once,
    so that they are re-parented. Returns the PIDs of the direct children to stop at the end."""
    me, children = os.getpid(), []
    for i in range(args.workers):
        env = dict(os.environ)
        if args.worker_rank_base is not None:
            env["RANK"] = env["LOCAL_RANK"] = str(args.worker_rank_base + i)
        argv = [sys.executable, os.path.abspath(__file__), "--dir", args.dir,
                "--worker-of", str(me), "--worker-gpu", str(args.worker_gpu),
                "--worker-mem", str(args.worker_mem)]
        if args.orphan_workers:
            argv.append("--orphan-workers")
        pid = os.fork()
        if pid == 0:
            try:
                if args.orphan_workers and os.fork() != 0:
                    os._exit(0)
                os.execve(sys.executable, argv, env)
            finally:
                os._exit(127)
        if args.orphan_workers:
            os.waitpid(pid, 0)
        else:
            children.append(pid)
    return children


def stop(children):
    for pid in children:
        try:
            os.kill(pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
    for pid in children:
        try:
            os.waitpid(pid, 0)
        except ChildProcessError:
            pass


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--dir", default=os.environ.get("NVML_SIM_LIVE_DIR"),
                   help="the control directory (default: $NVML_SIM_LIVE_DIR)")
    p.add_argument("--gpu", type=int, default=0, help="the GPU index (default 0)")
    p.add_argument("--start", type=size, default=size("2GiB"), help="memory at once (2GiB)")
    p.add_argument("--grow", type=size, default=0, help="growth per second (0)")
    p.add_argument("--step-ms", type=int, default=100, help="ms between two lines while growing")
    p.add_argument("--spike", type=size, help="hold this much for --spike-ms ...")
    p.add_argument("--spike-at", type=float, default=1.0, help="... from this second (1)")
    p.add_argument("--spike-ms", type=int, default=200, help="spike length (200 ms)")
    p.add_argument("--saw", type=size, default=0,
                   help="a caching allocator's sawtooth: hold this much more ...")
    p.add_argument("--saw-ms", type=int, default=1000,
                   help="... for the first half of every period of this many ms (1000)")
    p.add_argument("--workers", type=int, default=0, help="worker processes to fork (0)")
    p.add_argument("--worker-gpu", type=int, default=1, help="their GPU (1)")
    p.add_argument("--worker-mem", type=size, default=size("1GiB"), help="their memory (1GiB)")
    p.add_argument("--worker-rank-base", type=int,
                   help="worker i gets RANK and LOCAL_RANK = this + i")
    p.add_argument("--orphan-workers", action="store_true",
                   help="start workers through a process that exits at once (re-parented)")
    p.add_argument("--oom-at", type=size, help="die of out-of-memory (exit 1) on reaching this")
    p.add_argument("--sm", type=int, help="its SM utilization, percent (NVML's process samples)")
    p.add_argument("--worker-of", type=int, help=argparse.SUPPRESS)
    p.add_argument("--duration", type=float, help="seconds to run (default: until a signal)")
    p.add_argument("--exit", type=int, default=0, help="exit status after --duration (0)")
    args = p.parse_args()
    if not args.dir:
        p.error("no control directory: give --dir or set NVML_SIM_LIVE_DIR")
    if args.step_ms <= 0 or args.spike_ms < 0 or args.workers < 0 or args.saw_ms <= 0:
        p.error("--step-ms and --saw-ms must be positive, --spike-ms and --workers not negative")
    if args.sm is not None and not 0 <= args.sm <= 100:
        p.error("--sm is a percent, 0 to 100")
    # A terminal's ^C ends it as it would end a C program (by the signal, no traceback).
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    if args.worker_of is not None:
        return worker(args)

    ctl = Control(args.dir, args.sm)
    children = start_workers(args)
    t0 = time.monotonic()
    spike = None
    if args.spike is not None:
        spike = (args.spike_at, args.spike_at + args.spike_ms / 1000.0)

    half = args.saw_ms / 2000.0

    def want(t):
        if spike and spike[0] <= t < spike[1]:
            return args.spike
        tooth = args.saw if args.saw and int(t / half) % 2 == 0 else 0
        return args.start + args.grow * t + tooth

    ready = spiked = False
    while True:
        t = time.monotonic() - t0 if ready else 0.0
        if args.duration is not None and t >= args.duration:
            ctl.release()
            stop(children)
            return args.exit
        nbytes = want(t)
        if args.oom_at is not None and nbytes >= args.oom_at:
            say(f"workload: CUDA out of memory at {gib(args.oom_at)} on GPU {args.gpu}", 2)
            ctl.release()
            stop(children)
            return 1
        if spike and not spiked and t >= spike[1]:
            # Woken after the whole spike (a busy machine): it is still declared, for its length.
            ctl.hold(args.gpu, args.spike)
            time.sleep(args.spike_ms / 1000.0)
        spiked = spiked or (spike is not None and t >= spike[0])
        ctl.hold(args.gpu, nbytes)
        if not ready:
            say(f"workload: pid {os.getpid()} ready")
            ready = True
        # Wake at the next step, or at the spike's start or end if sooner.
        wake = [t + args.step_ms / 1000.0] if args.grow else [t + 3600.0]
        if spike:
            wake += [b for b in spike if b > t]
        if args.saw:
            wake.append((int(t / half) + 1) * half)
        if args.duration is not None:
            wake.append(args.duration)
        time.sleep(max(0.0, min(wake) - (time.monotonic() - t0)))


if __name__ == "__main__":
    sys.exit(main())
