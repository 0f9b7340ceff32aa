"""Turn provider error text (CLI stderr, error events) into a typed ProviderError (ADR-0030 D3).

Only generic text patterns live here: phrases several providers print. Vendor grammar such as
Gemini CLI exit codes belongs in the vendor package, which passes its own
:class:`ProviderErrorPattern` values through ``extra_patterns``; those are checked first, so
narrower vendor evidence wins over a generic phrase.

The text is redacted before it is searched or stored, and only a bounded tail is kept: stderr can
be 256 KiB and may echo a key back.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from .._base.errors import (
    ProviderAuthError,
    ProviderCapacityError,
    ProviderContextError,
    ProviderDisconnectError,
    ProviderError,
    ProviderExecutableNotFound,
    ProviderPermissionError,
    ProviderProcessError,
    ProviderQuotaError,
    ProviderStatusError,
    ProviderUnsupportedModelError,
)
from .._base.secrets import redact

__all__ = [
    "CLASSIFY_WINDOW",
    "DEFAULT_ERROR_PATTERNS",
    "STDERR_TAIL_LIMIT",
    "ProviderErrorPattern",
    "classify_provider_error",
]

# Characters of text searched and kept as ``raw``: errors are printed last, so keep the tail.
CLASSIFY_WINDOW = 8 * 1024
# Characters of stderr kept on the error for diagnostics.
STDERR_TAIL_LIMIT = 4 * 1024
# Characters redacted before the window is cut (well above the 256 KiB stderr capture).
_REDACT_SCAN_LIMIT = 1024 * 1024
# Characters of the matched line quoted in the exception message.
_EXCERPT_LIMIT = 300

# Error classes whose constructors take something other than (message, stderr_tail=, raw=).
_UNCONSTRUCTIBLE = (ProviderStatusError, ProviderProcessError, ProviderExecutableNotFound)


@dataclass(frozen=True, slots=True)
class ProviderErrorPattern:
    """One classification rule: a case-insensitive regex and/or exit codes mapped to an error type.

    Args:
        kind: Short label of the failure family (``"quota"``, ``"auth"``, ...).
        error_type: ProviderError subclass raised on a match; it must accept
            ``(message, stderr_tail=, raw=)``.
        pattern: Regular expression searched case-insensitively in the redacted text.
        returncodes: Exit codes that match regardless of text (vendor exit-code grammars).
        summary: Human phrase used in the message; defaults to ``kind``.
    """

    kind: str
    error_type: type[ProviderError]
    pattern: str | None = None
    returncodes: frozenset[int] = frozenset()
    summary: str = ""
    regex: re.Pattern[str] | None = field(init=False, repr=False, compare=False, default=None)

    def __post_init__(self) -> None:
        if self.pattern is None and not self.returncodes:
            raise ValueError(f"{self.kind}: a pattern needs a regex, return codes, or both")
        if not (isinstance(self.error_type, type) and issubclass(self.error_type, ProviderError)):
            raise TypeError(f"{self.kind}: error_type must be a ProviderError subclass")
        if issubclass(self.error_type, _UNCONSTRUCTIBLE):
            raise TypeError(
                f"{self.kind}: {self.error_type.__name__} needs extra constructor arguments; "
                "pick a class constructed as (message, stderr_tail=, raw=)"
            )
        object.__setattr__(self, "returncodes", frozenset(self.returncodes))
        if self.pattern is not None:
            object.__setattr__(self, "regex", re.compile(self.pattern, re.IGNORECASE))

    def search(self, text: str, returncode: int | None) -> re.Match[str] | bool:
        """Return the regex match, True for an exit-code-only match, or False."""
        if self.regex is not None:
            match = self.regex.search(text)
            if match is not None:
                return match
        return returncode is not None and returncode in self.returncodes


_SEP = r"[\s_.\-]?"

# Order matters: the first matching family wins (TABLES.md, "Provider error classification").
DEFAULT_ERROR_PATTERNS: tuple[ProviderErrorPattern, ...] = (
    ProviderErrorPattern(
        "quota",
        ProviderQuotaError,
        r"usage limit reached"
        rf"|rate{_SEP}limit{_SEP}exceeded"
        r"|try again at \d"
        r"|hit your usage limit"
        r"|purchase more credits",
        summary="quota or rate limit exhausted",
    ),
    ProviderErrorPattern(
        "auth",
        ProviderAuthError,
        rf"invalid{_SEP}api{_SEP}key"
        r"|not logged in"
        r"|\b401\b[^\n]{0,120}?unauthori[sz]ed"
        # Evidence beyond the inherited table: OpenAI's wording (seen through codex and pi) and
        # Google's (seen through gemini) for a refused key.
        r"|incorrect api key provided"
        r"|api key not valid",
        summary="authentication failed",
    ),
    ProviderErrorPattern(
        "context",
        ProviderContextError,
        rf"context{_SEP}(?:window|length){_SEP}(?:exceeded|(?:is{_SEP})?too{_SEP}long)"
        r"|prompt is too long[^\n]{0,120}?tokens"
        r"|ran out of room[^\n]{0,120}?context window",
        summary="context window exceeded",
    ),
    ProviderErrorPattern(
        "capacity",
        ProviderCapacityError,
        r"model is at capacity",
        summary="model at capacity",
    ),
    ProviderErrorPattern(
        "unsupported_model",
        ProviderUnsupportedModelError,
        r"model is not supported",
        summary="model not supported",
    ),
    ProviderErrorPattern(
        "stream_disconnect",
        ProviderDisconnectError,
        r"stream disconnected before completion",
        summary="stream disconnected before completion",
    ),
    ProviderErrorPattern(
        "permission",
        ProviderPermissionError,
        r"auto[\s_\-]?denied",
        summary="action auto-denied by the permission policy",
    ),
)


def classify_provider_error(
    text: str,
    *,
    returncode: int | None = None,
    stderr_tail: str = "",
    provider: str | None = None,
    extra_patterns: Sequence[ProviderErrorPattern] = (),
    secrets: Iterable[str] = (),
) -> ProviderError:
    """Return (not raise) the most specific ProviderError for a provider's error text.

    ``extra_patterns`` are tried first, then :data:`DEFAULT_ERROR_PATTERNS`, each over the
    redacted tail of ``text`` followed by ``stderr_tail``. With no match the result is
    :class:`ProviderProcessError` when ``returncode`` is given, else the base
    :class:`ProviderError`. A matched error still records ``returncode``.

    Args:
        text: Provider error text (an error event's message, or stderr itself).
        returncode: Exit code of a finished CLI process, if any.
        stderr_tail: Captured stderr; kept (redacted, bounded) on the error.
        provider: Provider key used in the message.
        extra_patterns: Vendor rules, checked before the generic ones.
        secrets: Known secret values (e.g. the key handed to the CLI) to redact verbatim.
    """
    secret_values = tuple(secrets)
    raw = _redacted_tail(text, CLASSIFY_WINDOW, secret_values)
    tail = _redacted_tail(stderr_tail, STDERR_TAIL_LIMIT, secret_values)
    searched = raw
    if tail and tail not in raw:
        searched = f"{raw}\n{tail}" if raw else tail
    label = provider or "provider"

    for rule in (*extra_patterns, *DEFAULT_ERROR_PATTERNS):
        found = rule.search(searched, returncode)
        if not found:
            continue
        excerpt = _excerpt(searched, found if isinstance(found, re.Match) else None)
        message = f"{label}: {rule.summary or rule.kind}"
        if returncode is not None:
            message += f" (exit code {returncode})"
        if excerpt:
            message += f": {excerpt}"
        error = rule.error_type(message, stderr_tail=tail, raw=raw)
        error.returncode = returncode
        return error

    excerpt = _excerpt(searched, None)
    if returncode is not None:
        message = f"{label}: process exited with code {returncode}"
        message += f": {excerpt}" if excerpt else ""
        return ProviderProcessError(message, returncode=returncode, stderr_tail=tail, raw=raw)
    return ProviderError(f"{label}: {excerpt or 'failed without an error message'}", raw=raw)


def _redacted_tail(text: str, limit: int, secrets: tuple[str, ...]) -> str:
    """Redact, then keep the last ``limit`` characters.

    Redaction runs before the cut, over up to :data:`_REDACT_SCAN_LIMIT` characters (stderr is
    captured up to 256 KiB), so a key straddling the kept window is replaced whole instead of
    leaving an unrecognizable fragment.
    """
    if not text:
        return ""
    return redact(text[-_REDACT_SCAN_LIMIT:], secrets)[-limit:]


def _excerpt(text: str, match: re.Match[str] | None) -> str:
    """Quote the matched line (or the last non-empty line) bounded to a readable length."""
    if match is None:
        lines = [line.strip() for line in text.splitlines() if line.strip()]
        line = lines[-1] if lines else ""
        return line if len(line) <= _EXCERPT_LIMIT else "..." + line[-_EXCERPT_LIMIT:]
    start = text.rfind("\n", 0, match.start()) + 1
    end = text.find("\n", match.end())
    end = len(text) if end == -1 else end
    half = _EXCERPT_LIMIT // 2
    lo = max(start, match.start() - half)
    hi = min(end, match.end() + half)
    quoted = text[lo:hi].strip()
    return ("..." if lo > start else "") + quoted + ("..." if hi < end else "")
