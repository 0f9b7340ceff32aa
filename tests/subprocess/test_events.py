"""json_events_from_process against real fake-CLI processes: framing, errors, stderr.

Troubleshooting: a hang here usually means stderr is not drained concurrently or EOF is not
detected; a leak failure from the ``clean`` fixture means teardown skipped a path.
"""

from __future__ import annotations

import json
from typing import Any

import anyio
import pytest

from lionagi.service import (
    ProviderAuthError,
    ProviderContextError,
    ProviderProcessError,
    ProviderProtocolError,
    ProviderQuotaError,
)
from lionagi.service._transport.subprocess import (
    StderrCapture,
    json_events_from_process,
)
from lionagi.service_testing.fake_clis import fake_cli_argv

HANG_GUARD = 30.0  # seconds; only a hang can exceed this


async def collect(argv: list[str], **kw: Any) -> list[dict[str, Any]]:
    with anyio.fail_after(HANG_GUARD):
        return [event async for event in json_events_from_process(argv, **kw)]


async def collect_until_error(
    argv: list[str], **kw: Any
) -> tuple[list[dict[str, Any]], BaseException]:
    seen: list[dict[str, Any]] = []
    with anyio.fail_after(HANG_GUARD):
        try:
            async for event in json_events_from_process(argv, **kw):
                seen.append(event)
        except Exception as exc:
            return seen, exc
    raise AssertionError(f"no error raised; saw {seen}")


def expected(n: int) -> list[dict[str, Any]]:
    return [{"type": "event", "seq": i, "text": f"héllo → wörld ✓ {i}"} for i in range(n)]


@pytest.mark.parametrize("mode", ["ndjson", "split", "concat", "pretty"])
async def test_framings(mode: str) -> None:
    argv = fake_cli_argv("emit", "--events", "4", "--mode", mode, "--pause", "0.01")
    assert await collect(argv) == expected(4)


async def test_small_stdout_buffer_applies_backpressure_without_loss() -> None:
    argv = fake_cli_argv("emit", "--events", "5000")
    events = await collect(argv, stdout_buffer_limit=4096)
    assert events == expected(5000)


@pytest.mark.parametrize(("raw", "kind"), [("42\\n", "int"), ("[1, 2]\\n", "list")])
async def test_non_mapping_value_is_protocol_error_after_prior_events(raw: str, kind: str) -> None:
    seen, error = await collect_until_error(fake_cli_argv("emit", "--events", "2", "--raw", raw))
    assert seen == expected(2)
    assert isinstance(error, ProviderProtocolError)
    assert f"got {kind}" in str(error)


async def test_malformed_line_is_protocol_error() -> None:
    argv = fake_cli_argv("emit", "--events", "1", "--raw", 'not json\\n{"a": 1}\\n')
    seen, error = await collect_until_error(argv)
    assert seen == expected(1)
    assert isinstance(error, ProviderProtocolError)


async def test_invalid_utf8_is_protocol_error() -> None:
    _, error = await collect_until_error(fake_cli_argv("emit", "--raw", '{"a": "\\xff"}\\n'))
    assert isinstance(error, ProviderProtocolError)
    assert "UTF-8" in str(error)


TRUNCATED = '{"type": "result", "result": "partial ans'


async def test_truncated_tail_without_repair_is_protocol_error() -> None:
    seen, error = await collect_until_error(fake_cli_argv("emit", "--raw", TRUNCATED))
    assert seen == expected(3)
    assert isinstance(error, ProviderProtocolError)
    assert "ended inside a JSON value" in str(error)


async def test_truncated_tail_is_repaired_into_a_final_event() -> None:
    json_repair = pytest.importorskip("json_repair")

    def repair(tail: str) -> dict[str, Any] | None:
        value = json_repair.repair_json(tail, return_objects=True)
        return value if isinstance(value, dict) else None

    events = await collect(fake_cli_argv("emit", "--raw", TRUNCATED), tail_repair=repair)
    assert events[:3] == expected(3)
    assert events[3] == {"type": "result", "result": "partial ans"}


