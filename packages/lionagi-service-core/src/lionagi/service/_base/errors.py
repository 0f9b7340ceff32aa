"""Every exception lionagi.service raises, in one tree so callers can catch by family.

Tree::

    ProviderCatalogError(RuntimeError)          selection failed (ADR-0028)
    ├── CatalogValidationError                   .diagnostics
    ├── ProviderUnavailable                      .provider, .diagnostic
    ├── EndpointNotFound                         .provider, .endpoint, .available, .suggestion
    └── EndpointConfigurationError               .field  (also a ValueError)

    ProviderError(RuntimeError)                  the provider or its transport failed (ADR-0030 D3)
    ├── ProviderQuotaError                       retryable quota/rate exhaustion
    │   └── ProviderQuotaSpentError              the account's quota or credit is used up (any
    │                                              transport); never retried
    ├── ProviderAuthError                        credentials missing or refused
    ├── ProviderContextError                     prompt does not fit the context window
    ├── ProviderCapacityError                    retryable: the model is at capacity right now
    ├── ProviderServerFaultError                 retryable: the provider failed on its side (a
    │                                              5xx, or the same fault reported in-band)
    ├── ProviderUnsupportedModelError            the provider refuses the requested model
    ├── ProviderCapabilityError                  the model cannot do what the request asks (tools,
    │                                              thinking, vision, ...): .capability
    ├── ProviderPermissionError                  a tool/action was auto-denied by the agent's policy
    ├── ProviderContentFilterError               the provider's content filter refused the request
    ├── ProviderInvalidRequestError              the provider refused the request's input as invalid
    ├── ProviderConfigError                      an agentic CLI's own configuration is invalid
    ├── ProviderRunLimitError                    the agent stopped at a limit the caller set for the
    │   │                                          run; never retried, neutral for the circuit
    │   ├── ProviderTurnLimitError               the agent stopped at its maximum number of turns
    │   └── ProviderBudgetLimitError             the agent stopped at its spending cap for the run
    ├── ProviderStatusError                      HTTP status other than 2xx: .status, .body_excerpt,
    │                                              .retry_after (429 and 5xx)
    │   ├── ProviderClientError                  4xx
    │   │   ├── ProviderRateLimitError           429, also a ProviderQuotaError: .retry_after
    │   │   ├── ProviderQuotaExhaustedError      billing quota used up, also a
    │   │   │                                      ProviderQuotaSpentError; never retried
    │   │   ├── ProviderStatusContextError       also a ProviderContextError
    │   │   ├── ProviderStatusContentFilterError also a ProviderContentFilterError
    │   │   ├── ProviderStatusUnsupportedModelError
    │   │   │                                    also a ProviderUnsupportedModelError
    │   │   ├── ProviderStatusCapabilityError    also a ProviderCapabilityError
    │   │   └── ProviderUnauthorizedError        401/403, also a ProviderAuthError
    │   └── ProviderServerError                  5xx, also a ProviderServerFaultError
    │       └── ProviderStatusCapacityError      also a ProviderCapacityError (e.g. HTTP 529)
    ├── ProviderTransportError                   bytes did not flow
    │   ├── ProviderConnectionError              connect/read failure or transport timeout
    │   │   └── ProviderDisconnectError          stream dropped before completion (CLI-reported)
    │   ├── ProviderExecutableNotFound           agentic CLI binary missing: .install_hint
    │   └── ProviderProcessError                 CLI exited non-zero: .returncode
    ├── ProviderProtocolError                    bytes flowed but broke the wire grammar
    ├── ProviderStreamError                      a stream ended on a provider error chunk:
    │   │                                          .status, .code, .retry_after, .provider, .kind
    │   ├── ProviderStreamQuotaError             also a ProviderQuotaError
    │   ├── ProviderStreamQuotaExhaustedError    also a ProviderQuotaSpentError; never retried
    │   ├── ProviderStreamAuthError              also a ProviderAuthError
    │   ├── ProviderStreamContextError           also a ProviderContextError
    │   ├── ProviderStreamCapacityError          also a ProviderCapacityError
    │   ├── ProviderStreamServerError            also a ProviderServerFaultError
    │   ├── ProviderStreamUnsupportedModelError  also a ProviderUnsupportedModelError
    │   ├── ProviderStreamCapabilityError        also a ProviderCapabilityError
    │   ├── ProviderStreamPermissionError        also a ProviderPermissionError
    │   ├── ProviderStreamContentFilterError     also a ProviderContentFilterError
    │   ├── ProviderStreamInvalidRequestError    also a ProviderInvalidRequestError
    │   ├── ProviderStreamConfigError            also a ProviderConfigError
    │   ├── ProviderStreamTurnLimitError         also a ProviderTurnLimitError
    │   ├── ProviderStreamBudgetLimitError       also a ProviderBudgetLimitError
    │   ├── ProviderStreamProtocolError          also a ProviderProtocolError: the provider's
    │   │                                          stream, read by an agent, broke its grammar
    │   ├── ProviderStreamConnectionError        also a ProviderConnectionError: the provider
    │   │                                          could not be reached (refused, DNS, no route)
    │   └── ProviderStreamDisconnectError        also a ProviderDisconnectError
    ├── CircuitOpenError                         the circuit refused to attempt
    └── UnsafeURLError                           SSRF guard refused a destination

    AdmissionError(RuntimeError)                 the admission lease could not be granted (ADR-0029)
    ├── AdmissionConfigError                     .field  (also a ValueError): bad lifecycle setting
    ├── AdmissionClosed
    ├── AdmissionConflict
    ├── TokenEstimateUnavailable
    ├── RequestExceedsTokenWindow
    └── RequestDeadlineExceeded                  also a TimeoutError: .call_id, .phase

    AgenticRequestValidationError(ValueError)    .field
    AgenticHandlerError(ValueError)              .handler
    AgenticOperationUnsupported(RuntimeError)    .operation

    InstallationConflictError(ImportError)       another distribution replaced or removed core's
                                                   files (the published ``lionagi``): .distribution

A provider-declared error (an error chunk) keeps its class: the chunk is classified with the same
patterns as stderr, and the raised exception is the ``ProviderStream*`` twin of the family, so
``except ProviderAuthError`` catches a refused key however the provider reported it.

Messages never include API keys: every constructor takes already-sanitized text, and HTTP bodies
pass through :func:`lionagi.service._base.secrets.redact` before they get here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from .diagnostics import ProviderDiagnostic

__all__ = [
    "AdmissionBackendUnavailable",
    "AdmissionClosed",
    "AdmissionConfigError",
    "AdmissionConflict",
    "AdmissionError",
    "AgenticHandlerError",
    "AgenticOperationUnsupported",
    "AgenticRequestValidationError",
    "CatalogValidationError",
    "CircuitOpenError",
    "DeadlinePhase",
    "EndpointConfigurationError",
    "EndpointNotFound",
    "EventLoopMismatchError",
    "EventLoopUnsupportedError",
    "InstallationConflictError",
    "ProviderAuthError",
    "ProviderBudgetLimitError",
    "ProviderCapabilityError",
    "ProviderCapacityError",
    "ProviderCatalogError",
    "ProviderClientError",
    "ProviderConfigError",
    "ProviderConnectionError",
    "ProviderContentFilterError",
    "ProviderContextError",
    "ProviderDisconnectError",
    "ProviderError",
    "ProviderExecutableNotFound",
    "ProviderInvalidRequestError",
    "ProviderPermissionError",
    "ProviderProcessError",
    "ProviderProtocolError",
    "ProviderQuotaError",
    "ProviderQuotaExhaustedError",
    "ProviderQuotaSpentError",
    "ProviderRateLimitError",
    "ProviderRunLimitError",
    "ProviderServerError",
    "ProviderServerFaultError",
    "ProviderStatusCapabilityError",
    "ProviderStatusCapacityError",
    "ProviderStatusContentFilterError",
    "ProviderStatusContextError",
    "ProviderStatusError",
    "ProviderStatusUnsupportedModelError",
    "ProviderStreamAuthError",
    "ProviderStreamBudgetLimitError",
    "ProviderStreamCapabilityError",
    "ProviderStreamCapacityError",
    "ProviderStreamConfigError",
    "ProviderStreamConnectionError",
    "ProviderStreamContentFilterError",
    "ProviderStreamContextError",
    "ProviderStreamDisconnectError",
    "ProviderStreamError",
    "ProviderStreamInvalidRequestError",
    "ProviderStreamPermissionError",
    "ProviderStreamProtocolError",
    "ProviderStreamQuotaError",
    "ProviderStreamQuotaExhaustedError",
    "ProviderStreamServerError",
    "ProviderStreamTurnLimitError",
    "ProviderStreamUnsupportedModelError",
    "ProviderTransportError",
    "ProviderTurnLimitError",
    "ProviderUnauthorizedError",
    "ProviderUnavailable",
    "ProviderUnsupportedModelError",
    "RequestDeadlineExceeded",
    "RequestExceedsTokenWindow",
    "StreamClosed",
    "TokenEstimateUnavailable",
    "UnsafeURLError",
]


class _Restorable:
    """Pickles an error as its ``args`` plus its fields, without calling its ``__init__``.

    An exception's default pickling rebuilds it as ``cls(*args)``, but most errors here take
    their fields as constructor arguments and keep only the composed message in ``args``
    (``RequestDeadlineExceeded(call_id, phase)``, ``ProviderProcessError(returncode=...)``):
    rebuilt that way they raised a TypeError, or, worse, took the message for a field. An error
    must cross a process boundary (a worker pool, a task queue) and survive ``copy.deepcopy``
    with its message and fields intact, a vendor subclass with a signature of its own too.
    """

    __slots__ = ()

    def __reduce__(self) -> tuple[Any, ...]:
        return (_restore, (type(self), self.args), self.__dict__)  # type: ignore[attr-defined]


def _restore(cls: type[BaseException], args: tuple[Any, ...]) -> BaseException:
    """An instance of ``cls`` holding ``args`` and no fields yet; pickle then restores them.

    ``__new__`` is taken from the built-in exception that lays the instance out (the chain of
    ``__base__``): for an error that is also a ``TimeoutError`` that is ``OSError``'s, and
    ``RuntimeError.__new__`` would refuse to build it. ``args`` is set afterwards because
    ``OSError.__new__`` leaves it to an ``__init__`` of a subclass that has its own.
    """
    native: type[BaseException] = cls
    while native.__module__ != "builtins":
        native = native.__base__  # type: ignore[assignment]
    error = native.__new__(cls, *args)
    error.args = args
    return error


# --- catalog -------------------------------------------------------------------------------------


class _NamesField(_Restorable, Exception):
    """An error about one field: ``field`` names it, the message starts with it.

    Both are redacted: a field path can hold caller data (a mapping key, an unknown keyword),
    and a credential pasted there must not come back in the error.
    """

    field: str

    def __init__(self, field: str, message: str) -> None:
        from .secrets import redact  # secrets imports nothing from here; kept off import time

        self.field = redact(field)
        super().__init__(f"{self.field}: {redact(message)}")


class ProviderCatalogError(_Restorable, RuntimeError):
    """Selecting or configuring a provider endpoint failed."""


class CatalogValidationError(ProviderCatalogError):
    """The catalog did not validate; ``diagnostics`` lists every problem found."""

    def __init__(self, diagnostics: tuple[ProviderDiagnostic, ...]) -> None:
        self.diagnostics = diagnostics
        lines = [f"provider catalog failed validation ({len(diagnostics)} problem(s)):"]
        lines += [
            f"  - [{d.code}] {d.message}" + (f" (fix: {d.fix})" if d.fix else "")
            for d in diagnostics
        ]
        super().__init__("\n".join(lines))


class ProviderUnavailable(ProviderCatalogError):
    """A provider is installed but its module failed to load."""

    def __init__(self, provider: str, diagnostic: ProviderDiagnostic) -> None:
        self.provider = provider
        self.diagnostic = diagnostic
        super().__init__(
            f"provider {provider!r} is installed but unavailable: {diagnostic.message}"
            + (f" (fix: {diagnostic.fix})" if diagnostic.fix else "")
        )


class EndpointNotFound(ProviderCatalogError):
    """No registered endpoint matches and compatible fallback was not requested."""

    def __init__(
        self,
        provider: str,
        endpoint: str,
        available: tuple[str, ...],
        *,
        suggestion: str | None = None,
        reason: str | None = None,
    ) -> None:
        self.provider = provider
        self.endpoint = endpoint
        self.available = available
        self.suggestion = suggestion
        if reason is None:
            reason = f"no endpoint {endpoint!r} for provider {provider!r}"
        msg = reason
        if available:
            msg += f"; available: {', '.join(available)}"
        if suggestion:
            msg += f"; did you mean {suggestion!r}?"
        super().__init__(msg)


class EndpointConfigurationError(_NamesField, ProviderCatalogError, ValueError):
    """A configuration value is unknown or invalid; ``field`` names it."""


# --- provider ------------------------------------------------------------------------------------


class ProviderError(_Restorable, RuntimeError):
    """The provider, or the transport reaching it, failed.

    ``stderr_tail`` holds a bounded, redacted tail of a CLI's stderr (empty for HTTP);
    ``raw`` holds the redacted provider text the classification was made from;
    ``returncode`` is the CLI exit code when the failure was classified from a finished process.
    """

    retryable: bool = False
    returncode: int | None = None

    def __init__(self, message: str, *, stderr_tail: str = "", raw: str = "") -> None:
        self.stderr_tail = stderr_tail
        self.raw = raw
        super().__init__(message)


class ProviderQuotaError(ProviderError):
    """Quota or rate exhaustion; worth retrying later, except a spent quota.

    The family of every quota failure: a rate limit (retried after its delay) and, as the
    subclass :class:`ProviderQuotaSpentError`, an account whose quota or credit is used up,
    which no retry fixes. ``retryable`` tells them apart.
    """

    retryable = True


class ProviderQuotaSpentError(ProviderQuotaError):
    """The account's quota or credit is used up (billing, a daily quota): never retried.

    Not "slow down": waiting seconds does not bring a spent balance or a day's quota back, so
    the lifecycle never retries it and it does not count against the provider's health (the
    account's state, as a refused key is). Still a :class:`ProviderQuotaError`, so ``except
    ProviderQuotaError`` catches "out of allowance" of both kinds. One family however it is
    reported: an HTTP status is :class:`ProviderQuotaExhaustedError` (``status``,
    ``body_excerpt``), an error chunk :class:`ProviderStreamQuotaExhaustedError`, a CLI's error
    text or exit this class itself (or a vendor subclass of it). Constructed as ``(message,
    stderr_tail=, raw=)``, so a :class:`~lionagi.service.agentic.ProviderErrorPattern` can name it.
    """

    retryable = False


class ProviderAuthError(ProviderError):
    """Credentials missing, invalid or refused."""


class ProviderContextError(ProviderError):
    """The request does not fit the model's context window."""


