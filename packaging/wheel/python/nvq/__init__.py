"""nvq, an nvidia-smi-compatible GPU query tool, installed as a program.

The wheel's real content is the ``nvq`` executable in the environment's
``bin`` directory; this package only lets ``python -m nvq`` run it.
"""

import os
import sys
import sysconfig
from importlib import metadata

__all__ = ["find_nvq_bin"]


def _from_record():
    """The executable this distribution installed, as its RECORD lists it."""
    try:
        files = metadata.distribution("nvq").files or []
    except metadata.PackageNotFoundError:
        return None
    for entry in files:
        if entry.name == "nvq" and entry.parent.name == "bin":
            path = os.path.realpath(entry.locate())
            if os.path.isfile(path) and os.access(path, os.X_OK):
                return path
    return None


def _from_scheme():
    """The executable in the scripts directory of the scheme this package is in."""
    here = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
    schemes = [sysconfig.get_default_scheme()] if hasattr(sysconfig, "get_default_scheme") else []
    schemes.append(os.name + "_user")
    for scheme in schemes:
        try:
            paths = sysconfig.get_paths(scheme)
        except KeyError:
            continue
        libs = {os.path.realpath(paths[k]) for k in ("purelib", "platlib") if k in paths}
        if here in libs:
            path = os.path.join(paths["scripts"], "nvq")
            if os.path.isfile(path) and os.access(path, os.X_OK):
                return path
    return None


def find_nvq_bin():
    """The path of the installed ``nvq`` executable (never one found on PATH
    or in the current directory, which could be another program)."""
    path = _from_record() or _from_scheme()
    if path is None:
        raise FileNotFoundError(
            "nvq: the nvq executable of this installation is missing from " + sys.prefix
        )
    return path
