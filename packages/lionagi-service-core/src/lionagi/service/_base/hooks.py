"""Call-boundary hooks and the event type that runs them.

Four points: ``pre_event_create`` (before the event exists; may adjust its kwargs),
``pre_invocation`` and ``post_invocation`` (around provider work), and ``on_chunk`` (each stream
chunk; returns the chunk to yield). A hook aborts the call by raising; the exception it raises is
the one the caller sees. Each hook runs under a local cap that the lifecycle clips to the
request's remaining budget.
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, MutableMapping
from enum import StrEnum
from typing import Any

import anyio
from pydantic import Field

from .chunk import StreamChunk
from .events import Event, EventStatus

__all__ = [
    "DEFAULT_HOOK_CAPS",
    "ChunkHook",
    "CreateHook",
    "EventHook",
    "HookPhase",
    "HookRegistry",
    "HookedEvent",
]

logger = logging.getLogger("lionagi.service")

CreateHook = Callable[[type[Event], MutableMapping[str, Any]], Awaitable[None] | None]
EventHook = Callable[[Event], Awaitable[None] | None]
ChunkHook = Callable[[Event, StreamChunk], Awaitable[StreamChunk] | StreamChunk]


class HookPhase(StrEnum):
    """The four hook points."""

    PRE_EVENT_CREATE = "pre_event_create"
    PRE_INVOCATION = "pre_invocation"
    POST_INVOCATION = "post_invocation"
    ON_CHUNK = "on_chunk"


# Local caps (seconds) kept inside the request deadline: pre-create / pre / post (TABLES.md).
DEFAULT_HOOK_CAPS: dict[HookPhase, float] = {
    HookPhase.PRE_EVENT_CREATE: 10.0,
    HookPhase.PRE_INVOCATION: 30.0,
    HookPhase.POST_INVOCATION: 30.0,
}


async def _maybe_await(value: Any) -> Any:
    if inspect.isawaitable(value):
        return await value
    return value


# The attribute holding each phase's callable.
_SLOTS: dict[HookPhase, str] = {
    HookPhase.PRE_EVENT_CREATE: "_create",
    HookPhase.PRE_INVOCATION: "_pre",
    HookPhase.POST_INVOCATION: "_post",
    HookPhase.ON_CHUNK: "_chunk",
}


class HookRegistry:
    """Holds at most one callable per hook point. Sync or async callables are both accepted.

    A sync hook runs on the event loop's thread, so neither its cap nor the deadline nor a
    cancellation can interrupt it; under an `iModel` one that returns past its limit ends the
    call as an async hook cut off there would (`HookTimeout` or the deadline error).
    """

    __slots__ = ("_chunk", "_create", "_post", "_pre")

    def __init__(
        self,
        *,
        pre_event_create: CreateHook | None = None,
        pre_invocation: EventHook | None = None,
        post_invocation: EventHook | None = None,
        on_chunk: ChunkHook | None = None,
    ) -> None:
        for name, fn in (
            ("pre_event_create", pre_event_create),
            ("pre_invocation", pre_invocation),
            ("post_invocation", post_invocation),
            ("on_chunk", on_chunk),
        ):
            if fn is not None and not callable(fn):
                raise TypeError(f"{name}: hook must be callable, got {type(fn).__name__}")
        self._create = pre_event_create
        self._pre = pre_invocation
        self._post = post_invocation
        self._chunk = on_chunk

    @classmethod
    def from_mapping(cls, hooks: dict[str, Any]) -> HookRegistry:
        """Build from `{"pre_invocation": fn, ...}`; an unknown key is an error, not ignored."""
        known = {p.value for p in HookPhase}
        # Sorted as text: keys of mixed types (``{1: f, "pre": g}``) would otherwise fail the
        # sort itself and the caller would see Python's comparison error, not the bad key.
        unknown = sorted((k for k in hooks if k not in known), key=str)
        if unknown:
            raise TypeError(f"{unknown[0]}: unknown hook point; known: {', '.join(sorted(known))}")
        return cls(**hooks)

    def has(self, phase: HookPhase) -> bool:
        """True when a callable is registered for `phase`."""
        return getattr(self, _SLOTS[phase]) is not None

    async def pre_event_create(
        self, event_type: type[Event], kwargs: MutableMapping[str, Any]
    ) -> None:
        """Run the pre-create hook; it may edit `kwargs` in place or raise to refuse.

        Raises:
            TypeError: the hook returned a value other than None or `kwargs` itself. A hook
                written to return new kwargs (`return {**kwargs, "temperature": 0}`) would
                otherwise have its change dropped without a word.
        """
        if self._create is not None:
            out = await _maybe_await(self._create(event_type, kwargs))
            if out is not None and out is not kwargs:
                raise TypeError(
                    "pre_event_create: the hook returned "
                    f"{type(out).__name__}, which would be ignored; edit kwargs in place and "
                    "return None"
                )

    async def pre_invocation(self, event: Event) -> None:
        """Run the pre-invocation hook."""
        if self._pre is not None:
            await _maybe_await(self._pre(event))

    async def post_invocation(self, event: Event) -> None:
        """Run the post-invocation hook."""
        if self._post is not None:
            await _maybe_await(self._post(event))

    async def on_chunk(self, event: Event, chunk: StreamChunk) -> StreamChunk:
        """Pass a chunk through the chunk hook; it must return a StreamChunk."""
        if self._chunk is None:
            return chunk
        out = await _maybe_await(self._chunk(event, chunk))
        if not isinstance(out, StreamChunk):
            raise TypeError(f"on_chunk: hook must return a StreamChunk, got {type(out).__name__}")
        return out


class HookedEvent(Event):
    """An event whose provider work is wrapped by pre/post invocation hooks.

    Standalone `invoke`/`stream` apply the default hook caps; under an `iModel` the
    lifecycle supervisor runs the same hooks with caps clipped to the request budget.
    """

    hook_registry: HookRegistry | None = Field(default=None, exclude=True)

    async def run_hook(self, phase: HookPhase, cap: float | None = None) -> None:
        """Run one invocation hook under `cap` seconds (None: no local cap)."""
        registry = self.hook_registry
        if registry is None:
            return
        if phase is HookPhase.PRE_INVOCATION:
            fn = registry.pre_invocation
        elif phase is HookPhase.POST_INVOCATION:
            fn = registry.post_invocation
        else:
            raise ValueError(f"phase: {phase.value} is not an invocation hook")
        if cap is None:
            await fn(self)
            return
        with anyio.fail_after(cap):
            await fn(self)

    async def invoke(self) -> None:
        """Pre-hook, provider work, post-hook. A post-hook failure never replaces a core failure."""
        self.mark_processing()
        try:
            await self.run_hook(
                HookPhase.PRE_INVOCATION, DEFAULT_HOOK_CAPS[HookPhase.PRE_INVOCATION]
            )
            response = await self._invoke()
        except Exception as exc:
            self.terminate(EventStatus.FAILED, error=exc)
            await self._post_after_failure()
            return
        except BaseException as exc:
            self.terminate(EventStatus.CANCELLED, error=exc)
            raise
        try:
            await self.run_hook(
                HookPhase.POST_INVOCATION, DEFAULT_HOOK_CAPS[HookPhase.POST_INVOCATION]
            )
        except Exception as exc:
            self.terminate(EventStatus.FAILED, error=exc)
            return
        self.terminate(EventStatus.COMPLETED, response=response)

    async def _post_after_failure(self) -> None:
        try:
            await self.run_hook(
                HookPhase.POST_INVOCATION, DEFAULT_HOOK_CAPS[HookPhase.POST_INVOCATION]
            )
        except Exception:
            logger.warning("post_invocation hook failed after a failed call", exc_info=True)

    async def stream(self) -> AsyncIterator[Any]:
        """Pre-hook, chunks through the chunk hook, post-hook after clean EOF only."""
        self.mark_processing()
        registry = self.hook_registry
        agen: AsyncIterator[Any] | None = None
        try:
            await self.run_hook(
                HookPhase.PRE_INVOCATION, DEFAULT_HOOK_CAPS[HookPhase.PRE_INVOCATION]
            )
            agen = self._stream()
            async for item in agen:
                if registry is not None and isinstance(item, StreamChunk):
                    item = await registry.on_chunk(self, item)
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
        try:
            await self.run_hook(
                HookPhase.POST_INVOCATION, DEFAULT_HOOK_CAPS[HookPhase.POST_INVOCATION]
            )
        except Exception:
            # Output already reached the consumer: the failure is logged, not raised (ADR-0029 D3).
            logger.warning("post_invocation hook failed after stream output", exc_info=True)
        self.terminate(EventStatus.COMPLETED)