class ProviderCapacityError(ProviderError):
    """The model is temporarily at capacity; retrying later (or another model) may succeed.

    Not a :class:`ProviderQuotaError`: the caller's allowance is not exhausted, so "buy credits"
    handling must not catch it.
    """

    retryable = True


class ProviderServerFaultError(ProviderError):
    """The provider failed on its own side (an internal error); retrying may succeed.

    The family of a transient server fault however it is reported: an HTTP 5xx is
    :class:`ProviderServerError` (``status``, ``body_excerpt``, ``except ProviderStatusError``), an
    error chunk or a 2xx body reporting one (Anthropic's ``api_error`` event, OpenAI's
    ``server_error``, a reported status 500, 502 or 504) :class:`ProviderStreamServerError`.
    Without the family the in-band form was an unclassified stream error, never retried, while
    the same fault sent as a status was. Retried before output when the attempt policy's
    ``retry_server_errors`` is set, and it counts against the provider's health: the fault is
    the provider's, not the caller's. Not a :class:`ProviderCapacityError`: an overloaded model
    is told apart by its own code, text or status (503, 529).
    """

    retryable = True


class ProviderUnsupportedModelError(ProviderError):
    """The provider does not serve the requested model for these credentials; not retried.

    A wrong or unavailable model name is the caller's to fix: the same name is refused the same
    way, so it is never retried and never counts against the provider's health. An HTTP 4xx
    whose body says so is :class:`ProviderStatusUnsupportedModelError` (also a
    :class:`ProviderClientError`), an error chunk :class:`ProviderStreamUnsupportedModelError`,
    a CLI's error text this class itself.
    """


