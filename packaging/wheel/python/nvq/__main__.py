"""``python -m nvq ARGS``: the same as running ``nvq ARGS``."""

import os
import sys

from nvq import find_nvq_bin


def main():
    try:
        exe = find_nvq_bin()
    except FileNotFoundError as err:
        print(err, file=sys.stderr)
        return 127
    try:
        os.execv(exe, [exe, *sys.argv[1:]])
    except OSError as err:
        print(f"nvq: cannot run {exe}: {err.strerror}", file=sys.stderr)
    return 126


if __name__ == "__main__":
    sys.exit(main())
