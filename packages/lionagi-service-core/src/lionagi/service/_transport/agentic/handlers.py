"""Runtime-argument classification and handler validation for agentic endpoints (ADR-0030 D2).

Runtime arguments (callbacks such as ``on_text``, or other live objects) never belong in the
serialized request payload. ``runtime_arg_keys`` is the single authority for which call keys are
runtime-only; handlers are the callable subset, by default all of them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import Any, ClassVar

from pydantic import BaseModel

from ..._base.errors import AgenticHandlerError
from ..._base.suggest import did_you_mean

__all__ = ["AgenticHandlersMixin", "Handler"]

Handler = Callable[..., Any]


class AgenticHandlersMixin:
    """Validates, stores, copies and merges runtime handlers once for every agentic adapter.

    Subclasses declare `runtime_arg_keys`; those must be callables (a subclass may narrow the
    set, see `handler_names`). Configured handlers live on the endpoint; per-call values
    override them for one call, and a per-call `None` disables a configured handler for that call.
    """

    runtime_arg_keys: ClassVar[frozenset[str]] = frozenset()
    request_type: ClassVar[type[BaseModel] | None] = None
    _handler_params: ClassVar[tuple[str, ...] | None] = None
    _agentic_handlers: dict[str, Handler]

    # -- classification ---------------------------------------------------------------------------

    @classmethod
    def handler_names(cls) -> frozenset[str]:
        """Names accepted as handlers: `runtime_arg_keys`, or a subclass's narrower set."""
        if cls._handler_params is None:
            return cls.runtime_arg_keys
        names = frozenset(cls._handler_params)
        undeclared = sorted(names - cls.runtime_arg_keys)
        if undeclared:
            raise TypeError(
                f"{cls.__name__}._handler_params names {undeclared[0]!r}, which is not in "
                "runtime_arg_keys; declare every runtime key there"
            )
        return names

    @classmethod
    def split_runtime_args(
        cls, mapping: Mapping[str, Any]
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        """Split call keywords into `(request_fields, runtime_args)`; both are new dicts.

        Declared runtime keys are removed first, so a callback never reaches request validation
        or the payload. Everything else is a request-field candidate for the provider model.
        """
        request_fields: dict[str, Any] = {}
        runtime_args: dict[str, Any] = {}
        for key, value in mapping.items():
            if key in cls.runtime_arg_keys:
                runtime_args[key] = value
            else:
                request_fields[key] = value
        return request_fields, runtime_args

    @classmethod
    def validate_runtime_args(cls, runtime_args: Mapping[str, Any]) -> None:
        """Refuse an undeclared runtime key or a handler value that is neither callable nor None."""
        handler_names = cls.handler_names()
        for name, value in runtime_args.items():
            if name not in cls.runtime_arg_keys:
                raise AgenticHandlerError(name, cls._unknown_message(name, "runtime argument"))
            if name in handler_names and value is not None and not callable(value):
                raise AgenticHandlerError(
                    name, f"handler must be callable or None, got {type(value).__name__}"
                )

    @classmethod
    def _validate_handlers(cls, handlers: Mapping[str, Any]) -> None:
        names = cls.handler_names()
        for name, value in handlers.items():
            if name not in names:
                raise AgenticHandlerError(name, cls._unknown_message(name, "handler"))
            if value is not None and not callable(value):
                raise AgenticHandlerError(
                    name, f"handler must be callable or None, got {type(value).__name__}"
                )

    @classmethod
    def _unknown_message(cls, name: str, what: str) -> str:
        accepted = sorted(cls.handler_names() if what == "handler" else cls.runtime_arg_keys)
        hint = did_you_mean(name, accepted)
        listed = ", ".join(accepted) if accepted else "none"
        return f"unknown {what} for {cls.__name__} (accepted: {listed}){hint}"

    # -- configured handlers ----------------------------------------------------------------------

    def _handler_store(self) -> dict[str, Handler]:
        store = self.__dict__.get("_agentic_handlers")
        if store is None:
            store = {}
            self._agentic_handlers = store
        return store

    @property
    def handlers(self) -> Mapping[str, Handler]:
        """Read-only view of the configured handlers (names with a callable)."""
        return MappingProxyType(dict(self._handler_store()))

    def update_handlers(self, **kwargs: Handler | None) -> None:
        """Configure handlers by name; `None` removes one. All-or-nothing on a bad entry."""
        self._validate_handlers(kwargs)
        store = self._handler_store()
        for name, value in kwargs.items():
            if value is None:
                store.pop(name, None)
            else:
                store[name] = value

    def _set_handlers(self, handlers: Mapping[str, Handler | None]) -> None:
        self._validate_handlers(handlers)
        self._agentic_handlers = {k: v for k, v in handlers.items() if v is not None}

    def copy_runtime_state_to(self, other: object) -> None:
        """Give `other` a copy of the handler mapping; the callables themselves are shared.

        Raises:
            AgenticHandlerError: `other` does not accept one of the configured names.
            TypeError: handlers are configured but `other` cannot hold any.
        """
        store = self._handler_store()
        if isinstance(other, AgenticHandlersMixin):
            other._set_handlers(dict(store))
        elif store:
            raise TypeError(f"{type(other).__name__} cannot hold agentic runtime handlers")

    def _runtime_handlers(self, call_kwargs: Mapping[str, Any]) -> dict[str, Handler]:
        """Effective handlers for one call: configured ones overridden by per-call values.

        A per-call ``None`` disables that handler for this call only; missing keys keep the
        configured value. Non-handler runtime keys are ignored here; undeclared keys are refused.
        ``call_kwargs`` is not modified.
        """
        self.validate_runtime_args(call_kwargs)
        merged: dict[str, Handler | None] = dict(self._handler_store())
        names = self.handler_names()
        merged.update({k: v for k, v in call_kwargs.items() if k in names})
        return {k: v for k, v in merged.items() if v is not None}
