"""Request fields an adapter refuses by name, with the reason, declared on its request model.

A vendor's grammar has names a caller reasonably writes into a request body that do not belong
there: a parameter the vendor's SDK sends as a header (a workspace id), or a field only another
deployment of the same API takes. Declared as fields they would be listed as accepted; left
undeclared, the caller reads "unknown request field" and perhaps a near-miss suggestion, which
says nothing of where the value goes. A request model lists them instead in a class variable,

    refused_fields: ClassVar[Mapping[str, str]] = {"workspace_id": "is sent as a header ..."}

(the message completes a sentence that starts with the field's name), and core refuses each by
name with its reason wherever it is written: the request, a call's keywords, ``extra_body``
(where an undeclared name would otherwise go out unchecked), and ``request_defaults`` when the
model is built. Core defines the mechanism only; the names and reasons are the vendor's.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

__all__ = ["REFUSED_FIELDS", "first_refused", "refused_reason"]

REFUSED_FIELDS = "refused_fields"
"""The request model's class variable: a mapping of field name to the reason it is refused."""


def refused_reason(model: object, key: str) -> str | None:
    """Why ``model`` refuses the body field ``key``, or None when it does not refuse it."""
    table = getattr(model, REFUSED_FIELDS, None)
    if not isinstance(table, Mapping):
        return None
    reason = table.get(key)
    return reason if isinstance(reason, str) else None


def first_refused(model: object, keys: Iterable[str]) -> tuple[str, str] | None:
    """The first of ``keys`` that ``model`` refuses, with its reason, or None."""
    table = getattr(model, REFUSED_FIELDS, None)
    if not isinstance(table, Mapping) or not table:
        return None
    for key in keys:
        reason = table.get(key)
        if isinstance(reason, str):
            return key, reason
    return None
