"""The Gemini CLI agentic endpoint: launch ``gemini`` headless and project its stream-json.

Core does the process work and runs the loop (``SubprocessCliEndpoint``: argv only, own process
group and cgroup, minimal environment, bounded stderr, teardown of the whole tree, secrets
redacted from error chunks); this module keeps the command grammar, the exit-code mapping, and
the deployment mapping (gateway, isolated home). The projector decides success from the
terminal ``result`` event.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar

from pydantic import BaseModel

from lionagi.service import AgenticCapabilities, AgenticSettings
from lionagi.service.agentic import (
    ErrorClassifier,
    PromptMode,
    ProviderErrorPattern,
    SubprocessCliEndpoint,
    TokenCounts,
    first_count,
)

from ._errors import GEMINI_ERROR_PATTERNS, classify_exit
from ._events import GeminiEventProjector, plain_text_event
from ._request import GeminiCodeRequest, build_argv
from ._static import PROGRAM

__all__ = ["GEMINI_CODE_CONFIG", "HEADLESS_SETTINGS", "GeminiCodeEndpoint"]

GEMINI_CODE_CONFIG: Mapping[str, Any] = {
    "name": "gemini_code",
    "provider": "gemini_code",
    "endpoint": "query_cli",
}

HEADLESS_SETTINGS: Mapping[str, Any] = {
    # Key auth (GEMINI_API_KEY), never an OAuth browser flow in a headless run.
    "security": {"auth": {"selectedType": "gemini-api-key"}},
    # Fail fast: the caller's retry policy decides, not ten silent CLI attempts.
    "general": {
        "maxAttempts": 1,
        "retryFetchErrors": False,
        "enableAutoUpdate": False,
        "enableAutoUpdateNotification": False,
    },
    "privacy": {"usageStatisticsEnabled": False},
    "telemetry": {"enabled": False},
}
"""``$HOME/.gemini/settings.json`` of an isolated home."""


USER_ENV: tuple[str, ...] = (
    # Gemini API key (GOOGLE_API_KEY is the Vertex express-mode spelling) and base URL.
    "GEMINI_API_KEY",
    "GOOGLE_API_KEY",
    "GOOGLE_GEMINI_BASE_URL",
    # Vertex AI: the switch, project, location and service-account key file.
    "GOOGLE_GENAI_USE_VERTEXAI",
    "GOOGLE_CLOUD_PROJECT",
    "GOOGLE_CLOUD_LOCATION",
    "GOOGLE_APPLICATION_CREDENTIALS",
    # Code Assist sign-in (a Workspace / licensed account).
    "GOOGLE_GENAI_USE_GCA",
    # A home moved off ~ holds .gemini (settings and the OAuth login).
    "GEMINI_CLI_HOME",
)
"""What ``gemini`` reads for its login and endpoint when run by hand; inherited in user mode."""


class GeminiCodeEndpoint(SubprocessCliEndpoint):
    """``gemini --output-format stream-json`` with the prompt on stdin.

    Args:
        config: Endpoint config; defaults to :data:`GEMINI_CODE_CONFIG`.
        argv: Program (and leading arguments) replacing ``gemini``; the ``binary`` setting
            replaces ``argv[0]``. Tests point it at a fake CLI.
        terminate_grace: Seconds between SIGTERM and SIGKILL at teardown.
        settings: Deployment settings (``binary``, ``gateway_url``/``gateway_api_key`` mapped to
            ``GOOGLE_GEMINI_BASE_URL``/``GEMINI_API_KEY``, ``env``, ``cwd``, ``config_home``).
    """

    default_config: ClassVar[Mapping[str, Any] | None] = GEMINI_CODE_CONFIG
    prompt_mode: ClassVar[PromptMode] = "stdin"
    capabilities: ClassVar[AgenticCapabilities | None] = AgenticCapabilities(
        transport="subprocess", resumable=True, emits_tool_events=True, reports_usage=True
    )
    request_type: ClassVar[type[BaseModel] | None] = GeminiCodeRequest
    resume_field: ClassVar[str | None] = "resume"
    runtime_arg_keys: ClassVar[frozenset[str]] = frozenset({"on_text"})
    supports_gateway: ClassVar[bool] = True
    error_patterns: ClassVar[tuple[ProviderErrorPattern, ...]] = GEMINI_ERROR_PATTERNS

    # What `lionagi-service doctor` and `providers` show for this CLI.
    cli_binary: ClassVar[str | None] = PROGRAM.binary
    tested_version: ClassVar[str | None] = PROGRAM.tested_version
    install_hint: ClassVar[str | None] = PROGRAM.install_hint
    auth_hint: ClassVar[str | None] = PROGRAM.auth_hint
    user_inherit_env: ClassVar[tuple[str, ...]] = USER_ENV

    # -- usage ------------------------------------------------------------------------------------

    def token_counts(self, usage: Mapping[str, Any]) -> tuple[int | None, int | None]:
        """The result's counts (``usage_of``), with ``cached_tokens`` as the cache read.

        The stats' ``input_tokens`` is Gemini's prompt count summed over the run's requests and
        already includes ``cached``, their summed ``cachedContentTokenCount`` (the ``input``
        beside them is the difference): a context-cache read, as on Gemini's own API, which
        reports no cache writes.

        The output is what ``total_tokens`` holds beyond the input, not ``output_tokens``: that
        is the summed ``candidatesTokenCount`` alone, and a thinking model's thoughts
        (``thoughtsTokenCount``, billed as output) have no field in stream-json but are in the
        summed ``totalTokenCount``. Read alone, a run with 25 thought tokens and 7 answer tokens
        reported an output of 7. The part beyond ``output_tokens`` is the reasoning count. It
        would also hold a built-in tool's prompt (``toolUsePromptTokenCount``), which
        stream-json does not break out either; the CLI's function tools are counted in the
        prompt. ``output_tokens`` is kept, and no reasoning count given, when there is no total or
        it is smaller than its parts.
        """
        counts = super().token_counts(usage)
        input_tokens, output = counts[0], counts[1]
        total = first_count(usage, "total_tokens")
        if (
            total is None
            or input_tokens is None
            or (output is not None and total - input_tokens < output)
        ):
            return TokenCounts(input_tokens, output, cache_read=first_count(usage, "cached_tokens"))
        beyond_input = total - input_tokens
        return TokenCounts(
            input_tokens,
            beyond_input,
            cache_read=first_count(usage, "cached_tokens"),
            reasoning=None if output is None else beyond_input - output,
        )

    # -- deployment -------------------------------------------------------------------------------

    def gateway_env(self, settings: AgenticSettings) -> dict[str, str]:
        """Gemini CLI reads its API base URL and key from the environment."""
        env: dict[str, str] = {}
        if settings.gateway_url is not None:
            env["GOOGLE_GEMINI_BASE_URL"] = settings.gateway_url
        if settings.gateway_api_key is not None:
            env["GEMINI_API_KEY"] = settings.gateway_api_key.get_secret_value()
        return env

    def isolated_home_env(self, home: Path) -> dict[str, str]:
        """An isolated run trusts its working directory (else gemini exits 55 when enabled)."""
        return {"GEMINI_CLI_TRUST_WORKSPACE": "true"}

    def seed_isolated_home(self, home: Path) -> None:
        """Write :data:`HEADLESS_SETTINGS` to ``.gemini/settings.json``."""
        folder = home / ".gemini"
        folder.mkdir(mode=0o700, exist_ok=True)
        (folder / "settings.json").write_text(json.dumps(HEADLESS_SETTINGS), encoding="utf-8")

    # -- one run ----------------------------------------------------------------------------------

    def cli_arguments(self, request: GeminiCodeRequest, *, extra: Sequence[str] = ()) -> list[str]:
        """The flags after the program (the prompt goes to stdin, never here)."""
        return build_argv(request, extra)

    def event_parser(self, request: GeminiCodeRequest) -> GeminiEventProjector:
        """A projector for one run; success is judged by its terminal ``result`` event."""
        return GeminiEventProjector()

    def plain_line_reader(self) -> Callable[[str], dict[str, Any] | None]:
        """A slash command's plain-text stdout line is read as a notice (``plain_text_event``).

        ``/memory show`` and ``/init`` print a line between the stream-json events; without a
        reader core's framer ends the run with a protocol error on it.
        """
        return plain_text_event

    def stderr_classifier(self) -> ErrorClassifier:
        """Gemini's exit codes (HTTP status mod 256, 41/42/52/55/130) before its stderr."""
        return classify_exit
