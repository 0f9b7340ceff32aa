"""Sample values of a vendor SDK's request TypedDicts: every key, every closed value.

Why: a nested key or value an adapter's request model refuses cannot be sent at all
(``extra_body`` reaches only the top level), and a vendor's SDK is where a new one appears
first. A test that builds requests from the SDK's own request types, rather than from a list
written by hand, notices the day a newer SDK declares something the adapter does not take.
Two test suites (core's shared chat shapes, the OpenAI row) walk the same types, so the walk
lives here once, next to the other SDK-fidelity checks (:mod:`.vendor_checks`).

Pure introspection: nothing here imports a vendor SDK; the caller passes its types.
"""

from __future__ import annotations

import functools
import os
import types
import typing
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Literal, Union, get_args, get_origin

__all__ = ["SDK_PROBE_KEY", "sdk_samples", "sdk_typeddicts"]

SDK_PROBE_KEY = "not_an_sdk_key"
"""The key :func:`sdk_samples` adds to the objects of its ``probed`` TypedDict."""

_WRAPPERS = frozenset({"Required", "NotRequired", "ReadOnly", "Annotated"})
_SIMPLE: dict[Any, Any] = {str: "x", bool: True, int: 1, float: 0.5, object: "x"}


def _is_typeddict(tp: Any) -> bool:
    """A TypedDict class, from ``typing`` or ``typing_extensions`` alike.

    ``typing.is_typeddict`` on Python 3.11 misses the ``typing_extensions`` classes the SDKs
    define, so the class is recognised by what every TypedDict has.
    """
    return (
        isinstance(tp, type)
        and issubclass(tp, dict)
        and hasattr(tp, "__total__")
        and hasattr(tp, "__required_keys__")
    )


def _sdk_side(tp: Any) -> bool:
    """A union member the SDK turns into another before sending, so never a wire shape.

    A file object or a path where the API takes a base64 string (the SDK reads and encodes
    it), and a response's pydantic model where a request takes the block back (the SDK dumps
    it to the TypedDict beside it in the same union).
    """
    origin = get_origin(tp)
    if origin is typing.IO or tp is os.PathLike or origin is os.PathLike:
        return True
    return isinstance(tp, type) and hasattr(tp, "model_fields") and not _is_typeddict(tp)


@functools.cache
def _hints(tp: Any) -> Mapping[str, Any]:
    """``tp``'s resolved annotations, once per type (read-only: the cache shares them).

    ``get_type_hints`` re-evaluates every string annotation of the class and its bases on each
    call; a walk of an SDK's messages type reaches the same nested TypedDicts hundreds of times
    (once per probed type), and resolving them again took most of its time.
    """
    return types.MappingProxyType(typing.get_type_hints(tp, include_extras=True))


def sdk_samples(tp: Any, *, omitted: frozenset[str] = frozenset(), probed: Any = None) -> list[Any]:
    """Values of the SDK type ``tp`` that together use every key and every literal value.

    A TypedDict gives objects with every key (less ``omitted``), as many as its most varied key
    has samples; a union gives each member's samples; a list gives one list holding every
    sample of its item type (so a list of messages carries every role and part type); a
    ``Literal`` gives each of its values. A union's members the SDK converts before sending
    (a file object or path for a base64 string, a response's pydantic model for a block) are
    not wire shapes and give no samples. Objects of the TypedDict ``probed`` also carry
    :data:`SDK_PROBE_KEY`, a key the SDK does not declare, which a closed model must refuse.

    Raises:
        TypeError: a type this walk has no sample for, named, so the walk is taught it rather
            than a key being skipped unseen.
    """
    origin, args = get_origin(tp), get_args(tp)
    name = getattr(origin, "__name__", "")
    if name in _WRAPPERS:
        return sdk_samples(args[0], omitted=omitted, probed=probed)
    if origin is Literal:
        return list(args)
    if origin is Union or origin is types.UnionType:  # Union[X, Y] and X | Y alike
        wire = [arg for arg in args if not _sdk_side(arg)]
        return [v for arg in wire for v in sdk_samples(arg, omitted=omitted, probed=probed)]
    if tp is type(None):
        return [None]
    if _is_typeddict(tp):
        keys = {
            key: sdk_samples(kind, omitted=omitted, probed=probed)
            for key, kind in _hints(tp).items()
            if key not in omitted
        }
        if tp is probed:
            keys[SDK_PROBE_KEY] = ["x"]
        count = max((len(values) for values in keys.values()), default=1)
        return [
            {key: values[index % len(values)] for key, values in keys.items()}
            for index in range(count)
        ]
    if origin in (list, Iterable, Sequence) or name == "SequenceNotStr":
        return [sdk_samples(args[0], omitted=omitted, probed=probed)]
    if origin is dict or tp is dict:
        return [{"key": sdk_samples(args[1])[0] if args else "value"}]
    if tp in _SIMPLE:
        return [_SIMPLE[tp]]
    raise TypeError(f"no sample for the SDK type {tp!r}; teach sdk_samples() about it")


def sdk_typeddicts(tp: Any, *, omitted: frozenset[str] = frozenset()) -> dict[str, Any]:
    """Every TypedDict reachable from ``tp`` (keys in ``omitted`` not followed), by name.

    The names are ``module.QualifiedName``, so a failure says which SDK object it was.
    """
    found: dict[str, Any] = {}
    if _is_typeddict(tp):
        found[f"{tp.__module__}.{tp.__qualname__}"] = tp
        for key, kind in _hints(tp).items():
            if key not in omitted:
                found.update(sdk_typeddicts(kind, omitted=omitted))
    for arg in get_args(tp):
        if not isinstance(arg, str):
            found.update(sdk_typeddicts(arg, omitted=omitted))
    return found
