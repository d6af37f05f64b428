"""nvq run --torch: what PyTorch's allocator holds, sent to nvq by every process of the job.

`nvq run --torch` writes this file into a private directory (mode 0700) and puts that directory
first on the job's PYTHONPATH, so that every Python process of the job imports it at start-up as
`sitecustomize`. It then:

- never imports torch: it waits, through an import hook, for the job to import it, then for CUDA
  to be initialized (`torch.cuda._lazy_call`, else a look every interval);
- from then on, a daemon thread sends every NVQ_TORCH_INTERVAL_MS (bounded work: at most 64
  devices, three counters each) `memory_allocated`, `memory_reserved` and
  `max_memory_allocated` of each device the process holds memory on, one JSON line at a time,
  over the unix socket NVQ_TORCH_SOCKET (no network);
- on an out-of-memory error (`torch._C._cuda_attach_out_of_memory_observer`) tells nvq, and with
  NVQ_TORCH_SNAPSHOT_DIR (`--torch-snapshot`) records the allocator's history from CUDA's start
  and writes `torch.cuda.memory._snapshot()` there (pickle, for pytorch.org/memory_viz);
- swallows every error of its own (nvq reports what it was told of them);
- then runs the user's own `sitecustomize`, the next one on the path, as Python would have.
"""

import os as _os
import sys as _sys


