"""nvq's PEP 517 build backend: maturin's, after staging what the wheel
carries besides the binaries.

pyproject.toml names this module (`backend-path`), so that `pip install .`,
`pipx install .`, `uv tool install .` and `pipx install git+URL` build the
same wheel as scripts/build-wheel.sh from a bare checkout: before maturin
writes the metadata it needs the project page, and before it builds the wheel
the simulator, the man page and the completions, all staged by
scripts/stage-wheel.sh under target/wheel-stage/.
"""

import os
import subprocess
import sys

import maturin
from maturin import get_requires_for_build_wheel  # noqa: F401 (a hook)


def _stage(*args):
    # Its output goes to stderr: a frontend may read a hook's stdout.
    subprocess.run(["bash", "scripts/stage-wheel.sh", *args], check=True, stdout=sys.stderr)


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    _stage("--page")
    return maturin.prepare_metadata_for_build_wheel(metadata_directory, config_settings)


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    _stage()
    # NVQ_WHEEL_PROFILE (scripts/stage-wheel.sh) for nvq too; else
    # pyproject.toml's profile, dist.
    profile = os.environ.get("NVQ_WHEEL_PROFILE")
    if profile:
        args = os.environ.get("MATURIN_PEP517_ARGS", "")
        os.environ["MATURIN_PEP517_ARGS"] = f"{args} --profile {profile}".strip()
    return maturin.build_wheel(wheel_directory, config_settings, metadata_directory)
