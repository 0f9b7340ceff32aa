"""Provider-declared errors keep their class: classify_stream_error and the ProviderStream* twins.

A provider error chunk is classified with the rules stderr uses, then with its reported HTTP
status; the result is an instance of both ProviderStreamError and the family class, with
status / code / retry_after / provider / kind read from the chunk and the message redacted.
"""

from __future__ import annotations

import pickle

import pytest

from lionagi.service import (
    ProviderAuthError,
    ProviderBudgetLimitError,
    ProviderCapabilityError,
    ProviderCapacityError,
    ProviderConfigError,
    ProviderConnectionError,
    ProviderContentFilterError,
    ProviderContextError,
    ProviderDisconnectError,
    ProviderError,
    ProviderInvalidRequestError,
    ProviderPermissionError,
    ProviderProtocolError,
    ProviderQuotaError,
    ProviderQuotaSpentError,
    ProviderServerFaultError,
    ProviderStreamAuthError,
    ProviderStreamBudgetLimitError,
    ProviderStreamCapabilityError,
    ProviderStreamCapacityError,
    ProviderStreamConfigError,
    ProviderStreamConnectionError,
    ProviderStreamContentFilterError,
    ProviderStreamContextError,
    ProviderStreamDisconnectError,
    ProviderStreamError,
    ProviderStreamInvalidRequestError,
    ProviderStreamPermissionError,
    ProviderStreamProtocolError,
    ProviderStreamQuotaError,
    ProviderStreamQuotaExhaustedError,
    ProviderStreamServerError,
    ProviderStreamTurnLimitError,
    ProviderStreamUnsupportedModelError,
    ProviderTurnLimitError,
    ProviderUnsupportedModelError,
    StreamChunk,
    classify_stream_error,
)
from lionagi.service._transport.classify import DEFAULT_ERROR_PATTERNS, STREAM_ERROR_CLASSES
from lionagi.service.agentic import ProviderErrorPattern, collect_call_result

TWINS = [
    (ProviderStreamQuotaError, ProviderQuotaError),
    (ProviderStreamQuotaExhaustedError, ProviderQuotaSpentError),
    (ProviderStreamAuthError, ProviderAuthError),
    (ProviderStreamContextError, ProviderContextError),
    (ProviderStreamCapacityError, ProviderCapacityError),
    (ProviderStreamUnsupportedModelError, ProviderUnsupportedModelError),
    (ProviderStreamPermissionError, ProviderPermissionError),
    (ProviderStreamDisconnectError, ProviderDisconnectError),
    (ProviderStreamConnectionError, ProviderConnectionError),
    (ProviderStreamContentFilterError, ProviderContentFilterError),
    (ProviderStreamCapabilityError, ProviderCapabilityError),
]
# Families no default phrase names (an agentic CLI's refused input, broken configuration, turn
# limit, spending cap): a vendor's pattern reaches them, usually through its own subclass.
VENDOR_ONLY_TWINS = [
    (ProviderStreamInvalidRequestError, ProviderInvalidRequestError),
    (ProviderStreamConfigError, ProviderConfigError),
    (ProviderStreamTurnLimitError, ProviderTurnLimitError),
    (ProviderStreamBudgetLimitError, ProviderBudgetLimitError),
    # A reported 500/502/504 or a whole server-fault code names it; no phrase does.
    (ProviderStreamServerError, ProviderServerFaultError),
    # An agentic CLI's report of an API stream it could not read (Claude Code's words).
    (ProviderStreamProtocolError, ProviderProtocolError),
]


# -- the fixed set of classes ---------------------------------------------------------------------


@pytest.mark.parametrize(("twin", "family"), TWINS + VENDOR_ONLY_TWINS)
def test_each_twin_is_both_classes_and_pickles(
    twin: type[ProviderStreamError], family: type[ProviderError]
) -> None:
    assert issubclass(twin, ProviderStreamError)
    assert issubclass(twin, family)
    assert twin.__module__ == "lionagi.service._base.errors"
    assert twin.retryable is family.retryable  # the family decides; the lifecycle never retries
    err = twin("boom", raw="r", status=401, code="c", retry_after=2.5, provider="p", kind="k")
    assert repr(err) == f"{twin.__name__}('boom')"
    back = pickle.loads(pickle.dumps(err))
    assert type(back) is twin
    assert (str(back), back.raw, back.status, back.code, back.retry_after, back.provider) == (
        "boom",
        "r",
        401,
        "c",
        2.5,
        "p",
    )
    assert back.kind == "k"


def test_every_default_family_has_a_twin() -> None:
    families = {rule.error_type for rule in DEFAULT_ERROR_PATTERNS}
    assert families == set(STREAM_ERROR_CLASSES) - {f for _, f in VENDOR_ONLY_TWINS}
    assert {(t, f) for f, t in STREAM_ERROR_CLASSES.items()} == set(TWINS + VENDOR_ONLY_TWINS)


def test_the_disconnect_twin_is_a_connection_error_but_never_retried() -> None:
    from lionagi.service import AttemptPolicy
    from lionagi.service._lifecycle.retry import is_retryable

    err = ProviderStreamDisconnectError("stream disconnected before completion")
    assert isinstance(err, ProviderConnectionError)
    assert not is_retryable(err, AttemptPolicy())


