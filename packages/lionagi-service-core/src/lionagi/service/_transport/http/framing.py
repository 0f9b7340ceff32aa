"""Wire framing: SSE or NDJSON bytes to decoded JSON events, fed incrementally.

Framers are synchronous and stateful: the stream loop feeds each block it reads and gets back the
events that block completed, so a frame split across TCP reads is reassembled without an extra
async layer per event.

SSE lines end at CR, LF or CRLF (WHATWG). The split is done here rather than by httpx-sse's
``SSELineDecoder``, which holds back a CR that ends a block until the next read (in case an LF
follows): a stream that ends its lines with a lone CR, which the spec allows, would then deliver
each event one read late, i.e. only when the next event arrives. Here a CR ends its line at once
and an LF that opens the next block is dropped as the second half of that CRLF. A block
without CR costs one scan for it, as it did in httpx-sse.

Field parsing follows the same WHATWG rules as httpx-sse's ``SSEDecoder`` (``:`` comments,
multi-line ``data:``, one optional space after the colon, a blank line dispatches), inlined into
one loop per block because it runs for every line of every stream; only ``data`` and ``event``
matter here (``id`` and ``retry`` are parsed and ignored, as before). httpx-sse's public
``EventSource`` is not used because it drops an event whose final blank line is missing at EOF;
here such an event is still dispatched (a complete ``data:`` line followed by EOF is a common
server quirk, and a truncated one fails JSON decoding anyway).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from typing import Any, Final

from ..._base.errors import ProviderProtocolError
from .status import BAD_JSON, excerpt

__all__ = [
    "DONE",
    "MAX_EVENT_BYTES",
    "JSONBodyFramer",
    "NDJSONFramer",
    "SSEFramer",
    "forced_framer",
    "framer_for_content_type",
]


class _Done:
    __slots__ = ()

    def __repr__(self) -> str:
        return "DONE"


DONE: Final = _Done()
"""The `data: [DONE]` end-of-stream marker (OpenAI-compatible chat streams)."""

_NDJSON_TYPES = frozenset(
    {
        "application/x-ndjson",
        "application/ndjson",
        "application/jsonl",
        "application/x-jsonlines",
        "application/json-seq",
    }
)

_JSON_TYPE: Final = "application/json"
"""JSON lines to some servers, one document to others: read by `JSONBodyFramer`."""


MAX_EVENT_BYTES: Final = 16 * 1024 * 1024
"""Largest single event (one SSE event or NDJSON line) a stream may carry, in UTF-8 bytes.

A server that keeps sending without ever ending an event would otherwise grow memory without
bound until the deadline; 16 MiB is far above any real delta, tool call or usage record. An SSE
event counts its ``data:`` values plus its unfinished line; an NDJSON line counts itself.
"""

_CHARS_SURELY_UNDER: Final = MAX_EVENT_BYTES // 4
"""Characters that cannot exceed the bound: UTF-8 spends at most 4 bytes on a code point.

