"""iModelManager: named ownership of several iModels and their isolated, concurrent shutdown.

Re-registering a name is refused by default (:class:`ModelNameConflict`), because silently
replacing a model would strand its open connections, processes and queued calls. Use
:meth:`iModelManager.replace`, which closes the displaced model before returning.

Every other bad argument is an :class:`EndpointConfigurationError` naming it in ``field``, as
the rest of the facade raises. The ones raised as a builtin before keep that builtin too (a
private subclass each): ``except TypeError`` / ``except KeyError`` around the manager still work.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Iterator, Mapping
from typing import Literal

import anyio

from .._base.errors import EndpointConfigurationError, _Restorable
from .._base.loops import running_asyncio_loop
from .imodel import iModel

__all__ = ["ModelNameConflict", "ShutdownOutcome", "iModelManager"]

logger = logging.getLogger("lionagi.service")

ShutdownOutcome = Literal["closed", "timeout", "error"]

CHAT = "chat"
PARSE = "parse"


class ModelNameConflict(_Restorable, KeyError):
    """A name is already registered; ``name`` says which. Use ``replace()`` to swap it."""

    def __init__(self, name: str) -> None:
        self.name = name
        super().__init__(f"{name!r} is already registered; use replace() to close and swap it")

    def __str__(self) -> str:
        # KeyError's own str() is the repr of its argument, which wrapped the sentence in quotes.
        return str(self.args[0])


class _NotAModel(EndpointConfigurationError, TypeError):
    """A model argument that is no `iModel`, or one positional model too many.

    Also a TypeError, which the manager raised for these before it raised typed errors.
    """


class _NotRegistered(EndpointConfigurationError, KeyError):
    """`remove()` of a name nothing is registered under; also the KeyError it raised before."""

    def __str__(self) -> str:
        # KeyError's own str() is the repr of its argument, which wrapped the sentence in quotes.
        return str(self.args[0])


class iModelManager:
    """A string-keyed registry of iModels with two conventional names, `chat` and `parse`.

    Positional models register as `chat` then `parse`; keyword models under their keyword.

    Raises:
        EndpointConfigurationError: a model is not an `iModel` (field: its keyword, or `chat` /
            `parse` for a positional one; also a TypeError), more than two models are positional
            (field `models`; also a TypeError), or a keyword is blank or has surrounding
            whitespace (field `name`).
        ModelNameConflict: a positional model and a keyword claim the same name.
    """

    def __init__(self, *models: iModel, **named: iModel) -> None:
        self._models: dict[str, iModel] = {}
        defaults = (CHAT, PARSE)
        if len(models) > len(defaults):
            raise _NotAModel(
                "models",
                f"at most two positional models (chat, parse), got {len(models)}; name the "
                "others, e.g. iModelManager(chat, parse, extra=model)",
            )
        for name, model in (*zip(defaults, models, strict=False), *named.items()):
            # Checked here under the name the caller wrote: `iModelManager(api_key=...)` was
            # reported as a bad `model`, an argument the caller never gave.
            _check_name(name)
            _check_model(model, field=name)
            self.register(name, model)

    @property
    def chat(self) -> iModel | None:
        """The model registered as `chat`."""
        return self._models.get(CHAT)

    @property
    def parse(self) -> iModel | None:
        """The model registered as `parse`."""
        return self._models.get(PARSE)

    def register(self, name: str, model: iModel) -> None:
        """Register `model` under `name`.

        Raises:
            EndpointConfigurationError: `model` is not an `iModel` (field `model`; also a
                TypeError), or `name` is not a non-blank string without surrounding
                whitespace (field `name`).
            ModelNameConflict: `name` is already registered; `replace()` swaps it.
        """
        _check_model(model)
        _check_name(name)
        if name in self._models:
            raise ModelNameConflict(name)
        self._models[name] = model

    register_imodel = register

    async def replace(
        self, name: str, model: iModel, *, close_timeout: float = 10.0
    ) -> iModel | None:
        """Swap the model under `name`; the displaced one is closed (bounded) and returned.

        The displaced model is left open when another name still holds it.

        `name` and `close_timeout` are checked as `register` and `shutdown`
        check them, before anything changes: otherwise `replace` would register a name
        `register` refuses, or leave the displaced model unclosed behind an invalid timeout.

        Raises:
            EndpointConfigurationError: `model` is not an `iModel` (field `model`; also a
                TypeError), `name` is not a non-blank string without surrounding whitespace
                (field `name`), or `close_timeout` is not a finite number of seconds > 0 (field
                `close_timeout`).
        """
        _check_model(model)
        _check_name(name)
        _check_timeout("close_timeout", close_timeout)
        old = self._models.get(name)
        self._models[name] = model
        if old is not None and not self._holds(old):
            await _close_one(name, old, close_timeout)
        return old

    async def remove(self, name: str, *, close_timeout: float = 10.0) -> iModel:
        """Unregister `name` and close its model (bounded).

        A model still registered under another name is not closed.

        Raises:
            EndpointConfigurationError: nothing is registered under `name` (field `name`; also
                a KeyError), or `close_timeout` is not a finite number of seconds > 0 (field
                `close_timeout`). Nothing is removed then.
        """
        _check_timeout("close_timeout", close_timeout)
        if not isinstance(name, str) or name not in self._models:
            # A bare KeyError('name') said neither what was wrong nor which argument, and
            # echoed the value whole (a key pasted here by mistake came back in the error).
            raise _NotRegistered(
                "name", f"no model is registered under {_shown(name)}; registered: {self._list()}"
            )
        model = self._models.pop(name)
        if not self._holds(model):
            await _close_one(name, model, close_timeout)
        return model

    def _list(self) -> str:
        return ", ".join(map(repr, self._models)) or "none"

    def _holds(self, model: iModel) -> bool:
        """True when ``model`` is still registered under some name.

        One model may serve several names (``iModelManager(chat=m, parse=m)`` is common);
        :meth:`replace` and :meth:`remove` close the displaced model only once no name holds it,
        otherwise swapping ``parse`` would close the model ``chat`` still hands out.
        """
        return any(held is model for held in self._models.values())

    def get(self, name: str) -> iModel | None:
        """The model under `name`, or None."""
        return self._models.get(name)

    def __getitem__(self, name: str) -> iModel:
        return self._models[name]

    def __contains__(self, name: object) -> bool:
        return name in self._models

    def __len__(self) -> int:
        return len(self._models)

    def __iter__(self) -> Iterator[str]:
        return iter(list(self._models))

    @property
    def models(self) -> Mapping[str, iModel]:
        """A copy of the registry."""
        return dict(self._models)

    async def shutdown(self, *, per_model_timeout: float = 10.0) -> dict[str, ShutdownOutcome]:
        """Close every model concurrently, each under its own timeout.

        One failure never stops the others. Returns each name's outcome; failures are logged.

        Raises:
            EndpointConfigurationError: `per_model_timeout` is not a finite number of seconds
                > 0 (field `per_model_timeout`; also a ValueError). Checked first, because a
                NaN passed a plain `<= 0` test and then made every close fail unclosed.
        """
        _check_timeout("per_model_timeout", per_model_timeout)
        outcomes: dict[str, ShutdownOutcome] = {}
        # One close per model, its outcome reported under every name holding it: closing a
        # shared model once per name made the later names report "closed" at once (close() is
        # idempotent) while the first one was still timing out or failing.
        names: dict[int, list[str]] = {}
        models: dict[int, iModel] = {}
        for name, model in self._models.items():
            names.setdefault(id(model), []).append(name)
            models[id(model)] = model
        if not models:
            return outcomes

        async def close(key: int) -> None:
            held = names[key]
            outcome = await _close_one(", ".join(held), models[key], per_model_timeout)
            for name in held:
                outcomes[name] = outcome

        async with anyio.create_task_group() as tg:
            for key in models:
                tg.start_soon(close, key)
        return outcomes


def _check_model(model: object, field: str = "model") -> None:
    """Refuse anything but an `iModel`; only its type is shown (it may be a pasted key)."""
    if not isinstance(model, iModel):
        raise _NotAModel(field, f"expected an iModel, got {type(model).__name__}")


def _check_name(name: object) -> None:
    """The one name rule of :meth:`iModelManager.register` and :meth:`iModelManager.replace`.

    A name with surrounding whitespace is refused, not stripped: kept, `" chat "` was a second
    name beside `"chat"` that `manager.chat` never returned; stripped, `get(" chat ")` would
    still miss it. The name is not echoed (a key pasted here by mistake would come back).
    """
    if not isinstance(name, str) or not name.strip():
        raise EndpointConfigurationError("name", "must be a non-empty string")
    if name != name.strip():
        raise EndpointConfigurationError(
            "name",
            "must not begin or end with whitespace: ' chat ' and 'chat' would be two different "
            "names; strip it where the name is made",
        )


def _shown(name: object) -> str:
    """A name for a message: a string quoted (the error redacts it), anything else its type."""
    return repr(name) if isinstance(name, str) else f"a name of type {type(name).__name__}"


def _check_timeout(field: str, value: object) -> None:
    """Require a finite number of seconds > 0, as every other timeout of the library."""
    if (
        isinstance(value, bool)
        or not isinstance(value, int | float)
        or not math.isfinite(value)
        or value <= 0
    ):
        shown = repr(value) if isinstance(value, int | float) else type(value).__name__
        raise EndpointConfigurationError(
            field, f"must be a finite number of seconds > 0, got {shown}"
        )


async def _close_one(name: str, model: iModel, limit: float) -> ShutdownOutcome:
    try:
        with anyio.move_on_after(limit) as scope:
            await model.close()
    except Exception:
        logger.warning("closing model %r failed", name, exc_info=True)
        return "error"
    except anyio.get_cancelled_exc_class():
        if _cancel_requested():
            raise  # the caller (or shutdown's own timeout) stops us: not this model's outcome
        # A close() that lets a CancelledError escape nobody asked for (an awaited inner task
        # that was cancelled) is that model's failure: without this its name was missing from
        # the outcomes, nothing was logged, and shutdown() returned as if all went well.
        logger.warning("closing model %r ended in an unrequested cancellation", name, exc_info=True)
        return "error"
    if scope.cancelled_caught:
        logger.warning("closing model %r timed out after %g s", name, limit)
        return "timeout"
    return "closed"


def _cancel_requested() -> bool:
    """True when the running task was asked to stop, not merely handed a stray CancelledError.

    Under asyncio a cancel scope or ``task.cancel()`` counts on the task (``cancelling()``); a
    CancelledError raised without that request is some inner task's, re-raised. Trio's
    ``Cancelled`` only ever comes from a cancel scope, so outside asyncio it always counts.
    """
    if running_asyncio_loop() is None:  # trio
        return True
    import asyncio  # loaded already: a loop of it is running

    task = asyncio.current_task()
    return task is None or task.cancelling() > 0
