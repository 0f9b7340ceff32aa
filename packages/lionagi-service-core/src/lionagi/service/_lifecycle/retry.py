"""Which failures are worth another attempt, and how long to wait before it (ADR-0029 D4).

Only typed provider failures that happened before any output are candidates; the classifier is
deliberately narrow so a caller bug, a refused credential or a broken parser fails fast.

The attempt loops ask only about an exception an attempt raised, which by construction is before
any output reached the caller: a one-shot call hands nothing over until it returns, and a
stream's provider error chunk is yielded to the caller before its error is raised (past the
replay boundary, where nothing is retried). So a stream-family error reaching this classifier
(a one-shot body's error object, DeepSeek's cut answer) is judged by its family like any other:
the capacity, quota, server-fault and connection twins are retried, the base class and the
caller's families are not.

An agentic run is never re-run past its first chunk either: ``invoke()`` of an agentic endpoint
is one attempt (the supervisor never asks here), and its stream is retried before the first
chunk only, and only for an adapter that opted into an attempt policy. A CLI that cannot reach
its API reports it as an error chunk, after the chunks of anything it did before (tool calls on
an earlier turn), so "retryable" on that error is the family's word, never a re-run by core.
"""

from __future__ import annotations

import math
import random

from .._base.errors import (
    AdmissionError,
    CircuitOpenError,
    EndpointConfigurationError,
    EventLoopMismatchError,
    EventLoopUnsupportedError,
    ProviderAuthError,
    ProviderCapabilityError,
    ProviderCapacityError,
    ProviderClientError,
    ProviderConfigError,
    ProviderConnectionError,
    ProviderContentFilterError,
    ProviderContextError,
    ProviderError,
    ProviderInvalidRequestError,
    ProviderPermissionError,
    ProviderProtocolError,
    ProviderQuotaSpentError,
    ProviderRunLimitError,
    ProviderServerFaultError,
    ProviderStatusCapacityError,
    ProviderStatusError,
    ProviderStreamDisconnectError,
    ProviderStreamError,
    ProviderUnsupportedModelError,
    UnsafeURLError,
)
from .policy import AttemptPolicy

__all__ = ["backoff_delay", "counts_as_circuit_failure", "is_retryable", "retry_after_of"]

_NEVER_RETRIED = (
    CircuitOpenError,
    ProviderAuthError,
    ProviderContentFilterError,
    ProviderContextError,
    ProviderProtocolError,
    # A spent quota or credit, however reported: the HTTP 429/402 form
    # (ProviderQuotaExhaustedError), an error chunk's twin, a CLI's text. Waiting seconds does
    # not refill a balance or a day's quota, whatever status the provider sent it with.
    ProviderQuotaSpentError,
    # A provider's own stream that dropped part-way through a run (an agentic CLI's report): a
    # connection error by family, but what it reports is a run cut after it had started
    # answering, never a setup failure. Its sibling ProviderStreamConnectionError (the API was
    # never reached) is not listed: a setup failure, retried as an HTTP connect failure is.
    ProviderStreamDisconnectError,
    ProviderUnsupportedModelError,
    # A capability the model lacks (tools, thinking, vision): the same request is refused the
    # same way, whatever status the provider sent it with (a caller retrying 400 or 404 too).
    ProviderCapabilityError,
    # A limit the caller set for the run (its turns, its budget): the same request stops at the
    # same cap again, whatever `retryable` a vendor subclass declares; a retry re-runs the
    # agent's work and spends the budget again.
    ProviderRunLimitError,
    UnsafeURLError,
)


def is_retryable(exc: BaseException, policy: AttemptPolicy) -> bool:
    """True if `exc`, raised before any output, may be retried under `policy`.

    Retried: connection failures and transport timeouts (`ProviderConnectionError`, also an
    agentic client's own report that its API could not be reached at all, a CLI's or an
    in-process agent's `ProviderStreamConnectionError`: nothing answered, so trying again
    repeats nothing),
    statuses in `retry_statuses` (429 by default), statuses >= 500 and the capacity errors an
    adapter mapped from its vendor's own status (`ProviderStatusCapacityError`, e.g. a 4xx
    meaning "no capacity, retry") when `retry_server_errors`, and other provider errors
    whose classification marked them `retryable` (quota text from a CLI, the quota twin of
    `ProviderStreamError` an attempt raised). A server fault or an overloaded model reported
    in-band (`ProviderStreamServerError`: Anthropic's `api_error`, OpenAI's `server_error`, a
    reported 500; `ProviderStreamCapacityError` or a CLI's `ProviderCapacityError`: a one-shot
    body reporting an overloaded model, an answer cut for lack of resources) is retried when
    `retry_server_errors` is, as its 5xx or 503/529 form is. Never: other 4xx;
    auth, context, content filter, unsupported model and protocol errors, an unclassified
    `ProviderStreamError` (a cut tool call stops in the same place again), a stream
    disconnect, a spent quota or credit (`ProviderQuotaSpentError`: HTTP, stream or CLI) and a
    run stopped at a limit its caller set (`ProviderRunLimitError`: turns, budget), whatever
    their status; circuit-open, SSRF refusals, non-provider exceptions, cancellation.

    The server's own verdict (`x-should-retry`, `ProviderStatusError.server_retry`), as the
    official OpenAI and Anthropic SDKs obey it: `false` is never retried, whatever the status;
    `true` retries a status the rules above would not (a 409), but not a family that is never
    retried and not a 5xx while `retry_server_errors` is off: the caller's switch wins.
    """
    if not isinstance(exc, ProviderError) or isinstance(exc, _NEVER_RETRIED):
        return False
    if isinstance(exc, ProviderStatusError):
        status = exc.status
        if exc.server_retry is False:  # x-should-retry: false, the server's word on it
            return False
        if status in policy.retry_statuses:
            return True
        if isinstance(exc, ProviderStatusCapacityError):
            return policy.retry_server_errors  # the server's condition, whatever its code
        if status >= 500:
            return policy.retry_server_errors
        return exc.server_retry is True  # x-should-retry: true on a status not retried
    if isinstance(exc, ProviderConnectionError):
        return True
    if isinstance(exc, ProviderServerFaultError | ProviderCapacityError):
        # The in-band form of a 5xx or of a 503/529 (an error chunk, a 2xx body, a CLI's
        # "overloaded"): the caller's switch for server faults covers it, or turning 5xx retries
        # off still retried the same fault, or the same overloaded model, sent another way.
        return policy.retry_server_errors and bool(exc.retryable)
    return bool(exc.retryable)


