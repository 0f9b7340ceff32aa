"""Fuzzing: framers, projectors, CLI event parsers, catalog validation and model spec parsing.

Every target gets arbitrary input shaped like its wire (a vocabulary drawn from the target's own
string literals makes the generated events hit real branches: known ``type`` values, field
names, stop reasons) and must either succeed or raise a typed error from the service error
tree. Anything else escaping (``KeyError``, ``TypeError``, ``AttributeError``, ...) is a bug: a
provider or a CLI sending an odd but well-formed JSON value must never crash a caller with an
untyped exception.

Size: the ``HYPOTHESIS_PROFILE`` profile from this directory's conftest (``ci`` by default,
``full`` for 100,000 examples per target).
"""

from __future__ import annotations

import ast
import inspect
import os
import string
from collections.abc import Callable, Iterable, Sequence
from types import ModuleType
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel

from lionagi.service import (
    AgenticEndpoint,
    Endpoint,
    EndpointRegistry,
    EndpointType,
    ProviderEndpointSpec,
    ProviderModuleSpec,
    StreamChunk,
)
from lionagi.service._base import errors as error_tree
from lionagi.service._catalog.discovery import CollectedModule
from lionagi.service._catalog.validate import validate_specs
from lionagi.service._transport.http import endpoint as endpoint_module
from lionagi.service._transport.http import projection
from lionagi.service._transport.http.framing import DONE, NDJSONFramer, SSEFramer
from lionagi.service.http import ChatCompletionsProjector, OpenAIChatEndpoint

anthropic = pytest.importorskip("lionagi.providers.anthropic._projector")
gemini = pytest.importorskip("lionagi.providers.gemini._projector")
ollama = pytest.importorskip("lionagi.providers.ollama._projector")
responses = pytest.importorskip("lionagi.providers.openai._responses_stream")
perplexity = pytest.importorskip("lionagi.providers.perplexity._endpoint")
codex = pytest.importorskip("lionagi.providers.codex._events")
claude = pytest.importorskip("lionagi.providers.claude_code._events")
gemini_cli = pytest.importorskip("lionagi.providers.gemini_cli._events")
pi = pytest.importorskip("lionagi.providers.pi._events")

FUZZ = settings(settings.get_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci")))

TYPED: tuple[type[BaseException], ...] = tuple(
    value
    for name in error_tree.__all__
    if isinstance(value := getattr(error_tree, name), type) and issubclass(value, BaseException)
)
"""Every exception class of the service error tree: the only ones allowed to escape."""

SECRET = "fuzzsecretvalue0123456789"


# -- strategies -----------------------------------------------------------------------------------


def vocabulary(*modules: ModuleType) -> list[str]:
    """The short string literals of ``modules``: event types, field names, enum values."""
    words: set[str] = set()
    for module in modules:
        for node in ast.walk(ast.parse(inspect.getsource(module))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                text = node.value
                if 0 < len(text) <= 40 and "\n" not in text:
                    words.add(text)
    return sorted(words)


_scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**64), max_value=2**64)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=12)
)


def json_values(words: Sequence[str]) -> st.SearchStrategy[Any]:
    word = st.sampled_from(words)
    leaf = _scalars | word
    return st.recursive(
        leaf,
        lambda inner: (
            st.lists(inner, max_size=4)
            | st.dictionaries(word | st.text(max_size=6), inner, max_size=6)
        ),
        max_leaves=16,
    )


def events(words: Sequence[str]) -> st.SearchStrategy[dict[str, Any]]:
    """JSON objects whose keys and ``type`` mostly come from the target's vocabulary."""
    word = st.sampled_from(words)
    body = st.dictionaries(word, json_values(words), max_size=8)
    typed = st.builds(lambda kind, rest: {**rest, "type": kind}, word, body)
    return typed | body


def streams(words: Sequence[str]) -> st.SearchStrategy[list[dict[str, Any]]]:
    return st.lists(events(words), max_size=14)


