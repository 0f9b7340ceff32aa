"""Pre-rendered replies for repeated requests, the common case in benchmarks.

A reply depends only on the request (method, path, query, body, ``x-fake-*`` and credential
headers) and on the request counter that numbers its ids. So the first time a request is seen
its reply is rendered with a sentinel in place of the counter and kept as a template; later
identical requests only splice the real counter in. Output stays byte-identical to rendering
afresh.
"""

from __future__ import annotations

from dataclasses import dataclass

from ._fake_http import Cut, HttpReply, HttpRequest
from ._fake_record import SECRET_HEADERS
from ._fake_wire import Rendered

__all__ = ["SENTINEL", "CacheKey", "ReplyCache"]

SENTINEL = 7_391_046_258_113  # stands in for the request counter while rendering a template
_MARK = str(SENTINEL).encode()
_MAX_BODY = 64 * 1024  # hashing big bodies would cost more than rendering
_MAX_REPLY = 512 * 1024
_MAX_ENTRIES = 128

CacheKey = tuple[str, str, str, bytes, tuple[tuple[str, str], ...]]


@dataclass(frozen=True, slots=True)
class _Template:
    reply: HttpReply
    headers: tuple[tuple[bytes, tuple[bytes, ...]], ...]
    frames: tuple[tuple[bytes, ...], ...]
    joined: tuple[bytes, ...]

    def instantiate(self, seq: int) -> HttpReply:
        mark = str(seq).encode()
        reply, rendered = self.reply, self.reply.body
        headers = tuple((name, mark.join(parts)) for name, parts in self.headers)
        if reply.delay <= 0 and reply.cut is Cut.NONE and reply.drip <= 0:
            # The HTTP layer joins the frames anyway: splice once into the whole body.
            body = Rendered([mark.join(self.joined)], 0, rendered.stream)
        else:
            frames = [mark.join(parts) for parts in self.frames]
            body = Rendered(frames, rendered.first_output, rendered.stream)
        # Spelled out: dataclasses.replace costs more than the rest of a cached reply.
        return HttpReply(
            reply.status,
            body,
            headers,
            reply.delay,
            reply.cut,
            reply.content_type,
            reply.drip,
            reply.cacheable,
        )


def _template(reply: HttpReply) -> _Template:
    frames = reply.body.frames
    return _Template(
        reply=reply,
        headers=tuple((name, tuple(value.split(_MARK))) for name, value in reply.headers),
        frames=tuple(tuple(frame.split(_MARK)) for frame in frames),
        joined=tuple(b"".join(frames).split(_MARK)),
    )


class ReplyCache:
    """A small bounded map from request identity to reply template."""

    __slots__ = ("_entries",)

    def __init__(self) -> None:
        self._entries: dict[CacheKey, _Template] = {}

    @staticmethod
    def key(request: HttpRequest) -> CacheKey | None:
        """The identity of a request's reply, or None when it should not be cached."""
        if len(request.body) > _MAX_BODY or _MARK in request.body:
            return None
        if str(SENTINEL) in request.path or str(SENTINEL) in request.query:
            return None
        relevant = tuple(
            sorted(
                (name, value)
                for name, value in request.headers.items()
                if name.startswith("x-fake-") or name in SECRET_HEADERS
            )
        )
        if any(str(SENTINEL) in value for _name, value in relevant):
            return None
        return (request.method, request.path, request.query, request.body, relevant)

    def get(self, key: CacheKey, seq: int) -> HttpReply | None:
        """The cached reply for ``key`` numbered ``seq``, if there is one."""
        template = self._entries.get(key)
        return None if template is None else template.instantiate(seq)

    def put(self, key: CacheKey, reply: HttpReply, seq: int) -> HttpReply:
        """Store ``reply`` (rendered with :data:`SENTINEL`) and return it numbered ``seq``."""
        template = _template(reply)
        if reply.cacheable and sum(map(len, reply.body.frames)) <= _MAX_REPLY:
            if len(self._entries) >= _MAX_ENTRIES:
                del self._entries[next(iter(self._entries))]
            self._entries[key] = template
        return template.instantiate(seq)
