"""``secret_shown`` finds a secret, whole or cut to half, in every place a user reads."""

from __future__ import annotations

import logging

import pytest

from lionagi.service import ProviderClientError, ProviderError
from lionagi.service_testing import assert_secret_hidden, plain_secret, secret_shown


def _record(message: str, exc_text: str | None = None) -> logging.LogRecord:
    record = logging.LogRecord("lionagi.test", logging.ERROR, __file__, 1, message, (), None)
    record.exc_text = exc_text
    return record


def test_plain_secrets_are_unique_and_carry_no_key_prefix() -> None:
    first, second = plain_secret("cred"), plain_secret("cred")
    assert first != second
    assert first.startswith("cred")
    assert first[4:].isalnum()


def test_a_hidden_secret_is_shown_nowhere() -> None:
    secret = plain_secret("cred")
    error = ProviderError("refused [REDACTED]")
    assert secret_shown(secret, error, "a chunk", records=[_record("a log line")]) == []


def test_each_place_is_named() -> None:
    secret = plain_secret("cred")
    assert secret_shown(secret, ProviderError(f"refused {secret}")) == ["str(error)", "repr(error)"]
    excerpt = ProviderClientError("refused", status=400, body_excerpt=f'{{"token": "{secret}"}}')
    assert secret_shown(secret, excerpt) == ["error.body_excerpt"]
    assert secret_shown(secret, ProviderError("x"), "clean", f"chunk {secret}") == ["texts[1]"]
    records = [_record("clean"), _record("clean", exc_text=f"Traceback ... {secret}")]
    assert secret_shown(secret, ProviderError("x"), records=records) == ["log record lionagi.test"]


def test_a_secret_cut_to_its_first_half_still_counts() -> None:
    secret = plain_secret("cred")
    cut = secret[: len(secret) // 2]
    assert secret_shown(secret, ProviderError(f"the token {cut}... was refused")) == [
        "str(error)",
        "repr(error)",
    ]
    assert secret_shown(secret, ProviderError(f"the token {secret[:5]} was refused")) == []


def test_assert_secret_hidden_names_the_places_and_wants_the_marker() -> None:
    secret = plain_secret("cred")
    assert_secret_hidden(secret, ProviderError("refused [REDACTED]"))
    with pytest.raises(AssertionError, match=r"shows in \['str\(error\)', 'repr\(error\)'\]"):
        assert_secret_hidden(secret, ProviderError(f"refused {secret}"))
    # Dropping the provider's text hides the secret and the explanation alike: not enough.
    with pytest.raises(AssertionError, match="no \\[REDACTED\\]"):
        assert_secret_hidden(secret, ProviderError("refused"))
