"""Run a Python script where file permission bits apply, even when the tests run as root.

Root ignores permission bits, so a test of "cannot enter" or "cannot delete" would pass for the
wrong reason; ``setpriv`` drops the capabilities that bypass them for the child only.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from typing import Any

import pytest

_DROP = "-dac_override,-dac_read_search,-fowner"


def unprivileged(script: str, *args: str) -> dict[str, Any]:
    """Run ``script`` where permission bits apply, and return the JSON it prints last."""
    argv = [sys.executable, "-c", textwrap.dedent(script), *args]
    if os.geteuid() == 0:
        setpriv = shutil.which("setpriv")
        if setpriv is None:
            pytest.skip("running as root without setpriv: permission bits cannot be enforced")
        argv = [setpriv, f"--inh-caps={_DROP}", f"--bounding-set={_DROP}", *argv]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.splitlines()[-1])  # type: ignore[no-any-return]
