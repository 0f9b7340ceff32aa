"""SubprocessCliEndpoint: the mechanics every CLI adapter shares live once, in core (issue 13)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import pytest

from lionagi.providers.claude_code import ClaudeCodeEndpoint
from lionagi.providers.codex import CodexCliEndpoint
from lionagi.providers.gemini_cli import GeminiCodeEndpoint
from lionagi.providers.pi import PiCliEndpoint
from lionagi.service import AgenticEndpoint, EndpointConfigurationError, StreamChunk
from lionagi.service.agentic import SubprocessCliEndpoint, redact_chunk
from lionagi.service_testing.conformance import replay_argv
from lionagi.service_testing.reference_cli import ReferenceCliEndpoint

ADAPTERS: list[type[SubprocessCliEndpoint]] = [
    CodexCliEndpoint,
    ClaudeCodeEndpoint,
    GeminiCodeEndpoint,
    PiCliEndpoint,
    ReferenceCliEndpoint,
]
SHARED = ("copy", "launch", "command", "working_directory", "_stream_agentic")


@pytest.mark.parametrize("cls", ADAPTERS)
def test_every_cli_adapter_keeps_only_its_grammar(cls: type[SubprocessCliEndpoint]) -> None:
    assert issubclass(cls, SubprocessCliEndpoint)
    for name in SHARED:
        assert name not in vars(cls), f"{cls.__name__} re-implements {name}()"
    assert "cli_arguments" in vars(cls) and "event_parser" in vars(cls)


@pytest.mark.parametrize("cls", ADAPTERS)
def test_construction_and_copy_carry_argv_grace_and_settings(
    cls: type[SubprocessCliEndpoint],
) -> None:
    endpoint = cls(argv=("fake", "--flag"), terminate_grace=1.5, settings={"cwd": "/"})
    other = endpoint.copy()
    assert type(other) is cls and other is not endpoint
    assert (other.argv, other.terminate_grace, other.settings) == (
        ("fake", "--flag"),
        1.5,
        endpoint.settings,
    )
    assert cls().argv == (cls.cli_binary,)


@pytest.mark.parametrize("cls", ADAPTERS)
@pytest.mark.parametrize("argv", [(), "codex exec"])
def test_empty_or_string_argv_is_a_configuration_error(
    cls: type[SubprocessCliEndpoint], argv: Any
) -> None:
    with pytest.raises(EndpointConfigurationError) as info:
        cls(argv=argv)
    assert info.value.field == "argv"


def test_an_adapter_without_a_program_is_refused() -> None:
    class NoBinary(ReferenceCliEndpoint):
        cli_binary = None

    with pytest.raises(EndpointConfigurationError) as info:
        NoBinary()
    assert info.value.field == "argv"


def test_a_request_model_without_the_shared_fields_is_a_configuration_error() -> None:
    endpoint = ReferenceCliEndpoint()
    with pytest.raises(EndpointConfigurationError) as info:
        endpoint.launch(object(), None)
    assert info.value.field == "request_type"


def test_binary_setting_replaces_the_program_and_keeps_the_prefix() -> None:
    endpoint = ReferenceCliEndpoint(argv=("prog", "sub"), settings={"binary": "/opt/ref"})
    request = endpoint.create_payload({"prompt": "hi", "model": "m"})[0]["request"]
    assert endpoint.command(request) == ["/opt/ref", "sub", "--model", "m"]
    assert endpoint.command(request, program="/x")[0] == "/x"


def test_error_chunks_are_redacted_at_the_endpoint(tmp_path: Path) -> None:
    key = "gw-key-subprocess-cli-0123"
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps({"events": [{"type": "error", "message": f"bad key {key}"}]}))
    endpoint = ReferenceCliEndpoint(
        argv=replay_argv(plan),
        settings={"gateway_url": "http://127.0.0.1:9", "gateway_api_key": key},
    )

    async def run() -> list[StreamChunk]:
        try:
            return [chunk async for chunk in endpoint.stream({"prompt": "hi"})]
        finally:
            await endpoint.aclose()

    chunks = anyio.run(run)
    assert [c.type for c in chunks] == ["error"]
    assert key not in (chunks[0].content or "")
    assert "[REDACTED]" in (chunks[0].content or "")


def test_redact_chunk_scrubs_text_and_string_metadata() -> None:
    chunk = StreamChunk("error", "k=abc", is_error=True, metadata={"raw": "abc", "n": 1})
    clean = redact_chunk(chunk, ["abc", ""])
    assert (clean.content, clean.metadata, clean.is_error) == (
        "k=[REDACTED]",
        {"raw": "[REDACTED]", "n": 1},
        True,
    )
    assert redact_chunk(chunk, []) is chunk


def test_the_base_is_an_agentic_endpoint_and_abstract() -> None:
    assert issubclass(SubprocessCliEndpoint, AgenticEndpoint)
    with pytest.raises(TypeError):
        SubprocessCliEndpoint()  # type: ignore[abstract]


def test_a_missing_directory_is_named_by_where_it_came_from(tmp_path: Path) -> None:
    from lionagi.service import AgenticRequestValidationError
    from lionagi.service_testing.reference_cli import ReferenceCliRequest

    absent = str(tmp_path / "absent")
    endpoint = ReferenceCliEndpoint(argv=("fake",), settings={"cwd": absent})
    with pytest.raises(AgenticRequestValidationError) as info:
        endpoint.working_directory(ReferenceCliRequest(prompt="hi"))
    assert info.value.field == "cwd"  # the deployment's setting, not a request field
    with pytest.raises(AgenticRequestValidationError) as info:
        endpoint.working_directory(ReferenceCliRequest(prompt="hi", repo=absent))
    assert info.value.field == "repo"


@pytest.mark.parametrize(
    ("cls", "fields", "named"),
    [
        (ReferenceCliEndpoint, {"prompt": "first\x00second"}, "prompt"),
        (ReferenceCliEndpoint, {"prompt": "go", "model": "m\x00"}, "model"),
        (ClaudeCodeEndpoint, {"prompt": "go", "add_dirs": ["ok", "b\x00d"]}, "add_dirs.1"),
        (ReferenceCliEndpoint, {"prompt": "lone \ud800 surrogate"}, "prompt"),
        (ClaudeCodeEndpoint, {"prompt": "go", "system_prompt": "be \udc80"}, "system_prompt"),
    ],
    ids=["prompt", "model", "list-item", "surrogate", "surrogate-in-flag"],
)
async def test_a_nul_in_request_text_is_refused_before_anything_runs(
    replay: Any, cls: type[SubprocessCliEndpoint], fields: dict[str, Any], named: str
) -> None:
    """No argument can carry NUL or a lone surrogate: a typed error naming the field, no
    admission, no process, and the value not echoed."""
    from lionagi.service import AgenticRequestValidationError, iModel

    model = iModel(endpoint=cls(argv=replay.argv))
    async with model:
        with pytest.raises(AgenticRequestValidationError) as info:
            await model.invoke(**fields)
        assert info.value.field == named
        assert not any(c == "\x00" or "\ud800" <= c <= "\udfff" for c in str(info.value))
        with pytest.raises(AgenticRequestValidationError):
            async for _ in model.stream(**fields):
                pass
        assert model.admission_snapshot().active == 0
    assert replay.launches() == []


class _KeyErrorParser:
    """A parser written against a field the provider's event does not carry."""

    def feed(self, event: dict[str, Any]) -> list[StreamChunk]:
        return [StreamChunk("text", event["missing-field"])]

    def finish(self) -> list[StreamChunk]:
        return []


