"""Incremental framing of a CLI's JSON event stream: NDJSON or directly concatenated values.

Agentic CLIs print one JSON object per line, but a pipe read can end anywhere, some producers
write several objects with no separator (``{"a":1}{"b":2}``) and some pretty-print a value over
several lines. The framer decodes each block once (strict incremental UTF-8, the policy of
``_transport.utf8``, so a character split across reads is kept) and scans the text with the C
JSON scanner, so per-event Python work stays one ``raw_decode`` call (PERF_ANCHORS: frame per
block, never per byte or per ``readline``).

Rules:

* Leading and separating whitespace is ignored; every value must be a JSON object, anything
  else raises :class:`~lionagi.service._base.errors.ProviderProtocolError`.
* A value that fails to parse *and is followed by a newline* is malformed: a complete line can
  never become valid later, so the error is raised at once. A failure with no newline after it
  may be a value cut by the read boundary and is kept until more text arrives.
* While an incomplete value is pending it is re-scanned only when new text could finish it:
  a newline, a closing brace (for a pending value past 256 KiB only a brace ending the block),
  or the pending text doubling. One huge single-line event therefore costs linear time, not
  quadratic; the price is that a huge value followed, in the same read and without a newline,
  by the start of the next one is yielded with the next block rather than at once.
* Invalid UTF-8 is a protocol error too, raised after the complete values that came before the
  bad bytes in the same block (only that failure path decodes the valid prefix again).
* At EOF whatever could not be parsed is the *tail*, handed to the adapter's repair callback
  via :func:`repair_tail`; it is never dropped silently. A stream that stopped inside a
  multi-byte character sets :attr:`JsonFramer.cut_character`: its tail (which ends in a visible
  U+FFFD marker) is invalid UTF-8 and must be refused, not repaired.
* A complete line that is not a JSON object is a protocol error unless the adapter gave a
  ``plain_line`` reader (:data:`PlainLine`): a CLI that prints plain text on stdout in the
  middle of its events (a command's output, a notice) hands the line to it, and the object it
  returns takes the line's place among the events. The reader is asked only on that failure
  path, so a stream of JSON events costs exactly what it cost without one; it sees one line,
  without its line break, and must refuse (None) anything that may be a broken event.
* A protocol error is raised outside the decoder's ``except`` block: the ``JSONDecodeError``
  holds the whole read in its ``doc``, unredacted, and ``raise ... from None`` would still keep
  it as the error's ``__context__`` for anything that walks the chain (a logger, a debugger).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from functools import partial
from typing import Any

from ..._base.errors import ProviderProtocolError
from ..._base.secrets import bounded, redact
from ..utf8 import Utf8Decoder

__all__ = ["DEFAULT_MAX_VALUE_CHARS", "JsonFramer", "PlainLine", "TailRepair", "repair_tail"]

TailRepair = Callable[[str], dict[str, Any] | None]

PlainLine = Callable[[str], dict[str, Any] | None]
"""An adapter's reader of a stdout line that is not a JSON object: the event object standing for
the line, or None to refuse it (then it is the usual ProviderProtocolError)."""

# A single pending value larger than this is treated as a runaway producer, not an event.
DEFAULT_MAX_VALUE_CHARS = 64 * 1024 * 1024

# Pending text re-scanned on any closing brace; beyond it only on the triggers above.
_CHEAP_RESCAN = 256 * 1024
_WS = re.compile(r"[ \t\n\r]*")
_EXCERPT = 200


class JsonFramer:
    """Turns byte blocks into JSON objects; one instance per stream.

    `feed` and `close` scan their block at once and return an iterator over its
    objects; a protocol error found after some objects is raised by that iterator once they are
    taken (found before any, by the call itself). `feed_into` and `close_into` are
    the same steps appending to a list, for a reader that hands a block's objects on together.
    """

    __slots__ = (
        "_cut",
        "_decode",
        "_decoder",
        "_max",
        "_parts",
        "_pending",
        "_plain_line",
        "_retry_at",
        "_tail",
    )

    def __init__(
        self,
        *,
        max_value_chars: int = DEFAULT_MAX_VALUE_CHARS,
        plain_line: PlainLine | None = None,
    ) -> None:
        """Create a framer.

        Args:
            max_value_chars: Largest incomplete value kept while waiting for its end; beyond it
                the stream is reported as a protocol error instead of growing memory unboundedly.
            plain_line: The adapter's reader of a complete stdout line that is not a JSON object
                (see `PlainLine`); None (the default) makes every such line a protocol
                error.
        """
        if max_value_chars <= 0:
            raise ValueError("max_value_chars must be positive")
        self._plain_line = plain_line
        self._decoder = Utf8Decoder("stdout")
        self._cut = False
        self._decode = json.JSONDecoder().raw_decode
        # An unfinished value is kept as the blocks that carried it plus their total length, and
        # joined only when a rescan is due: appending to one growing string would copy it on
        # every read, quadratic in the value's size (a 64 MiB line took minutes, loop blocked).
        self._parts: list[str] = []
        self._pending = 0
        self._retry_at = 0
        self._max = max_value_chars
        self._tail = ""

    @property
    def tail(self) -> str:
        """Text left unparsed at EOF (set by `close`; empty when the stream ended cleanly)."""
        return self._tail

    @property
    def cut_character(self) -> bool:
        """The stream ended inside a multi-byte character (set by `close`)."""
        return self._cut

    def feed(self, data: bytes) -> Iterator[dict[str, Any]]:
        """Add one block read from the stream and yield every object it completes."""
        return _replay(partial(self.feed_into, data))

    def close(self) -> Iterator[dict[str, Any]]:
        """Signal EOF: yield the objects still buffered; the remainder goes to `tail`."""
        return _replay(self.close_into)

    def feed_into(self, data: bytes, out: list[dict[str, Any]]) -> None:
        """`feed` for a reader that takes a block's objects at once: append them to `out`.

        The per-block form the process reader uses: one list per pipe read instead of one
        generator step per object. On a protocol error the objects before the bad value are
        already in `out` when the error is raised, so a caller delivers them first.
        """
        try:
            text = self._decoder.decode(data)
        except ProviderProtocolError:
            self._scan_before_invalid(out)
            raise
        if self._parts:
            size = self._pending + len(text)
            if not self._may_complete(text, size):
                self._parts.append(text)
                self._pending = size
                self._check_size()
                return
            self._parts.append(text)
            buf = "".join(self._parts)
        else:
            buf = text
        self._scan(buf, out, final=False)

    def close_into(self, out: list[dict[str, Any]]) -> None:
        """`close` appending the objects to `out` (see `feed_into`)."""
        try:
            self._decoder.finish()
            text = ""
        except ProviderProtocolError:
            # The stream stopped inside a multi-byte character: keep a visible marker in the
            # tail for the error message; ``cut_character`` tells the caller not to repair it.
            text = "\ufffd"
            self._cut = True
        self._parts.append(text)
        self._scan("".join(self._parts), out, final=True)

    def _scan_before_invalid(self, out: list[dict[str, Any]]) -> None:
        """Frame the valid text a block held before its invalid UTF-8; the caller re-raises.

        The decoder refuses the whole block, yet the complete events ahead of the bad bytes
        (often the same read) were valid output and are delivered before the error, like the
        events before a malformed value. Only this failure path pays for it: the decoder keeps
        that text (with any character cut by the previous read, without a BOM).
        """
        if self._decoder.valid_prefix:
            self._parts.append(self._decoder.valid_prefix)
            self._scan("".join(self._parts), out, final=False)

    def _may_complete(self, text: str, size: int) -> bool:
        if "\n" in text or size >= self._retry_at:
            return True
        if "}" not in text:
            return False  # an object can only end at a closing brace
        return size <= _CHEAP_RESCAN or text.rstrip(" \t\r").endswith("}")

    def _check_size(self) -> None:
        if self._pending > self._max:
            size = self._pending
            self._parts, self._pending = [], 0
            raise ProviderProtocolError(
                f"a JSON value exceeded {self._max} characters without ending ({size} buffered)"
            )

    def _scan(self, buf: str, out: list[dict[str, Any]], *, final: bool) -> None:
        decode = self._decode
        skip = _WS.match
        append = out.append
        end = len(buf)
        pos = 0
        self._parts, self._pending = [], 0
        while True:
            pos = skip(buf, pos).end()  # type: ignore[union-attr]  # [ \t\n\r]* always matches
            if pos == end:
                return
            try:
                value, pos_after = decode(buf, pos)
            except json.JSONDecodeError as exc:
                # Only the message and position leave this block: see the module's last rule.
                failure: tuple[str, int] | str = (exc.msg, exc.pos)
            else:
                if type(value) is dict:
                    pos = pos_after
                    append(value)
                    continue
                failure = type(value).__name__
            resume = self._not_an_object(buf, pos, failure, out, final=final)
            if resume is None:
                return
            pos = resume

    def _not_an_object(
        self,
        buf: str,
        pos: int,
        failure: tuple[str, int] | str,
        out: list[dict[str, Any]],
        *,
        final: bool,
    ) -> int | None:
        """Text at ``pos`` that is no JSON object: the position to go on from, or None to stop.

        ``failure`` is the decoder's message and position, or the type name of a complete value
        that is not an object. The scan stops when the text is kept (pending more input, or as
        the tail at EOF) and goes on after the line the adapter's reader took; the protocol
        error is raised when the line is complete and no reader takes it.
        """
        # A stream cut inside a character ends in a marker, not text: never read as a line.
        reader = None if self._cut else self._plain_line
        if isinstance(failure, str):  # a whole value, but not an object
            if reader is not None:
                line_end = buf.find("\n", pos)
                if line_end == -1 and not final:
                    self._keep(buf[pos:])  # the reader is given whole lines only
                    return None
                line_end = len(buf) if line_end == -1 else line_end
                event = _read_plain(reader, buf[pos:line_end].rstrip("\r"))
                if event is not None:
                    out.append(event)
                    return line_end
            raise ProviderProtocolError(
                f"expected a JSON object, got {failure}: {_excerpt(buf, pos)}",
                raw=_excerpt(buf, pos),
            )
        if final:  # the tail, for the adapter's repair, unless it is one plain line
            tail = buf[pos:].strip()
            if reader is not None and "\n" not in tail:
                event = _read_plain(reader, tail)
                if event is not None:
                    out.append(event)
                    return None
            self._tail = tail
            return None
        if buf.find("\n", failure[1]) == -1:
            self._keep(buf[pos:])  # perhaps a value cut by the read boundary
            return None
        if reader is not None:
            line_end = buf.find("\n", pos)
            event = _read_plain(reader, buf[pos:line_end].rstrip("\r"))
            if event is not None:
                out.append(event)
                return line_end
        raise ProviderProtocolError(
            f"malformed JSON in stdout: {failure[0]}: {_excerpt(buf, pos)}",
            raw=_excerpt(buf, pos),
        )

    def _keep(self, rest: str) -> None:
        """Hold ``rest`` until more text may complete it (see the module's rescan rule)."""
        self._parts, self._pending = [rest], len(rest)
        self._retry_at = 2 * len(rest)
        self._check_size()


def _read_plain(reader: PlainLine, line: str) -> dict[str, Any] | None:
    """The adapter's object for ``line`` (None: refused); its failure is a protocol error.

    A reader's exception is neither chained nor quoted beyond its type name, nor is a wrong
    result: either may hold the line, and the line may hold a secret.
    """
    try:
        event = reader(line)
    except Exception as exc:  # the adapter's code: reported as the stream's failure
        failed = f"failed ({type(exc).__name__})"
    else:
        if event is None or isinstance(event, dict):
            return event
        failed = f"returned {type(event).__name__}, not an object or None"
    excerpt = _excerpt(line, 0)
    raise ProviderProtocolError(
        f"stdout line is not JSON and the adapter's plain-line reader {failed}: {excerpt}",
        raw=excerpt,
    )


def repair_tail(tail: str, tail_repair: TailRepair | None) -> dict[str, Any]:
    """Turn an incomplete final value into one object, or raise ProviderProtocolError.

    Args:
        tail: The unparsed text left at EOF (non-empty).
        tail_repair: The adapter's repair callback (e.g. Claude Code's JSON repair). Its
            failure, a None result or a non-mapping result all raise: a possibly meaningful
            final event is never dropped silently.
    """
    excerpt = _excerpt(tail, 0)
    if tail_repair is None:
        raise ProviderProtocolError(f"stdout ended inside a JSON value: {excerpt}", raw=excerpt)
    try:
        repaired = tail_repair(tail)
    except Exception as exc:
        raise ProviderProtocolError(
            f"stdout ended inside a JSON value and repair failed ({type(exc).__name__}): {excerpt}",
            raw=excerpt,
        ) from exc
    if not isinstance(repaired, dict):
        raise ProviderProtocolError(
            f"stdout ended inside a JSON value that repair could not turn into an object: "
            f"{excerpt}",
            raw=excerpt,
        )
    return repaired


def _replay(step: Callable[[list[dict[str, Any]]], None]) -> Iterator[dict[str, Any]]:
    """Run ``step`` now and hand out its objects, then the error it raised, if any.

    The framer's state is committed before the iterator is returned (the scan is eager), yet a
    caller iterating it still sees every object before a malformed value ahead of the error;
    an error with no object before it is raised here.
    """
    out: list[dict[str, Any]] = []
    try:
        step(out)
    except ProviderProtocolError as exc:
        if not out:
            raise
        return _then_raise(out, exc)
    return iter(out)


def _then_raise(
    values: list[dict[str, Any]], error: ProviderProtocolError
) -> Iterator[dict[str, Any]]:
    yield from values
    raise error


def _excerpt(text: str, pos: int) -> str:
    return redact(bounded(text[pos : pos + _EXCERPT + 1], _EXCERPT))
