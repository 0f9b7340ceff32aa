"""An agentic adapter's plain-line reader reaches the framer; the new families classify to twins.

``SubprocessCliEndpoint.plain_line_reader`` is the per-adapter hook of core's JSON-lines
framing: a CLI that prints a plain-text line between its events (Gemini CLI's slash commands)
no longer ends the run with ``ProviderProtocolError`` when its adapter reads such lines. Without
a reader (the default) the line still fails the run. And a vendor's error pattern naming one of
the families no HTTP status names (a refused input, a broken CLI configuration, a turn limit)
now raises the family's stream twin from an error chunk instead of a plain
``ProviderStreamError``.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar

import anyio
import pytest
from pydantic import BaseModel, ConfigDict

from lionagi.service import (
    AgenticCapabilities,
    ProviderConfigError,
    ProviderError,
    ProviderInvalidRequestError,
    ProviderProtocolError,
    ProviderStreamConfigError,
    ProviderStreamError,
    ProviderStreamInvalidRequestError,
    ProviderStreamProtocolError,
    ProviderStreamTurnLimitError,
    ProviderTurnLimitError,
    StreamChunk,
    classify_stream_error,
)
from lionagi.service.agentic import ProviderErrorPattern, SubprocessCliEndpoint

NOTICE = "Memory is currently empty."
SCRIPT = f"""
import json, sys
print(json.dumps({{"type": "text", "text": "before"}}), flush=True)
print({NOTICE!r}, flush=True)
print(json.dumps({{"type": "text", "text": "after"}}), flush=True)
print(json.dumps({{"type": "done"}}), flush=True)
"""


class _Request(BaseModel):
    model_config = ConfigDict(extra="forbid")
    prompt: str
    repo: str | None = None
    workspace: str | None = None


class _Parser:
    def feed(self, event: dict[str, Any]) -> Iterable[StreamChunk]:
        if event["type"] == "text":
            return [StreamChunk("text", event["text"])]
        if event["type"] == "plain":
            return [StreamChunk("system", metadata={"notice": event["line"]})]
        if event["type"] == "done":
            return [StreamChunk("result")]
        raise ProviderProtocolError(f"unknown event {event['type']!r}")

    def finish(self) -> Iterable[StreamChunk]:
        return []


class _PlainCli(SubprocessCliEndpoint):
    default_config: ClassVar[Mapping[str, Any] | None] = {
        "name": "plain",
        "provider": "plain",
        "endpoint": "cli",
    }
    cli_binary: ClassVar[str | None] = "plain-cli"
    capabilities: ClassVar[AgenticCapabilities | None] = AgenticCapabilities(
        transport="subprocess", resumable=False, emits_tool_events=False, reports_usage=False
    )
    request_type: ClassVar[type[BaseModel] | None] = _Request

    def cli_arguments(self, request: Any, *, extra: Sequence[str] = ()) -> list[str]:
        return []

    def event_parser(self, request: Any) -> _Parser:
        return _Parser()


class _ReadingCli(_PlainCli):
    def plain_line_reader(self) -> Callable[[str], dict[str, Any] | None]:
        return lambda line: {"type": "plain", "line": line}


def _run(endpoint: SubprocessCliEndpoint) -> tuple[list[StreamChunk], BaseException | None]:
    got: list[StreamChunk] = []

    async def main() -> None:
        try:
            async for chunk in endpoint.stream({"prompt": "/memory show"}):
                got.append(chunk)
        finally:
            await endpoint.aclose()

    try:
        anyio.run(main)
    except Exception as exc:
        return got, exc
    return got, None


def _argv(tmp_path: Path) -> tuple[str, ...]:
    script = tmp_path / "cli.py"
    script.write_text(SCRIPT, encoding="utf-8")
    return (sys.executable, "-I", str(script))


def test_by_default_a_plain_line_still_fails_the_run(tmp_path: Path) -> None:
    assert _PlainCli().plain_line_reader() is None
    chunks, error = _run(_PlainCli(argv=_argv(tmp_path), settings={"config_home": "isolated"}))
    assert [c.content for c in chunks] == ["before"]
    assert isinstance(error, ProviderProtocolError)
    assert "malformed JSON in stdout" in str(error)
    assert error.__context__ is None  # the decoder's error (the raw read) is not chained


def test_an_adapters_reader_turns_the_line_into_an_event(tmp_path: Path) -> None:
    endpoint = _ReadingCli(argv=_argv(tmp_path), settings={"config_home": "isolated"})
    assert endpoint.launch_spec(_Request(prompt="x"), None).plain_line is not None
    chunks, error = _run(endpoint)
    assert error is None
    assert [(c.type, c.content, c.metadata.get("notice")) for c in chunks] == [
        ("text", "before", None),
        ("system", None, NOTICE),
        ("text", "after", None),
        ("result", None, None),
    ]


class _InputError(ProviderInvalidRequestError):
    pass


@pytest.mark.parametrize(
    ("family", "twin"),
    [
        (_InputError, ProviderStreamInvalidRequestError),  # a vendor subclass: its family's
        (ProviderConfigError, ProviderStreamConfigError),
        (ProviderTurnLimitError, ProviderStreamTurnLimitError),
        (ProviderProtocolError, ProviderStreamProtocolError),
    ],
)
def test_an_error_chunk_of_a_new_family_raises_its_twin(
    family: type[ProviderError], twin: type[ProviderStreamError]
) -> None:
    pattern = ProviderErrorPattern("vendor_kind", family, r"\bVendorFatal\b")
    error = classify_stream_error(
        "the CLI refused to go on", {"type": "VendorFatal"}, extra_patterns=(pattern,)
    )
    assert type(error) is twin
    assert error.kind == "vendor_kind"
    assert error.code == "VendorFatal"
    assert not error.retryable
