"""Bounded capture of a CLI's stderr: diagnostics without unbounded memory (ADR-0030 D4)."""

from __future__ import annotations

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

    def text(self) -> str:
        """The capture decoded with replacement, marking where excess was dropped."""
        text = self._head.decode("utf-8", "replace")
        if self.discarded:
            omitted = self.discarded - len(self._tail)
            if omitted:
                text += f"\n[... {omitted} bytes of stderr discarded ...]\n"
            text += self._tail.decode("utf-8", "replace")
        return text