class ProviderCapabilityError(ProviderError):
    """The model cannot do what the request asks of it (tools, thinking, vision, ...); not retried.

    The provider serves the model (else it is :class:`ProviderUnsupportedModelError`) and the
    request is well formed, but it asks the model for a capability it lacks: Ollama's 400
    ``"llama3" does not support tools``, Anthropic's ``'claude-3-5-haiku-20241022' does not
    support thinking.``, Gemini's ``Function calling is not enabled for models/gemma-3-12b-it``.
    The fix is the caller's and has two shapes, which no other refused request offers: pick a
    model that can, or drop that part of the request (the tools, the thinking, the image). The
    same request is refused the same way, so it is never retried and never counts against the
    provider's health. ``capability`` names what was refused when the text says it, in core's
    words (``"tools"``, ``"thinking"``, ``"vision"``, ``"audio"``, ``"embedding"``,
    ``"insert"``, ``"completion"``, ``"image_generation"``, ``"system_instruction"``,
    ``"json_mode"``; the first one when the text names several), else None.

    An unknown or unsupported *parameter* (``Unsupported parameter: 'temperature' ...``) is not
    this family: it is a plain :class:`ProviderClientError`, fixed by changing the request, not
    the model. An HTTP 4xx saying so is :class:`ProviderStatusCapabilityError` (also a
    :class:`ProviderClientError`), an error chunk :class:`ProviderStreamCapabilityError`, a
    CLI's error text this class itself.
    """

    def __init__(
        self,
        message: str,
        *,
        stderr_tail: str = "",
        raw: str = "",
        capability: str | None = None,
    ) -> None:
        self.capability = capability
        super().__init__(message, stderr_tail=stderr_tail, raw=raw)


