"""CodexCliEndpoint: ``codex exec --json`` as an ADR-0030 subprocess adapter.

Core owns launch, framing, stderr, the deadline and teardown (``json_events_from_process``);
this class owns only the command grammar (``_command``), the event mapping (``_events``) and
the deployment mapping: gateway -> a custom model provider, isolated home -> ``CODEX_HOME``
with headless settings.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar

from pydantic import BaseModel

from lionagi.service import (
    AgenticCapabilities,
    AgenticEndpoint,
    AgenticSettings,
    EndpointConfig,
    ProviderDisconnectError,
    StreamChunk,
)
from lionagi.service.agentic import (
    PROCESS_TERMINATE_GRACE,
    JsonEventStream,
    ProviderErrorPattern,
    json_events_from_process,
    resolve_workspace,
)

from ._command import CODEX_DIR, GATEWAY_KEY_ENV, build_argv, gateway_args, seed_codex_home
from ._events import CodexEventParser
from ._request import CodexRequest

__all__ = ["CODEX_CLI_CONFIG", "CodexCliEndpoint"]

CODEX_CLI_CONFIG: Mapping[str, Any] = {
    "name": "codex-cli",
    "provider": "codex",
    "endpoint": "query_cli",
}


class CodexCliEndpoint(AgenticEndpoint):
    """Runs ``codex exec --json`` for one request and projects its events.

    Args:
        config: Endpoint config; defaults to :data:`CODEX_CLI_CONFIG`.
        argv: Program (and leading arguments) to run; ``exec`` and the request's flags are
            appended. The ``binary`` setting replaces ``argv[0]``.
        terminate_grace: Seconds between SIGTERM and SIGKILL at teardown.
        settings: Deployment settings (:class:`~lionagi.service.AgenticSettings`).
    """

    capabilities: ClassVar[AgenticCapabilities | None] = AgenticCapabilities(
        transport="subprocess", resumable=False, emits_tool_events=True, reports_usage=True
    )
    request_type: ClassVar[type[BaseModel] | None] = CodexRequest
    runtime_arg_keys: ClassVar[frozenset[str]] = frozenset({"on_text"})
    supports_gateway: ClassVar[bool] = True
    error_patterns: ClassVar[tuple[ProviderErrorPattern, ...]] = (
        # Codex's text when the gateway refuses or cannot be reached (no HTTP status): the
        # stream never started, so it is the retryable disconnect family.
        ProviderErrorPattern(
            "stream_disconnect",
            ProviderDisconnectError,
            r"connection failed: error sending request",
            summary="could not connect to the model provider",
        ),
    )

    cli_binary: ClassVar[str] = "codex"
    tested_version: ClassVar[str] = "0.171.0"
    install_hint: ClassVar[str] = "npm install -g @openai/codex@0.171.0"
    auth_hint: ClassVar[str] = (
        "run `codex login` (ChatGPT sign-in) or set OPENAI_API_KEY; or deploy with "
        "agentic_settings gateway_url/gateway_api_key"
    )

    def __init__(
        self,
        config: EndpointConfig | Mapping[str, Any] | None = None,
        *,
        argv: Sequence[str] = ("codex",),
        terminate_grace: float = PROCESS_TERMINATE_GRACE,
        **overrides: Any,
    ) -> None:
        super().__init__(CODEX_CLI_CONFIG if config is None else config, **overrides)
        if not argv:
            raise ValueError("argv needs at least the program")
        self.argv = tuple(argv)
        self.terminate_grace = terminate_grace

    def copy(self) -> CodexCliEndpoint:
        """Same config, command, grace and settings; handlers copied; no home, no process."""
        other = type(self)(
            self.config,
            argv=self.argv,
            terminate_grace=self.terminate_grace,
            settings=self.settings,
        )
        self.copy_runtime_state_to(other)
        return other

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

    def command(
        self, request: CodexRequest, *, program: str | None = None, extra: Sequence[str] = ()
    ) -> list[str]:
        """The argv for one run before the prompt.

        ``program`` replaces ``argv[0]`` (the ``binary`` setting); ``extra`` is the gateway's
        ``-c`` overrides, placed after ``exec --json`` where codex reads them.
        """
        prefix = [program, *self.argv[1:]] if program else list(self.argv)
        return build_argv(request, prefix=prefix, extra=extra)

    def launch(self, request: CodexRequest, cwd: Path | None) -> JsonEventStream:
        """Start codex: argv only, prompt after ``--``, stdin /dev/null, core's teardown."""
        launch = self.launch_settings()
        return json_events_from_process(
            self.command(request, program=launch.program, extra=launch.args),
            cwd=cwd,
            env=launch.env,
            inherit_env=launch.inherit_env,
            secrets=launch.secrets,
            label="codex",
            install_hint=self.install_hint,
            terminate_grace=self.terminate_grace,
            prompt=request.prompt,
        )

    async def _stream_agentic(
        self,
        request: BaseModel,
        *,
        runtime_args: dict[str, Any],
        local_timeout: float | None,
    ) -> AsyncIterator[StreamChunk]:
        assert isinstance(request, CodexRequest)
        cwd = self.launch_settings().cwd
        repo = request.repo if request.repo is not None else cwd
        if repo is not None or request.workspace:
            cwd = resolve_workspace(repo, request.workspace)
        on_text = self._runtime_handlers(runtime_args).get("on_text")
        parser = CodexEventParser(model=request.model)
        async with self.launch(request, cwd) as events:
            async for event in events:
                for chunk in parser.feed(event):
                    if on_text is not None and chunk.type == "text" and chunk.content:
                        on_text(chunk.content)
                    yield chunk
                    if chunk.type == "error":
                        return  # nothing after the failure; leaving the block tears down
            for chunk in parser.finish():
                yield chunk
