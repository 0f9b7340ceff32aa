"""Small constructors for catalog diagnostics, so every message is sanitized the same way."""

from __future__ import annotations

from .._base.diagnostics import CatalogDiagnosticCode, ProviderDiagnostic
from .._base.secrets import bounded, redact

__all__ = [
    "CREDENTIAL_HINT",
    "CREDENTIAL_INPUT",
    "CREDENTIAL_NOTE",
    "MESSAGE_LIMIT",
    "describe_exception",
    "diagnostic",
    "looks_like_credential",
    "sanitize_fix",
]

MESSAGE_LIMIT = 500
"""Longest exception text kept in a diagnostic; tracebacks and bodies stay out of inspection."""


CREDENTIAL_NOTE = "looks like a credential (an API key?) and is not shown"
"""Said of a value :func:`looks_like_credential` instead of the value."""

CREDENTIAL_HINT = (
    "iModel's positional parameters are provider, base_url, endpoint and api_key; "
    "pass a key as api_key=..."
)
"""Where a key goes, in Python terms (the command line words it as its own flag). No
``api_key: <word>``: redaction (the command line's last guard) would take it for a name/value
pair and replace the word."""

CREDENTIAL_INPUT = f"{CREDENTIAL_NOTE}; {CREDENTIAL_HINT}"
"""What a selection error says instead of echoing a provider, endpoint or model string that
:func:`looks_like_credential`."""


def looks_like_credential(value: object) -> bool:
    """True when :func:`redact` would change ``value``: a selection error must not echo it.

    Checked on the string as the caller wrote it: a canonical (casefolded) key can hide a key
    shape (``AIza...`` becomes ``aiza...``) and a remembered secret's spelling.
    """
    return isinstance(value, str) and redact(value) != value


def describe_exception(exc: BaseException) -> str:
    """``Type: message`` with key-shaped text redacted and the length bounded."""
    try:
        text = str(exc)
    except Exception:
        text = "<exception text unavailable>"
    summary = f"{type(exc).__name__}: {text}" if text else type(exc).__name__
    return bounded(redact(summary), MESSAGE_LIMIT)


def diagnostic(
    code: CatalogDiagnosticCode,
    provider: str,
    message: str,
    *,
    endpoint: str | None = None,
    module: str | None = None,
    key: str | None = None,
    cause_type: str | None = None,
    distributions: tuple[str, ...] = (),
    fix: str | None = None,
) -> ProviderDiagnostic:
    """Build a diagnostic; ``message``, ``key`` and ``fix`` are redacted as a last guard.

    ``key`` names the offending spelling, which for a request default is a mapping key the
    author wrote: a credential pasted there (``{"sk-...": 1}``) is as secret as a value.
    """
    return ProviderDiagnostic(
        code=code,
        provider=provider,
        endpoint=endpoint,
        module=module,
        key=None if key is None else redact(key),
        message=bounded(redact(message), MESSAGE_LIMIT * 2),
        cause_type=cause_type,
        distributions=tuple(sorted(set(distributions))),
        fix=sanitize_fix(fix),
    )


def sanitize_fix(fix: str | None) -> str | None:
    """Redact and bound a fix text the same way as a message (it names installed packages)."""
    return None if fix is None else bounded(redact(fix), MESSAGE_LIMIT)
