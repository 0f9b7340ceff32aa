"""Bounded capture of a CLI's stderr: diagnostics without unbounded memory (ADR-0030 D4)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ..._base.secrets import REDACTED

__all__ = ["OVERFLOW_TAIL", "StderrCapture"]

# Bytes of the discarded stderr excess still kept: CLIs print the fatal line last.
OVERFLOW_TAIL = 4 * 1024


class StderrCapture:
    """Retains the first ``limit`` bytes of stderr and drops the rest (counting it).

    The last :data:`OVERFLOW_TAIL` bytes of the excess are also kept, so the final error line of
    a CLI that printed megabytes of warnings first can still be classified.
    """

    __slots__ = ("_head", "_tail", "discarded", "limit")

    def __init__(self, limit: int) -> None:
        """Capture at most ``limit`` leading bytes (plus the bounded overflow tail)."""
        self.limit = limit
        self._head = bytearray()
        self._tail = b""
        self.discarded = 0

    @property
    def head(self) -> bytes:
        """The retained leading bytes (at most ``limit``)."""
        return bytes(self._head)

    def feed(self, data: bytes) -> None:
        """Keep what fits in the head; count the excess and keep its last few KiB."""
        room = self.limit - len(self._head)
        if room > 0:
            self._head += data[:room]
            data = data[room:]
        if data:
            self.discarded += len(data)
            self._tail = (self._tail + data)[-OVERFLOW_TAIL:]

    def text(self, secrets: Sequence[str] = ()) -> str:
        """The capture decoded with replacement, marking where excess was dropped.

        Where bytes were dropped, the head's end and the tail's start can each hold the part of
        a secret whose rest was cut off; redacting whole secrets afterwards cannot see such a
        part, so a part of one of ``secrets`` found at a cut is replaced here.
        """
        text = self._head.decode("utf-8", "replace")
        if self.discarded:
            tail = self._tail.decode("utf-8", "replace")
            omitted = self.discarded - len(self._tail)
            if omitted:
                text = _cut_end(text, secrets)
                text += f"\n[... {omitted} bytes of stderr discarded ...]\n"
                tail = _cut_start(tail, secrets)
            text += tail
        return text


# Shortest part of a secret treated as one at a cut (as ``redact`` ignores shorter secrets).
_MIN_PART = 4


def _cut_end(text: str, secrets: Sequence[str]) -> str:
    """``text`` with the longest leading part of a secret it ends with replaced."""
    size = _longest_part(secrets, lambda secret, n: text.endswith(secret[:n]))
    return text[: len(text) - size] + REDACTED if size else text


def _cut_start(text: str, secrets: Sequence[str]) -> str:
    """``text`` with the longest trailing part of a secret it starts with replaced."""
    size = _longest_part(secrets, lambda secret, n: text.startswith(secret[-n:]))
    return REDACTED + text[size:] if size else text


def _longest_part(secrets: Sequence[str], found: Callable[[str, int], bool]) -> int:
    """The longest size ``n`` >= ``_MIN_PART`` for which ``found(secret, n)`` holds, else 0."""
    longest = 0
    for secret in secrets:
        for size in range(len(secret), max(longest, _MIN_PART - 1), -1):
            if found(secret, size):
                longest = size
                break
    return longest