def _nvq_torch():
    here = _os.path.dirname(_os.path.abspath(__file__))
    socket_path = _os.environ.get("NVQ_TORCH_SOCKET", "")
    snapshot_dir = _os.environ.get("NVQ_TORCH_SNAPSHOT_DIR", "")
    try:
        period = min(max(int(_os.environ.get("NVQ_TORCH_INTERVAL_MS", "100")), 10), 60000) / 1e3
    except ValueError:
        period = 0.1
    most_devices = 64
    state = {"sock": None, "pid": None, "failures": 0, "errors": 0, "thread": False,
             "torch": None, "oom": False}

    def send(doc):
        """One JSON line to nvq; a process opens its own connection (not its parent's)."""
        import json
        import socket
        pid = _os.getpid()
        if state["pid"] != pid:
            if state["sock"] is not None:
                try:
                    state["sock"].close()
                except OSError:
                    pass
            state.update(sock=None, pid=pid, failures=0, errors=0)
        if state["sock"] is None:
            if state["failures"] >= 3 or not socket_path:
                return
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.settimeout(0.5)
            try:
                s.connect(socket_path)
            except OSError:
                state["failures"] += 1
                s.close()
                return
            state["sock"] = s
        doc["pid"] = pid
        line = (json.dumps(doc, separators=(",", ":")) + "\n").encode()
        try:
            state["sock"].sendall(line)
        except OSError:
            state["failures"] += 1
            try:
                state["sock"].close()
            except OSError:
                pass
            state["sock"] = None

    def error(where, e):
        """Swallowed, and told to nvq (a few per process)."""
        try:
            state["errors"] += 1
            if state["errors"] <= 5:
                send({"kind": "error", "text": ("%s: %s: %s" % (where, type(e).__name__, e))[:300]})
        except Exception:
            pass

    def uuid_of(cuda, i):
        """The device's UUID (hex digits and dashes, as nvq reads it), else None."""
        try:
            u = getattr(cuda.get_device_properties(i), "uuid", None)
            u = str(u).lower() if u is not None else ""
            if u.startswith("gpu-"):
                u = u[4:]
            ok = 0 < len(u) <= 64 and all(c in "0123456789abcdef-" for c in u)
            return u if ok else None
        except Exception:
            return None

    def loop():
        import time
        torch = state["torch"]
        uuids = {}
        while True:
            try:
                cuda = torch.cuda
                if cuda.is_initialized():
                    devices = []
                    for i in range(min(int(cuda.device_count()), most_devices)):
                        reserved = int(cuda.memory_reserved(i))
                        most = int(cuda.max_memory_allocated(i))
                        if not reserved and not most:
                            continue
                        if i not in uuids:
                            uuids[i] = uuid_of(cuda, i)
                        d = {"index": i, "allocated": int(cuda.memory_allocated(i)),
                             "reserved": reserved, "max_allocated": most}
                        if uuids[i]:
                            d["uuid"] = uuids[i]
                        devices.append(d)
                    if devices:
                        send({"kind": "sample", "devices": devices})
            except Exception as e:
                error("sample", e)
                if state["errors"] > 20:
                    return
            time.sleep(period)

    def start_thread():
        if state["thread"]:
            return
        import threading
        state["thread"] = True
        threading.Thread(target=loop, name="nvq-torch", daemon=True).start()

    def after_fork():
        # The parent's thread and connection are not the child's.
        try:
            if state["sock"] is not None:
                state["sock"].close()
            state.update(sock=None, pid=None, failures=0, errors=0, thread=False)
            if state["torch"] is not None:
                start_thread()
        except Exception:
            pass

    def on_oom(device, alloc, device_alloc, device_free):
        try:
            doc = {"kind": "oom", "device": int(device) if device is not None else None}
            if snapshot_dir and not state["oom"]:
                import pickle
                snap = state["torch"].cuda.memory._snapshot()
                name = "torch-snapshot-%d.pickle" % _os.getpid()
                fd = _os.open(_os.path.join(snapshot_dir, name),
                              _os.O_WRONLY | _os.O_CREAT | _os.O_EXCL | _os.O_NOFOLLOW, 0o600)
                with _os.fdopen(fd, "wb") as f:
                    pickle.dump(snap, f)
                doc["snapshot"] = name
            state["oom"] = True
            send(doc)
        except Exception as e:
            error("out-of-memory snapshot", e)

    def cuda_ready():
        # Runs inside torch's CUDA initialization: nothing may escape.
        try:
            torch = state["torch"]
            if snapshot_dir:
                try:
                    torch.cuda.memory._record_memory_history(max_entries=100000)
                except TypeError:
                    torch.cuda.memory._record_memory_history(True)
            attach = getattr(torch._C, "_cuda_attach_out_of_memory_observer", None)
            if attach is not None:
                attach(on_oom)
            start_thread()
        except Exception as e:
            error("CUDA start", e)

    def on_torch(torch):
        try:
            state["torch"] = torch
            lazy = getattr(torch.cuda, "_lazy_call", None)
            if lazy is not None:
                lazy(cuda_ready)
            else:
                start_thread()
        except Exception as e:
            error("torch import", e)

    class Watch:
        """A meta path finder that only notices `import torch`, then steps aside."""

        def find_spec(self, name, path=None, target=None):
            if name != "torch":
                return None
            try:
                _sys.meta_path.remove(self)
            except ValueError:
                pass
            try:
                import importlib.util
                spec = importlib.util.find_spec("torch")
                loader = spec.loader if spec is not None else None
                real = getattr(loader, "exec_module", None)
                if real is None:
                    return None

                def exec_module(module):
                    real(module)
                    on_torch(module)

                loader.exec_module = exec_module
                return spec
            except Exception as e:
                error("import hook", e)
                return None

    try:
        if "torch" in _sys.modules:
            on_torch(_sys.modules["torch"])
        else:
            _sys.meta_path.insert(0, Watch())
        _os.register_at_fork(after_in_child=after_fork)
    except Exception as e:
        error("start", e)
    return here


def _nvq_chain(here):
    """The user's own sitecustomize (the next one on the path) runs now, as site.py runs it."""
    import importlib.machinery
    import importlib.util
    try:
        same = _os.path.realpath(here)
        while here in _sys.path:
            _sys.path.remove(here)
        rest = [p for p in _sys.path if _os.path.realpath(p or ".") != same]
        spec = importlib.machinery.PathFinder.find_spec("sitecustomize", rest)
    except Exception:
        return
    if spec is None or spec.loader is None:
        return
    try:
        module = importlib.util.module_from_spec(spec)
        _sys.modules["sitecustomize"] = module
        spec.loader.exec_module(module)
    except Exception as err:
        # site.py's own words for a failing sitecustomize: the job goes on.
        if _sys.flags.verbose:
            _sys.excepthook(*_sys.exc_info())
        else:
            _sys.stderr.write("Error in sitecustomize; set PYTHONVERBOSE for traceback:\n"
                              "%s: %s\n" % (err.__class__.__name__, err))


try:
    _nvq_here = _nvq_torch()
except Exception:
    _nvq_here = _os.path.dirname(_os.path.abspath(__file__))
_nvq_chain(_nvq_here)
