"""A redacting filter on the HTTP client library's own loggers.

httpx logs each request at INFO with its full URL (query values included) and httpcore logs the
response headers at DEBUG (a header echoing the key included). The library cannot stop an
application from enabling those loggers, so it cleans their records instead: query values, URL
userinfo, header values not on the harmless allow-list, and everything :func:`redact` knows.

The filter is installed once, when the first endpoint client is created, not at import: importing
the library must not change logging for an application that never makes a call. A logger-level
filter applies only to records created on that very logger, so it is attached to ``httpx`` and to
every ``httpcore`` logger that exists then (httpcore creates them when its modules are imported,
which ``httpx`` does before any client exists). Records reaching those loggers only when enabled,
so a quiet application pays nothing.
"""

from __future__ import annotations

import logging
import re
import threading

from ..._base.secrets import REDACTED, is_harmless_header, redact

__all__ = ["RedactingFilter", "install_log_redaction"]

# httpcore prints headers as a list of byte-string pairs: (b'Name', b'value').
_HEADER_PAIR = re.compile(r"\((b?)(['\"])([^'\"]{1,256})\2, (b?)(['\"])(.*?)\5\)")


def _header_pair(match: re.Match[str]) -> str:
    name = match.group(3)
    if is_harmless_header(name):
        return match.group(0)
    q1, q2 = match.group(2), match.group(5)
    return f"({match.group(1)}{q1}{name}{q1}, {match.group(4)}{q2}{REDACTED}{q2})"


class RedactingFilter(logging.Filter):
    """Rewrite a record's message with secrets removed; never drops a record."""

    def filter(self, record: logging.LogRecord) -> bool:
        """Render the message once, redact it, and store the result without arguments."""
        try:
            message = record.getMessage()
        except Exception:  # a broken format string: leave it for the handler to report
            return True
        record.msg = redact(_HEADER_PAIR.sub(_header_pair, message))
        record.args = None
        return True


_FILTER = RedactingFilter()
_installed: set[str] = set()
_lock = threading.Lock()


def install_log_redaction() -> None:
    """Attach the filter to ``httpx`` and every existing ``httpcore`` logger (idempotent)."""
    names = ["httpx", "httpcore"] + [
        n for n in list(logging.Logger.manager.loggerDict) if n.split(".")[0] == "httpcore"
    ]
    if _installed.issuperset(names):
        return
    with _lock:
        for name in names:
            if name not in _installed:
                logging.getLogger(name).addFilter(_FILTER)
                _installed.add(name)