# -- classification -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("message", "metadata", "expected", "kind"),
    [
        # codex turn.failed (capture codex-fake-401.stdout), no metadata
        (
            "unexpected status 401 Unauthorized: Incorrect API key provided: sk-fake., url: "
            "http://127.0.0.1:4012/v1/responses",
            {},
            ProviderStreamAuthError,
            "auth",
        ),
        # claude result + assistant error field + api_error_status (capture claude-fake-401)
        (
            "Invalid API key · Fix external API key",
            {"status": 401, "code": "authentication_failed"},
            ProviderStreamAuthError,
            "auth",
        ),
        # the code alone decides when the text says nothing classifiable
        ("request failed", {"code": "authentication_failed"}, ProviderStreamAuthError, "auth"),
        ("request failed", {"type": "overloaded_error"}, ProviderStreamCapacityError, "capacity"),
        (
            "request failed",
            {"code": "context_length_exceeded"},
            ProviderStreamContextError,
            "context",
        ),
        # the status decides when neither text nor code does
        ("request failed", {"status": 401}, ProviderStreamAuthError, "auth"),
        ("request failed", {"status": "403"}, ProviderStreamAuthError, "auth"),
        ("request failed", {"status": 429}, ProviderStreamQuotaError, "quota"),
        ("request failed", {"status": 402}, ProviderStreamQuotaExhaustedError, "quota_exhausted"),
        ("request failed", {"status": 529}, ProviderStreamCapacityError, "capacity"),
        ("request failed", {"status": 503}, ProviderStreamCapacityError, "capacity"),
        # text wins over a status naming another family
        (
            "prompt is too long: 300000 tokens",
            {"status": 429},
            ProviderStreamContextError,
            "context",
        ),
        (
            "stream disconnected before completion",
            {},
            ProviderStreamDisconnectError,
            "stream_disconnect",
        ),
        (
            "Permission to use Bash has been auto-denied",
            {},
            ProviderStreamPermissionError,
            "permission",
        ),
        (
            "The 'x' model is not supported",
            {},
            ProviderStreamUnsupportedModelError,
            "unsupported_model",
        ),
        # nothing classifiable: the base class, no kind
        ("scripted provider failure", {"provider_error": "x"}, ProviderStreamError, None),
        ("request failed", {"status": 500}, ProviderStreamServerError, "server"),
        ("request failed", {"status": 501}, ProviderStreamError, None),
        ("request failed", {"status": True}, ProviderStreamError, None),
        ("request failed", {"status": 4010}, ProviderStreamError, None),
    ],
)
def test_error_chunks_classify_to_their_family(
    message: str,
    metadata: dict[str, object],
    expected: type[ProviderStreamError],
    kind: str | None,
) -> None:
    err = classify_stream_error(message, metadata, provider="cli")
    assert type(err) is expected
    assert err.kind == kind
    assert err.provider == "cli"


def test_fields_come_from_the_chunk_and_secrets_are_redacted() -> None:
    key = "sk-ant-api03-AbCdEfGhIjKlMnOpQrStUv"
    err = classify_stream_error(
        f"429 Rate limit reached for {key}; hunter2-secret-value",
        {"status": 429, "code": f"rate_limit {key}", "type": "requests", "retry_after": "7"},
        provider="pi",
        secrets=("hunter2-secret-value",),
    )
    assert isinstance(err, ProviderStreamError)
    assert isinstance(err, ProviderQuotaError)
    assert (err.status, err.retry_after, err.provider, err.kind) == (429, 7.0, "pi", "quota")
    for text in (str(err), err.raw, err.code or ""):
        assert key not in text
        assert "hunter2-secret-value" not in text
    assert "[REDACTED]" in str(err)
    assert err.code is not None and err.code.startswith("rate_limit")


@pytest.mark.parametrize("value", [-1, "soon", float("inf"), float("nan"), True, None, [3]])
def test_an_unusable_retry_after_is_none(value: object) -> None:
    assert classify_stream_error("x", {"retry_after": value}).retry_after is None


def test_an_empty_chunk_still_gets_a_message() -> None:
    err = classify_stream_error(None)
    assert type(err) is ProviderStreamError
    assert str(err) == "the provider reported an error"
    assert (err.status, err.code, err.retry_after, err.provider, err.kind) == (None,) * 5


def test_vendor_patterns_win_and_a_vendor_subclass_maps_through_its_family() -> None:
    class VendorBillingError(ProviderQuotaError):
        pass

    rule = ProviderErrorPattern("billing", VendorBillingError, r"card declined")
    err = classify_stream_error(
        "card declined; invalid api key", extra_patterns=[rule], provider="v"
    )
    assert type(err) is ProviderStreamQuotaError
    assert err.kind == "billing"

    class VendorOnlyError(ProviderError):
        pass

    other = ProviderErrorPattern("odd", VendorOnlyError, r"odd thing")
    plain = classify_stream_error("odd thing", extra_patterns=[other])
    assert type(plain) is ProviderStreamError
    assert plain.kind is None  # no family twin: the base class, unlabelled


async def test_collect_call_result_raises_the_classified_twin() -> None:
    async def chunks():  # type: ignore[no-untyped-def]
        yield StreamChunk("text", "partial")
        yield StreamChunk(
            "error", "Not logged in · Please run /login", is_error=True, metadata={"status": 401}
        )

    with pytest.raises(ProviderAuthError) as info:
        await collect_call_result(chunks())
    assert isinstance(info.value, ProviderStreamError)
    assert info.value.status == 401
