"""CodexCliEndpoint: ``codex exec --json`` as an ADR-0030 subprocess adapter.

Core owns launch, framing, stderr, the deadline, teardown and the run loop
(``SubprocessCliEndpoint``); this class owns only the command grammar (``_command``), the event
mapping (``_events``) and the deployment mapping: gateway -> a custom model provider, isolated
home -> ``CODEX_HOME`` with headless settings.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar

from pydantic import BaseModel

from lionagi.service import (
    AgenticCapabilities,
    AgenticSettings,
    ProviderAuthError,
    ProviderCapacityError,
    ProviderConfigError,
    ProviderConnectionError,
    ProviderContentFilterError,
    ProviderInvalidRequestError,
    ProviderQuotaSpentError,
    ProviderServerFaultError,
)
from lionagi.service.agentic import (
    ProviderErrorPattern,
    SubprocessCliEndpoint,
    TokenCounts,
    first_count,
)

from ._command import CODEX_DIR, GATEWAY_KEY_ENV, build_argv, gateway_args, seed_codex_home
from ._events import CodexEventParser
from ._request import CodexRequest
from ._static import PROGRAM

__all__ = ["CODEX_CLI_CONFIG", "CODEX_ERROR_PATTERNS", "CodexCliEndpoint"]

CODEX_CLI_CONFIG: Mapping[str, Any] = {
    "name": "codex-cli",
    "provider": "codex",
    "endpoint": "query_cli",
}


USER_ENV: tuple[str, ...] = (
    # The API key (``CODEX_API_KEY`` is the one ``codex exec`` prefers) and the base URL of the
    # built-in OpenAI provider.
    "OPENAI_API_KEY",
    "CODEX_API_KEY",
    "OPENAI_BASE_URL",
    # A config dir moved off ~/.codex holds config.toml and the `codex login` auth.json.
    "CODEX_HOME",
    # codex's own CA-bundle variable, beside the generic ones core passes.
    "CODEX_CA_CERTIFICATE",
)
"""What ``codex`` reads for its login and endpoint when run by hand; inherited in user mode."""


CODEX_ERROR_PATTERNS: tuple[ProviderErrorPattern, ...] = (
    # Codex's ChatGPT-plan usage window (codex-rs ``UsageLimitReachedError``; every variant starts
    # "You've hit your usage limit", then offers an upgrade, credits or the admin, and ends "Try
    # again at 3:06 PM." / "or try again at Dec 9th, 2026 3:06 PM." / "Try again later."). The
    # window is the plan's 5-hour or weekly one: the reset is hours or days away, far past any
    # request deadline, and codex itself does not retry it (``is_retryable`` is false). So it
    # is the spent family: never retried, neutral for the circuit (the account's state). Before
    # core's "quota" rule, which keeps the phrase retryable for other CLIs; plain rate-limit
    # wording ("rate limit reached", the 429 codex's own retries gave up on) stays there.
    ProviderErrorPattern(
        "quota_exhausted",
        ProviderQuotaSpentError,
        r"\bhit your usage limit\b",
        summary="usage limit reached (the plan's window resets hours or days later; not retried)",
    ),
    # Codex's text when the gateway refuses the connection or its host name does not resolve
    # (0.171.0 prints the same words for both, no HTTP status): codex-rs ``ConnectionFailed``,
    # reqwest's "error sending request", a request that was never answered. Core's connection
    # family, retryable like an HTTP connect failure; not the disconnect family, whose own
    # words ("stream disconnected before completion") report a stream cut after it started.
    ProviderErrorPattern(
        "connection",
        ProviderConnectionError,
        r"connection failed: error sending request",
        summary="could not connect to the model provider",
    ),
    # Codex's text for an HTTP 500, and for a 500 its own retries gave up on (codex-rs
    # ``InternalServerError``; the status itself is not printed): the server-fault family, as
    # a 502 or 504 ("exceeded retry limit, last status: 502 ...") is. The apostrophe is
    # typographic in 0.171.0, so the pattern starts after it.
    ProviderErrorPattern(
        "server",
        ProviderServerFaultError,
        r"\bcurrently experiencing high demand, which may cause temporary errors",
        summary="the model provider failed on its side (HTTP 500)",
    ),
    # A ChatGPT sign-in codex cannot renew (codex-rs ``RefreshTokenFailed``: the refresh token
    # expired, was already used or was revoked; codex reports it as ``Unauthorized``): refused
    # credentials, fixed by signing in again.
    ProviderErrorPattern(
        "auth",
        ProviderAuthError,
        r"\baccess token could not be refreshed\b",
        summary="the ChatGPT sign-in expired; run `codex login` again",
    ),
    # A ChatGPT plan that does not include Codex (codex-rs ``UsageNotIncluded``, reported as
    # ``UsageLimitExceeded`` and never retried by codex): the account's state, as a spent
    # quota is.
    ProviderErrorPattern(
        "quota_exhausted",
        ProviderQuotaSpentError,
        r"\bto use codex with your chatgpt plan, upgrade\b",
        summary="the ChatGPT plan does not include Codex",
    ),
    # A Responses stream that ended ``response.incomplete`` because the content filter stopped
    # the answer (codex-rs ``ContentFilter``). 0.171.0 prints "stream disconnected before
    # completion: Incomplete response returned, reason: content_filter", whose first words are
    # core's disconnect family (retryable); the same prompt is refused the same way, so it is
    # the content-filter family, never retried. Before core's rules, which it must outrank.
    ProviderErrorPattern(
        "content_filter",
        ProviderContentFilterError,
        r"\bincomplete response returned, reason: content_filter\b",
        summary="the content filter stopped the answer (response incomplete: content_filter)",
    ),
    # A ``response.failed`` whose code is ``content_policy_violation`` and whose message is
    # empty: codex-rs ``ContentPolicyViolation`` prints its own fallback text (with a message,
    # codex relays the server's words instead). The same prompt is refused the same way: the
    # content-filter family, never retried, neutral for the circuit.
    ProviderErrorPattern(
        "content_filter",
        ProviderContentFilterError,
        r"\bthe input was rejected by the content policy\b",
        summary="the content policy rejected the input",
    ),
    # No capacity for the request right now: ``response.failed`` (or, for flex, an HTTP 429)
    # with code ``policy_capacity_unavailable`` or ``flex_unavailable``. Codex prints "Policy-
    # restricted capacity is unavailable. Please try again later." / "Flex capacity
    # unavailable." (codex-api's own display drops the "is") and does not retry them itself,
    # as it does not retry "Selected model is at capacity": core's capacity family, retryable.
    ProviderErrorPattern(
        "capacity",
        ProviderCapacityError,
        r"\b(?:policy-restricted|flex) capacity (?:is )?unavailable\b",
        summary="no capacity for the request's tier or policy now (try again later)",
    ),
    # An HTTP 403 whose body names Cloudflare and a block (codex-rs ``UnexpectedResponseError``'s
    # friendly text, "... (status 403 Forbidden), url: ..."): the network the deployment
    # connects from is refused, not its credentials, so neither signing in again (the auth
    # family a plain 403 is) nor a retry helps. The config family: never retried, neutral.
    ProviderErrorPattern(
        "config",
        ProviderConfigError,
        r"\baccess blocked by cloudflare\b",
        summary="Cloudflare blocked the connection (a restricted region or network)",
    ),
    # OpenAI's safety policies refusing the content: code ``cyber_policy``, ``bio_policy`` or
    # ``misalignment_policy_violation`` (``response.failed``, a 400, or a 403). With an empty
    # message codex prints its fallback ("This request has been flagged for possible
    # cybersecurity risk." / "This content was flagged for possible biological risk." / "This
    # request was blocked due to a misalignment policy violation."); OpenAI's own cyber wording
    # says "This content was flagged ...". A 403 cyber_policy is printed as "unexpected status
    # 403 Forbidden: <body>", which core's words read as a refused key, so the body's code
    # counts too (whole quoted values only). The content-filter family, as the OpenAI adapter
    # types these codes: never retried, neutral for the circuit.
    ProviderErrorPattern(
        "content_filter",
        ProviderContentFilterError,
        r"\bflagged for possible (?:cybersecurity|biological) risk\b"
        r"|\bblocked due to a misalignment policy violation\b"
        r'|"code":\s*"(?:cyber_policy|bio_policy|misalignment_policy_violation)"',
        summary="a safety policy refused the content (cyber, bio or misalignment)",
    ),
    # With a message, a ``response.failed`` is printed as the server's words alone, without
    # its code (``content_policy_violation``, ``invalid_prompt``). Only OpenAI's documented
    # policy sentences count, as in the OpenAI adapter's ``POLICY_PATTERN``: "... flagged as
    # potentially violating our usage policy ..." (reasoning models) and "We've limited access
    # to this content for safety reasons ...". Generic words ("Request blocked.") name no
    # policy and stay unclassified. The content-filter family, never retried.
    ProviderErrorPattern(
        "content_filter",
        ProviderContentFilterError,
        r"\bflagged as potentially violating our usage policy\b"
        r"|\blimited access to this content for safety reasons\b",
        summary="OpenAI's usage policy refused the content",
    ),
    # Code ``inference_hook_denied``: the workspace's own inference hook (its security check of
    # each request, run by the provider before the model) denied this request; "Your workspace
    # inference hook blocked this request.", or a 400's raw body. What was sent is refused the
    # same way again and the provider is healthy: the content-filter family, never retried.
    ProviderErrorPattern(
        "content_filter",
        ProviderContentFilterError,
        r'\bworkspace inference hook blocked this request\b|"code":\s*"inference_hook_denied"',
        summary="the workspace's inference hook denied the request",
    ),
    # Code ``access_program_not_enabled``: the request asks for an access program (codex's
    # cyber program) the account is not enrolled in; "The requested access program is not
    # enabled.", or a 403 printed with its body. Not a refused key (signing in again does not
    # help, so not the auth family a 403 is) and not transient: the deployment must stop
    # asking for it or the account be enrolled. The config family: never retried, neutral.
    ProviderErrorPattern(
        "config",
        ProviderConfigError,
        r'\bthe requested access program is not enabled\b|"code":\s*"access_program_not_enabled"',
        summary="the account is not enrolled in the requested access program",
    ),
    # Codes ``unsupported_access_program`` and ``invalid_access_program`` (0.171.0 maps both
    # to one text): the access program asked for is not one the chosen model takes; "The
    # requested access program cannot be used with this model.", or a 403 printed with its
    # body. The request (its model with that program) is refused the same way again, and the
    # provider is healthy: the invalid-request family, never retried, neutral; not the auth
    # family a 403 is. Unlike the program not enabled above, the account is not at fault.
    ProviderErrorPattern(
        "invalid_request",
        ProviderInvalidRequestError,
        r"\bthe requested access program cannot be used with this model\b"
        r'|"code":\s*"(?:unsupported_access_program|invalid_access_program)"',
        summary="the requested access program cannot be used with this model",
    ),
)
"""Codex's own error texts, checked before core's generic phrases (error events and stderr)."""


class CodexCliEndpoint(SubprocessCliEndpoint):
    """Runs ``codex exec --json`` for one request and projects its events.

    Args:
        config: Endpoint config; defaults to :data:`CODEX_CLI_CONFIG`.
        argv: Program (and leading arguments) to run; ``exec`` and the request's flags are
            appended. The ``binary`` setting replaces ``argv[0]``.
        terminate_grace: Seconds between SIGTERM and SIGKILL at teardown.
        settings: Deployment settings (:class:`~lionagi.service.AgenticSettings`).
    """

    default_config: ClassVar[Mapping[str, Any] | None] = CODEX_CLI_CONFIG
    capabilities: ClassVar[AgenticCapabilities | None] = AgenticCapabilities(
        transport="subprocess", resumable=False, emits_tool_events=True, reports_usage=True
    )
    request_type: ClassVar[type[BaseModel] | None] = CodexRequest
    runtime_arg_keys: ClassVar[frozenset[str]] = frozenset({"on_text"})
    supports_gateway: ClassVar[bool] = True
    error_patterns: ClassVar[tuple[ProviderErrorPattern, ...]] = CODEX_ERROR_PATTERNS

    cli_binary: ClassVar[str | None] = PROGRAM.binary
    tested_version: ClassVar[str | None] = PROGRAM.tested_version
    install_hint: ClassVar[str | None] = PROGRAM.install_hint
    auth_hint: ClassVar[str | None] = PROGRAM.auth_hint
    user_inherit_env: ClassVar[tuple[str, ...]] = USER_ENV

    # -- usage ------------------------------------------------------------------------------------

    def token_counts(self, usage: Mapping[str, Any]) -> tuple[int | None, int | None]:
        """``turn.completed``'s usage, in codex's own spelling of the Responses counts.

        Codex copies the Responses API's totals: ``input_tokens`` already includes
        ``cached_input_tokens`` (the cache read) and ``cache_write_input_tokens`` (a write,
        reported for providers that bill one), and ``output_tokens`` already includes
        ``reasoning_output_tokens``. The core reader knows neither name, so without this a
        warm cache and a reasoning model's thinking went unreported.
        """
        return TokenCounts(
            first_count(usage, "input_tokens"),
            first_count(usage, "output_tokens"),
            cache_read=first_count(usage, "cached_input_tokens"),
            cache_creation=first_count(usage, "cache_write_input_tokens"),
            reasoning=first_count(usage, "reasoning_output_tokens"),
        )

    # -- deployment hooks -------------------------------------------------------------------------

    def gateway_env(self, settings: AgenticSettings) -> dict[str, str]:
        """The gateway key, in the variable the provider table's ``env_key`` names."""
        if settings.gateway_api_key is None:
            return {}
        return {GATEWAY_KEY_ENV: settings.gateway_api_key.get_secret_value()}

    def gateway_args(self, settings: AgenticSettings) -> list[str]:
        """``-c`` overrides defining and selecting the gateway provider (see ``_command``)."""
        return gateway_args(settings)

    def isolated_home_env(self, home: Path) -> dict[str, str]:
        """Codex reads its config and auth from ``CODEX_HOME``, not from ``HOME``."""
        return {"CODEX_HOME": str(home / CODEX_DIR)}

    def seed_isolated_home(self, home: Path) -> None:
        """``CODEX_HOME/config.toml``: no update check, no analytics, no endless network wait."""
        seed_codex_home(home)

    # -- one run ----------------------------------------------------------------------------------

    def cli_arguments(self, request: CodexRequest, *, extra: Sequence[str] = ()) -> list[str]:
        """``exec --json``, the gateway's ``-c`` overrides (where codex reads them), the flags."""
        return build_argv(request, prefix=(), extra=extra)

    def event_parser(self, request: CodexRequest) -> CodexEventParser:
        """A parser for one run; the model names the result when codex does not.

        A ``fast_mode`` run's parser ends the run when codex announces it omits the priority
        tier for the model (:class:`~._events.CodexFastModeUnavailableError`).
        """
        return CodexEventParser(model=request.model, fast_mode=request.fast_mode)
