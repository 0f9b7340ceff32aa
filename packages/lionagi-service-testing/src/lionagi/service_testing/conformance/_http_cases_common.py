"""One-shot cases every HTTP kit class runs: error families, retries, deadline, secrets, leaks.

Each case is ``async def test_...(self, case)`` turned into a synchronous test by
:func:`http_case`; its docstring ends with a "Troubleshooting" paragraph for adapter authors.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import anyio
import pytest

from lionagi.service import (
    Endpoint,
    EventStatus,
    ProviderAuthError,
    ProviderCapacityError,
    ProviderConnectionError,
    ProviderContextError,
    ProviderError,
    ProviderProtocolError,
    ProviderQuotaError,
    ProviderRateLimitError,
    ProviderServerError,
    RequestDeadlineExceeded,
)

from ._http import HTTPCase, http_case
from ._http_base import HTTPConformanceBase

__all__ = ["OneShotCases", "numbers_in", "raised"]


def numbers_in(value: Any) -> Iterator[int]:
    """Every int in a nested usage record."""
    if isinstance(value, bool):
        return
    if isinstance(value, int):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from numbers_in(item)
    elif isinstance(value, list):
        for item in value:
            yield from numbers_in(item)


def raised(call: Any, family: type[BaseException], what: str) -> BaseException:
    """The call's recorded error, which must be a ``family``."""
    exc = call.execution.exception
    assert call.execution.status is EventStatus.FAILED, (
        f"{what}: expected a FAILED call, got {call.execution.status} (response "
        f"{str(call.execution.response)[:200]!r})"
    )
    assert isinstance(exc, family), (
        f"{what}: expected {family.__name__}, got {type(exc).__name__}: {exc}"
    )
    return exc


