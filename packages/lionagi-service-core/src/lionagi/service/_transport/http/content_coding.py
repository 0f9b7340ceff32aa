"""Response content codings, decoded with a bound on what one step may inflate to.

httpx's own decoders inflate each network read whole: one 64 KiB read of a gzip body can become
64 MiB, and a body coded twice (``Content-Encoding: gzip, gzip``, 2 KB on the wire) becomes
1 GiB in a single call, all of it allocated before ``max_response_bytes``, the error-body limit
or the stream event limit could look at it. Here each coding is inflated with ``zlib``'s
``max_length``, so every block handed on is at most :data:`DECODE_STEP` bytes and the caps
above really bound memory. The body is read raw (``aiter_raw``); an identity body is passed on
as it arrives, with no extra layer.

Only the codings the client asks for are decoded: ``gzip`` (and its alias ``x-gzip``) and
``deflate`` (zlib-wrapped or raw, as httpx accepts it). Any other coding (``br``, ``zstd``,
an unknown name) is refused with ``httpx.DecodingError``, which the endpoint reports as a
``ProviderProtocolError``: the bytes are not what the body claims to be, and passing them on
undecoded would only fail later, less clearly. :data:`ACCEPT_ENCODING` is what the endpoint's
client sends, so a server that follows the request never meets the refusal.
"""

from __future__ import annotations

import zlib
from collections.abc import AsyncIterator, Iterator
from typing import Final

import httpx

from ..._base.aio import aclose_shielded

__all__ = ["ACCEPT_ENCODING", "DECODE_STEP", "MAX_CODINGS", "decoded_body"]

ACCEPT_ENCODING: Final = "gzip, deflate"
"""The ``Accept-Encoding`` the endpoint's client sends: the codings :func:`decoded_body` decodes
(httpx would also advertise ``br``/``zstd`` whenever their packages happen to be installed)."""

DECODE_STEP: Final = 64 * 1024
"""Largest block one decoding step produces (httpcore's network read size)."""

MAX_CODINGS: Final = 4
"""Most codings one body may stack. Real servers apply one; each extra layer multiplies what a
few bytes inflate to and costs a decompressor's state, so a longer list is refused."""

_GZIP_WBITS: Final = zlib.MAX_WBITS | 16


class _Inflate:
    """One ``gzip`` or ``deflate`` layer, producing at most ``DECODE_STEP`` bytes per step."""

    __slots__ = ("_deflate", "_first", "_started", "_z")

    def __init__(self, gzip: bool) -> None:
        self._deflate = not gzip
        self._first = True  # deflate: a body that is not zlib-wrapped is retried as raw deflate
        self._started = False  # any byte fed: an empty body (a 204 labelled gzip) is fine
        self._z = zlib.decompressobj(_GZIP_WBITS if gzip else zlib.MAX_WBITS)

    def feed(self, data: bytes) -> Iterator[bytes]:
        self._started = self._started or bool(data)
        z = self._z
        while True:
            try:
                out = z.decompress(data, DECODE_STEP)
            except zlib.error:
                if not (self._deflate and self._first):
                    raise
                self._first = False
                z = self._z = zlib.decompressobj(-zlib.MAX_WBITS)
                continue
            self._first = False
            if out:
                yield out
            data = z.unconsumed_tail
            # A full step may leave output pending in zlib even with no input left: ask again.
            if not data and len(out) < DECODE_STEP:
                return

    def flush(self) -> bytes:
        """What zlib still holds at the end of the body (small: ``feed`` consumed all input).

        Raises ``zlib.error`` when the compressed data stopped before its end: the body was cut
        (or was never compressed), and zlib alone would hand on what it had as if complete.
        """
        rest = self._z.flush()
        if self._started and not self._z.eof:
            raise zlib.error("compressed data ended before its end marker")
        return rest


def _layers(response: httpx.Response) -> list[_Inflate]:
    """The decoders for the response's ``Content-Encoding``, outermost (last applied) first."""
    codings = [
        value.strip().lower()
        for value in response.headers.get_list("content-encoding", split_commas=True)
    ]
    codings = [c for c in codings if c and c != "identity"]
    if len(codings) > MAX_CODINGS:
        raise httpx.DecodingError(
            f"response stacks {len(codings)} content codings (at most {MAX_CODINGS} are decoded)",
            request=response.request,
        )
    layers: list[_Inflate] = []
    for coding in reversed(codings):
        if coding in ("gzip", "x-gzip"):
            layers.append(_Inflate(gzip=True))
        elif coding == "deflate":
            layers.append(_Inflate(gzip=False))
        else:
            raise httpx.DecodingError(
                f"response has Content-Encoding {coding[:40]!r}, which was not requested "
                f"(the client accepts {ACCEPT_ENCODING})",
                request=response.request,
            )
    return layers


def _through(layers: list[_Inflate], data: bytes, start: int = 0) -> Iterator[bytes]:
    """``data`` decoded by ``layers[start:]``, in blocks of at most ``DECODE_STEP`` bytes."""
    if start == len(layers):
        yield data
        return
    for piece in layers[start].feed(data):
        yield from _through(layers, piece, start + 1)


async def _inflated(response: httpx.Response, layers: list[_Inflate]) -> AsyncIterator[bytes]:
    raw = response.aiter_raw()
    try:
        try:
            async for block in raw:
                for piece in _through(layers, block):
                    yield piece
            for depth in range(len(layers)):
                rest = layers[depth].flush()
                if rest:
                    for piece in _through(layers, rest, depth + 1):
                        yield piece
        except zlib.error as exc:
            raise httpx.DecodingError(
                f"response body is not valid for its Content-Encoding: {exc}",
                request=response.request,
            ) from exc
    finally:
        await aclose_shielded(raw)


def decoded_body(response: httpx.Response) -> AsyncIterator[bytes]:
    """The response body as decoded blocks, each at most ``DECODE_STEP`` bytes when coded.

    Use instead of ``response.aiter_bytes()``. An identity body is ``aiter_raw()`` itself; a
    body that was already read (``response.content``) is handed on as httpx decoded it.

    Raises (on iteration):
        httpx.DecodingError: a coding other than gzip/deflate, more than ``MAX_CODINGS``
            codings, or bytes that do not inflate.
    """
    try:
        content = response.content
    except httpx.ResponseNotRead:
        pass
    else:  # already read (a transport that hands back a finished response): httpx decoded it
        return _loaded(content)
    try:
        layers = _layers(response)
    except httpx.DecodingError as exc:
        return _failing(exc)
    if not layers:
        return response.aiter_raw()
    return _inflated(response, layers)


async def _loaded(content: bytes) -> AsyncIterator[bytes]:
    if content:
        yield content


async def _failing(exc: httpx.DecodingError) -> AsyncIterator[bytes]:
    """Raise ``exc`` on the first iteration, where the callers map transport errors."""
    raise exc
    yield b""  # pragma: no cover - makes this an async generator