class ProviderPermissionError(ProviderError):
    """The agent's permission policy auto-denied an action it needed; not retried."""


class ProviderContentFilterError(ProviderError):
    """The provider's content filter refused the request (a blocked prompt); not retried.

    A safety, policy or blocklist refusal is caused by what the caller sent, as an over-long
    prompt is: the same content is refused the same way, so it is never retried and never
    counts against the provider's health, or a burst of blocked prompts from one user would
    open the circuit for every other caller. However the refusal arrives it is this family: a
    content-policy HTTP 4xx is :class:`ProviderStatusContentFilterError` (also a
    :class:`ProviderClientError`, with its ``status`` and ``body_excerpt``), an error chunk in
    a stream or a 2xx body reporting a blocked prompt :class:`ProviderStreamContentFilterError`,
    a CLI's error text this class itself. An answer that completed with a finish reason saying
    its output was filtered is not an error at all: the caller reads that finish reason.
    """


class ProviderInvalidRequestError(ProviderError):
    """The provider refused the request's input as invalid; not retried.

    The caller must change the request: an agentic CLI's refusal of its input (no prompt, a
    session id to resume that it does not know, a command it cannot run headless) is refused
    the same way however often it is sent. It is what the caller sent, not the provider's
    health, as an HTTP 4xx is; an error chunk reporting it is
    :class:`ProviderStreamInvalidRequestError`, a CLI's error text or exit code this class
    itself (or a vendor subclass of it).
    """


class ProviderConfigError(ProviderError):
    """The provider's side of the deployment is configured so no attempt can succeed; not retried.

    An agentic CLI refused to run because its own configuration is invalid (its settings file,
    its sandbox or an extension is wrong), or the SOCKS proxy in ``client_kwargs.proxy``
    cannot carry the request (it relays no TCP, or takes no address of the target's type): no
    attempt succeeds until the deployment fixes it, so a caller must not read it as a transient
    failure. Not an :class:`EndpointConfigurationError`: that is this library's configuration,
    refused before anything runs; this is the provider program's, or the proxy's, reported by
    it. An error chunk reporting it is :class:`ProviderStreamConfigError`.
    """


class ProviderRunLimitError(ProviderError):
    """The agent stopped at a limit the caller set for the run; never retried, circuit-neutral.

    A cap on the run itself (its turns, its spending) is the caller's own choice, not the
    provider's health: the same request stops at the same cap again, so retrying repeats the
    work and the bill, and counting it against the circuit let a few capped runs open it and
    hide every later call, whoever made it, behind `CircuitOpenError`. Catch this family to
    handle every such stop alike; its members name which limit was reached.
    """


class ProviderTurnLimitError(ProviderRunLimitError):
    """The agent stopped at its maximum number of turns before finishing the task; not retried.

    The limit is a setting (of the CLI or of the request): the same request reaches it again,
    so the fix is a higher limit, a smaller task or a new session, never a retry. An error chunk
    reporting it is :class:`ProviderStreamTurnLimitError`.
    """