class _KeyErrorCli(ReferenceCliEndpoint):
    def event_parser(self, request: Any) -> Any:
        return _KeyErrorParser()


async def test_a_parser_failing_on_an_event_is_a_typed_protocol_error(replay: Any) -> None:
    """A bare KeyError from adapter code reading provider output reaches no caller."""
    from lionagi.service import EventStatus, ProviderProtocolError, iModel

    replay.write(events=[{"type": "text", "content": "a"}])
    model = iModel(endpoint=_KeyErrorCli(argv=replay.argv))
    async with model:
        with pytest.raises(ProviderProtocolError, match="_KeyErrorParser") as info:
            async for _ in model.stream(prompt="go"):
                pass
        assert isinstance(info.value.__cause__, KeyError)
        call = await model.invoke(prompt="go")
        assert call.status is EventStatus.FAILED
        assert isinstance(call.exception, ProviderProtocolError)


async def test_a_failing_text_handler_is_raised_as_it_is(replay: Any) -> None:
    """The caller's own on_text handler is not the provider's output: its error is its own."""
    from lionagi.service import iModel

    replay.write(events=[{"type": "text", "content": "a"}])

    def on_text(text: str) -> None:
        raise LookupError("the handler's own failure")

    model = iModel(endpoint=ReferenceCliEndpoint(argv=replay.argv))
    async with model:
        with pytest.raises(LookupError, match="the handler's own failure"):
            async for _ in model.stream(prompt="go", on_text=on_text):
                pass


async def test_invoke_raises_a_workspace_refused_at_launch(replay: Any, tmp_path: Path) -> None:
    """A request error found only when the run starts is raised, as at creation, not recorded."""
    from lionagi.service import AgenticRequestValidationError, EventStatus, iModel

    repo = tmp_path / "repo"
    repo.mkdir()
    model = iModel(endpoint=ReferenceCliEndpoint(argv=replay.argv))
    async with model:
        call = model.create_api_calling(prompt="go", repo=str(repo), workspace="../outside")
        with pytest.raises(AgenticRequestValidationError) as info:
            await model.invoke(call)
        assert info.value.field == "workspace"
        assert call.status is EventStatus.FAILED
        assert model.admission_snapshot().active == 0
    assert replay.launches() == []
