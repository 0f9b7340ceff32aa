"""Call events: a status machine with one terminal transition and a completion signal.

The first terminal outcome wins (ADR-0029 D2): once an event is COMPLETED, FAILED, CANCELLED,
SKIPPED or ABORTED, later attempts to change it are refused, so a late provider result can never
overwrite a deadline or a cancellation.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from enum import StrEnum
from typing import Any
from uuid import UUID, uuid4

import anyio
from pydantic import BaseModel, ConfigDict, Field, PrivateAttr

__all__ = ["TERMINAL_STATUSES", "Event", "EventStatus", "Execution"]


class EventStatus(StrEnum):
    """Where an event is in its life; the last five are terminal."""

    PENDING = "pending"
    PROCESSING = "processing"
    COMPLETED = "completed"
    FAILED = "failed"
    CANCELLED = "cancelled"
    SKIPPED = "skipped"
    ABORTED = "aborted"

    @property
    def is_terminal(self) -> bool:
        """True for a status that never changes again."""
        return self in TERMINAL_STATUSES


TERMINAL_STATUSES: frozenset[EventStatus] = frozenset(
    {
        EventStatus.COMPLETED,
        EventStatus.FAILED,
        EventStatus.CANCELLED,
        EventStatus.SKIPPED,
        EventStatus.ABORTED,
    }
)


class Execution(BaseModel):
    """The execution record: serializable, secret-free summary of one run."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    status: EventStatus = EventStatus.PENDING
    duration: float | None = None
    response: Any = None
    error: str | None = None


class Event(BaseModel):
    """Base of every call event.

    Subclasses implement :meth:`_invoke` and/or :meth:`_stream`. :meth:`invoke` records ordinary
    exceptions on the event (the caller inspects ``status``/``exception``); :meth:`stream`
    records them *and* re-raises, so a failing stream never looks like a clean end of output.
    Cancellation is recorded as CANCELLED and always re-raised.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    id: UUID = Field(default_factory=uuid4)
    created_at: float = Field(default_factory=time.time)
    execution: Execution = Field(default_factory=Execution)

    _exception: BaseException | None = PrivateAttr(default=None)
    _done: anyio.Event | None = PrivateAttr(default=None)
    _started_at: float | None = PrivateAttr(default=None)

    # -- state ------------------------------------------------------------------------------------

    @property
    def status(self) -> EventStatus:
        """Current status."""
        return self.execution.status

    @property
    def is_terminal(self) -> bool:
        """True once the event reached a terminal status."""
        return self.execution.status.is_terminal

    @property
    def exception(self) -> BaseException | None:
        """The exception that ended the event, if any (kept typed; ``execution.error`` is text)."""
        return self._exception

    def mark_processing(self) -> None:
        """Move PENDING to PROCESSING; refuses to restart a terminal event."""
        if self.is_terminal:
            raise RuntimeError(f"event {self.id} is already {self.status.value}; it cannot rerun")
        if self.execution.status is EventStatus.PENDING:
            self.execution.status = EventStatus.PROCESSING
            self._started_at = time.monotonic()

    def terminate(
        self,
        status: EventStatus,
        *,
        response: Any = None,
        error: BaseException | None = None,
    ) -> bool:
        """Set a terminal status once. Returns False (and changes nothing) if already terminal."""
        if not status.is_terminal:
            raise ValueError(f"status: {status.value} is not terminal")
        if self.is_terminal:
            return False
        execution = self.execution
        execution.status = status
        if self._started_at is not None:
            execution.duration = time.monotonic() - self._started_at
        if response is not None:
            execution.response = response
        if error is not None:
            self._exception = error
            text = str(error)
            execution.error = f"{type(error).__name__}: {text}" if text else type(error).__name__
        if self._done is not None:
            self._done.set()
        return True

    async def wait_terminal(self) -> None:
        """Wait until the event is terminal."""
        if self.is_terminal:
            return
        if self._done is None:
            self._done = anyio.Event()
        await self._done.wait()

    # -- execution --------------------------------------------------------------------------------

    async def _invoke(self) -> Any:
        raise TypeError(f"{type(self).__name__} defines no one-shot work")

    def _stream(self) -> AsyncIterator[Any]:
        raise TypeError(f"{type(self).__name__} defines no streaming work")

    async def invoke(self) -> None:
        """Run once; record the outcome. Ordinary errors are recorded, cancellation re-raised."""
        self.mark_processing()
        try:
            response = await self._invoke()
        except Exception as exc:
            self.terminate(EventStatus.FAILED, error=exc)
        except BaseException as exc:
            self.terminate(EventStatus.CANCELLED, error=exc)
            raise
        else:
            self.terminate(EventStatus.COMPLETED, response=response)

    async def stream(self) -> AsyncIterator[Any]:
        """Yield items; record the outcome. Errors are recorded *and* re-raised."""
        self.mark_processing()
        agen: AsyncIterator[Any] | None = None
        try:
            agen = self._stream()
            async for item in agen:
                yield item
        except Exception as exc:
            self.terminate(EventStatus.FAILED, error=exc)
            raise
        except BaseException as exc:
            self.terminate(EventStatus.CANCELLED, error=exc)
            raise
        finally:
            aclose = getattr(agen, "aclose", None)
            if aclose is not None:
                await aclose()
        self.terminate(EventStatus.COMPLETED)
