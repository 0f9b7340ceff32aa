"""The Claude Code CLI endpoint: ``claude -p --output-format stream-json --verbose -- <prompt>``.

Everything but the command grammar and the event mapping is core's (``SubprocessCliEndpoint``):
the run loop, launch without a shell in a new process group, a minimal environment, NDJSON
framing, bounded stderr, and SIGTERM -> grace -> SIGKILL teardown of the whole tree (tool shells
included).

Gateway: ``ANTHROPIC_BASE_URL`` (the CLI speaks Anthropic Messages, ``POST /v1/messages``) and
``ANTHROPIC_API_KEY``; non-essential traffic is switched off with it, since a deployment that
routes the model through a gateway should not call anything else.

Isolated home: ``CLAUDE_CONFIG_DIR`` points into it, and it is seeded with fail-fast retries
(``CLAUDE_CODE_MAX_RETRIES=0``: the CLI otherwise retries a dead endpoint for minutes),
telemetry, auto-update and non-essential traffic off, and onboarding marked complete.
``CLAUDE_CODE_TMPDIR`` points into it too (see :meth:`ClaudeCodeEndpoint.isolated_home_env`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar

from pydantic import BaseModel

from lionagi.service import (
    AgenticCapabilities,
    AgenticRequestValidationError,
    AgenticSettings,
    ProviderBudgetLimitError,
    ProviderConnectionError,
    ProviderDisconnectError,
    ProviderPermissionError,
    ProviderProtocolError,
    ProviderQuotaError,
    ProviderQuotaSpentError,
    ProviderTurnLimitError,
)
from lionagi.service.agentic import (
    ProviderErrorPattern,
    SubprocessCliEndpoint,
    contained_path,
)

from ._events import ClaudeEventMapper
from ._request import ClaudeCodeRequest, command_flags
from ._static import PROGRAM

__all__ = [
    "CLAUDE_CODE_CONFIG",
    "CLAUDE_ERROR_PATTERNS",
    "HEADLESS_ENV",
    "ClaudeCodeEndpoint",
]

CLAUDE_CODE_CONFIG: Mapping[str, Any] = {
    "name": "claude_code_cli",
    "provider": "claude_code",
    "endpoint": "query_cli",
}

USER_ENV: tuple[str, ...] = (
    # API key, bearer token (gateways) and the `claude setup-token` OAuth token; the base URL.
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_AUTH_TOKEN",
    "CLAUDE_CODE_OAUTH_TOKEN",
    "ANTHROPIC_BASE_URL",
    # A config dir moved off ~/.claude holds the /login session.
    "CLAUDE_CONFIG_DIR",
    # Where the CLI keeps its private temporary files (``<dir>/claude-<uid>/``: the Bash and
    # subagent task outputs of each session; 2.1.332 also ``<dir>/cc-socks/``) instead of
    # ``$TMPDIR``; the CLI's own errors tell users to set it. Its messaging socket goes to
    # ``$XDG_RUNTIME_DIR/cc-socks`` first, as in the user's login session, not into /tmp.
    "CLAUDE_CODE_TMPDIR",
    "XDG_RUNTIME_DIR",
    # Bedrock and Vertex: the switches and their model-specific settings. Broad cloud
    # credentials (AWS access keys) are not inherited: the agent's tool shells would get them;
    # ~/.aws and ~/.config/gcloud are found through HOME, or pass keys with ``env=``.
    "CLAUDE_CODE_USE_BEDROCK",
    "CLAUDE_CODE_USE_VERTEX",
    "AWS_PROFILE",
    "AWS_REGION",
    "AWS_BEARER_TOKEN_BEDROCK",
    "ANTHROPIC_VERTEX_PROJECT_ID",
    "CLOUD_ML_REGION",
    "GOOGLE_APPLICATION_CREDENTIALS",
)
"""What ``claude`` reads for its login, endpoint and working directories when run by hand;
inherited in user mode."""

HEADLESS_ENV: Mapping[str, str] = {
    "CLAUDE_CODE_MAX_RETRIES": "0",
    "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
    "DISABLE_TELEMETRY": "1",
    "DISABLE_AUTOUPDATER": "1",
    "DISABLE_ERROR_REPORTING": "1",
}
"""What an isolated home runs with (also written into its ``settings.json`` ``env``)."""

CLAUDE_ERROR_PATTERNS: tuple[ProviderErrorPattern, ...] = (
    # Printed on stderr (exit 1, no events) for --permission-mode bypassPermissions as root.
    ProviderErrorPattern(
        "permission",
        ProviderPermissionError,
        r"cannot be used with root/sudo privileges",
        summary="bypassPermissions refused for root (set IS_SANDBOX=1 in a sandbox)",
    ),
    # The assistant-message ``error`` codes of the Agent SDK that carry no generic phrase:
    # ``billing_error`` (the account's credit is used up: "Credit balance is too low") is the
    # spent-quota family, never retried; ``rate_limit`` stays the retryable quota family. The
    # billing rule comes first, so a message naming both is not retried.
    ProviderErrorPattern(
        "quota_exhausted",
        ProviderQuotaSpentError,
        r"\bbilling_error\b",
        summary="quota or credit used up",
    ),
    ProviderErrorPattern(
        "quota",
        ProviderQuotaError,
        r"\brate_limit\b",
        summary="quota or rate limit exhausted",
    ),
    # The result subtype of a run stopped at ``--max-turns``: the same request stops there
    # again, so it is the turn-limit family (not retried), not a plain stream failure.
    ProviderErrorPattern(
        "turn_limit",
        ProviderTurnLimitError,
        r"\berror_max_turns\b",
        summary="stopped at the maximum number of turns",
    ),
    # The result subtype of a run stopped at ``--max-budget-usd`` (2.1.332: "Reached maximum
    # budget ($0.0001)", ``terminal_reason: "budget_exhausted"``): the caller's own cap, as the
    # turn limit is, so the budget-limit family (not retried, neutral for the circuit), never
    # a spent quota (the account may have credit left) nor a plain stream failure.
    ProviderErrorPattern(
        "budget_limit",
        ProviderBudgetLimitError,
        r"\berror_max_budget_usd\b",
        summary="stopped at the maximum budget for the run",
    ),
    # The API could not be reached at all, in the words core's phrases do not cover: 2.1.197's
    # "Unable to connect to API (ConnectionRefused)" (2.1.332 prints it for any other code, and
    # "Unable to connect to API. Check your internet connection" with none), and 2.1.332's
    # "Can't reach the API server — check your internet or DNS (FailedToOpenSocket)"; the
    # Node codes it quotes (ECONNREFUSED, ENOTFOUND, ENETUNREACH, ...) are core's. Never the
    # CLI's TLS and captive-portal texts ("Unable to connect to API: SSL certificate ...",
    # "Unable to connect to API: sign in to network or proxy"): a retry does not fix those.
    # Before the disconnect rule, whose ECONNRESET the catch-all form may quote.
    ProviderErrorPattern(
        "connection",
        ProviderConnectionError,
        r"\bunable to connect to api\b(?!\s*:)|\bConnectionRefused\b"
        r"|\bcan['\u2019]?t reach the api server\b"
        # 2.1.332's words for the SDK's "Connection error." with a reset-like code
        # (ECONNRESET, EPIPE, ECONNABORTED, ConnectionClosed, UND_ERR_SOCKET, ...): a request
        # whose connection closed before any of the answer came (recorded: a server that
        # resets it on reading the request). The same error it prints as "Unable to connect to
        # API (ECONNRESET)" in a diskless session. A stream cut later is worded otherwise.
        r"|\bconnection dropped \([a-z_]+\)",
        summary="could not connect to the API",
    ),
    # The API's stream cut off mid-answer: "Connection to the API was lost (ECONNRESET)" (the
    # reset stream's own error, recorded once the answer's stream had started), and 2.1.332's
    # "Connection lost mid-response. The response above may be incomplete." and "Connection
    # lost before a response was produced. Try again.": the same cut, the second after a block
    # of the answer that shows nothing (recorded: a thinking block, then the body ended with no
    # `message_stop`), so the provider had answered; not the connection family.
    ProviderErrorPattern(
        "stream_disconnect",
        ProviderDisconnectError,
        r"connection to the api was lost|\bECONNRESET\b"
        r"|\bconnection lost (?:mid-response|before a response was produced)\b"
        # 2.1.332's words for a client-side timeout of the API request, labelled `server_error`
        # although nothing said the server failed: the SDK's `APIConnectionTimeoutError`
        # (recorded: "Request timed out. If the API is slow to answer, ... set API_TIMEOUT_MS
        # above 5000." from a server that read the request and never answered), the CLI's own
        # idle watchdog ("Request timed out. No data arrived for more than 5 minutes. ..."),
        # and a socket's ETIMEDOUT ("API Error: Request timed out. Check your internet
        # connection and proxy settings"). The request was sent and may be running: pi's
        # "Request timed out." is this family too. Only at the start of the message and
        # followed by a full stop or its end, so a tool's "Command timed out after 2m",
        # "MCP error -32001: Request timed out" or "Request timed out while downloading
        # marketplace ..." never match. This and the wordings below share one anchor.
        r"|\A\s*(?:api error:\s*)?(?:request timed out(?![^.\n])"
        # 2.1.332's stream watchdogs, which end a response whose bytes or events stopped
        # arriving once the provider had answered (recorded: a server that sends its headers,
        # or an answer's start, then nothing): "stream idle: no bytes for 10000ms" (the byte
        # watchdog, then its non-streaming retry), "Stream idle timeout - no chunks received"
        # (no retry), "The response stopped arriving. The response above may be incomplete."
        # (after text), "The response stalled before a response was produced. Try again."
        # (after thinking only); and `ConnectionIdleError`'s own "No data arrived within the
        # connection idle limit". Labelled `unknown` or `server_error`; a client timeout after
        # the provider answered, as "Request timed out" is. At the start of the message only.
        r"|stream idle(?: timeout\b|: no bytes for\b)"
        r"|the response (?:stopped arriving|stalled before a response was produced)\b"
        r"|no data arrived\b"
        # 2.1.332's words for a stream its own watchdog aborted because the machine slept
        # (`StreamSuspendedError`, the wall clock ahead of the monotonic one): "Your computer
        # went to sleep mid-response. The response above may be incomplete." and "... before a
        # response was produced. Try again.", printed only once a block of the answer (text, or
        # thinking only) had arrived. Labelled `server_error`; the client cut a stream the
        # provider was answering. Source only (no run can suspend the host). Not its
        # malformed-stream neighbours below: those streams broke their grammar, not cut.
        r"|your computer went to sleep (?:mid-response|before a response was produced)\b)",
        summary="stream disconnected before completion",
    ),
    # The API's stream arrived but could not be read, which core's HTTP transport raises as
    # `ProviderProtocolError` for a stream it reads itself (so the error chunk is its stream
    # twin, never retried). 2.1.332's words, all recorded against a loopback server but the
    # first: "The response could not be read (ZlibError). Try again." (a body whose
    # compression does not decode, or an HTTP answer it cannot parse; labelled `unknown`);
    # "The response stream was malformed ..." (a `data:` line that is not JSON, or an event
    # for a block already closed) and "Part of the response never arrived ..." (an event for
    # a block that never started), both labelled `server_error` although the server reported
    # no fault; and, before any block finished, "JSON Parse error: ..." and "Stream ended
    # without receiving any events" (a body that ended right after `message_start`, as core's
    # "stream ended before completion"), labelled `unknown`. The last two only at the start
    # of the message: a tool's own JSON error is quoted inside longer text.
    ProviderErrorPattern(
        "stream_malformed",
        ProviderProtocolError,
        r"\bthe response could not be read \((?:ZlibError|BrotliDecompressionError"
        r"|ZstdDecompressionError|InvalidHTTPResponse)\)"
        r"|\bthe response stream was malformed\b|\bpart of the response never arrived\b"
        r"|\A\s*(?:api error:\s*)?"
        r"(?:json parse error:|stream ended without receiving any events\b)",
        summary="the API's stream could not be read",
    ),
)


class ClaudeCodeEndpoint(SubprocessCliEndpoint):
    """``claude -p`` as an agentic endpoint (resumable through ``resume``).

    Args:
        config: Endpoint config; defaults to :data:`CLAUDE_CODE_CONFIG`.
        terminate_grace: Seconds between SIGTERM and SIGKILL at teardown.
        argv: Program (and leading arguments) replacing ``claude``; the ``binary`` setting
            replaces ``argv[0]``. Tests point it at a fake CLI.
        settings: Deployment settings (:class:`~lionagi.service.AgenticSettings`).
    """

    default_config: ClassVar[Mapping[str, Any] | None] = CLAUDE_CODE_CONFIG
    capabilities: ClassVar[AgenticCapabilities | None] = AgenticCapabilities(
        transport="subprocess", resumable=True, emits_tool_events=True, reports_usage=True
    )
    request_type: ClassVar[type[BaseModel] | None] = ClaudeCodeRequest
    resume_field: ClassVar[str | None] = "resume"
    supports_gateway: ClassVar[bool] = True
    error_patterns: ClassVar[tuple[ProviderErrorPattern, ...]] = CLAUDE_ERROR_PATTERNS

    cli_binary: ClassVar[str | None] = PROGRAM.binary
    tested_version: ClassVar[str | None] = PROGRAM.tested_version
    install_hint: ClassVar[str | None] = PROGRAM.install_hint
    auth_hint: ClassVar[str | None] = PROGRAM.auth_hint
    user_inherit_env: ClassVar[tuple[str, ...]] = USER_ENV

    # -- deployment -------------------------------------------------------------------------------

    def gateway_env(self, settings: AgenticSettings) -> dict[str, str]:
        """``ANTHROPIC_BASE_URL`` / ``ANTHROPIC_API_KEY``, and no traffic beside the gateway."""
        env: dict[str, str] = {}
        if settings.gateway_url is not None:
            env["ANTHROPIC_BASE_URL"] = settings.gateway_url.rstrip("/")
            env["CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC"] = "1"
        if settings.gateway_api_key is not None:
            env["ANTHROPIC_API_KEY"] = settings.gateway_api_key.get_secret_value()
        return env

    def isolated_home_env(self, home: Path) -> dict[str, str]:
        """Config in ``CLAUDE_CONFIG_DIR``, private temporary files in ``CLAUDE_CODE_TMPDIR``.

        Claude Code (2.1.197, 2.1.332) writes ``claude-<uid>/<project>/<session>/`` (Bash and
        subagent task outputs, which can carry session content) and, from 2.1.332,
        ``cc-socks/<pid>.sock`` under ``CLAUDE_CODE_TMPDIR``, else under ``$TMPDIR``. Core points
        ``TMPDIR`` into the home, but a deployment that sets ``TMPDIR`` for the agent's tools
        (``env=``) moved those files out of it, into a directory close() never removes. Pinned
        to the home's ``tmp`` (core creates it), they go with the home; the tools still get the
        deployment's ``TMPDIR``. An explicit ``env={"CLAUDE_CODE_TMPDIR": ...}`` still wins.
        """
        return {
            "CLAUDE_CONFIG_DIR": str(home / ".claude"),
            "CLAUDE_CODE_TMPDIR": str(home / "tmp"),
            **HEADLESS_ENV,
        }

    def seed_isolated_home(self, home: Path) -> None:
        """Headless settings in the isolated ``CLAUDE_CONFIG_DIR``.

        ``settings.json`` repeats :data:`HEADLESS_ENV` in its ``env`` block (the CLI applies it
        to itself and its tools), and ``.claude.json`` marks onboarding done. The workspace
        trust dialog is skipped by ``-p`` itself.
        """
        folder = home / ".claude"
        folder.mkdir(mode=0o700, exist_ok=True)
        settings = {"env": dict(HEADLESS_ENV), "includeCoAuthoredBy": False}
        (folder / "settings.json").write_text(json.dumps(settings, indent=2), encoding="utf-8")
        state = {"hasCompletedOnboarding": True, "bypassPermissionsModeAccepted": False}
        (folder / ".claude.json").write_text(json.dumps(state, indent=2), encoding="utf-8")

    # -- one run ----------------------------------------------------------------------------------

    def cli_arguments(self, request: ClaudeCodeRequest, *, extra: Sequence[str] = ()) -> list[str]:
        """The flags before ``--`` and the prompt: each flag and value its own element.

        ``add_dirs`` reaches argv only as the contained, resolved paths of
        :meth:`contained_add_dirs`, so no argv this endpoint builds (the launched one included)
        can carry an unchecked ``--add-dir``.
        """
        add_dirs = self.contained_add_dirs(request)
        if add_dirs != request.add_dirs:
            request = request.model_copy(update={"add_dirs": add_dirs})
        return [*extra, *command_flags(request)]

    def contained_add_dirs(self, request: ClaudeCodeRequest) -> tuple[str, ...]:
        """Each ``add_dirs`` item as an existing directory inside the repository, resolved.

        ``--add-dir`` widens what the agent's file tools may read and write, so an item gets
        the same containment as ``workspace`` (ADR-0030 D4): the repository is ``repo``, else
        the settings' ``cwd``, else our working directory (the one the child inherits). Items
        are relative to that repository, not to ``workspace``: a sibling of the workspace is
        then reachable without ``..``, which containment refuses. The CLI gets the resolved
        absolute path (what was checked), so its meaning does not depend on the CLI's own
        working directory; a symlink swapped in after the check is outside what a parent
        process can prevent, as for ``workspace``.

        Raises:
            AgenticRequestValidationError: an item is absolute, starts with ``~``, contains
                ``..``, resolves (through a symlink) outside the repository, or is not an
                existing directory; ``field`` is ``add_dirs.<index>``. An unusable repository
                itself names ``repo`` (or ``cwd`` when it came from the settings).
        """
        if not request.add_dirs:
            return ()
        repo, origin = self.repository(request)
        resolved: list[str] = []
        for index, item in enumerate(request.add_dirs):
            field = f"add_dirs.{index}"
            path = contained_path(repo, item, field=field, must_exist=True, repo_field=origin)
            if not path.is_dir():
                raise AgenticRequestValidationError(field, f"{item!r} is not a directory")
            resolved.append(str(path))
        return tuple(resolved)

    def event_parser(self, request: ClaudeCodeRequest) -> ClaudeEventMapper:
        """A new mapper of Claude's stream-json for one run; an unsaved run confirms no session."""
        return ClaudeEventMapper(persisted=not request.no_session_persistence)