class ProviderBudgetLimitError(ProviderRunLimitError):
    """The agent stopped at the spending cap the caller set for the run; not retried.

    An agentic CLI's own budget for one run (Claude Code's `--max-budget-usd`): the same
    request spends past it again, so the fix is a higher cap or a smaller task, never a retry.
    Not a spent quota (`ProviderQuotaSpentError`): the account may have credit left; the run
    used what its caller allowed. An error chunk reporting it is
    `ProviderStreamBudgetLimitError`.
    """


class ProviderStatusError(ProviderError):
    """An HTTP response with a non-success status.

    ``retry_after`` is the server's ``Retry-After`` in seconds (None when it sent none): a 503
    may name a delay as a 429 does, and the attempt policy honours it for either (ADR-0029 D4).
    ``server_retry`` is the server's own verdict from its ``x-should-retry`` header (None when
    it sent none): False stops the attempt policy from retrying even a 5xx or 429, True lets it
    retry a status it would not (a 409), though never a family that is never retried.
    """

    server_retry: bool | None = None

    def __init__(
        self,
        message: str,
        *,
        status: int,
        body_excerpt: str = "",
        retry_after: float | None = None,
    ) -> None:
        self.status = status
        self.body_excerpt = body_excerpt
        self.retry_after = retry_after
        super().__init__(message, raw=body_excerpt)


class ProviderClientError(ProviderStatusError):
    """A 4xx response: the request itself was refused; not retried."""


class ProviderRateLimitError(ProviderClientError, ProviderQuotaError):
    """429 Too Many Requests; ``retry_after`` is the server's requested delay in seconds."""

    retryable = True

    def __init__(
        self,
        message: str,
        *,
        status: int = 429,
        body_excerpt: str = "",
        retry_after: float | None = None,
    ) -> None:
        super().__init__(message, status=status, body_excerpt=body_excerpt, retry_after=retry_after)


class ProviderUnauthorizedError(ProviderClientError, ProviderAuthError):
    """401 or 403: the credentials were refused."""


class ProviderQuotaExhaustedError(ProviderClientError, ProviderQuotaSpentError):
    """The account's quota or credit is used up (billing, not rate): never retried.

    Providers often send it as HTTP 429, but waiting does not help, so the lifecycle does not
    retry it whatever its status. The HTTP form of :class:`ProviderQuotaSpentError` (so also a
    :class:`ProviderQuotaError`: ``except ProviderQuotaError`` catches "out of allowance" of
    both kinds) but deliberately not a :class:`ProviderRateLimitError`: ``except
    ProviderRateLimitError`` means "slow down and try again", which is wrong here.
    """

    retryable = False


class ProviderStatusContextError(ProviderClientError, ProviderContextError):
    """A 4xx response saying the request does not fit the model's context window; not retried.

    Providers answer an over-long prompt with a plain 400 (OpenAI ``context_length_exceeded``,
    Anthropic "prompt is too long"): a vendor's error hook or, failing that, the body text
    decides the family, so ``except ProviderContextError`` catches it on HTTP as it does for CLI
    and stream errors.
    """


class ProviderStatusContentFilterError(ProviderClientError, ProviderContentFilterError):
    """A 4xx response saying the provider's content filter refused the request; not retried.

    The commonest form of the refusal: OpenAI answers ``content_policy_violation`` and Azure
    OpenAI ``content_filter`` (inner code ``ResponsibleAIPolicyViolation``) with an HTTP 400,
    OpenAI-compatible gateways with a 400 or 403. As a plain :class:`ProviderClientError`,
    ``except ProviderContentFilterError`` caught the stream, 2xx and CLI forms but not this
    one; the dual class keeps ``status``, ``body_excerpt`` and ``except ProviderClientError``.
    A 429 or 5xx is never given this type: its status decides retrying and the circuit.
    """


class ProviderStatusUnsupportedModelError(ProviderClientError, ProviderUnsupportedModelError):
    """A 4xx response saying the provider does not serve the requested model; not retried.

    Providers answer a wrong model name with an HTTP 404 whose body names the model (OpenAI and
    the services relaying it: code ``model_not_found``; other vendors in their own words, which
    their adapters read). As a plain :class:`ProviderClientError`, ``except
    ProviderUnsupportedModelError`` caught the stream and CLI forms but not this one; the dual
    class keeps ``status``, ``body_excerpt`` and ``except ProviderClientError``. Only a body that
    names the model gets this type: a 404 for anything else (a wrong path) stays a plain client
    error, and a 429 or 5xx is never given it.
    """


class ProviderStatusCapabilityError(ProviderClientError, ProviderCapabilityError):
    """A 4xx response saying the model cannot do what the request asks; not retried.

    Providers answer a request for a capability the model lacks with a plain 400 (Ollama,
    Anthropic, DeepSeek, Gemini) or, relaying, a 404 (OpenRouter's "No endpoints found that
    support tool use"). As a plain :class:`ProviderClientError` a caller could not tell "pick
    another model, or drop the tools" from any other refused request; the dual class keeps
    ``status``, ``body_excerpt`` and ``except ProviderClientError``, and adds ``capability``.
    A 401, 403 or 429 is never given this type: its status decides.
    """

    def __init__(
        self,
        message: str,
        *,
        status: int,
        body_excerpt: str = "",
        retry_after: float | None = None,
        capability: str | None = None,
    ) -> None:
        super().__init__(message, status=status, body_excerpt=body_excerpt, retry_after=retry_after)
        self.capability = capability


