"""Route each request to its dialect's renderer and apply the scripted scenario.

Routes match on the path's suffix (``.../chat/completions``, ``.../responses``,
``.../messages``, ``.../embeddings``, ``.../models/{model}:generateContent`` (and Gemini's
``:streamGenerateContent``, ``:embedContent``, ``:batchEmbedContents``), ``.../api/chat``,
``.../api/generate``, ``.../api/embed``, ``.../search``, ``.../answer``; Exa's operations also
under ``/json/``), so a client can keep its provider's own prefix (``/v1``, ``/v1beta/openai``,
``/api/v1``) and point only the host at the fake server. A leading ``/scenario/<names>/`` is
stripped first: it selects the scenario for clients that can set a base URL but no header.
"""

from __future__ import annotations

import email.utils
import json
import math
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any
from urllib.parse import parse_qsl

from ._fake_anthropic import messages_json, messages_stream
from ._fake_cache import SENTINEL, ReplyCache
from ._fake_chat import chat_json, chat_stream
from ._fake_embeddings import embeddings_json, gemini_models, openai_models
from ._fake_errors import Vendor, error_body, error_status
from ._fake_gemini import (
    gemini_array,
    gemini_batch_embed_json,
    gemini_embed_json,
    gemini_json,
    gemini_stream,
)
from ._fake_http import Cut, HttpReply, HttpRequest
from ._fake_ollama import (
    NDJSON,
    ollama_chat_json,
    ollama_chat_stream,
    ollama_embed_json,
    ollama_generate_json,
    ollama_generate_stream,
)
from ._fake_record import RecordedRequest, credential_of, record
from ._fake_request import (
    DEFAULT_MODEL,
    RequestFacts,
    answer_facts,
    chat_facts,
    gemini_facts,
    messages_facts,
    ollama_chat_facts,
    ollama_generate_facts,
    responses_facts,
)
from ._fake_responses import responses_json, responses_stream
from ._fake_script import (
    INVALID_UTF8_BYTES,
    INVALID_UTF8_MARK,
    SCENARIO_PREFIX,
    Script,
    ScriptError,
    build_script,
    scenario_of,
    split_scenario_path,
)
from ._fake_search import answer_json, answer_stream, search_json
from ._fake_unknown import with_unknown_fields
from ._fake_wire import USAGE_INPUT, Rendered, dumps

__all__ = ["FakeApp"]

_JsonFn = Callable[[Script, int, RequestFacts, dict[str, Any]], bytes]
_StreamFn = Callable[..., Rendered]


@dataclass(frozen=True, slots=True)
class _Route:
    kind: str
    vendor: Vendor
    json: _JsonFn
    stream: _StreamFn | None = None
    facts: Callable[[dict[str, Any]], RequestFacts] | None = None
    media: bytes | None = None  # the stream's content type, when not SSE


def _plain(render: Callable[[Script, int, RequestFacts], bytes]) -> _JsonFn:
    return lambda script, seq, facts, body: render(script, seq, facts)


def _bodiless(render: _StreamFn) -> _StreamFn:
    """A stream renderer that reads only the facts, called with the body like every route's."""
    return lambda script, seq, facts, body, **kw: render(script, seq, facts, **kw)


def _search(operation: str, *, streams: bool = False) -> _Route:
    """A search operation's route; `/search` streams as `/answer` does (`"stream": true`)."""
    document = _Route(
        operation,
        "json",
        lambda script, seq, facts, body: search_json(script, seq, operation, body),
    )
    if not streams:
        return document
    return _Route(operation, "json", document.json, answer_stream, answer_facts)