# Failure families an HTTP API reports with a 4xx the caller caused (401/403, a context length,
# an unknown model, a prompt its content filter refused): neutral for the circuit from any
# transport. A rate limit is not among them; a spent quota is (see below).
_CALLER_FAMILIES = (
    ProviderAuthError,
    ProviderContextError,
    ProviderUnsupportedModelError,
    # A request for a capability the model lacks: one caller's choice of model and request,
    # not the provider's health, however it was reported (a 400/404, an error chunk, a CLI).
    ProviderCapabilityError,
    ProviderPermissionError,
    ProviderContentFilterError,
    # An agentic CLI's refusal of its input, of its own configuration, and a limit its caller
    # set for the run (turns, budget): each repeats for the same request or deployment,
    # whoever else calls the provider. Counted, a few budget-capped runs opened the circuit.
    ProviderInvalidRequestError,
    ProviderConfigError,
    ProviderRunLimitError,
    # The account's quota or credit used up: the account's state, as a refused key is, not the
    # provider's health. Over HTTP it came as a 402 or 400 (neutral, as a client error) or a
    # 429 (counted, by its status alone); listed here, every form of it is neutral, and the
    # caller keeps seeing "buy credits" rather than an open circuit hiding it.
    ProviderQuotaSpentError,
)


def counts_as_circuit_failure(exc: BaseException, policy: AttemptPolicy) -> bool:
    """True if a logical request ending in `exc` says the provider is unhealthy.

    Client errors the caller caused (4xx other than the retried statuses, a request or config
    the endpoint refused before sending, an endpoint used from another event loop than its
    own or under an async library it cannot run on, a destination the SSRF guard refused before
    connecting: `UnsafeURLError`), circuit-open and caller-side control flow (cancellation,
    admission and deadline errors) are neutral: they neither open nor close the circuit. The
    same families reported inside a stream (an auth, context-length, unsupported-model,
    permission or content-filter error chunk, or a 2xx body reporting a blocked prompt) are
    neutral too, as their HTTP statuses are. A spent quota or credit
    (`ProviderQuotaSpentError`) is neutral however it is reported, even as an HTTP 429, and so
    is a run stopped at a limit its caller set (`ProviderRunLimitError`: its turns, its budget).
    Every other exception counts as a failure.
    """
    if not isinstance(exc, Exception) or isinstance(
        exc,
        (
            CircuitOpenError,
            EndpointConfigurationError,
            EventLoopMismatchError,
            EventLoopUnsupportedError,
            # Our own guard's refusal: nothing was sent, so it says nothing of the provider's
            # health, and it repeats until the caller's URL or allow_local_network changes.
            # Counted, it opened the circuit, which then hid the refusal (and how to fix it)
            # behind CircuitOpenError for every call, the copies' too.
            UnsafeURLError,
        ),
    ):
        return False
    if isinstance(exc, _CALLER_FAMILIES):
        # A stream's error chunk (a CLI, an in-stream error event) reporting what an HTTP API
        # answers with a 4xx: the same cause, so the same verdict. Counted, a burst of
        # over-long prompts through a CLI opened the circuit for every other caller, while the
        # identical failures over HTTP (a 400 context error) left it closed. Checked before the
        # status: a caller who retries 400 or 403 for other reasons still never has a refused
        # prompt (never retried, whatever its status) counted against the provider.
        return False
    if isinstance(exc, ProviderClientError):
        return exc.status in policy.retry_statuses
    return not isinstance(exc, AdmissionError)


def retry_after_of(exc: BaseException) -> float | None:
    """The server's Retry-After in seconds, or None when absent or invalid (then ignored).

    Read from any HTTP status error: a 503 (or a vendor's capacity status) names its delay in
    the same header as a 429, and sleeping less than it asks only spends the attempts sooner.
    Also from a stream-family error, whose ``retry_after`` is the delay its error object asked
    for: such an error is retried now, and the same rule holds.
    """
    if not isinstance(exc, ProviderStatusError | ProviderStreamError):
        return None
    value = exc.retry_after
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    if not math.isfinite(value) or value < 0:
        return None
    return float(value)


def backoff_delay(policy: AttemptPolicy, failures: int, rng: random.Random) -> float:
    """Jittered exponential delay after the ``failures``-th failed attempt (1-based).

    ``base_delay * backoff_factor ** (failures - 1)``, spread by ``± jitter_factor`` and kept
    within ``[0, max_delay]``.
    """
    exponent = max(failures - 1, 0)
    try:
        delay = policy.base_delay * policy.backoff_factor**exponent
    except OverflowError:
        delay = policy.max_delay
    delay = min(delay, policy.max_delay)
    if policy.jitter_factor:
        delay *= 1.0 + rng.uniform(-policy.jitter_factor, policy.jitter_factor)
    return min(max(delay, 0.0), policy.max_delay)
