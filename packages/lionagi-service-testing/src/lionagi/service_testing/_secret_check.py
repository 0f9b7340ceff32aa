"""Where a secret shows after a failure: the error, its excerpt, chunk texts, log records.

A provider package that declares a credential-bearing request field (core's
``remember_request_secret``) proves the value stays hidden by making a server quote it back
and reading everything a user could see. Each such test needs the same list of places and the
same "cut short" rule, so they live here once; :func:`secret_shown` returns the places rather
than asserting, so a failing test names each one.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Iterable

from lionagi.service import ProviderStatusError

from ._fake_record import REDACTED

__all__ = ["assert_secret_hidden", "plain_secret", "secret_shown"]

_RECORD = logging.Formatter("%(message)s %(exc_text)s")


def plain_secret(label: str) -> str:
    """A unique credential that no redaction shape of core's matches.

    Letters and digits after ``label``, with no known key prefix: a test using it passes only
    if the value itself is known to the redaction, not because it looks like a key.
    """
    return f"{label}{uuid.uuid4().hex}"


def _shows(secret: str, text: str) -> bool:
    """Whether ``text`` shows ``secret``: the whole value or its leading half.

    The one rule of this distribution for "a secret is shown", used by :func:`secret_shown` and
    by the HTTP conformance kit's key scan, so the two cannot drift apart. Half the value counts:
    a server or an adapter that shows a credential cut short (its tail masked, say) still leaks
    most of it.
    """
    return secret[: max(1, len(secret) // 2)] in text


def secret_shown(
    secret: str,
    error: BaseException,
    *texts: str,
    records: Iterable[logging.LogRecord] = (),
) -> list[str]:
    """The places where ``secret``, or its leading half, shows; empty when it is hidden.

    Read: ``str`` and ``repr`` of ``error``, its ``body_excerpt`` when it is an HTTP status
    error, each of ``texts`` (an error chunk's content, its metadata's repr) and each log
    record, formatted with its exception text (``caplog.records``). Half the value counts as
    shown: a server that quotes a credential cut short still leaks most of it.
    """
    places = [("str(error)", str(error)), ("repr(error)", repr(error))]
    if isinstance(error, ProviderStatusError):
        places.append(("error.body_excerpt", error.body_excerpt or ""))
    places += [(f"texts[{index}]", text) for index, text in enumerate(texts)]
    places += [(f"log record {r.name}", _RECORD.format(r)) for r in records]
    return [where for where, text in places if _shows(secret, text)]


def assert_secret_hidden(
    secret: str,
    error: BaseException,
    *texts: str,
    records: Iterable[logging.LogRecord] = (),
) -> None:
    """Fail naming each place ``secret`` shows (:func:`secret_shown`), or if it was dropped.

    Also requires ``[REDACTED]`` in ``str(error)``: the error quoted the provider's text with
    the value replaced, rather than leaving the text out (which would hide the secret and the
    provider's explanation alike).
    """
    shown = secret_shown(secret, error, *texts, records=records)
    assert shown == [], f"the secret shows in {shown}"
    assert REDACTED in str(error), f"no {REDACTED} in the error: {error}"