The framers receive decoded text, so counting bytes would mean encoding every line again. They
count characters (``len``) instead, which is exact for ASCII, and only a pending event past this
many characters switches the framer to counting bytes (`_utf8_size`) for the rest of its stream;
the hot path compares against a limit as before and pays nothing for the byte bound.
"""


def _utf8_size(text: str) -> int:
    """Bytes of `text` in UTF-8; ASCII text (``isascii`` is O(1) in CPython) is not encoded."""
    return len(text) if text.isascii() else len(text.encode("utf-8", "surrogatepass"))


def _too_large(kind: str) -> ProviderProtocolError:
    return ProviderProtocolError(
        f"{kind} exceeded {MAX_EVENT_BYTES // (1024 * 1024)} MiB (UTF-8) before it ended; "
        "refusing to buffer more"
    )


# ``json.loads`` minus its wrapper: same decoder, same ``ValueError`` on bad input.
_json_decode = json.JSONDecoder().decode


def _bad_json(kind: str, raw: str | bytes, secrets: Iterable[str]) -> ProviderProtocolError:
    return ProviderProtocolError(f"{kind} is not valid JSON: {excerpt(raw, secrets, 300)}")


class SSEFramer:
    """Server-sent events to JSON objects; ``event:`` fills a missing ``type`` field."""

    __slots__ = (
        "_after_cr",
        "_data",
        "_data_size",
        "_event",
        "_limit",
        "_measure",
        "_partial",
        "_pending_size",
        "_secrets",
    )

    def __init__(self, secrets: tuple[str, ...] = ()) -> None:
        self._partial: list[str] = []  # the unfinished line, in the pieces it arrived in
        self._after_cr = False  # the last block ended in CR: an LF opening the next is its CRLF
        self._data_size = 0  # total size of ``_data``
        self._pending_size = 0  # size of the unfinished event: data lines plus partial line
        # Sizes are characters until a pending event passes `_CHARS_SURELY_UNDER`, then bytes.
        self._measure: Callable[[str], int] = len
        self._limit = _CHARS_SURELY_UNDER
        self._event = ""  # the pending event's ``event:`` field
        self._data: list[str] = []  # the pending event's ``data:`` lines
        self._secrets = secrets

    def _decode(self, lines: list[str], out: list[Any]) -> None:
        event = self._event
        data = self._data
        size = self._data_size
        measure = self._measure
        try:
            for line in lines:
                if not line:  # a blank line dispatches the pending event and resets it
                    if data:
                        text = data[0] if len(data) == 1 else "\n".join(data)
                        kind = event
                        data = []
                        size = 0
                        event = ""
                        if not text:
                            continue
                        if text == "[DONE]":
                            out.append(DONE)
                            continue
                        try:
                            obj = _json_decode(text)
                        except BAD_JSON:
                            raise _bad_json("SSE data", text, self._secrets) from None
                        if kind and kind != "message" and type(obj) is dict and "type" not in obj:
                            obj["type"] = kind
                        out.append(obj)
                    else:
                        event = ""
                    continue
                if line[0] == ":":  # a comment
                    continue
                name, _, value = line.partition(":")
                if value[:1] == " ":
                    value = value[1:]
                if name == "data":
                    data.append(value)
                    size += measure(value)
                elif name == "event":
                    event = value
                # ``id``, ``retry`` and unknown fields change nothing an event here carries.
        finally:
            self._event = event
            self._data = data
            self._data_size = size

    def feed(self, text: str) -> list[Any]:
        """Events completed by ``text``."""
        if self._after_cr:
            self._after_cr = False
            if text[:1] == "\n":
                text = text[1:]
        if "\r" in text:
            self._after_cr = text[-1] == "\r"
            text = text.replace("\r\n", "\n").replace("\r", "\n")
        lines = text.split("\n")
        rest = lines.pop()  # the block's unfinished last line ("" if the block ended a line)
        out: list[Any] = []
        if lines:
            partial = self._partial
            if partial:
                partial.append(lines[0])
                lines[0] = "".join(partial)
                self._partial = [rest] if rest else []
            elif rest:
                self._partial = [rest]
            self._decode(lines, out)
            self._pending_size = self._data_size + self._measure(rest)
        elif rest:  # the block only extended the unfinished line: count it, never re-measure
            self._partial.append(rest)
            self._pending_size += self._measure(rest)
        if self._pending_size > self._limit:
            self._overflow()
        return out

    def _overflow(self) -> None:
        """Past the character shortcut: measure the pending event in bytes, refuse it if over."""
        if self._measure is len:
            self._measure = _utf8_size
            self._limit = MAX_EVENT_BYTES
            self._data_size = sum(map(_utf8_size, self._data))
            self._pending_size = self._data_size + sum(map(_utf8_size, self._partial))
            if self._pending_size <= MAX_EVENT_BYTES:
                return
        raise _too_large("an SSE event")

    def flush(self) -> list[Any]:
        """Events pending at EOF, including one whose terminating blank line never came."""
        out: list[Any] = []
        rest = "".join(self._partial)
        self._partial = []
        self._decode([rest, ""] if rest else [""], out)
        return out


class NDJSONFramer:
    """Newline-delimited JSON, decoded per complete line; blank lines are skipped.

    A line still waiting for its newline is kept as a list of the blocks that carried it plus a
    running size, and only each new block is searched for a newline: a long line costs linear
    time (joined once, when it ends), and one over `MAX_EVENT_BYTES` is refused on the block
    that crosses the limit instead of after it was buffered whole.
    """

    __slots__ = ("_limit", "_pending", "_pending_size", "_secrets", "_unit")

    def __init__(self, secrets: tuple[str, ...] = ()) -> None:
        self._pending: list[str] = []  # the unfinished line, in the pieces it arrived in
        self._pending_size = 0
        # The size is characters until a pending line passes `_CHARS_SURELY_UNDER`; from then
        # on it is bytes and the limit -1, so every check goes to `_overflow`, which counts them.
        self._limit = _CHARS_SURELY_UNDER
        self._secrets = secrets
        self._unit = "an NDJSON line"  # what is pending, as the size refusal names it

    def _decode(self, lines: Iterable[str], out: list[Any]) -> None:
        for line in lines:
            if not line or line.isspace():
                continue
            try:
                out.append(_json_decode(line))
            except BAD_JSON:
                # `application/json-seq` (RFC 7464) starts each text with RS (0x1E), which is
                # not JSON whitespace. Stripped only here, after a failed decode, so plain
                # NDJSON lines pay nothing for it.
                if line[:1] == "\x1e":
                    try:
                        out.append(_json_decode(line.lstrip("\x1e")))
                        continue
                    except BAD_JSON:
                        pass
                raise _bad_json("NDJSON line", line, self._secrets) from None

    def feed(self, text: str) -> list[Any]:
        """Events completed by ``text`` (already decoded: each block is decoded once)."""
        pending = self._pending
        if pending:
            cut = text.find("\n")
            if cut == -1:  # the line goes on: keep the piece, never re-join or re-scan
                self._grow(text)
                return []
            if self._pending_size + cut > self._limit:  # ``cut`` characters end the line
                self._overflow("", text[:cut])
            pending.append(text[:cut])
            first = "".join(pending)
            self._reset()
            lines = text[cut + 1 :].split("\n")
            lines[0:0] = (first,)
        else:
            lines = text.split("\n")
        rest = lines.pop()
        if rest:
            self._grow(rest)
        out: list[Any] = []
        self._decode(lines, out)
        return out

    def _grow(self, piece: str) -> None:
        self._pending.append(piece)
        self._pending_size += len(piece)
        if self._pending_size > self._limit:
            self._overflow(piece, "")

    def _overflow(self, grown: str, head: str) -> None:
        """Past the character shortcut: the pending line (plus `head`, its end) in bytes.

        `grown` is the piece `_grow` just added as characters. Returns when the line is within
        the bound (its size is bytes from then on); otherwise the line is dropped and refused.
        """
        if self._limit != -1:  # the first crossing: measure what is pending, once
            self._limit = -1
            self._pending_size = sum(map(_utf8_size, self._pending))
        elif grown:
            self._pending_size += _utf8_size(grown) - len(grown)
        if self._pending_size + _utf8_size(head) <= MAX_EVENT_BYTES:
            return
        self._reset()
        raise _too_large(self._unit)

    def _reset(self) -> None:
        self._pending = []
        self._pending_size = 0

    def flush(self) -> list[Any]:
        """The last line when the body does not end with a newline."""
        rest = "".join(self._pending)
        self._reset()
        out: list[Any] = []
        self._decode((rest,), out)
        return out


class JSONBodyFramer(NDJSONFramer):
    """`application/json`: JSON lines, or one JSON document that spans lines.

    Servers stream JSON lines under this label, and servers that ignore `stream: true` (or a
    gateway's error object) answer a stream request with one document under it. A compact
    document is one line and was always one event; a pretty-printed one is not, and its first
    line (``{``) is not JSON, so it was refused as bad NDJSON. The first line that is not blank
    decides: if it decodes, the body is JSON lines for good, read as `NDJSONFramer` reads them
    (a line that breaks later is still refused); if it does not, the body from that line on is
    one document, held within the same `MAX_EVENT_BYTES` as one line and decoded at EOF into
    the event the compact document would have given. A stream of lines never pays for this: the
    decision costs one check per decode call until the first event.
    """

    __slots__ = ("_lines", "_whole")

    def __init__(self, secrets: tuple[str, ...] = ()) -> None:
        super().__init__(secrets)
        self._lines = False  # a line decoded: the body is JSON lines
        self._whole = False  # the first line did not: the body is one document
        self._unit = "a JSON line or document"  # undecided until the first line ends

    def feed(self, text: str) -> list[Any]:
        """Events completed by ``text``; none once the body is a document (it ends at EOF)."""
        if self._whole:
            self._grow(text)
            return []
        return super().feed(text)

    def _decode(self, lines: Iterable[str], out: list[Any]) -> None:
        if self._lines:
            super()._decode(lines, out)
            return
        lines = list(lines)
        for position, line in enumerate(lines):
            if not line or line.isspace():
                continue
            try:
                super()._decode((line,), out)
            except ProviderProtocolError:
                self._open_document(lines[position:])
                return
            self._lines = True
            self._unit = "a JSON line"
            super()._decode(lines[position + 1 :], out)
            return

    def _open_document(self, lines: list[str]) -> None:
        """The body is one document: `lines` (complete) and the pending rest, held whole."""
        self._whole = True
        self._unit = "a JSON document"
        head = "\n".join(lines) + "\n"
        self._pending.insert(0, head)  # before the unfinished line `feed` already kept
        self._pending_size += len(head)
        if self._pending_size > self._limit:
            self._overflow(head, "")

    def flush(self) -> list[Any]:
        """The last line, or the whole document, at EOF."""
        if not self._whole:
            out = super().flush()  # the unfinished last line may itself open the document
            if not self._whole:
                return out
        text = "".join(self._pending)
        self._reset()
        try:
            return [_json_decode(text)]
        except BAD_JSON:
            raise _bad_json("JSON document", text, self._secrets) from None


class _LabelledJSONSSEFramer(SSEFramer):
    """A forced SSE stream labelled `application/json`: SSE, unless the body opens a JSON value.

    Forcing SSE corrects a server that labels its event stream wrongly, but the same endpoint
    answers an error (a gateway's error object, Google's pretty-printed `{"error": ...}` to a
    stream request) as one JSON document under that label. Read as SSE, its lines were unknown
    fields: no event, so the stream ended empty or cut and the provider's error was lost. The
    first character that is not JSON whitespace decides, once: `{` or `[` cannot open an SSE
    field the stream means (such a line is an unknown field, ignored), so the body is read by
    `JSONBodyFramer`; anything else (`data:`, `event:`, a `:` comment) is SSE, fed unchanged.
    Leading whitespace decides nothing and is fed to the SSE reading, where it is inert.
    """

    __slots__ = ("_document", "_undecided")

    def __init__(self, secrets: tuple[str, ...] = ()) -> None:
        super().__init__(secrets)
        self._document: JSONBodyFramer | None = None
        self._undecided = True

    def feed(self, text: str) -> list[Any]:
        """Events completed by ``text``, read as SSE or, once the body opened one, as JSON."""
        if self._undecided:
            head = text.lstrip(" \t\r\n")
            if not head:
                return super().feed(text)
            self._undecided = False
            if head[0] in "{[":
                self._document = JSONBodyFramer(self._secrets)
                return self._document.feed(head)
        if self._document is not None:
            return self._document.feed(text)
        return super().feed(text)

    def flush(self) -> list[Any]:
        """Events pending at EOF: the JSON document's, or the SSE reading's."""
        if self._document is not None:
            return self._document.flush()
        return super().flush()


# Media types that are documents, never a (mislabelled) stream: an HTML page from a proxy,
# gateway or captive portal parses as an SSE stream of unknown fields, i.e. an empty success.
_DOCUMENT_TYPES = frozenset({"text/html", "application/xhtml+xml"})


def forced_framer(
    framing: str, content_type: str | None, secrets: tuple[str, ...] = ()
) -> SSEFramer | NDJSONFramer:
    """The framer an endpoint class forces (``"sse"`` or ``"ndjson"``), whatever the label says.

    Forcing corrects a server that labels its stream wrongly; it does not make a web page a
    stream, so a document media type is still refused, nor a JSON document events: forced SSE
    labelled `application/json` reads a body that opens a JSON value as JSON
    (`_LabelledJSONSSEFramer`), so an error object reaches the projector as one event.

    Raises:
        ProviderProtocolError: the response is an HTML document.
    """
    media = (content_type or "").partition(";")[0].strip().lower()
    if media in _DOCUMENT_TYPES:
        raise ProviderProtocolError(
            f"streaming response has content type {excerpt(media, secrets, 200)!r}: a document, "
            f"not an event stream (the endpoint reads its streams as {framing})"
        )
    if framing == "sse":
        return _LabelledJSONSSEFramer(secrets) if media == _JSON_TYPE else SSEFramer(secrets)
    # Forced lines labelled as one JSON document may be one (a gateway's error object).
    return JSONBodyFramer(secrets) if media == _JSON_TYPE else NDJSONFramer(secrets)


def framer_for_content_type(
    content_type: str | None, secrets: tuple[str, ...] = ()
) -> SSEFramer | NDJSONFramer:
    """Pick the framer from a response ``Content-Type``; a missing header means SSE.

    Raises:
        ProviderProtocolError: a content type that is neither SSE nor a JSON lines type.
    """
    media = (content_type or "").partition(";")[0].strip().lower()
    if not media or media == "text/event-stream":
        return SSEFramer(secrets)
    if media in _NDJSON_TYPES:
        return NDJSONFramer(secrets)
    if media == _JSON_TYPE:
        return JSONBodyFramer(secrets)
    raise ProviderProtocolError(
        f"streaming response has content type {excerpt(media, secrets, 200)!r}; expected "
        "text/event-stream or "
        "application/x-ndjson"
    )