@pytest.mark.parametrize("repair", [lambda t: None, lambda t: 1 / 0, lambda t: [t]])
async def test_failed_repair_is_protocol_error(repair: Any) -> None:
    seen, error = await collect_until_error(
        fake_cli_argv("emit", "--raw", TRUNCATED), tail_repair=repair
    )
    assert seen == expected(3)
    assert isinstance(error, ProviderProtocolError)


@pytest.mark.parametrize(
    ("message", "error_type"),
    [
        ("Error: invalid api key", ProviderAuthError),
        ("Error: usage limit reached, try again at 5pm", ProviderQuotaError),
        ("context window exceeded", ProviderContextError),
    ],
)
async def test_nonzero_exit_is_classified(message: str, error_type: type[Exception]) -> None:
    argv = fake_cli_argv("fail", "--events", "2", "--stderr", message, "--code", "3")
    seen, error = await collect_until_error(argv)
    assert seen == [{"type": "event", "seq": 0}, {"type": "event", "seq": 1}]
    assert type(error) is error_type
    assert error.returncode == 3  # type: ignore[attr-defined]
    assert message in error.stderr_tail  # type: ignore[attr-defined]


async def test_unclassified_nonzero_exit_is_process_error() -> None:
    argv = fake_cli_argv("fail", "--events", "0", "--stderr", "segfault-ish", "--code", "7")
    seen, error = await collect_until_error(argv)
    assert seen == []
    assert isinstance(error, ProviderProcessError)
    assert error.returncode == 7
    assert "segfault-ish" in error.stderr_tail
    assert "exited with code 7" in str(error)


async def test_stderr_secrets_are_redacted() -> None:
    secret = "plainsecretvalue-0123456789"  # matches no generic key shape
    argv = fake_cli_argv("fail", "--stderr", f"bad credential {secret} sk-abcdefghijklmnopqrst")
    _, error = await collect_until_error(argv, env={"VENDOR_API_KEY": secret})
    assert isinstance(error, ProviderProcessError)
    text = f"{error} {error.stderr_tail} {error.raw}"
    assert secret not in text
    assert "sk-abcdefghijklmnopqrst" not in text


async def test_tail_and_nonzero_exit_report_the_process_error() -> None:
    argv = fake_cli_argv("emit", "--events", "1", "--raw", TRUNCATED, "--exit", "2")
    seen, error = await collect_until_error(argv)
    assert seen == expected(1)
    assert isinstance(error, ProviderProcessError)
    assert isinstance(error.__cause__, ProviderProtocolError)


async def test_megabyte_of_stderr_does_not_block_stdout() -> None:
    argv = fake_cli_argv("stderr_flood", "--bytes", str(1024 * 1024), "--events", "32")
    events = await collect(argv)
    assert events == [{"type": "event", "seq": i} for i in range(32)]


async def test_flooded_stderr_is_bounded_but_keeps_the_final_line() -> None:
    argv = fake_cli_argv(
        "stderr_flood", "--bytes", str(1024 * 1024), "--final", "usage limit reached", "--code", "1"
    )
    seen, error = await collect_until_error(argv)
    assert len(seen) == 16
    assert isinstance(error, ProviderQuotaError)
    assert "usage limit reached" in error.stderr_tail
    assert len(error.stderr_tail) <= 16 * 1024


def test_stderr_capture_keeps_the_head_and_discards_the_rest() -> None:
    capture = StderrCapture(256 * 1024)
    for _ in range(1024):
        capture.feed(b"x" * 1023 + b"\n")
    capture.feed(b"the end\n")
    assert len(capture.head) == 256 * 1024
    assert capture.discarded == 1024 * 1024 + 8 - 256 * 1024
    text = capture.text()
    assert "bytes of stderr discarded" in text
    assert text.endswith("the end\n")
    assert len(text) < 256 * 1024 + 8 * 1024


def test_stderr_capture_decodes_with_replacement() -> None:
    capture = StderrCapture(10)
    capture.feed(b"ok \xff\xfe")
    assert capture.text() == "ok \ufffd\ufffd"


async def test_pretty_json_document_from_a_gemini_like_cli() -> None:
    doc = {"response": "hi", "stats": {"models": {"m": {"tokens": {"total": 3}}}}}
    raw = json.dumps(doc, indent=2).replace("\n", "\\n")
    events = await collect(fake_cli_argv("emit", "--events", "0", "--raw", raw))
    assert events == [doc]
