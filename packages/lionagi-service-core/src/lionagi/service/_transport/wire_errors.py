"""One rule for adapter code that reads provider output and fails: a typed protocol error.

HTTP stream projectors and CLI event parsers both read data the provider wrote. A value of an
unexpected shape (a list where an object belongs, a missing key) makes adapter code raise a
``KeyError``, ``TypeError`` or ``AttributeError``; escaping as such, it reached callers untyped,
and retry and circuit logic could not tell it from a bug in the caller. Both transports turn it
into :class:`~lionagi.service.ProviderProtocolError` here, once, keeping the original as the
cause so a genuine adapter bug still shows where it happened.
"""

from __future__ import annotations

from collections.abc import Iterable

from .._base.errors import ProviderCatalogError, ProviderError, ProviderProtocolError
from .._base.secrets import bounded, redact

__all__ = ["typed_wire_error"]


def typed_wire_error(source: str, exc: Exception, secrets: Iterable[str] = ()) -> Exception:
    """``exc`` when it is one of the service's errors, else a ``ProviderProtocolError``.

    ``source`` names the adapter code that failed (its class), for the message; the original
    exception's text is redacted of ``secrets`` and bounded before it is shown.
    """
    if isinstance(exc, ProviderError | ProviderCatalogError):
        return exc
    known = tuple(secrets)
    detail = bounded(redact(str(exc), known), 200)
    error = ProviderProtocolError(
        f"provider output of an unexpected shape ({source}): {type(exc).__name__}: {detail}"
    )
    # The cause keeps its traceback (where the adapter's code failed) but not its text in
    # clear: a parser's ``KeyError('<value>')`` quotes the provider's output, which can echo a
    # secret, and a formatted traceback prints the cause's arguments.
    exc.args = tuple(redact(arg, known) if isinstance(arg, str) else arg for arg in exc.args)
    error.__cause__ = exc
    return error
