"""The pi CLI endpoint: one ``pi --mode json`` process per run, resumable by ``--session``.

Everything but the command grammar and the event mapping is core's (``SubprocessCliEndpoint``):
the run loop, launch, framing, bounded stderr, teardown of the whole process group (pi's bash
tool shells included), workspace containment, deployment settings and the isolated home.

Prompt: on stdin (``prompt_mode="stdin"``). pi has no ``--`` separator and reads a word that
starts with ``-`` as an option; piped stdin is read to EOF and becomes the message (pi trims
leading and trailing whitespace from it).

System prompts: pi reads a ``--system-prompt`` / ``--append-system-prompt`` value as a file path
whenever that file exists, so the caller's text is written to files the run owns
(:meth:`PiCliEndpoint.run_resources`, ``_prompt_files``), the argv names them, and they are
removed when the run ends.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, ClassVar

from pydantic import BaseModel

from lionagi.service import (
    AgenticCapabilities,
    AgenticRequestValidationError,
    AgenticSettings,
    EndpointConfigurationError,
    ProviderConnectionError,
    ProviderContentFilterError,
    ProviderDisconnectError,
    ProviderProtocolError,
)
from lionagi.service.agentic import (
    AgenticLaunch,
    PromptMode,
    ProviderErrorPattern,
    SubprocessCliEndpoint,
    TokenCounts,
    first_count,
    sum_counts,
)

from ._events import PiEventProjector
from ._home import GATEWAY_KEY_ENV, GATEWAY_PROVIDER, agent_dir, write_models_file, write_settings
from ._prompt_files import PromptFiles
from ._request import DEFAULT_MODEL, PiRequest, pi_arguments
from ._static import PROGRAM, TESTED_VERSION

__all__ = ["PI_CONFIG", "TESTED_VERSION", "PiCliEndpoint"]

PI_CONFIG: Mapping[str, Any] = {"name": "pi-cli", "provider": "pi", "endpoint": "query_cli"}


USER_ENV: tuple[str, ...] = (
    # The agent dir moved off ~/.pi/agent (settings, models.json, the /login auth.json).
    "PI_CODING_AGENT_DIR",
    # The per-provider keys pi-ai's getEnvApiKey reads (0.73.1), one per built-in provider.
    "ANTHROPIC_OAUTH_TOKEN",
    "ANTHROPIC_API_KEY",
    "OPENAI_API_KEY",
    "AZURE_OPENAI_API_KEY",
    "GEMINI_API_KEY",
    "GOOGLE_CLOUD_API_KEY",
    "DEEPSEEK_API_KEY",
    "GROQ_API_KEY",
    "CEREBRAS_API_KEY",
    "XAI_API_KEY",
    "OPENROUTER_API_KEY",
    "AI_GATEWAY_API_KEY",
    "ZAI_API_KEY",
    "MISTRAL_API_KEY",
    "MINIMAX_API_KEY",
    "MINIMAX_CN_API_KEY",
    "MOONSHOT_API_KEY",
    "HF_TOKEN",
    "FIREWORKS_API_KEY",
    "OPENCODE_API_KEY",
    "KIMI_API_KEY",
    "CLOUDFLARE_API_KEY",
    "COPILOT_GITHUB_TOKEN",
    # Vertex through application default credentials, and Bedrock's profile, region and
    # bearer token. General-purpose tokens (GH_TOKEN, GITHUB_TOKEN, AWS access keys) are not
    # inherited: the agent's tool shells would get them; pass them with ``env=``.
    "GOOGLE_CLOUD_PROJECT",
    "GCLOUD_PROJECT",
    "GOOGLE_CLOUD_LOCATION",
    "GOOGLE_APPLICATION_CREDENTIALS",
    "AWS_PROFILE",
    "AWS_REGION",
    "AWS_BEARER_TOKEN_BEDROCK",
)
"""What ``pi`` reads for its login and provider keys when run by hand; inherited in user mode."""


class PiCliEndpoint(SubprocessCliEndpoint):
    """Runs the pi coding agent headless and projects its JSON events (see ``_events``).

    Args:
        config: Endpoint config; defaults to :data:`PI_CONFIG`.
        argv: Program (and leading arguments) to run instead of ``pi``; the binary setting
            still replaces ``argv[0]``.
        terminate_grace: Seconds between SIGTERM and SIGKILL at teardown.
        settings: Deployment settings (:class:`~lionagi.service.AgenticSettings`).
    """

    def token_counts(self, usage: Mapping[str, Any]) -> tuple[int | None, int | None]:
        """Pi's own counts, summed over the run's assistant messages; input adds the cache.

        Pi's ``input`` leaves out ``cacheRead`` and ``cacheWrite`` (whatever the model's
        vendor reports); the GenAI conventions' input count includes them, and they are
        recorded on their own as well (:class:`TokenCounts`).
        """
        read = first_count(usage, "cacheRead")
        written = first_count(usage, "cacheWrite")
        return TokenCounts(
            sum_counts(first_count(usage, "input"), read, written),
            first_count(usage, "output"),
            cache_read=read,
            cache_creation=written,
        )

    default_config: ClassVar[Mapping[str, Any] | None] = PI_CONFIG
    prompt_mode: ClassVar[PromptMode] = "stdin"
    # Startup network work off (update and package checks, install ping); model calls are
    # unaffected. The deployment's own env wins.
    baseline_env: ClassVar[Mapping[str, str]] = {"PI_OFFLINE": "1", "PI_SKIP_VERSION_CHECK": "1"}
    capabilities: ClassVar[AgenticCapabilities | None] = AgenticCapabilities(
        transport="subprocess", resumable=True, emits_tool_events=True, reports_usage=True
    )
    request_type: ClassVar[type[BaseModel] | None] = PiRequest
    resume_field: ClassVar[str | None] = "resume"
    runtime_arg_keys: ClassVar[frozenset[str]] = frozenset({"on_text"})
    supports_gateway: ClassVar[bool] = True
    cli_binary: ClassVar[str | None] = PROGRAM.binary
    tested_version: ClassVar[str | None] = PROGRAM.tested_version
    install_hint: ClassVar[str | None] = PROGRAM.install_hint
    auth_hint: ClassVar[str | None] = PROGRAM.auth_hint
    user_inherit_env: ClassVar[tuple[str, ...]] = USER_ENV
    error_patterns: ClassVar[tuple[ProviderErrorPattern, ...]] = (
        # pi's whole message when the model's stream was cut off mid-answer (undici's abort).
        ProviderErrorPattern(
            "stream_disconnect",
            ProviderDisconnectError,
            r"\A\s*terminated\s*\Z",
            summary="stream disconnected before completion",
        ),
        # pi's whole message when the model's API could not be reached (0.73.1, a refused
        # connection and a host name that does not resolve alike): the OpenAI and Anthropic
        # SDKs' APIConnectionError, thrown when the request got no response at all. Core's
        # connection family, retryable like an HTTP connect failure. The whole message only:
        # the SDKs' timeout ("Request timed out.", below) and any longer text are not this rule's.
        ProviderErrorPattern(
            "connection",
            ProviderConnectionError,
            r"\A\s*connection error\.?\s*\Z",
            summary="could not connect to the model API",
        ),
        # pi's whole message when the model's API did not answer in time (0.73.1, with
        # ``retry.provider.timeoutMs`` set or the SDKs' 10-minute default): the OpenAI and
        # Anthropic SDKs' APIConnectionTimeoutError. Their timer stops once the response
        # headers arrive, so none of the answer had come; but the request had been sent (a
        # server that reads it and never answers gets this text), so the provider may have been
        # reached and may still be working on it (a connect that timed out reads the same: the
        # SDKs do not tell them apart). Not "could not connect", then: core's family for a
        # client's own timeout is the disconnect one, never retried by the lifecycle.
        ProviderErrorPattern(
            "stream_disconnect",
            ProviderDisconnectError,
            r"\A\s*request timed out\.?\s*\Z",
            summary="the model API did not answer in time",
        ),
        # pi's whole message when an OpenAI-compatible stream ended with a finish_reason it
        # counts as an error (0.73.1's openai-completions): ``content_filter`` is the provider's
        # filter stopping the answer; ``network_error`` the provider's own stream cut mid-answer
        # (which pi's auto-retry retries), the same family as "terminated".
        ProviderErrorPattern(
            "content_filter",
            ProviderContentFilterError,
            r"\A\s*provider finish_reason: content_filter\s*\Z",
            summary="the answer was stopped by the content filter",
        ),
        ProviderErrorPattern(
            "stream_disconnect",
            ProviderDisconnectError,
            r"\A\s*provider finish_reason: network_error\s*\Z",
            summary="stream disconnected before completion",
        ),
        # pi's words when the Anthropic stream it reads breaks the grammar (0.73.1's
        # ``anthropic-messages``): an event whose data is not JSON, and a message that began
        # but whose stream ended before ``message_stop``. What core's HTTP transport raises as
        # a protocol error for its own streams; never retried. Anchored at the start: the
        # parse failure quotes the event's data after these words.
        ProviderErrorPattern(
            "protocol",
            ProviderProtocolError,
            r"\A\s*(?:could not parse anthropic sse event\b"
            r"|anthropic stream ended before message_stop\s*\Z)",
            summary="the model API's stream broke its grammar",
        ),
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        """See :class:`~lionagi.service.agentic.SubprocessCliEndpoint` (same arguments)."""
        super().__init__(*args, **kwargs)
        self._gateway_models: set[str] = set()
        # The prompt files of each run in progress, by its request's identity (the object
        # core hands to run_resources is the one cli_arguments receives for that run).
        self._prompt_files: dict[int, tuple[PiRequest, PromptFiles]] = {}

    # -- deployment -------------------------------------------------------------------------------

    def gateway_env(self, settings: AgenticSettings) -> dict[str, str]:
        """The key travels in the environment only; ``models.json`` names the variable.

        Raises:
            EndpointConfigurationError: a key without a URL, or a gateway in the user's home
                (pi reads a custom provider only from its agent dir's ``models.json``; writing
                one into the user's own config is not the adapter's to do).
        """
        if settings.gateway_url is None:
            raise EndpointConfigurationError(
                "agentic_settings.gateway_api_key",
                "pi needs gateway_url with gateway_api_key (the key alone names no server)",
            )
        if settings.resolved_config_home() != "isolated":
            raise EndpointConfigurationError(
                "agentic_settings.gateway_url",
                "pi reads a gateway only from models.json in its agent dir; use "
                "config_home='isolated' so the adapter writes it into a private home",
            )
        key = settings.gateway_api_key
        return {GATEWAY_KEY_ENV: key.get_secret_value() if key is not None else "unused"}

    def gateway_args(self, settings: AgenticSettings) -> list[str]:
        """Select the provider the adapter defines in ``models.json``."""
        return ["--provider", GATEWAY_PROVIDER]

    def isolated_home_env(self, home: Path) -> dict[str, str]:
        """Point ``PI_CODING_AGENT_DIR`` into the isolated home (where ``~/.pi/agent`` would be)."""
        return {"PI_CODING_AGENT_DIR": str(agent_dir(home))}

    def seed_isolated_home(self, home: Path) -> None:
        """Headless settings: no retries, no install telemetry, quiet startup."""
        write_settings(home)

    # -- command ----------------------------------------------------------------------------------

    def cli_arguments(self, request: PiRequest, *, extra: Sequence[str] = ()) -> list[str]:
        """The flags after the program (the prompt goes to stdin): every flag its own element.

        ``extra`` holds the gateway flags (``--provider lionagi-gateway``); a request naming
        its own ``provider`` then conflicts and is refused, and one naming no ``thinking`` gets
        ``--thinking off`` (see ``_home.GATEWAY_MODEL``). System-prompt text is passed as the
        paths of the files :meth:`run_resources` wrote for this run; called outside a run with
        such text, it raises ValueError rather than put the text where pi reads it as a path.
        """
        files = self._run_prompt_files(request)
        provider: str | None = None
        if extra:
            if request.provider is not None:
                raise AgenticRequestValidationError(
                    "provider",
                    "the deployment gateway selects pi's provider; drop provider or the gateway",
                )
            provider = GATEWAY_PROVIDER
            # The gateway's models are declared reasoning (``_home.GATEWAY_MODEL``), for which
            # pi's own default level is "medium": a run that asks for none says "off".
            request = request.model_copy(
                update={
                    "model": request.model or DEFAULT_MODEL,
                    "thinking": request.thinking or "off",
                }
            )
        return pi_arguments(request, provider=provider, prompt_files=files)

    @contextmanager
    def run_resources(self, request: PiRequest) -> Iterator[None]:
        """The run's system prompts in private files, removed once the run is torn down.

        Core enters this before the process starts and exits it after the process group is
        reaped, on every path (success, provider error, cancellation, deadline, a launch that
        fails before any process exists). A run without system prompts writes nothing.
        """
        if request.system_prompt is None and not request.append_system_prompt:
            yield
            return
        files = PromptFiles.write(request.system_prompt, request.append_system_prompt)
        self._prompt_files[id(request)] = (request, files)
        try:
            yield
        finally:
            self._prompt_files.pop(id(request), None)
            files.remove()

    def _run_prompt_files(self, request: PiRequest) -> PromptFiles | None:
        """The files :meth:`run_resources` wrote for this very request object, if any."""
        entry = self._prompt_files.get(id(request))
        return entry[1] if entry is not None and entry[0] is request else None

    def injects_resume(self, request: Mapping[str, Any]) -> bool:
        """No stored session for an ephemeral run: it saves none, so it continues none.

        ``ephemeral`` is read as validation will see it (the call's value over the configured
        ``request_defaults``). The stored session is left as it was: an ephemeral run only
        observes its id, so the next normal call resumes the last saved session.
        """
        defaults = self.config.request_defaults or {}
        ephemeral = request.get("ephemeral", defaults.get("ephemeral", False))
        return ephemeral is not True

    def event_parser(self, request: PiRequest) -> PiEventProjector:
        """A projector for one run; an ephemeral run confirms no session."""
        return PiEventProjector(resumable=not request.ephemeral)

    def prepare_launch(self, request: PiRequest, launch: AgenticLaunch) -> None:
        """Write ``models.json`` listing every model this endpoint ran through the gateway."""
        home = self.isolated_home
        url = self.settings.gateway_url
        if not launch.args or home is None or url is None:
            return
        self._gateway_models.add(request.model or DEFAULT_MODEL)
        write_models_file(home, url, self._gateway_models)
