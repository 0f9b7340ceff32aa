"""The failure families an agentic CLI reports that no HTTP status names, and their stream twins.

Gemini CLI ends a run with ``FatalInputError``, ``FatalConfigError`` or
``FatalTurnLimitedError``; each collapsed to a plain ``ProviderStreamError`` because core had no
family for a refused input, a broken CLI configuration or a turn limit, so a caller could not
tell them from a transient failure. A used-up quota reported in a stream had no twin either: the
only stream quota class, ``ProviderStreamQuotaError``, is retryable, where the HTTP form
(``ProviderQuotaExhaustedError``) is not.
"""

from __future__ import annotations

import copy
import pickle

import pytest

import lionagi.service as service
from lionagi.service import (
    ProviderAuthError,
    ProviderConfigError,
    ProviderError,
    ProviderInvalidRequestError,
    ProviderProtocolError,
    ProviderQuotaError,
    ProviderQuotaExhaustedError,
    ProviderStatusError,
    ProviderStreamAuthError,
    ProviderStreamConfigError,
    ProviderStreamError,
    ProviderStreamInvalidRequestError,
    ProviderStreamProtocolError,
    ProviderStreamQuotaError,
    ProviderStreamQuotaExhaustedError,
    ProviderStreamTurnLimitError,
    ProviderTurnLimitError,
    classify_stream_error,
)

TWINS = [
    (ProviderStreamInvalidRequestError, ProviderInvalidRequestError),
    (ProviderStreamConfigError, ProviderConfigError),
    (ProviderStreamTurnLimitError, ProviderTurnLimitError),
    (ProviderStreamQuotaExhaustedError, ProviderQuotaError),
    (ProviderStreamProtocolError, ProviderProtocolError),
]
NAMES = [
    "ProviderInvalidRequestError",
    "ProviderConfigError",
    "ProviderTurnLimitError",
    "ProviderStreamInvalidRequestError",
    "ProviderStreamConfigError",
    "ProviderStreamTurnLimitError",
    "ProviderStreamQuotaExhaustedError",
    "ProviderStreamProtocolError",
]


@pytest.mark.parametrize("name", NAMES)
def test_the_new_classes_are_public_error_names(name: str) -> None:
    assert name in service.__all__
    assert name in dir(service)
    cls = getattr(service, name)
    assert cls.__module__ == "lionagi.service._base.errors"
    assert issubclass(cls, ProviderError)


@pytest.mark.parametrize(("twin", "family"), TWINS, ids=lambda c: c.__name__)
def test_each_twin_is_a_stream_error_and_its_family_and_never_retryable(
    twin: type[ProviderStreamError], family: type[ProviderError]
) -> None:
    assert twin.__mro__[1] is ProviderStreamError  # its constructor is the stream error's
    assert issubclass(twin, family)
    assert not twin.retryable
    error = twin("gemini: refused", status=400, code="FatalInputError", provider="p", kind="k")
    assert (error.status, error.code, error.provider, error.kind) == (
        400,
        "FatalInputError",
        "p",
        "k",
    )


@pytest.mark.parametrize(
    "family", [ProviderInvalidRequestError, ProviderConfigError, ProviderTurnLimitError]
)
def test_the_families_are_not_retryable_and_take_the_pattern_constructor(
    family: type[ProviderError],
) -> None:
    # ProviderErrorPattern builds its error_type as (message, stderr_tail=, raw=).
    error = family("gemini: input refused (exit code 42)", stderr_tail="tail", raw="raw")
    assert not error.retryable
    assert not issubclass(family, ProviderStreamError)
    assert not issubclass(family, ProviderStatusError)


def test_the_exhausted_twin_is_not_the_retryable_quota_twin_nor_a_status_error() -> None:
    # "Slow down and retry" (ProviderStreamQuotaError) must not catch a used-up quota; the
    # HTTP class is a status error (status, body_excerpt), which an error chunk is not.
    assert not issubclass(ProviderStreamQuotaExhaustedError, ProviderStreamQuotaError)
    assert not issubclass(ProviderStreamQuotaExhaustedError, ProviderQuotaExhaustedError)
    assert not issubclass(ProviderStreamQuotaExhaustedError, ProviderStatusError)
    assert ProviderStreamQuotaError.retryable  # unchanged


@pytest.mark.parametrize("twin", [t for t, _ in TWINS], ids=lambda c: c.__name__)
@pytest.mark.parametrize("clone", [lambda e: pickle.loads(pickle.dumps(e)), copy.deepcopy])
def test_a_twin_round_trips_with_its_fields(twin: type[ProviderStreamError], clone) -> None:
    error = twin("used up", status=429, code="RESOURCE_EXHAUSTED", retry_after=3.0, kind="q")
    back = clone(error)
    assert type(back) is twin
    assert str(back) == str(error)
    assert vars(back) == vars(error)


# -- a refused credential named by its label alone -------------------------------------------------


@pytest.mark.parametrize(
    "metadata",
    [
        {"code": "permission_error"},
        {"type": "Permission_Error"},
        {"code": "E1", "type": "permission_error"},
    ],
)
def test_a_permission_error_label_is_the_auth_twin_without_a_status(
    metadata: dict[str, str],
) -> None:
    # Anthropic's in-stream 403: an `error` event after the 200 carries no status to classify by.
    error = classify_stream_error(
        "Your API key does not have permission to use the specified resource.", metadata
    )
    assert type(error) is ProviderStreamAuthError
    assert isinstance(error, ProviderAuthError)
    assert error.kind == "auth"
    assert not error.retryable


@pytest.mark.parametrize(
    ("message", "metadata", "expected"),
    [
        # Only a whole label: the word inside a longer code, or in the text, names nothing.
        ("refused", {"code": "tool_permission_error"}, ProviderStreamError),
        ("permission_error while reading a file", {}, ProviderStreamError),
        # A reported status still decides first: a 429 labelled so is the quota family.
        ("slow down", {"status": 429, "code": "permission_error"}, ProviderStreamQuotaError),
    ],
)
def test_only_a_whole_permission_error_label_without_a_narrower_status_is_auth(
    message: str, metadata: dict[str, object], expected: type[ProviderStreamError]
) -> None:
    assert type(classify_stream_error(message, metadata)) is expected
