"""A pydantic validation failure as the field and message of one of the library's typed errors.

Every place that validates with pydantic (endpoint config, request models, agentic requests and
settings, the nested shapes of a Chat Completions request) reports the first failure the same
way: its dotted location names the field, and the message is pydantic's without the input value
(the value may be a secret or a prompt). pydantic prefixes the text of a validator's own
``ValueError`` with ``"Value error, "``; the prefix is pydantic's wording, not ours, so it is
dropped (``base_url: must be an absolute http:// ...``).

A tagged union (members marked with ``Tag``, chosen by a ``Discriminator`` function) puts the
tag of the member it chose into the location: ``messages.0.user.contnet`` where the caller wrote
``messages.0.contnet``. :func:`locate` can drop those segments, so a caller reads the path it
wrote. It is asked for, not the default: the location is part of a typed error's ``field``, and
a vendor whose errors already name the member (``content.blocks.0.image.source``) keeps them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import NoneType, UnionType
from typing import TYPE_CHECKING, Annotated, Any, NamedTuple, Union, get_args, get_origin

from pydantic import BaseModel, Discriminator, Tag, ValidationError

from .suggest import did_you_mean

if TYPE_CHECKING:
    from pydantic_core import ErrorDetails

__all__ = ["Located", "first_error", "locate"]

_PREFIXES = ("Value error, ", "Assertion failed, ")
_Loc = tuple[int | str, ...]


class Located(NamedTuple):
    """One pydantic error read for a caller: where it is, what it says, what holds it.

    ``owner`` is the model whose field the last part of ``loc`` names (None when that part is
    no model's field, or the path could not be followed). ``tags`` are the tags of the tagged
    union the location ends at (or whose tag it ended on), so a caller can name the kinds it
    accepts; empty elsewhere, and when tags are kept.
    """

    loc: _Loc
    message: str
    owner: type[BaseModel] | None
    tags: tuple[str, ...]


def first_error(
    exc: ValidationError,
    default_field: str,
    model: type[BaseModel] | None = None,
    *,
    drop_union_tags: bool = False,
) -> tuple[str, str]:
    """The first error's dotted location (`default_field` when it has none) and message.

    An unknown nested field (pydantic's `extra_forbidden`) reads like the unknown top-level
    ones the callers report themselves: "unknown field", with the closest field of the nested
    model when `model` (the validated model) lets us find it. With `drop_union_tags` (and
    `model`), the tag pydantic inserts for a tagged union's chosen member is left out of the
    location, which then is the path the caller wrote.
    """
    errors = exc.errors(include_input=False, include_url=False, include_context=False)
    found = locate(_telling(errors), model, drop_union_tags=drop_union_tags)
    return ".".join(str(part) for part in found.loc) or default_field, found.message


def _telling(errors: Sequence[ErrorDetails]) -> ErrorDetails:
    """The error that says what the caller got wrong.

    The first, unless it is a missing field beside an unknown one in the same object, which is
    most likely that field misspelled (``{"contnet": ...}`` reported as ``content: Field
    required`` never named the typo).
    """
    first = errors[0]
    if first["type"] == "missing":
        parent = tuple(first["loc"][:-1])
        for error in errors[1:]:
            if error["type"] == "extra_forbidden" and tuple(error["loc"][:-1]) == parent:
                return error
    return first


def locate(
    error: ErrorDetails, model: type[BaseModel] | None, *, drop_union_tags: bool = False
) -> Located:
    """``error`` (one of ``ValidationError.errors()``) as :class:`Located`.

    The one reading of a location and an unknown-field message, shared by :func:`first_error`
    and the Chat Completions shapes check (``openai_chat_types.refused_shape``), which adds its
    own words for an unknown kind. An unknown field names the model that holds it (without a
    private leading underscore) and its closest field, by the key the caller writes (a field's
    alias when it has one).
    """
    loc, owner, tags = (
        _walk(model, error["loc"], drop_union_tags)
        if model is not None
        else (tuple(error["loc"]), None, ())
    )
    if error["type"] == "extra_forbidden":
        if owner is None:
            message = "unknown field"
        else:
            hint = did_you_mean(str(loc[-1]) if loc else None, _fields_by_key(owner))
            message = f"unknown field of {owner.__name__.lstrip('_')}{hint}"
        return Located(loc, message, owner, tags)
    message = error["msg"]
    for prefix in _PREFIXES:
        if message.startswith(prefix):
            message = message[len(prefix) :]
            break
    return Located(loc, message, owner, tags)


def _walk(
    model: type[BaseModel], loc: Sequence[int | str], drop_tags: bool
) -> tuple[_Loc, type[BaseModel] | None, tuple[str, ...]]:
    """``loc`` followed through ``model``'s annotations: the location, its owner, its tags.

    List indexes and mapping keys step into the item type; a model's field (by its key as
    written) into the field's type. A part that is a tag of the tagged union there selects that
    member, and is left out of the location with ``drop_tags``. A part the annotations do not
    explain (a smart union's member label) is kept, and what follows has no known owner. The
    tags are those of the tagged union the location ends at (or ended on).
    """
    clean: list[int | str] = []
    owner: type[BaseModel] | None = None
    annotation: Any = model
    tags: tuple[str, ...] = ()
    parts = list(loc)
    while parts:
        current, choices = _unwrap(annotation)
        if choices is not None:
            member = choices.get(str(parts[0]))
            if member is None:
                break
            # The tag selects the member either way, so what follows keeps a known owner (and
            # a misspelled key inside it its "did you mean"); only the shown path differs.
            tags, annotation = tuple(choices), member
            tag = parts.pop(0)
            if not drop_tags:
                clean.append(tag)
            continue
        part = parts.pop(0)
        clean.append(part)
        tags = ()
        if isinstance(current, type) and issubclass(current, BaseModel):
            owner, annotation = current, _fields_by_key(current).get(str(part))
            continue
        owner = None
        origin = get_origin(current)
        args = get_args(current)
        if isinstance(origin, type) and issubclass(origin, (Mapping, Sequence)) and args:
            annotation = args[-1] if issubclass(origin, Mapping) else args[0]
        else:
            annotation = Any
    clean.extend(parts)
    _, choices = _unwrap(annotation)
    return tuple(clean), owner, tuple(choices) if choices is not None else tags


def _fields_by_key(model: type[BaseModel]) -> dict[str, Any]:
    """``model``'s field types by the key a caller writes: the alias, else the name."""
    return {info.alias or name: info.annotation for name, info in model.model_fields.items()}


def _unwrap(annotation: Any) -> tuple[Any, dict[str, Any] | None]:
    """``annotation`` without ``Annotated``/``Optional``, and its members by tag if it is tagged.

    A tagged union is a union of ``Annotated[member, Tag(...)]`` (its ``Discriminator`` on the
    union or on the field), or a single ``Annotated[member, Tag(...), Discriminator(...)]``:
    pydantic validates that one as a union of one member and puts its tag in the location too.
    A member is given without its ``Annotated`` metadata: a member that is itself a tagged
    union (``Annotated[Union[...], Discriminator(...), Tag(...)]``) is then read as one.
    """
    while True:
        origin = get_origin(annotation)
        if origin is Annotated:
            inner, *meta = get_args(annotation)
            tag = next((m.tag for m in meta if isinstance(m, Tag)), None)
            single = get_origin(inner) not in (Union, UnionType)
            if tag is not None and single and any(isinstance(m, Discriminator) for m in meta):
                return annotation, {tag: inner}
            annotation = inner
            continue
        if origin in (Union, UnionType):
            members = get_args(annotation)
            choices = {tag: get_args(arg)[0] for arg in members if (tag := _tag(arg)) is not None}
            if choices:
                return annotation, choices
            optional = [arg for arg in members if arg is not NoneType]
            if len(optional) == 1:
                annotation = optional[0]
                continue
        return annotation, None


def _tag(member: Any) -> str | None:
    """The ``Tag`` of a union member written ``Annotated[member, Tag(...)]``, or None."""
    if get_origin(member) is not Annotated:
        return None
    return next((m.tag for m in get_args(member)[1:] if isinstance(m, Tag)), None)