_CHAT = _Route("chat", "openai", _plain(chat_json), _bodiless(chat_stream), chat_facts)
_RESPONSES = _Route(
    "responses", "openai", _plain(responses_json), _bodiless(responses_stream), responses_facts
)
_MESSAGES = _Route(
    "messages", "anthropic", _plain(messages_json), _bodiless(messages_stream), messages_facts
)
_COUNT = _Route("count_tokens", "anthropic", lambda *_: dumps({"input_tokens": USAGE_INPUT}))
_EMBED = _Route("embeddings", "openai", lambda script, seq, facts, body: embeddings_json(body))
_GEMINI = _Route("gemini", "gemini", _plain(gemini_json))
_GEMINI_STREAM = _Route("gemini_stream", "gemini", _plain(gemini_array), _bodiless(gemini_stream))
_GEMINI_EMBED = _Route(
    "gemini_embed", "gemini", lambda script, seq, facts, body: gemini_embed_json(body)
)
_GEMINI_BATCH_EMBED = _Route(
    "gemini_batch_embed", "gemini", lambda script, seq, facts, body: gemini_batch_embed_json(body)
)
# Gemini's native methods, by the name after ``models/{model}:``.
_GEMINI_METHODS = {
    "generateContent": _GEMINI,
    "streamGenerateContent": _GEMINI_STREAM,
    "embedContent": _GEMINI_EMBED,
    "batchEmbedContents": _GEMINI_BATCH_EMBED,
}
# The method a Gemini route's errors name ("... is not supported for <method>"): the streamed
# method is answered as the service does, naming generateContent.
_GEMINI_ERROR_METHOD = {
    _GEMINI_EMBED.kind: "embedContent",
    _GEMINI_BATCH_EMBED.kind: "batchEmbedContents",
}
_OLLAMA_CHAT = _Route(
    "ollama_chat",
    "ollama",
    _plain(ollama_chat_json),
    _bodiless(ollama_chat_stream),
    ollama_chat_facts,
    NDJSON,
)
_OLLAMA_GENERATE = _Route(
    "ollama_generate",
    "ollama",
    _plain(ollama_generate_json),
    _bodiless(ollama_generate_stream),
    ollama_generate_facts,
    NDJSON,
)
_OLLAMA_EMBED = _Route(
    "ollama_embed", "ollama", lambda script, seq, facts, body: ollama_embed_json(body)
)
_ANSWER = _Route(
    "answer",
    "json",
    lambda script, seq, facts, body: answer_json(script, seq, body),
    answer_stream,
    answer_facts,
)
# Exa's shape: the three search operations and the answer, by their last path segment.
_EXA_ROUTES = {
    "search": _search("search", streams=True),
    **{name: _search(name) for name in ("findSimilar", "contents")},
    "answer": _ANSWER,
}
_SUFFIXES = (
    ("/api/chat", _OLLAMA_CHAT),
    ("/api/generate", _OLLAMA_GENERATE),
    ("/api/embed", _OLLAMA_EMBED),
    ("/chat/completions", _CHAT),
    ("/responses", _RESPONSES),
    ("/messages/count_tokens", _COUNT),
    ("/messages", _MESSAGES),
    ("/embeddings", _EMBED),
    *((f"/{name}", route) for name, route in _EXA_ROUTES.items()),
)
_JSON_PREFIX = "/json/"
_GEMINI_PATH = re.compile(r"/models/([^/:]+):(" + "|".join(_GEMINI_METHODS) + r")$")
_CUTS = {
    "disconnect_before": Cut.BEFORE,
    "disconnect_after_head": Cut.AFTER_HEAD,
    "stall_before": Cut.STALL_BEFORE,
    "disconnect_after": Cut.AFTER_FIRST,
    "reset_mid_line": Cut.MID_LINE,
    "stall": Cut.STALL,
}
_RETRY_AFTER_KINDS = frozenset({"429", "retry_after_date"})
# Refusals a streamed request gets in-band (a 200 stream whose error event carries the error
# object), by behaviour, with the error kind rendered: the one-shot request gets that kind's
# HTTP error instead. ``content_filter`` is chat completions only (``_handle`` refuses the
# other routes); the capability refusal is rendered by every route that renders the kind.
_IN_BAND_REFUSALS = {
    "content_filter": "content_filter",
    "stream_unsupported_capability": "unsupported_capability",
}
# The capability refusal's two forms (the HTTP 400, and in-band in a stream).
_CAPABILITY_BEHAVIOURS = frozenset({"unsupported_capability", "stream_unsupported_capability"})
_HTML = (
    b"<!DOCTYPE html><html><head><title>502 Bad Gateway</title></head>"
    b"<body><h1>Bad Gateway</h1><p>The upstream answered with a page, not JSON.</p></body></html>"
)
_HTML_TYPE = b"text/html; charset=utf-8"
_HOSTILE_CHARSET = b"; charset=base64"
_DEFAULT_TYPES = {True: b"text/event-stream", False: b"application/json"}
# ``drip``: bytes per write and the pause between writes unless x-fake-delay-ms says otherwise.
_DRIP_BYTES = 16
_DRIP_DELAY = 0.001
_MARK = INVALID_UTF8_MARK.encode()