def only_typed(run: Callable[[], Iterable[Any]]) -> None:
    """Run a target; its outputs must be chunks, and only typed errors may escape."""
    try:
        for item in run():
            assert isinstance(item, StreamChunk), item
    except TYPED:
        pass


# -- framers --------------------------------------------------------------------------------------

_FRAME_WORDS = ["data:", "data: ", "event:", "event: ", "id:", "retry:", ":", "[DONE]", "{", "}"]
_frame_text = st.lists(
    st.sampled_from([*_FRAME_WORDS, "\n", "\r\n", "\r", '"type"', '"a"', ":", ",", "1", "[", "]"])
    | st.text(max_size=8),
    max_size=40,
).map("".join)


def _cuts(text: str, points: list[int]) -> list[str]:
    marks = sorted({p % (len(text) + 1) for p in points})
    pieces, last = [], 0
    for mark in marks:
        pieces.append(text[last:mark])
        last = mark
    pieces.append(text[last:])
    return pieces


def _frame(framer_type: type[SSEFramer] | type[NDJSONFramer], pieces: list[str]) -> list[Any]:
    framer = framer_type((SECRET,))
    out: list[Any] = []
    for piece in pieces:
        out += framer.feed(piece)
    out += framer.flush()
    return out


def _framed_or_error(framer_type: Any, pieces: list[str]) -> tuple[str, Any]:
    try:
        return "ok", _frame(framer_type, pieces)
    except TYPED as exc:
        return "error", type(exc)


@pytest.mark.parametrize("framer_type", [SSEFramer, NDJSONFramer], ids=["sse", "ndjson"])
@FUZZ
@given(text=_frame_text, points=st.lists(st.integers(min_value=0), max_size=6))
def test_fuzz_framer_only_typed_errors_and_split_invariant(
    framer_type: Any, text: str, points: list[int]
) -> None:
    whole = _framed_or_error(framer_type, [text])
    split = _framed_or_error(framer_type, _cuts(text, points))
    assert whole[0] == split[0], (whole, split)
    if whole[0] == "ok":
        assert repr(whole[1]) == repr(split[1])  # NaN-safe comparison of decoded values
        for event in whole[1]:
            assert event is DONE or isinstance(event, dict | list | str | int | float | bool)


# -- HTTP stream projectors -----------------------------------------------------------------------

PROJECTORS: dict[str, tuple[type[Any], list[str]]] = {
    "openai-chat": (ChatCompletionsProjector, vocabulary(projection)),
    "openai-responses": (responses.ResponsesProjector, vocabulary(responses, projection)),
    "anthropic": (anthropic.AnthropicMessagesProjector, vocabulary(anthropic, projection)),
    "gemini": (gemini.GeminiStreamProjector, vocabulary(gemini, projection)),
    "ollama": (ollama.OllamaGenerateProjector, vocabulary(ollama, projection)),
    "ollama-chat": (ollama.OllamaNativeChatProjector, vocabulary(ollama, projection)),
    "perplexity": (perplexity.PerplexityProjector, vocabulary(perplexity, projection)),
}


def _project(projector_type: type[Any], stream: list[Any], eof: bool) -> Iterable[StreamChunk]:
    """Drive the projector exactly as ``Endpoint.stream`` does (its typed-error boundary)."""
    projector = projector_type((SECRET,))
    ready, tail, error = endpoint_module._project(projector, stream)
    if error is not None:
        raise error
    if not projector.done and eof:
        tail = endpoint_module._project_end(projector)
    return [*ready, *tail]


def _projector_case(name: str) -> Callable[..., None]:
    projector_type, words = PROJECTORS[name]

    @FUZZ
    @given(
        stream=st.lists(events(words) | st.just(DONE) | json_values(words), max_size=14),
        eof=st.booleans(),
    )
    def case(stream: list[Any], eof: bool) -> None:
        only_typed(lambda: _project(projector_type, stream, eof))

    return case


