"""Call events: a status machine with one terminal transition and a completion signal.

The first terminal outcome wins (ADR-0029 D2): once an event is COMPLETED, FAILED, CANCELLED,
SKIPPED or ABORTED, later attempts to change it are refused, so a late provider result can never
overwrite a deadline or a cancellation.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any
from uuid import UUID, uuid4

import anyio
from pydantic import BaseModel, ConfigDict, Field, field_serializer

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


@dataclass(slots=True)
class Execution:
    """The execution record of one event.

    A slotted dataclass rather than a model: status changes happen on every call and must be
    plain attribute writes. Only `status`, `duration`, `response` and `error` serialize;
    the typed exception, start time and completion signal are runtime state.

    `duration` is seconds from PROCESSING (the call was admitted) to the terminal status: the
    provider's share, hooks and retries included, the wait in the admission queue not. An event
    that ended before it was admitted (timed out, cancelled or aborted while queued) has None:
    it never ran, and its wait is what the admission-wait metric and the deadline error's
    `phase` report.
    """

    status: EventStatus = EventStatus.PENDING
    duration: float | None = None
    response: Any = None
    error: str | None = None
    exception: BaseException | None = field(default=None, repr=False, compare=False)
    started_at: float | None = field(default=None, repr=False, compare=False)
    done: anyio.Event | None = field(default=None, repr=False, compare=False)

    def to_dict(self) -> dict[str, Any]:
        """The serializable part of the record."""
        return {
            "status": self.status.value,
            "duration": self.duration,
            "response": self.response,
            "error": self.error,
        }


class Event(BaseModel):
    """Base of every call event.

    A subclass supplies the work itself, one-shot and/or streamed. `invoke` records ordinary
    exceptions on the event (the caller inspects `status`/`exception`); `stream`
    records them *and* re-raises, so a failing stream never looks like a clean end of output.
    Cancellation is recorded as CANCELLED and always re-raised.
    """

    # defer_build: the validator is built on first use, not at import (cold start).
    model_config = ConfigDict(arbitrary_types_allowed=True, defer_build=True)

    id: UUID = Field(default_factory=uuid4)
    created_at: float = Field(default_factory=time.time)
    execution: Execution = Field(default_factory=Execution)

    @field_serializer("execution")
    def _serialize_execution(self, execution: Execution) -> dict[str, Any]:
        return execution.to_dict()

    # -- state ------------------------------------------------------------------------------------

    @property
    def status(self) -> EventStatus:
        """Current status."""
        return self.execution.status

    @property
    def is_terminal(self) -> bool:
        """True once the event reached a terminal status."""
        return self.execution.status in TERMINAL_STATUSES

    @property
    def exception(self) -> BaseException | None:
        """The exception that ended the event, if any (kept typed; `execution.error` is text)."""
        return self.execution.exception

    def mark_processing(self) -> None:
        """Move PENDING to PROCESSING; refuses to restart a terminal event."""
        execution = self.execution
        if execution.status in TERMINAL_STATUSES:
            raise RuntimeError(
                f"event {self.id} is already {execution.status.value}; it cannot rerun"
            )
        if execution.status is EventStatus.PENDING:
            execution.status = EventStatus.PROCESSING
            execution.started_at = time.monotonic()

    def terminate(
        self,
        status: EventStatus,
        *,
        response: Any = None,
        error: BaseException | None = None,
    ) -> bool:
        """Set a terminal status once. Returns False (and changes nothing) if already terminal."""
        if status not in TERMINAL_STATUSES:
            raise ValueError(f"status: {status.value} is not terminal")
        execution = self.execution
        if execution.status in TERMINAL_STATUSES:
            return False
        execution.status = status
        if execution.started_at is not None:
            execution.duration = time.monotonic() - execution.started_at
        if response is not None:
            execution.response = response
        if error is not None:
            execution.exception = error
            text = str(error)
            execution.error = f"{type(error).__name__}: {text}" if text else type(error).__name__
        if execution.done is not None:
            execution.done.set()
        return True

    async def wait_terminal(self) -> None:
        """Wait until the event is terminal."""
        if self.is_terminal:
            return
        execution = self.execution
        if execution.done is None:
            execution.done = anyio.Event()
        await execution.done.wait()

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