def _vendor_of(path: str) -> Vendor:
    if "v1beta/models" in path or ":generate" in path or ":streamGenerate" in path:
        return "gemini"
    if "/api/" in path and "/api/v1/" not in path:
        return "ollama"
    if path.startswith(_JSON_PREFIX):
        return "json"
    return "anthropic" if "/messages" in path else "openai"


def _json_reply(
    status: int, body: bytes, headers: tuple[tuple[bytes, bytes], ...] = ()
) -> HttpReply:
    return HttpReply(status, Rendered([body], stream=False), headers)


def _error(
    vendor: Vendor,
    kind: str | int,
    headers: tuple[tuple[bytes, bytes], ...] = (),
    credential: str = "",
    message: str | None = None,
    **extra: Any,
) -> HttpReply:
    body = error_body(vendor, kind, credential, message, **extra)
    return _json_reply(error_status(vendor, kind), body, headers)


def _corrupt(rendered: Rendered) -> Rendered:
    """Make one data line (or the JSON body) invalid JSON while keeping the framing intact."""
    frames = list(rendered.frames)
    if rendered.stream:
        index = rendered.first_output
        frame = frames[index]
        if b"data: {" in frame:
            frames[index] = frame.replace(b"data: {", b"data: {malformed ", 1)
        else:  # an NDJSON line
            frames[index] = b"{malformed " + frame[1:]
    else:
        frames = [b"{malformed " + b"".join(frames)[1:]]
    return Rendered(frames, rendered.first_output, rendered.stream)


def _invalid_utf8(rendered: Rendered) -> Rendered:
    """Swap the scripted marker for bytes that are not UTF-8 (framing and JSON stay intact).

    Documents that carry no answer text (search results without contents) get the bytes inside
    their first string value instead.
    """
    frames = [frame.replace(_MARK, INVALID_UTF8_BYTES) for frame in rendered.frames]
    if frames == rendered.frames:
        index = rendered.first_output if rendered.stream else 0
        if not rendered.stream:
            frames = [b"".join(frames)]
        frames[index] = frames[index].replace(b'":"', b'":"' + INVALID_UTF8_BYTES, 1)
    return Rendered(frames, rendered.first_output, rendered.stream)


def _http_date_after(retry_after: str) -> bytes:
    """An HTTP-date ``Retry-After`` that many seconds (default 1) from now."""
    try:
        seconds = max(0.0, float(retry_after))
    except ValueError:
        seconds = 1.0
    return email.utils.formatdate(time.time() + seconds, usegmt=True).encode()


def _retry_seconds(retry_after: str) -> float | None:
    """The delay for Gemini's ``retryDelay``: fractions kept, as a protobuf Duration keeps them."""
    try:
        seconds = float(retry_after)
    except ValueError:
        return None
    return max(0.0, seconds) if math.isfinite(seconds) else None


_UNPARSED = object()


def _json(request: HttpRequest) -> Any:
    if not request.body:
        return None
    try:
        return json.loads(request.body)
    except ValueError:
        return None


def _request_ids(vendor: Vendor, seq: int) -> tuple[tuple[bytes, bytes], ...]:
    request_id = b"req_fake_%d" % seq
    if vendor == "anthropic":
        return ((b"request-id", request_id),)
    return ((b"x-request-id", request_id),)


def _ollama_tags() -> bytes:
    model = {"name": DEFAULT_MODEL, "model": DEFAULT_MODEL, "size": 0, "details": {}}
    return dumps({"models": [model]})


_GETS: dict[str, Callable[[], bytes]] = {
    "/api/tags": _ollama_tags,
    "/api/version": lambda: dumps({"version": "0.0.0-fake"}),
}