test_fuzz_projector_openai_chat = _projector_case("openai-chat")
test_fuzz_projector_openai_responses = _projector_case("openai-responses")
test_fuzz_projector_anthropic = _projector_case("anthropic")
test_fuzz_projector_gemini = _projector_case("gemini")
test_fuzz_projector_ollama = _projector_case("ollama")
test_fuzz_projector_ollama_chat = _projector_case("ollama-chat")
test_fuzz_projector_perplexity = _projector_case("perplexity")


# -- CLI event parsers ----------------------------------------------------------------------------


def _codex(stream: list[dict[str, Any]]) -> Iterable[StreamChunk]:
    parser = codex.CodexEventParser(model="fuzz-model")
    for event in stream:
        yield from parser.feed(event)
    yield from parser.finish()


def _claude(stream: list[dict[str, Any]]) -> Iterable[StreamChunk]:
    mapper = claude.ClaudeEventMapper()
    for event in stream:
        if mapper.finished:
            break
        yield from mapper.feed(event)
    yield from mapper.finish()


def _gemini_cli(stream: list[dict[str, Any]]) -> Iterable[StreamChunk]:
    projector = gemini_cli.GeminiEventProjector()
    for event in stream:
        if projector.finished:
            break
        yield from projector.project(event)
    finish = getattr(projector, "finish", None)  # end-of-stream hook, where the version has one
    if finish is not None:
        yield from finish()


def _pi(stream: list[dict[str, Any]]) -> Iterable[StreamChunk]:
    projector = pi.PiEventProjector(resumable=True)
    for event in stream:
        yield from projector.feed(event)
    yield from projector.finish()


CLI_PARSERS: dict[
    str, tuple[Callable[[list[dict[str, Any]]], Iterable[StreamChunk]], list[str]]
] = {
    "codex": (_codex, vocabulary(codex)),
    "claude_code": (_claude, vocabulary(claude)),
    "gemini_cli": (_gemini_cli, vocabulary(gemini_cli)),
    "pi": (_pi, vocabulary(pi)),
}


def _cli_case(name: str) -> Callable[..., None]:
    run, words = CLI_PARSERS[name]

    @FUZZ
    @given(stream=streams(words))
    def case(stream: list[dict[str, Any]]) -> None:
        only_typed(lambda: list(run(stream)))

    return case


test_fuzz_cli_parser_codex = _cli_case("codex")
test_fuzz_cli_parser_claude_code = _cli_case("claude_code")
test_fuzz_cli_parser_gemini_cli = _cli_case("gemini_cli")
test_fuzz_cli_parser_pi = _cli_case("pi")


# -- catalog spec validation ----------------------------------------------------------------------


class _Options(BaseModel):
    model: str = "m"


class _Agentic(AgenticEndpoint):
    pass


_key_text = st.text(alphabet=string.ascii_letters + string.digits + " -_./:\t\u00e9", max_size=12)
_classes = st.sampled_from([Endpoint, OpenAIChatEndpoint, _Agentic, object, int, BaseModel])
_options = st.sampled_from([None, _Options, BaseModel, lambda: _Options, "not a model", 3])


@st.composite
def _spec(draw: st.DrawFn) -> ProviderEndpointSpec:
    return ProviderEndpointSpec(
        provider=draw(_key_text | st.sampled_from(["openai", "acme"])),
        endpoint=draw(_key_text | st.sampled_from(["chat", "chat/completions"])),
        endpoint_type=draw(st.sampled_from([*EndpointType, "api", None])),  # type: ignore[arg-type]
        endpoint_class=draw(_classes),  # type: ignore[arg-type]
        provider_aliases=tuple(draw(st.lists(_key_text, max_size=3))),
        endpoint_aliases=tuple(draw(st.lists(_key_text, max_size=3))),
        request_options=draw(_options),  # type: ignore[arg-type]
        base_url=draw(
            st.none()
            | st.sampled_from(["https://x.test/v1", "ftp://x", "", "http://["])
            | st.text(max_size=20)
        ),
        auth_type=draw(st.none() | st.sampled_from(["bearer", "x-api-key", "none", "basic"])),
        content_type=draw(st.sampled_from(["application/json", "", "text/plain"])),
        api_key_env=draw(st.none() | st.sampled_from(["ACME_API_KEY", "", "bad name"])),
        request_defaults=draw(st.dictionaries(st.text(max_size=6), _scalars, max_size=3)),
    )


