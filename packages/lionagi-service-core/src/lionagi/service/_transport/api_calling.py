"""APICalling: the call event that carries one request to one endpoint (ADR-0027 D3).

Only ``payload`` serializes. Headers and runtime ``call_kwargs`` (handlers, callbacks) are
excluded, so a dump of the event never carries credentials or callables.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from typing import Any
from uuid import uuid4

from pydantic import Field

from .._base.chunk import StreamChunk
from .._base.events import Execution
from .._base.hooks import HookedEvent, HookRegistry
from .http.endpoint import Endpoint

__all__ = ["APICalling"]


class APICalling(HookedEvent):
    """One request bound to one endpoint."""

    endpoint: Endpoint = Field(exclude=True, repr=False)
    payload: dict[str, Any]
    headers: dict[str, str] = Field(default_factory=dict, exclude=True, repr=False)
    call_kwargs: dict[str, Any] = Field(default_factory=dict, exclude=True, repr=False)
    timeout: float | None = Field(default=None, exclude=True)
    token_estimate: int | None = Field(default=None, exclude=True)

    @classmethod
    def _from_validated(
        cls,
        endpoint: Endpoint,
        payload: dict[str, Any],
        headers: dict[str, str],
        call_kwargs: dict[str, Any],
        hook_registry: HookRegistry | None,
    ) -> APICalling:
        """A call built from parts the endpoint already validated, without validating them again.

        ``iModel`` builds one call per request from ``Endpoint.create_payload``'s output; running
        pydantic's validator over the event as well costs a second validator call per request
        (most of the event's construction cost on the hot path). Callers pass exactly the types
        the fields declare; the result is indistinguishable from ``APICalling(...)`` with the
        same keywords (same fields set, defaults, dumps).
        """
        if cls is not APICalling:
            raise TypeError("_from_validated builds APICalling only; subclasses validate")
        call = cls.__new__(cls)
        set_attr = object.__setattr__
        set_attr(
            call,
            "__dict__",
            {
                "id": uuid4(),
                "created_at": time.time(),
                "execution": Execution(),
                "hook_registry": hook_registry,
                "endpoint": endpoint,
                "payload": payload,
                "headers": headers,
                "call_kwargs": call_kwargs,
                "timeout": None,
                "token_estimate": None,
            },
        )
        set_attr(call, "__pydantic_fields_set__", set(_PREPARED_FIELDS))
        set_attr(call, "__pydantic_extra__", None)
        set_attr(call, "__pydantic_private__", None)
        return call

    @property
    def required_tokens(self) -> int | None:
        """Tokens this call is expected to use, or None when the endpoint does not count them."""
        if self.token_estimate is not None:
            return self.token_estimate
        if not self.endpoint.config.requires_tokens:
            return None
        return self.endpoint.estimate_tokens(self.payload)

    async def _invoke(self) -> Any:
        return await self.endpoint.call(
            self.payload,
            extra_headers=self.headers,
            timeout=self.timeout,
            **self._created(),
            **self.call_kwargs,
        )

    def _stream(self) -> AsyncIterator[StreamChunk]:
        return self.endpoint.stream(
            self.payload,
            extra_headers=self.headers,
            timeout=self.timeout,
            **self._created(),
            **self.call_kwargs,
        )

    def _created(self) -> dict[str, Any]:
        # The payload was created (validated, ``extra_body`` merged) with this event: an HTTP
        # endpoint sends it as created. Validated again, the keys ``extra_body`` added were
        # refused as unknown request fields, so a call run on its own failed where the same
        # call under an iModel succeeded. An agentic endpoint recognises its own envelope.
        return {} if self.endpoint.is_agentic else {"skip_payload_creation": True}


_PREPARED_FIELDS = frozenset({"endpoint", "payload", "headers", "call_kwargs", "hook_registry"})