class ProviderServerError(ProviderStatusError, ProviderServerFaultError):
    """A 5xx response; retryable before output.

    The HTTP form of :class:`ProviderServerFaultError`, so ``except ProviderServerFaultError``
    catches a server fault whether it came as a status or in-band (an error chunk). Its status
    still decides retrying (``retry_server_errors``), as for every status error.
    """

    retryable = True


class ProviderStatusCapacityError(ProviderServerError, ProviderCapacityError):
    """The service is at capacity; retryable, after the server's Retry-After if any.

    A 5xx such as HTTP 529 (overloaded), or a vendor's own capacity status its adapter maps here.
    """


class ProviderTransportError(ProviderError):
    """The transport failed before or while moving bytes."""


class ProviderConnectionError(ProviderTransportError):
    """Connecting, writing or reading failed, or a transport timeout fired."""

    retryable = True


class ProviderDisconnectError(ProviderConnectionError):
    """The provider reported its stream dropped before completion.

    Retryable only before the first output reached the caller (ADR-0029's no-replay boundary).
    """


class ProviderExecutableNotFound(ProviderTransportError):
    """An agentic CLI binary is not on PATH (or a path to it is no executable file).

    ``install_hint`` says how to get it.
    """

    def __init__(self, binary: str, install_hint: str) -> None:
        self.binary = binary
        self.install_hint = install_hint
        if "/" in binary or "\\" in binary:
            # A path is run as given, never looked up: "on PATH" would send the user looking
            # in the wrong place.
            where = "is not an executable file"
        else:
            where = "not found on PATH"
        super().__init__(f"executable {binary!r} {where}; install it: {install_hint}")


class ProviderProcessError(ProviderTransportError):
    """A CLI exited with a non-zero code and no more specific classification."""

    def __init__(
        self, message: str, *, returncode: int, stderr_tail: str = "", raw: str = ""
    ) -> None:
        self.returncode: int = returncode
        super().__init__(message, stderr_tail=stderr_tail, raw=raw)


class ProviderProtocolError(ProviderError):
    """Provider output broke its wire grammar (bad JSON, unknown content-bearing event)."""


class ProviderStreamError(ProviderError):
    """A stream ended on a provider-declared error chunk (raised after that chunk).

    When the chunk's text or metadata names a failure family, the raised error is that family's
    ``ProviderStream*`` twin below (also an instance of the family class); otherwise it is this
    class. Fields, read from the chunk (None when the provider did not say):

    ``status``: the HTTP status the provider reported; ``code``: its error code or type string;
    ``retry_after``: seconds the provider asked to wait; ``provider``: the provider key;
    ``kind``: the classification family (``"auth"``, ``"quota"``, ...), None when unclassified.
    Every constructor argument but ``message`` has a default, so instances pickle.
    """

    def __init__(
        self,
        message: str,
        *,
        stderr_tail: str = "",
        raw: str = "",
        status: int | None = None,
        code: str | None = None,
        retry_after: float | None = None,
        provider: str | None = None,
        kind: str | None = None,
    ) -> None:
        self.status = status
        self.code = code
        self.retry_after = retry_after
        self.provider = provider
        self.kind = kind
        super().__init__(message, stderr_tail=stderr_tail, raw=raw)


# One fixed, importable twin per classification family. ProviderStreamError comes first in each
# base list so its constructor (a superset of the family's ``(message, stderr_tail=, raw=)``) is
# the one that runs; the family class supplies ``retryable`` and the ``except`` family.


class ProviderStreamQuotaError(ProviderStreamError, ProviderQuotaError):
    """An error chunk reporting quota or rate exhaustion."""


class ProviderStreamQuotaExhaustedError(ProviderStreamError, ProviderQuotaSpentError):
    """An error chunk reporting that the quota is used up (a daily or billing limit): never retried.

    The stream twin of :class:`ProviderQuotaSpentError` (also a :class:`ProviderQuotaError`:
    ``except ProviderQuotaError`` catches "out of allowance" of both kinds) with
    ``retryable = False``, and deliberately not a :class:`ProviderStreamQuotaError`, which
    means "slow down and try again". Not a :class:`ProviderQuotaExhaustedError` either: that
    is an HTTP status error (``status``, ``body_excerpt``, ``except ProviderClientError``),
    which a provider's error chunk is not.
    """

    retryable = False


class ProviderStreamAuthError(ProviderStreamError, ProviderAuthError):
    """An error chunk reporting missing or refused credentials."""


class ProviderStreamContextError(ProviderStreamError, ProviderContextError):
    """An error chunk reporting that the request did not fit the context window."""


class ProviderStreamCapacityError(ProviderStreamError, ProviderCapacityError):
    """An error chunk reporting that the model is at capacity (overloaded)."""


class ProviderStreamServerError(ProviderStreamError, ProviderServerFaultError):
    """An error chunk (or a 2xx body) reporting that the provider failed on its own side.

    The in-band form of a 5xx: Anthropic's ``error`` event of type ``api_error``, an OpenAI
    Responses ``response.failed`` or chat error object whose code or type is ``server_error``
    (or ``internal_error``), or an error object reporting status 500, 502 or 504. Retryable: a
    one-shot ``invoke()`` retries it (after its ``retry_after`` if the provider named one),
    while ``stream()`` never does, its error chunk having reached the caller. Not the HTTP status
    error :class:`ProviderServerError` (no ``body_excerpt``; ``status`` may be None).
    """


