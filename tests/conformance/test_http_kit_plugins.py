"""The HTTP kit runs under anyio's pytest plugin alone, pytest-asyncio alone (strict and auto
mode) and with no async plugin at all: its cases are synchronous and own their event loop.

Each run is a separate pytest process with no ini file (``-c os.devnull``), so this project's
``anyio_mode = "auto"`` cannot carry it.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

MODULE = textwrap.dedent(
    """
    from lionagi.service import match_endpoint
    from lionagi.service_testing.conformance import HTTPChatConformance


    class TestCompatible(HTTPChatConformance):
        dialect = "openai_chat"
        tool_calls = True

        def make_endpoint(self, base_url, api_key):
            return match_endpoint(
                "plugin-check", "", openai_compatible=True, base_url=base_url,
                api_key=api_key, allow_local_network=True,
            )

        def valid_request(self):
            return {"model": "m", "messages": [{"role": "user", "content": "hi"}]}
    """
)
CASES = (
    "test_one_shot_text",
    "test_stream_text",
    "test_stream_tool_call_assembled",
    "test_auth_401_is_auth_error_not_retried",
    "test_stream_disconnect_after_first_chunk_not_retried",
    "test_stream_deadline_bounds_a_stall",
    "test_stream_cancellation",
)
# pytest-asyncio warns (an error under -W error) unless the fixture loop scope is set.
_LOOP = ["-o", "asyncio_default_fixture_loop_scope=function"]
PLUGINS = {
    "anyio-only": ["-p", "no:asyncio"],
    "pytest-asyncio-strict": ["-p", "no:anyio", "-o", "asyncio_mode=strict", *_LOOP],
    "pytest-asyncio-auto": ["-p", "no:anyio", "-o", "asyncio_mode=auto", *_LOOP],
    "no-async-plugin": ["-p", "no:anyio", "-p", "no:asyncio"],
}


@pytest.mark.parametrize("plugins", list(PLUGINS), ids=list(PLUGINS))
def test_kit_cases_pass_under_each_async_plugin(tmp_path: Path, plugins: str) -> None:
    (tmp_path / "test_generated_http_kit.py").write_text(MODULE)
    report = tmp_path / "report.xml"
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
            "-k",
            " or ".join(CASES),
            f"--junitxml={report}",
            str(tmp_path),
        ],
        capture_output=True,
        text=True,
        timeout=180,
        env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"},
        cwd=tmp_path,
        check=False,
    )
    assert report.exists(), result.stdout + result.stderr
    cases = list(ET.parse(report).getroot().iter("testcase"))
    names = sorted(c.get("name", "") for c in cases)
    assert names == sorted(CASES), result.stdout
    bad = {c.get("name"): [x.tag for x in c] for c in cases if len(c)}
    assert bad == {}, result.stdout + result.stderr
    assert result.returncode == 0, result.stdout + result.stderr