class OneShotCases(HTTPConformanceBase):
    """Cases on ``iModel.invoke`` shared by every endpoint kind."""

    @http_case
    async def test_auth_401_is_auth_error_not_retried(self, case: HTTPCase) -> None:
        """A 401 is a ``ProviderAuthError`` after exactly one attempt, with the key redacted.

        The fake server's 401 body echoes the credential it received, so the error text is a
        real test of redaction.

        Troubleshooting: an adapter that overrides ``call`` or error mapping must keep (or
        re-raise) core's ``ProviderUnauthorizedError``; wrapping it in a plain ``ProviderError``
        loses the family callers catch, and retrying it only locks the account faster. If the key
        shows up, the adapter built an error message from the raw body without core's
        ``excerpt``/redaction, or put the key in a URL it prints. "did not carry the api_key":
        the echo tests redaction only when the key the kit gave ``make_endpoint`` is the one
        sent, in a header (not dropped, not another key, not in the URL).
        """
        model = case.model()
        call = await case.invoke(model, "401")
        raised(call, ProviderAuthError, "HTTP 401")
        assert case.attempts == 1, f"HTTP 401 was attempted {case.attempts} times, expected 1"
        case.assert_key_sent(model)

    @http_case
    async def test_auth_403_is_auth_error_not_retried(self, case: HTTPCase) -> None:
        """A 403 is a ``ProviderAuthError`` after exactly one attempt.

        Troubleshooting: 403 means the key is valid but not allowed; it belongs to the auth
        family like 401 (core maps both to ``ProviderUnauthorizedError``). An adapter treating it
        as a generic client error, or as retryable, breaks callers' credential handling.
        """
        model = case.model()
        call = await case.invoke(model, "403")
        raised(call, ProviderAuthError, "HTTP 403")
        assert case.attempts == 1, f"HTTP 403 was attempted {case.attempts} times, expected 1"

    @http_case
    async def test_rate_limit_429_retried_with_retry_after(self, case: HTTPCase) -> None:
        """A 429 is retried up to the policy, then a ``ProviderRateLimitError``.

        Its ``retry_after`` is the server's value; a ``Retry-After`` longer than the policy
        allows ends after one attempt, without sleeping.

        Troubleshooting: retries belong to the lifecycle layer, one attempt per endpoint call; an
        adapter that loops inside ``call`` multiplies the count. ``retry_after`` must be the
        server's value: keep core's ``ProviderRateLimitError`` instead of building your own.
        """
        model = case.model()
        call = await case.invoke(model, "429", retry_after=self.retry_after)
        exc = raised(call, ProviderRateLimitError, "HTTP 429")
        assert getattr(exc, "retry_after", None) == float(self.retry_after), (
            f"ProviderRateLimitError.retry_after is {getattr(exc, 'retry_after', None)!r}; the "
            f"server sent Retry-After: {self.retry_after}"
        )
        assert case.attempts == self.max_attempts, (
            f"HTTP 429 was attempted {case.attempts} times; the policy allows {self.max_attempts}"
        )
        before = case.attempts
        too_long = str(int(self.max_retry_delay * 10) + 60)
        call = await case.invoke(model, "429", retry_after=too_long)
        raised(call, ProviderRateLimitError, "HTTP 429 with a long Retry-After")
        assert case.attempts - before == 1, (
            f"a Retry-After of {too_long}s (over max_delay) was attempted "
            f"{case.attempts - before} times, expected 1 (raise at once, do not sleep)"
        )

    @http_case
    async def test_server_errors_retried_then_typed(self, case: HTTPCase) -> None:
        """HTTP 500 and 503 are retried up to the policy, then a ``ProviderServerError``.

        Troubleshooting: a 5xx is transient; an adapter that converts it into a non-retryable
        error (or a plain ``ProviderError``) makes one blip fail the call, and one that retries
        inside ``call`` multiplies the attempts the policy allows.
        """
        model = case.model()
        for status in ("500", "503"):
            before = case.attempts
            call = await case.invoke(model, status)
            exc = raised(call, ProviderServerError, f"HTTP {status}")
            assert getattr(exc, "status", None) == int(status), (
                f"ProviderServerError.status is {getattr(exc, 'status', None)!r}, sent {status}"
            )
            assert case.attempts - before == self.max_attempts, (
                f"HTTP {status} was attempted {case.attempts - before} times; the policy allows "
                f"{self.max_attempts}"
            )

    @http_case
    async def test_context_length_is_context_error_not_retried(self, case: HTTPCase) -> None:
        """A context-length refusal is a ``ProviderContextError`` after one attempt.

        Troubleshooting: the prompt will not fit however often it is sent; callers catch this
        family to trim the prompt. Classify the provider's error body (code or message) into
        the family rather than leaving a bare client error. An API without a context window
        (a search API) sets ``context_window = False``.
        """
        if not self.context_window:
            pytest.skip("the adapter declares context_window=False")
        model = case.model()
        call = await case.invoke(model, "context_length")
        raised(call, ProviderContextError, "a context-length error")
        assert case.attempts == 1, f"context length was attempted {case.attempts} times"

    @http_case
    async def test_quota_is_quota_error(self, case: HTTPCase) -> None:
        """An exhausted quota is a ``ProviderQuotaError``, sent once.

        The server answers its dialect's used-up billing or daily quota (OpenAI's 429
        ``insufficient_quota``, Anthropic's "credit balance is too low", Gemini's
        ``RESOURCE_EXHAUSTED`` naming a per-day quota, Ollama's usage limit, a JSON API's
        ``NO_MORE_CREDITS``): the account is out, not rate-limited, so the error is
        ``ProviderQuotaExhaustedError`` (never retried) and exactly one request reaches the
        server. A plain core ``Endpoint`` (no class of the adapter's own, so no vendor
        vocabulary) is held to the family only.

        Troubleshooting: callers catch ``ProviderQuotaError`` to stop and alert ("buy
        credits"); an adapter must not report it as a server or generic client error. "was
        attempted N times": the adapter typed a used-up quota as a retryable
        ``ProviderRateLimitError`` (the status 429 alone says rate limit); map the vendor's
        billing code or text to ``ProviderQuotaExhaustedError`` in ``map_status_error``
        (falling back to ``super()``), or keep the class core's dialect mapping chose.
        """
        model = case.model()
        call = await case.invoke(model, "quota", retry_after=self.retry_after)
        exc = raised(call, ProviderQuotaError, "an exhausted quota")
        if type(model.endpoint) is Endpoint:
            return
        assert case.attempts == 1, (
            f"an exhausted quota was attempted {case.attempts} times, expected 1: it was typed "
            f"{type(exc).__name__} (retryable={getattr(exc, 'retryable', None)}), but the "
            "account is out of quota, which no retry fixes (ProviderQuotaExhaustedError)"
        )

    @http_case
    async def test_overloaded_is_capacity_or_server_error(self, case: HTTPCase) -> None:
        """An overloaded provider is a retryable capacity or server error.

        ``ProviderCapacityError`` or ``ProviderServerError``, retried up to the policy.

        Troubleshooting: overload is temporary and not the caller's quota: do not map it to
        ``ProviderQuotaError``, and keep it retryable.
        """
        model = case.model()
        call = await case.invoke(model, "overloaded")
        exc = raised(call, ProviderError, "an overloaded provider")
        assert isinstance(exc, ProviderCapacityError | ProviderServerError), (
            f"overloaded: expected ProviderCapacityError or ProviderServerError, got "
            f"{type(exc).__name__}: {exc}"
        )
        assert not isinstance(exc, ProviderQuotaError), "overload reported as a quota error"
        assert case.attempts == self.max_attempts, (
            f"overloaded was attempted {case.attempts} times; the policy allows {self.max_attempts}"
        )

    @http_case
    async def test_malformed_body_is_protocol_error_not_retried(self, case: HTTPCase) -> None:
        """A 200 whose body is not JSON is a ``ProviderProtocolError`` after one attempt.

        Troubleshooting: a body that breaks the grammar will break again; never swallow it
        into an empty result, and do not mark it retryable.
        """
        model = case.model()
        call = await case.invoke(model, "malformed")
        raised(call, ProviderProtocolError, "a malformed body")
        assert case.attempts == 1, f"a malformed body was attempted {case.attempts} times"

    @http_case
    async def test_disconnect_before_response_is_retried(self, case: HTTPCase) -> None:
        """A connection closed before any response byte is retried, then typed.

        The error is ``ProviderConnectionError``; the attempts are the policy's.

        Troubleshooting: the transport must raise ``ProviderConnectionError`` (retryable) for a
        dropped connection; an adapter that re-raises it as a protocol or generic error stops
        the retry, one that retries inside ``call`` multiplies it.
        """
        model = case.model()
        call = await case.invoke(model, "disconnect_before")
        raised(call, ProviderConnectionError, "a connection dropped before the response")
        assert case.attempts == self.max_attempts, (
            f"a dropped connection was attempted {case.attempts} times; the policy allows "
            f"{self.max_attempts}"
        )

    @http_case
    async def test_deadline_bounds_a_stalled_call(self, case: HTTPCase) -> None:
        """A call whose response stalls ends at the deadline with ``RequestDeadlineExceeded``.

        Without a caller deadline the local cap bounds it instead (``EndpointConfig.timeout``,
        or the call's own ``APICalling.timeout``): the supervisor passes it to ``call()`` as
        ``timeout=``, and with no deadline nothing else ends the attempt. A stall past
        ``local_cap`` (0.5 s) must end as a ``ProviderConnectionError`` after one request.

        Troubleshooting: the deadline is enforced by cancelling the attempt; an adapter that
        shields its I/O from cancellation, or waits on its own unbounded timer, holds the
        caller past the deadline (and its admission permit with it). "past its local cap": the
        adapter's ``call`` drops or replaces the ``timeout=`` it is given (a long default of its
        own, a client-level timeout); pass it on to ``super().call(...)`` untouched.
        """
        model = case.model()
        started = anyio.current_time()
        with pytest.raises(RequestDeadlineExceeded) as info:
            await case.invoke(model, "stall", timeout=self.deadline)
        elapsed = anyio.current_time() - started
        case.evidence.append(info.value)
        assert elapsed < self.deadline + self.deadline_grace, (
            f"a {self.deadline}s deadline returned after {elapsed:.2f}s"
        )
        assert case.attempts == 1, f"the stalled call was attempted {case.attempts} times"
        model = case.model(max_attempts=1)
        before = case.attempts
        bound = self.local_cap + self.deadline_grace
        with anyio.move_on_after(bound) as held:
            call = await case.invoke(model, "stall", local_cap=self.local_cap)
        assert not held.cancelled_caught, (
            f"with no deadline, a call stalled past its local cap ({self.local_cap}s, given to "
            f"call() as timeout=) was still running after {bound}s: the endpoint does not "
            "bound the attempt by the timeout= it is given"
        )
        raised(call, ProviderConnectionError, f"a call stalled past its {self.local_cap}s cap")
        sent = case.attempts - before
        assert sent == 1, f"the capped call was attempted {sent} times, expected 1"

    @http_case
    async def test_api_key_never_leaks(self, case: HTTPCase) -> None:
        """The API key appears in no repr, dump, error, traceback or log record.

        Every case scans for the key (including the URLs the fake server received); this one
        makes the server echo it back (401) and calls twice, so a key in a message, an
        attribute or a DEBUG log line is found, and requires the key the kit gave
        ``make_endpoint`` to be the credential every request carried, in a header: the echo is
        no test of redaction when the key was never sent.

        Troubleshooting: build messages with core's ``excerpt``/``redact`` (the endpoint's
        ``_secrets()``), keep the key in ``config.api_key`` (a ``SecretStr``), never in a
        URL, a header you log, a custom ``__repr__`` or an exception attribute.
        """
        model = case.model()
        if model.endpoint.config.auth_type == "none":
            pytest.skip("the endpoint sends no credential (auth_type='none'), so none can leak")
        for _ in range(2):
            call = await case.invoke(model, "401")
            raised(call, ProviderAuthError, "HTTP 401")
        assert model.endpoint.config.secret_value() == case.secret, (
            "make_endpoint did not use the api_key it was given"
        )
        case.assert_key_sent(model)

    @http_case
    async def test_closes_its_client(self, case: HTTPCase) -> None:
        """After ``iModel.close()`` the endpoint's client is closed and no descriptor remains.

        Every case checks this after it ran; this one makes calls that leave pooled keep-alive
        connections, so a client the adapter keeps open (or a second client it never closes)
        is found.

        Troubleshooting: an adapter overriding ``aclose`` must call ``super().aclose()``; one
        that creates its own ``httpx.AsyncClient`` must close it there too.
        """
        model = case.model()
        for _ in range(2):
            call = await case.invoke(model, "text")
            assert call.execution.status is EventStatus.COMPLETED, call.execution.error
