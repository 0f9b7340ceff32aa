"""The agentic kit runs under anyio's pytest plugin only and under pytest-asyncio only (issue 11).

The kit's own self-tests (the reference CLI adapter's class and the scripted ones) are copied
into an empty directory and run by a separate pytest with no ini file (``-c /dev/null``: the
repository's ``anyio_mode = "auto"`` needs anyio's plugin), once with anyio's plugin disabled
and pytest-asyncio in strict and in auto mode, once with pytest-asyncio disabled. Each run must
pass with warnings as errors: no "async fixture ... with no plugin", no case left unrun.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
SELF_TESTS = ("test_reference_cli.py", "test_scripted.py")
PLUGINS = {
    "pytest-asyncio-strict": [
        "-p", "no:anyio", "-p", "asyncio",
        "-o", "asyncio_mode=strict", "-o", "asyncio_default_fixture_loop_scope=function",
    ],
    "pytest-asyncio-auto": [
        "-p", "no:anyio", "-p", "asyncio",
        "-o", "asyncio_mode=auto", "-o", "asyncio_default_fixture_loop_scope=function",
    ],
    "anyio-only": ["-p", "no:asyncio", "-p", "anyio"],
}  # fmt: skip


@pytest.mark.parametrize("plugins", sorted(PLUGINS))
def test_kit_self_tests_pass_under_one_async_plugin(tmp_path: Path, plugins: str) -> None:
    for name in SELF_TESTS:
        shutil.copy(HERE / name, tmp_path / name)
    env = {
        **os.environ,
        "PYTHONDONTWRITEBYTECODE": "1",
        "LIONAGI_SERVICE_CONFIG_HOME": "isolated",  # as tests/conftest.py sets for the suite
    }
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-c",
            os.devnull,
            "--rootdir",
            str(tmp_path),
            "-p",
            "no:cacheprovider",
            *PLUGINS[plugins],
            "-W",
            "error",
            "-q",
            "-rs",
            str(tmp_path),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
        cwd=tmp_path,
        check=False,
    )
    output = result.stdout + result.stderr
    assert result.returncode == 0, output
    summary = output.strip().splitlines()[-1]
    assert " passed" in summary, output
    assert "failed" not in summary and "error" not in summary, output
    assert "no plugin" not in output and "not natively supported" not in output, output