@FUZZ
@given(
    st.lists(st.tuples(_key_text, st.lists(_spec(), max_size=3), st.none() | _key_text), max_size=3)
)
def test_fuzz_catalog_spec_validation(
    rows: list[tuple[str, list[ProviderEndpointSpec], Any]],
) -> None:
    modules = [
        CollectedModule(
            row=ProviderModuleSpec(provider=provider, module=f"m{i}", distribution=dist),
            specs=tuple(specs),
        )
        for i, (provider, specs, dist) in enumerate(rows)
    ]
    try:
        diagnostics, validated = validate_specs(modules)
    except TYPED:
        return
    assert isinstance(diagnostics, list)
    assert len(validated) <= sum(len(m.specs) for m in modules)


# -- model spec parsing ---------------------------------------------------------------------------

_PROVIDER_WORDS = sorted(
    {
        word
        for item in EndpointRegistry.inspect()["providers"]
        for word in (item["provider"], *item["aliases"])
    }
)
_model_text = st.lists(
    st.sampled_from(
        [
            *_PROVIDER_WORDS,
            "/",
            "-",
            "--",
            "high",
            "low",
            "medium",
            "xhigh",
            "minimal",
            "max",
            "none",
            "gpt-5",
            "sonnet",
            "m",
            " ",
            ".",
            ":",
            "\t",
            "\x00",
            "é",
        ]
    )
    | st.text(max_size=5),
    max_size=8,
).map("".join)


@FUZZ
@given(_model_text, st.booleans(), st.booleans(), st.booleans())
def test_fuzz_model_spec_parsing(text: str, yolo: bool, bypass: bool, fast: bool) -> None:
    try:
        spec = EndpointRegistry.parse_model_spec(text, yolo=yolo, bypass=bypass, fast=fast)
    except TYPED:
        return
    assert spec.provider and spec.model


def test_the_typed_tree_is_the_service_error_tree() -> None:
    names = {t.__name__ for t in TYPED}
    assert {"ProviderProtocolError", "EndpointConfigurationError", "ProviderError"} <= names
    assert KeyError not in TYPED and TypeError not in TYPED


@pytest.mark.parametrize(
    "event",
    [{"choices": [None]}, {"choices": 3}, {"choices": [{"delta": "text"}]}],
)
async def test_a_malformed_chat_event_ends_the_stream_as_a_protocol_error(event: Any) -> None:
    """Regression (found by the fuzzer): ``"choices": [null]`` escaped as ``AttributeError``."""
    import json

    import httpx

    from lionagi.service import ProviderProtocolError

    body = f"data: {json.dumps(event)}\n\n".encode()

    def reply(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, headers={"content-type": "text/event-stream"}, content=body)

    ep = OpenAIChatEndpoint(
        {
            "name": "fuzz",
            "provider": "p",
            "endpoint": "chat/completions",
            "base_url": "http://127.0.0.1:9/v1",
            "api_key": SECRET,
            "allow_local_network": True,
        },
        transport=httpx.MockTransport(reply),
    )
    try:
        with pytest.raises(ProviderProtocolError, match="unexpected shape") as info:
            async for _ in ep.stream({"model": "m", "messages": []}):
                pass
        assert SECRET not in str(info.value)
    finally:
        await ep.aclose()


@pytest.mark.parametrize("parser", ["codex", "claude_code"])
@pytest.mark.parametrize("kind", [["list"], {"an": "object"}, 3])
def test_a_cli_event_type_that_is_not_a_string_is_a_protocol_error(parser: str, kind: Any) -> None:
    """Regression (found by the fuzzer): a list ``type`` escaped as ``TypeError: unhashable``."""
    from lionagi.service import ProviderProtocolError

    run, _ = CLI_PARSERS[parser]
    with pytest.raises(ProviderProtocolError, match="not a string"):
        list(run([{"type": kind}]))
