"""Secrets a run was given never reach the text of a protocol error (audit of the agentic core).

A CLI's stdout can echo what it was handed: the deployment's `env` values and its gateway key
(both declared secrets of `AgenticSettings`). A framing error quotes an excerpt of stdout and a
vendor parser's error quotes the event it could not read; those errors must be redacted like
stderr and error chunks are.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from lionagi.service import ProviderProtocolError
from lionagi.service.agentic import JsonEventStream, json_events
from lionagi.service_testing.reference_cli import ReferenceCliEndpoint

pytestmark = pytest.mark.anyio

ENV_SECRET = "confidentialvalue9876"
GATEWAY_KEY = "gwkeyqwerty123456"
SETTINGS = {
    "env": {"DEPLOY_X": ENV_SECRET},
    "gateway_url": "http://127.0.0.1:9/",
    "gateway_api_key": GATEWAY_KEY,
    "config_home": "isolated",
}
# What each fake prints on stdout: both secrets, read from its own environment.
ECHO = 'os.environ["DEPLOY_X"] + " " + os.environ["LIONAGI_REFERENCE_GATEWAY_KEY"]'
STDOUT = {
    "malformed line": f"""w('{{"type":"text","content":"' + {ECHO} + '" oops}}\\n')""",
    "cut tail": f"""w('{{"type":"text","content":"' + {ECHO})""",
    "not an object": f"""w(json.dumps({ECHO}) + "\\n")""",
    "parser error": f"""w(json.dumps({{"type": {ECHO}}}) + "\\n")""",
}


def _argv(body: str) -> list[str]:
    script = f"import json, os, sys\nw = sys.stdout.write\n{body}\n"
    return [sys.executable, "-I", "-S", "-c", script]


def _assert_redacted(exc: BaseException) -> None:
    texts = [
        str(exc),
        *map(str, exc.args),
        getattr(exc, "raw", ""),
        getattr(exc, "stderr_tail", ""),
    ]
    for text in texts:
        assert ENV_SECRET not in text and GATEWAY_KEY not in text, text


async def _failure(endpoint: ReferenceCliEndpoint) -> ProviderProtocolError:
    try:
        with pytest.raises(ProviderProtocolError) as info:
            async for _ in endpoint.stream({"prompt": "hi"}):
                pass
    finally:
        await endpoint.aclose()
    return info.value


@pytest.mark.parametrize("case", sorted(STDOUT))
async def test_protocol_errors_do_not_quote_the_runs_secrets(case: str) -> None:
    endpoint = ReferenceCliEndpoint(argv=_argv(STDOUT[case]), settings=SETTINGS)
    error = await _failure(endpoint)
    assert "[REDACTED]" in str(error)
    _assert_redacted(error)


class _OwnLaunch(ReferenceCliEndpoint):
    """An adapter that starts its CLI itself (the run loop reads its stream, parses outside)."""

    def launch(self, request: Any, cwd: Path | None) -> JsonEventStream:
        return json_events(self.launch_spec(request, cwd))


async def test_parser_errors_are_redacted_when_the_adapter_launches_itself() -> None:
    endpoint = _OwnLaunch(argv=_argv(STDOUT["parser error"]), settings=SETTINGS)
    error = await _failure(endpoint)
    assert "unknown event type" in str(error)
    _assert_redacted(error)


KEY = "gk_Q7w9E2r4T6y8U1i3O5p7A9s2D4f6G8h1J3k5L7"
HEAD = 1024
TAIL = 4096  # capture.OVERFLOW_TAIL: the last bytes of the discarded excess that are kept
# stderr whose two cuts each fall inside the key: the head (HEAD bytes) ends with its first 10
# characters and the kept tail starts with its last 30, the rest of each copy being dropped.
CUT_STDERR = f"""
import sys
key = {KEY!r}
w = sys.stderr.write
w("h" * ({HEAD} - 10) + key)
w("x" * 10000)
w("key " + key + "\\n" + "y" * ({TAIL} - 31))
sys.exit(1)
"""


def _fragments(text: str, secret: str, size: int) -> list[str]:
    parts = (secret[i : i + size] for i in range(len(secret) - size + 1))
    return [part for part in parts if part in text]


async def test_a_secret_cut_by_the_stderr_capture_leaves_no_part_behind() -> None:
    from lionagi.service import ProviderProcessError
    from lionagi.service.agentic import json_events_from_process

    argv = [sys.executable, "-I", "-S", "-c", CUT_STDERR]
    with pytest.raises(ProviderProcessError) as info:
        async for _ in json_events_from_process(argv, secrets=[KEY], stderr_limit=HEAD):
            pass
    error = info.value
    assert "bytes of stderr discarded" in error.raw  # both cuts happened
    for text in (str(error), error.raw, error.stderr_tail):
        assert _fragments(text, KEY, 8) == [], text


class _KeyErrorParser(ReferenceCliEndpoint):
    """A vendor projection that fails with a bare KeyError quoting the event it read."""

    def project(self, event: Any) -> Any:
        raise KeyError(event["type"])


async def test_a_bare_parser_errors_cause_keeps_no_secret_in_a_traceback() -> None:
    import traceback

    endpoint = _KeyErrorParser(argv=_argv(STDOUT["parser error"]), settings=SETTINGS)
    error = await _failure(endpoint)
    assert isinstance(error.__cause__, KeyError)  # the adapter's own failure is kept, for where
    printed = "".join(traceback.format_exception(error))
    assert "KeyError" in printed
    assert ENV_SECRET not in printed and GATEWAY_KEY not in printed