class ProviderStreamUnsupportedModelError(ProviderStreamError, ProviderUnsupportedModelError):
    """An error chunk reporting that the requested model is not served."""


class ProviderStreamCapabilityError(ProviderStreamError, ProviderCapabilityError):
    """An error chunk reporting that the model cannot do what the request asks; not retried."""

    def __init__(
        self,
        message: str,
        *,
        stderr_tail: str = "",
        raw: str = "",
        status: int | None = None,
        code: str | None = None,
        retry_after: float | None = None,
        provider: str | None = None,
        kind: str | None = None,
        capability: str | None = None,
    ) -> None:
        super().__init__(
            message,
            stderr_tail=stderr_tail,
            raw=raw,
            status=status,
            code=code,
            retry_after=retry_after,
            provider=provider,
            kind=kind,
        )
        self.capability = capability


class ProviderStreamPermissionError(ProviderStreamError, ProviderPermissionError):
    """An error chunk reporting an action the agent's permission policy denied."""


class ProviderStreamContentFilterError(ProviderStreamError, ProviderContentFilterError):
    """An error chunk (or a 2xx body) reporting that the content filter refused the request."""


class ProviderStreamInvalidRequestError(ProviderStreamError, ProviderInvalidRequestError):
    """An error chunk reporting that the provider refused the request's input as invalid."""


class ProviderStreamConfigError(ProviderStreamError, ProviderConfigError):
    """An error chunk reporting that an agentic CLI's own configuration is invalid."""


class ProviderStreamTurnLimitError(ProviderStreamError, ProviderTurnLimitError):
    """An error chunk reporting that the agent stopped at its maximum number of turns."""


class ProviderStreamBudgetLimitError(ProviderStreamError, ProviderBudgetLimitError):
    """An error chunk reporting that the agent stopped at its spending cap for the run."""


class ProviderStreamProtocolError(ProviderStreamError, ProviderProtocolError):
    """An error chunk reporting that the provider's stream broke its wire grammar.

    An agentic CLI reads the API's stream itself and reports, as an error, a body it could not
    decode (a compressed body that does not inflate) or an event it could not read (not JSON,
    one for a content block that never started): the fault core's own HTTP transport raises as
    `ProviderProtocolError` when it reads such a stream. Never retried, as that family is not.
    """


class ProviderStreamConnectionError(ProviderStreamError, ProviderConnectionError):
    """An error chunk reporting that the provider's API could not be reached at all.

    An agentic CLI's own report that its connection failed: refused (nothing listens at the
    gateway URL), the host name did not resolve, or there was no route to it. The request was
    never answered, so, like an HTTP connect failure, the family is retryable; but it is not a
    :class:`ProviderDisconnectError` (a stream cut after the provider started answering, never
    retried). Retried only where core's replay boundary allows it: before the first chunk of
    an attempt, never once output (a tool call, text) reached the caller. An agentic CLI
    reports it as an error chunk, so core never re-runs that agent; a caller retrying on
    ``retryable`` must check that the run produced nothing first, since an agent may have run
    tools before a later turn failed to connect.
    """


class ProviderStreamDisconnectError(ProviderStreamError, ProviderDisconnectError):
    """An error chunk reporting that the provider's own stream dropped before completion.

    Never retried by the lifecycle (the error chunk already reached the caller).
    """


class CircuitOpenError(ProviderError):
    """The circuit breaker is open; no attempt was made."""


class UnsafeURLError(ProviderError):
    """The SSRF guard refused a destination; set ``allow_local_network=True`` to permit it.

    Raised before anything is sent: never retried, and neutral to the circuit (it says nothing
    of the provider's health and repeats until the URL or the setting changes).
    """


# --- admission -----------------------------------------------------------------------------------

DeadlinePhase = Literal[
    "enqueue", "rate", "concurrency", "hook", "retry_delay", "transport", "stream"
]


class AdmissionError(_Restorable, RuntimeError):
    """Admission could not grant a lease."""


class AdmissionConfigError(_NamesField, AdmissionError, ValueError):
    """A lifecycle setting (admission, deadline, attempt or circuit policy) is invalid.

    ``field`` names the setting so the message says exactly what to fix.
    """


class AdmissionClosed(AdmissionError):
    """The controller is closed; no new work is admitted."""


class AdmissionBackendUnavailable(AdmissionError):
    """The shared admission backend (Redis) could not be reached, so nothing was admitted.

    Shared limits fail closed: without the shared counters no process can know what the others
    took, so the call is refused rather than admitted around the limit (unless the backend was
    configured with ``on_unavailable="local"``). ``backend`` names the backend; the message
    never contains a password from its URL.
    """

    def __init__(self, backend: str, message: str) -> None:
        self.backend = backend
        super().__init__(f"{backend}: {message}")


class AdmissionConflict(AdmissionError):
    """The call id is already queued or active, or the call is already terminal."""


class TokenEstimateUnavailable(AdmissionError):
    """A token limit is configured but the call cannot estimate its tokens."""


class RequestExceedsTokenWindow(AdmissionError):
    """The call needs more tokens than one whole window grants."""


