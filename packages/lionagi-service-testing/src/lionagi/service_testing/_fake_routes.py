"""Route each request to its vendor renderer and apply the selected behaviour.

Routes match on the path's suffix (``.../chat/completions``, ``.../responses``,
``.../messages``, ``.../embeddings``, ``.../models/{model}:generateContent``), so a client can
keep its provider's own prefix (``/v1``, ``/v1beta/openai``, ``/api/v1``) and point only the host
at the fake server.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl

from ._fake_anthropic import messages_json, messages_stream
from ._fake_cache import SENTINEL, ReplyCache
from ._fake_chat import chat_json, chat_stream
from ._fake_embeddings import embeddings_json, gemini_models, openai_models
from ._fake_errors import Vendor, error_body
from ._fake_gemini import gemini_array, gemini_json, gemini_stream
from ._fake_http import Cut, HttpReply, HttpRequest
from ._fake_record import RecordedRequest, credential_of, record
from ._fake_request import (
    RequestFacts,
    chat_facts,
    gemini_facts,
    messages_facts,
    responses_facts,
)
from ._fake_responses import responses_json, responses_stream
from ._fake_script import ERROR_MESSAGES, Script, ScriptError, build_script
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


def _plain(render: Callable[[Script, int, RequestFacts], bytes]) -> _JsonFn:
    return lambda script, seq, facts, body: render(script, seq, facts)


_CHAT = _Route("chat", "openai", _plain(chat_json), chat_stream, chat_facts)
_RESPONSES = _Route(
    "responses", "openai", _plain(responses_json), responses_stream, responses_facts
)
_MESSAGES = _Route("messages", "anthropic", _plain(messages_json), messages_stream, messages_facts)
_COUNT = _Route("count_tokens", "anthropic", lambda *_: dumps({"input_tokens": USAGE_INPUT}))
_EMBED = _Route("embeddings", "openai", lambda script, seq, facts, body: embeddings_json(body))
_GEMINI = _Route("gemini", "gemini", _plain(gemini_json))
_GEMINI_STREAM = _Route("gemini_stream", "gemini", _plain(gemini_array), gemini_stream)
_SUFFIXES = (
    ("/chat/completions", _CHAT),
    ("/responses", _RESPONSES),
    ("/messages/count_tokens", _COUNT),
    ("/messages", _MESSAGES),
    ("/embeddings", _EMBED),
)
_GEMINI_PATH = re.compile(r"/models/([^/:]+):(generateContent|streamGenerateContent)$")
_CUTS = {"disconnect_before": Cut.BEFORE, "disconnect_after": Cut.AFTER_FIRST, "stall": Cut.STALL}


def _vendor_of(path: str) -> Vendor:
    if "v1beta/models" in path or ":generate" in path or ":streamGenerate" in path:
        return "gemini"
    return "anthropic" if "/messages" in path else "openai"


def _json_reply(
    status: int, body: bytes, headers: tuple[tuple[bytes, bytes], ...] = ()
) -> HttpReply:
    return HttpReply(status, Rendered([body], stream=False), headers)


def _error(
    vendor: Vendor,
    status: int,
    headers: tuple[tuple[bytes, bytes], ...] = (),
    credential: str = "",
    message: str | None = None,
) -> HttpReply:
    return _json_reply(status, error_body(vendor, status, credential, message), headers)


def _corrupt(rendered: Rendered) -> Rendered:
    """Make one data line (or the JSON body) invalid JSON while keeping the framing intact."""
    frames = list(rendered.frames)
    if rendered.stream:
        index = rendered.first_output
        frames[index] = frames[index].replace(b"data: {", b"data: {malformed ", 1)
    else:
        frames = [b"{malformed " + b"".join(frames)[1:]]
    return Rendered(frames, rendered.first_output, rendered.stream)


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
        body: Any = _UNPARSED
        if self._record:
            body = _json(request)
            self.requests.append(
                record(request.method, request.path, request.query, request.headers, body)
            )
        key = self._cache.key(request)
        if key is None:
            return self._handle(request, self._seq, body)
        reply = self._cache.get(key, self._seq)
        if reply is None:
            reply = self._cache.put(key, self._handle(request, SENTINEL, body), self._seq)
        return reply

    def _handle(self, request: HttpRequest, seq: int, body: Any) -> HttpReply:
        path = request.path
        if request.method == "GET" and path.endswith("/models"):
            gemini = "v1beta/models" in path and "/openai/" not in path
            return _json_reply(200, gemini_models() if gemini else openai_models())
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
            script = build_script(request.headers, request.body, facts, credential)
        except ScriptError as exc:
            return _error(route.vendor, 400, message=str(exc))
        return self._answer(route, script, seq, facts, body)

    @staticmethod
    def _route(method: str, path: str) -> _Route | None:
        if method != "POST":
            return None
        for suffix, route in _SUFFIXES:
            if path.endswith(suffix):
                return route
        match = _GEMINI_PATH.search(path)
        if match is None:
            return None
        return _GEMINI_STREAM if match.group(2) == "streamGenerateContent" else _GEMINI

    @staticmethod
    def _facts(route: _Route, body: dict[str, Any], path: str, query: str) -> RequestFacts:
        if route.facts is not None:
            return route.facts(body)
        if route.vendor == "gemini":
            match = _GEMINI_PATH.search(path)
            model = match.group(1) if match else ""
            sse = route is _GEMINI_STREAM and ("alt", "sse") in parse_qsl(query)
            return gemini_facts(body, model, sse)
        model = body.get("model")
        return RequestFacts(model=model) if isinstance(model, str) and model else RequestFacts()

    @staticmethod
    def _answer(
        route: _Route, script: Script, seq: int, facts: RequestFacts, body: dict[str, Any]
    ) -> HttpReply:
        headers = _request_ids(route.vendor, seq)
        if script.status != 200:
            if script.status == 429:
                headers = (
                    *headers,
                    (b"retry-after", script.retry_after.encode("latin-1", "replace")),
                )
            message = ERROR_MESSAGES.get(script.behaviour)
            return _error(route.vendor, script.status, headers, script.credential, message)
        fail = script.behaviour == "stream_error"
        if facts.stream and route.stream is not None:
            rendered: Rendered = route.stream(script, seq, facts, fail=fail)
        elif fail:
            return _error(route.vendor, 500, headers)
        else:
            rendered = Rendered([route.json(script, seq, facts, body)], stream=False)
        if script.behaviour == "malformed":
            rendered = _corrupt(rendered)
        cut = _CUTS.get(script.behaviour, Cut.NONE)
        return HttpReply(200, rendered, headers, delay=script.delay, cut=cut)
