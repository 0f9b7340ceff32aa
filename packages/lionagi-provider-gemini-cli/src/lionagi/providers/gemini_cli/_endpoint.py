"""The Gemini CLI agentic endpoint: launch ``gemini`` headless and project its stream-json.

Core does the process work (argv only, own process group and cgroup, minimal environment,
bounded stderr, teardown of the whole tree); this module keeps the command grammar, the
deployment mapping (gateway, isolated home) and the run loop that decides success from the
terminal ``result`` event.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Mapping
from pathlib import Path
from typing import Any, ClassVar

from pydantic import BaseModel

from lionagi.service import (
    AgenticCapabilities,
    AgenticEndpoint,
    AgenticSettings,
    EndpointConfig,
    ProviderProtocolError,
    StreamChunk,
)
from lionagi.service.agentic import (
    PROCESS_TERMINATE_GRACE,
    AgenticLaunch,
    JsonEventStream,
    ProviderErrorPattern,
    json_events_from_process,
    resolve_workspace,
)

from ._errors import GEMINI_ERROR_PATTERNS, classify_exit
from ._events import GeminiEventProjector
from ._request import GeminiCodeRequest, build_argv

__all__ = ["GEMINI_CODE_CONFIG", "HEADLESS_SETTINGS", "GeminiCodeEndpoint"]

REDACTED = "[REDACTED]"

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


class GeminiCodeEndpoint(AgenticEndpoint):
    """``gemini --output-format stream-json`` with the prompt on stdin.

    Args:
        config: Endpoint config; defaults to :data:`GEMINI_CODE_CONFIG`.
        terminate_grace: Seconds between SIGTERM and SIGKILL at teardown.
        settings: Deployment settings (``binary``, ``gateway_url``/``gateway_api_key`` mapped to
            ``GOOGLE_GEMINI_BASE_URL``/``GEMINI_API_KEY``, ``env``, ``cwd``, ``config_home``).
    """

    capabilities: ClassVar[AgenticCapabilities | None] = AgenticCapabilities(
        transport="subprocess", resumable=True, emits_tool_events=True, reports_usage=True
    )
    request_type: ClassVar[type[BaseModel] | None] = GeminiCodeRequest
    resume_field: ClassVar[str | None] = "resume"
    runtime_arg_keys: ClassVar[frozenset[str]] = frozenset({"on_text"})
    supports_gateway: ClassVar[bool] = True
    error_patterns: ClassVar[tuple[ProviderErrorPattern, ...]] = GEMINI_ERROR_PATTERNS

    # What `lionagi-service doctor` and `providers` show for this CLI.
    cli_binary: ClassVar[str] = "gemini"
    tested_version: ClassVar[str] = "0.61.0"
    install_hint: ClassVar[str] = "npm install -g @google/gemini-cli@0.61.0"
    auth_hint: ClassVar[str] = (
        "run `gemini` once and sign in, or set GEMINI_API_KEY; isolated mode needs "
        "GEMINI_API_KEY (env) or agentic_settings gateway_url/gateway_api_key"
    )

    def __init__(
        self,
        config: EndpointConfig | Mapping[str, Any] | None = None,
        *,
        terminate_grace: float = PROCESS_TERMINATE_GRACE,
        **overrides: Any,
    ) -> None:
        super().__init__(GEMINI_CODE_CONFIG if config is None else config, **overrides)
        self.terminate_grace = terminate_grace

    def copy(self) -> GeminiCodeEndpoint:
        """Same config, grace and settings; handlers copied; no session, home or process."""
        other = type(self)(
            self.config, terminate_grace=self.terminate_grace, settings=self.settings
        )
        self.copy_runtime_state_to(other)
        return other

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

    def command(self, request: GeminiCodeRequest, launch: AgenticLaunch | None = None) -> list[str]:
        """The argv of one run (the prompt goes to stdin, never here)."""
        launch = launch or self.launch_settings()
        return build_argv(launch.program or type(self).cli_binary, request, launch.args)

    def launch(self, request: GeminiCodeRequest, cwd: Path | None) -> JsonEventStream:
        """The one place the CLI is started: argv vector, prompt on stdin, core's teardown."""
        launch = self.launch_settings()
        return json_events_from_process(
            self.command(request, launch),
            cwd=cwd,
            env=launch.env,
            inherit_env=launch.inherit_env,
            secrets=launch.secrets,
            label="gemini",
            install_hint=type(self).install_hint,
            classify=classify_exit,
            terminate_grace=self.terminate_grace,
            prompt=request.prompt,
            prompt_mode="stdin",
        )

    async def _stream_agentic(
        self,
        request: BaseModel,
        *,
        runtime_args: dict[str, Any],
        local_timeout: float | None,
    ) -> AsyncIterator[StreamChunk]:
        assert isinstance(request, GeminiCodeRequest)
        launch = self.launch_settings()
        cwd = launch.cwd
        repo = request.repo if request.repo is not None else cwd
        if repo is not None or request.workspace:
            cwd = resolve_workspace(repo, request.workspace)
        on_text = self._runtime_handlers(runtime_args).get("on_text")
        projector = GeminiEventProjector()
        secrets = [value for value in launch.secrets if value]
        events = self.launch(request, cwd)
        async with events:
            async for event in events:
                for chunk in projector.project(event):
                    if on_text is not None and chunk.type == "text" and chunk.content:
                        on_text(chunk.content)
                    if chunk.type == "error":
                        # Gemini quotes the API's error body, and a gateway may echo the key
                        # it was sent: the consumer and the raised error never see it.
                        yield _redacted(chunk, secrets)
                        return  # the terminal event failed the run; leaving the block tears down
                    yield chunk
        if not projector.finished and projector.session_id is not None:
            # The CLI started a session and exited 0 without its terminal event.
            raise ProviderProtocolError("gemini: the stream ended without a result event")


def _redacted(chunk: StreamChunk, secrets: list[str]) -> StreamChunk:
    """``chunk`` with every deployment secret in its text and string metadata replaced."""

    def scrub(text: str) -> str:
        for secret in secrets:
            text = text.replace(secret, REDACTED)
        return text

    meta = {k: scrub(v) if isinstance(v, str) else v for k, v in chunk.metadata.items()}
    return StreamChunk("error", scrub(chunk.content or ""), is_error=True, metadata=meta)