class RequestDeadlineExceeded(AdmissionError, TimeoutError):
    """The request's one deadline expired; ``phase`` says where.

    ``local_cap`` is set (seconds) when the endpoint's own cap, shorter than the time the caller
    left, is what ran out: the supervisor enforces it for agentic work, which has no transport
    layer of its own to do so.
    """

    def __init__(
        self, call_id: str, phase: DeadlinePhase, *, local_cap: float | None = None
    ) -> None:
        self.call_id = call_id
        self.phase = phase
        self.local_cap = local_cap
        limit = "deadline" if local_cap is None else f"endpoint's {local_cap:g} s local cap"
        super().__init__(f"request {call_id} exceeded its {limit} during {phase}")


# --- streams -------------------------------------------------------------------------------------


class StreamClosed(_Restorable, RuntimeError):
    """The stream was closed (``aclose()``) from another task while this read waited on it.

    A "stop" button closes a stream whose consumer is inside ``async for``: the call is stopped
    and cleaned up as ``iModel.close()`` would stop it (the connection closed, the CLI's process
    tree reaped, the admission permit or queue place given back) and ends CANCELLED; the model
    stays open. The consumer's pending read raises this rather than ending the iteration, which
    would pass for a complete answer. ``call_id`` names the call. A close between two reads (the
    consumer holds a chunk), or from the consuming task itself, ends the generator as any async
    generator's ``aclose()`` does and raises nothing.
    """

    def __init__(self, call_id: str) -> None:
        self.call_id = call_id
        super().__init__(f"stream of call {call_id} was closed while a read waited on it")


# --- agentic input -------------------------------------------------------------------------------


class AgenticRequestValidationError(_NamesField, ValueError):
    """An agentic request field is unknown or invalid; ``field`` names it."""


class AgenticHandlerError(_Restorable, ValueError):
    """A runtime handler is unknown or not callable; ``handler`` names it."""

    def __init__(self, handler: str, message: str) -> None:
        self.handler = handler
        super().__init__(f"{handler}: {message}")


class AgenticOperationUnsupported(_Restorable, RuntimeError):
    """The endpoint does not support ``operation`` (e.g. one-shot invoke on a stream-only agent)."""

    def __init__(self, operation: str, endpoint: str) -> None:
        self.operation = operation
        super().__init__(f"{endpoint} does not support {operation}(); use stream()")


# --- event loops ---------------------------------------------------------------------------------


class EventLoopMismatchError(_Restorable, RuntimeError):
    """A model or endpoint was used on another event loop than its own.

    An httpx client's pooled connections belong to the asyncio loop they were opened on; on any
    other loop they fail deep inside asyncio ("Event loop is closed"), or corrupt a loop that is
    still running in another thread. An ``iModel``'s admission queue and stream registry are
    likewise its loop's: a call waiting on another thread's loop is never woken by a release on
    this one, so it would sit out its whole deadline. Typical causes: one module-level
    ``iModel`` used by several ``asyncio.run`` calls, by tests that each get a new loop, or by
    threads that each run a loop. The fix is one ``iModel`` (or endpoint) per event loop,
    created inside it (``iModel.copy()`` gives another loop its own). ``loop_closed`` tells
    whether the owner's loop has already ended (then only closing still works for an HTTP
    client; an ``iModel`` whose loop ended moves to the next loop that uses it).
    """

    def __init__(
        self, owner: str, *, loop_closed: bool, resource: str = "HTTP client's connections"
    ) -> None:
        self.loop_closed = loop_closed
        state = "has already closed" if loop_closed else "is still open"
        super().__init__(
            f"{owner}'s {resource} belong to another event loop, which {state}; they cannot "
            "be used from this one. Create one iModel (or endpoint) per event loop, inside it "
            "(iModel.copy() gives another loop its own)"
        )


class EventLoopUnsupportedError(_Restorable, RuntimeError):
    """A feature that needs asyncio was used under another async library (anyio's trio backend).

    Agentic CLIs are driven through asyncio's subprocess transport (the pipes and the process
    tree's containment are asyncio's); trio has no such transport for anyio to lend. Raised
    before any process starts, so nothing is left to clean up. ``feature`` names what needs
    asyncio and ``backend`` the async library in use (sniffio's name for it). Not retried, and
    neutral to the circuit breaker: it is the caller's setup, not the provider's health.
    """

    def __init__(self, feature: str, backend: str) -> None:
        self.feature = feature
        self.backend = backend
        super().__init__(
            f"{feature} needs an asyncio event loop, but this code runs under {backend}; run "
            "it with asyncio.run() or anyio.run(..., backend='asyncio')"
        )


# --- installation --------------------------------------------------------------------------------


class InstallationConflictError(_Restorable, ImportError):
    """The environment's ``lionagi`` package is not the one lionagi-service-core installed.

    Raised on first import of core's machinery when another distribution ships
    ``lionagi/__init__.py`` (the published ``lionagi``, which also ships its own
    ``lionagi/service``), or when core's ``lionagi/service/__init__.py`` was removed by
    uninstalling such a distribution. ``distribution`` names the other distribution (the one
    whose RECORD lists the stray file; ``""`` when no installed distribution claims it); the
    message says how to repair the environment. An ``ImportError`` because it fails an import, and
    catching ``ImportError`` around optional imports should see it.
    """

    def __init__(self, message: str, *, distribution: str) -> None:
        self.distribution = distribution
        super().__init__(message)