class FakeApp:
    """The request handler behind :class:`FakeProviderServer`: synchronous and allocation-light.

    Ids derive from a per-server request counter, never from randomness, and repeated requests
    are answered from pre-rendered templates (see :mod:`._fake_cache`).
    """

    __slots__ = ("_cache", "_record", "_seq", "requests")

    def __init__(self, *, record_requests: bool = True) -> None:
        self.requests: list[RecordedRequest] = []
        self._record = record_requests
        self._seq = 0
        self._cache = ReplyCache()

    def __call__(self, request: HttpRequest) -> HttpReply:
        """Record ``request`` and answer it."""
        self._seq += 1
        # The cache keys on the path as sent, scenario prefix included.
        key = self._cache.key(request)
        routed, path_scenario = request, None
        if request.path.startswith(SCENARIO_PREFIX):
            path_scenario, path = split_scenario_path(request.path)
            routed = replace(request, path=path)
        body: Any = _UNPARSED
        if self._record:
            body = _json(request)
            selector, _source = scenario_of(request.headers, path_scenario)
            self.requests.append(
                record(request.method, routed.path, request.query, request.headers, body, selector)
            )
        if key is None:
            return self._handle(routed, self._seq, body, path_scenario)
        reply = self._cache.get(key, self._seq)
        if reply is None:
            reply = self._handle(routed, SENTINEL, body, path_scenario)
            reply = self._cache.put(key, reply, self._seq)
        return reply

    def _handle(
        self, request: HttpRequest, seq: int, body: Any, path_scenario: str | None
    ) -> HttpReply:
        path = request.path
        if request.method == "GET":
            if path.endswith("/models"):
                gemini = "v1beta/models" in path and "/openai/" not in path
                return _json_reply(200, gemini_models() if gemini else openai_models())
            if path in _GETS:
                return _json_reply(200, _GETS[path]())
        route = self._route(request.method, path)
        if route is None:
            message = f"no fake route for {request.method} {path}"
            return _error(_vendor_of(path), 404, message=message)
        if body is _UNPARSED:
            body = _json(request)
        if not isinstance(body, dict):
            return _error(route.vendor, 400, message="request body must be a JSON object")
        facts = self._facts(route, body, path, request.query)
        credential = credential_of(request.headers, request.query)
        try:
            script = build_script(request.headers, facts, credential, path_scenario)
            if route is _OLLAMA_GENERATE and script.tool is not None:
                raise ScriptError(
                    f"scenario {script.scenario!r}: /api/generate has no tool calls; "
                    "use /api/chat for the tool behaviour"
                )
            if route is _ANSWER and (script.tool is not None or script.limit):
                # Refused rather than invented: Exa's answer documents neither.
                raise ScriptError(
                    f"scenario {script.scenario!r}: /answer has no tool calls and no "
                    "output-token-limit stop (Exa's answer is text with its citations)"
                )
            if script.behaviour == "content_filter" and route is not _CHAT:
                # Refused loudly rather than answered with an invented shape: only chat
                # completions' refusal (Azure OpenAI's 400) is rendered. Anthropic reports a
                # refusal as stop_reason "refusal"; Gemini's blocked prompt is a 200 body
                # (promptFeedback.blockReason), a shape of its own not scripted here.
                raise ScriptError(
                    f"scenario {script.scenario!r}: content_filter is rendered for chat "
                    f"completions only; the {route.kind} route has no documented "
                    "content-filter error shape"
                )
            if script.behaviour == "invalid_utf8" and route.kind in _GEMINI_ERROR_METHOD:
                # The bytes go into a string of the answer, and Gemini's embeddings answer has
                # none (only numbers): refused rather than answered intact.
                raise ScriptError(
                    f"scenario {script.scenario!r}: invalid_utf8 needs a string in the answer; "
                    f"the {route.kind} route's answer holds only numbers"
                )
            capability = script.error or script.behaviour
            if capability in _CAPABILITY_BEHAVIOURS and route.vendor == "json":
                # Exa documents no "the model cannot do this" refusal: refused, not invented.
                raise ScriptError(
                    f"scenario {script.scenario!r}: {capability} is rendered for the "
                    f"OpenAI, Anthropic, Gemini and Ollama routes only; the {route.kind} route "
                    "has no documented capability-refusal error shape"
                )
        except ScriptError as exc:
            return _error(route.vendor, 400, message=str(exc))
        return self._answer(route, script, seq, facts, body)

    @staticmethod
    def _route(method: str, path: str) -> _Route | None:
        if method != "POST":
            return None
        if path.startswith(_JSON_PREFIX):
            return _EXA_ROUTES.get(path.rpartition("/")[2], _EXA_ROUTES["search"])
        for suffix, route in _SUFFIXES:
            if path.endswith(suffix):
                return route
        match = _GEMINI_PATH.search(path)
        return None if match is None else _GEMINI_METHODS[match.group(2)]

    @staticmethod
    def _facts(route: _Route, body: dict[str, Any], path: str, query: str) -> RequestFacts:
        if route.facts is not None:
            return route.facts(body)
        if route.vendor == "gemini":
            match = _GEMINI_PATH.search(path)
            model = match.group(1) if match else ""
            if route.kind in _GEMINI_ERROR_METHOD:  # embeddings: no tools, turns or stream
                return RequestFacts(model=model or DEFAULT_MODEL)
            sse = route is _GEMINI_STREAM and ("alt", "sse") in parse_qsl(query)
            return gemini_facts(body, model, sse)
        model = body.get("model")
        return RequestFacts(model=model) if isinstance(model, str) and model else RequestFacts()

    @staticmethod
    def _failure(
        route: _Route, script: Script, seq: int, headers: tuple[tuple[bytes, bytes], ...]
    ) -> HttpReply:
        """The scripted error in the route's dialect, with its rate-limit hints."""
        kind = script.error or "500"
        cacheable = True
        # 429 always names a delay; a 503 only when the request asked with x-fake-retry-after.
        hinted = kind in _RETRY_AFTER_KINDS or (kind == "503" and script.retry_after_sent)
        if hinted and (kind == "retry_after_date" or script.retry_after_date):
            headers = (*headers, (b"retry-after", _http_date_after(script.retry_after)))
            cacheable = False  # the date moves with the clock
        elif hinted:
            headers = (*headers, (b"retry-after", script.retry_after.encode("latin-1", "replace")))
        extra: dict[str, Any] = {}
        if route.vendor == "gemini":
            extra["retry_seconds"] = _retry_seconds(script.retry_after)
            extra["method"] = _GEMINI_ERROR_METHOD.get(route.kind, "generateContent")
        elif route.vendor == "json":
            extra["request_id"] = f"req_fake_{seq}"
        reply = _error(route.vendor, kind, headers, script.credential, **extra)
        return reply if cacheable else replace(reply, cacheable=False)

    @classmethod
    def _answer(
        cls, route: _Route, script: Script, seq: int, facts: RequestFacts, body: dict[str, Any]
    ) -> HttpReply:
        headers = _request_ids(route.vendor, seq)
        if script.error is not None:
            return cls._failure(route, script, seq, headers)
        behaviour = script.behaviour
        if behaviour == "non_json_200":
            html = Rendered([_HTML], stream=False)
            return HttpReply(200, html, headers, delay=script.delay, content_type=_HTML_TYPE)
        if behaviour == "stream_error" and not (facts.stream and route.stream is not None):
            return cls._failure(route, replace(script, error="500"), seq, headers)
        refusal = _IN_BAND_REFUSALS.get(behaviour)
        if refusal is not None:
            # The refusal's HTTP error one-shot; streamed, the same object as the stream's
            # error event (``refused``), before any output.
            if not (facts.stream and route.stream is not None):
                return cls._failure(route, replace(script, error=refusal), seq, headers)
            rendered: Rendered = route.stream(script, seq, facts, body, refused=refusal)
        elif facts.stream and route.stream is not None:
            fail = behaviour == "stream_error"
            rendered = route.stream(script, seq, facts, body, fail=fail)
        else:
            rendered = Rendered([route.json(script, seq, facts, body)], stream=False)
        if script.extra_fields:
            rendered = with_unknown_fields(rendered)  # before any corruption of the bytes
        if behaviour == "malformed":
            rendered = _corrupt(rendered)
        elif behaviour == "invalid_utf8":
            rendered = _invalid_utf8(rendered)
        content_type = route.media if rendered.stream else None
        if behaviour == "hostile_content_type":
            content_type = (content_type or _DEFAULT_TYPES[rendered.stream]) + _HOSTILE_CHARSET
        drip = _DRIP_BYTES if behaviour == "drip" else 0
        delay = script.delay or (_DRIP_DELAY if drip else 0.0)
        cut = _CUTS.get(behaviour, Cut.NONE)
        return HttpReply(
            200, rendered, headers, delay=delay, cut=cut, content_type=content_type, drip=drip
        )
