"""Strict, incremental UTF-8 decoding for every provider byte stream (HTTP bodies, CLI stdout).

One policy for all paths: provider JSON, SSE and NDJSON are UTF-8 on the wire (RFC 8259 §8.1,
the WHATWG event-stream grammar), so bytes are decoded as strict UTF-8 whatever charset a
``Content-Type`` declares. A declared charset is never handed to the codec registry: names like
``base64``, ``rot13`` or ``idna`` are codecs there that crash or mangle text instead of decoding.
Invalid UTF-8 (including a stream that ends inside a multi-byte character) is a
:class:`~lionagi.service._base.errors.ProviderProtocolError`, never a silent U+FFFD. One leading
byte order mark is skipped, as both of those specifications allow.

The decoder is incremental, so a character split across network or pipe reads is reassembled.
It calls the C ``utf_8_decode`` directly and copies bytes only when a read ended inside a
character, which keeps it cheaper per block than ``codecs``' buffered incremental decoder.
"""

from __future__ import annotations

import codecs
from typing import Final

from .._base.errors import ProviderProtocolError

__all__ = ["Utf8Decoder", "decode_utf8", "invalid_utf8"]

_BOM: Final = codecs.BOM_UTF8
_utf8_decode = codecs.utf_8_decode


def invalid_utf8(source: str, exc: UnicodeDecodeError, note: str = "") -> ProviderProtocolError:
    """The error for bytes that are not UTF-8: names the source and the bad bytes, no content.

    Only the (at most four) offending bytes are shown, as hex, so no part of the surrounding
    provider text, which could hold a credential, reaches the message.
    """
    bad = exc.object[exc.start : min(exc.end, exc.start + 4)].hex(" ")
    return ProviderProtocolError(
        f"{source} is not valid UTF-8 ({exc.reason}, bytes {bad}){note}; provider output must "
        "be UTF-8"
    )


def decode_utf8(data: bytes) -> str:
    """A whole body under the same policy (strict, one leading BOM skipped).

    Raises ``UnicodeDecodeError`` for the caller to wrap with :func:`invalid_utf8`: naming the
    source costs more than decoding a small body, so it is only done on failure.
    """
    text = data.decode("utf-8")
    return text[1:] if text[:1] == "\ufeff" else text


class Utf8Decoder:
    """Bytes to text, block by block; raises ProviderProtocolError on invalid UTF-8.

    ``source`` names the stream in the error (e.g. ``"stdout"`` or a redacted URL); ``note`` is
    appended to it (the HTTP path says which charset the response declared). After a block is
    refused, ``valid_prefix`` holds the text it decoded to before the invalid bytes, so a
    framer can still deliver the complete events that came ahead of them in the same read.
    """

    __slots__ = ("_note", "_pending", "_source", "_start", "valid_prefix")

    def __init__(self, source: str, note: str = "") -> None:
        self._source = source
        self._note = note
        self._pending = b""  # the start of a character cut by the previous block
        self._start = True  # no byte decoded yet: a leading BOM may still come
        self.valid_prefix = ""  # set only when a block is refused (see the class docstring)

    def decode(self, data: bytes, final: bool = False) -> str:
        """The text ``data`` completes; with ``final``, a pending partial character is an error."""
        if self._pending:
            data = self._pending + data
            self._pending = b""
        if self._start:
            if len(data) < 3 and _BOM.startswith(data) and not final:
                self._pending = data  # too short to tell a BOM from text yet
                return ""
            self._start = False
            if data[:3] == _BOM:
                data = data[3:]
        try:
            text, used = _utf8_decode(data, "strict", final)
        except UnicodeDecodeError as exc:
            self.valid_prefix = exc.object[: exc.start].decode("utf-8")
            raise invalid_utf8(self._source, exc, self._note) from None
        if used != len(data):
            self._pending = data[used:]
        return text

    def finish(self) -> None:
        """Declare EOF: raises if the stream stopped inside a multi-byte character."""
        self.decode(b"", final=True)
