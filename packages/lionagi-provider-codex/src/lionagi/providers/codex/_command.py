"""Argv, gateway and headless-home mapping for ``codex exec`` (Codex CLI 0.171.0).

Why each choice (all checked against the real binary):

* ``exec --json`` prints one JSON event per line on stdout; the prompt goes after ``--`` and
  stdin is /dev/null, because codex reads a piped stdin to EOF and would append it to the prompt.
* A gateway is a custom model provider defined with two ``-c`` overrides (codex cannot take a
  base URL from the environment): ``model_provider="lionagi"`` and ``model_providers.lionagi=
  {name=..., base_url="<gateway>/v1", env_key=..., wire_api="responses"}``.
  The key travels in :data:`GATEWAY_KEY_ENV`, never in argv.
* Fail fast in an isolated home: retries are per provider in codex
  (``stream_max_retries``/``request_max_retries``; at the top level 0.171.0 ignores them with a
  warning). With them at 0 a 401 ends in ~0.4 s instead of 6.7 s of "Reconnecting... n/5".
  The ``unbounded_connection_retries`` feature makes codex wait for the network forever when
  the gateway is down; the seeded config turns it off, so a refused connection is a
  ``turn.failed`` ("Connection failed: ...") at once.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

from lionagi.service import AgenticSettings

from ._request import CodexRequest

__all__ = [
    "CODEX_DIR",
    "GATEWAY_KEY_ENV",
    "GATEWAY_PROVIDER",
    "HEADLESS_CONFIG",
    "build_argv",
    "gateway_args",
    "gateway_base_url",
    "seed_codex_home",
]

GATEWAY_PROVIDER = "lionagi"
GATEWAY_KEY_ENV = "LIONAGI_CODEX_GATEWAY_KEY"
CODEX_DIR = ".codex"

HEADLESS_CONFIG = """\
# Written by lionagi-provider-codex for an isolated, headless run.
check_for_update_on_startup = false

[analytics]
enabled = false

[features]
unbounded_connection_retries = false
plugins = false
"""
"""``$CODEX_HOME/config.toml`` of an isolated home: no update check, no analytics, no endless
wait for the network, no plugin sync (0.171.0 otherwise runs ``git ls-remote`` against GitHub at
every start). Every key is one 0.171.0 recognizes (it warns about unknown keys)."""


def gateway_base_url(url: str) -> str:
    """The provider ``base_url`` for a gateway root: ``<url>/v1`` unless it already ends so.

    Codex appends ``/responses`` to the provider's base URL; gateways are configured by their
    root (as for the other CLIs), and a URL already naming ``/v1`` is kept as it is.
    """
    parts = urlsplit(url)
    path = parts.path.rstrip("/")
    if not path.endswith("/v1"):
        path = f"{path}/v1"
    return urlunsplit((parts.scheme, parts.netloc, path, parts.query, ""))


def _toml(value: str) -> str:
    """A TOML basic string (JSON's escapes are a subset TOML accepts)."""
    return json.dumps(value)


def gateway_args(settings: AgenticSettings) -> list[str]:
    """The ``-c`` overrides that define and select the gateway provider (empty without one)."""
    if settings.gateway_url is None:
        return []
    fields = [
        f"name={_toml('lionagi gateway')}",
        f"base_url={_toml(gateway_base_url(settings.gateway_url))}",
        'wire_api="responses"',
    ]
    if settings.gateway_api_key is not None:
        fields.append(f"env_key={_toml(GATEWAY_KEY_ENV)}")
    if settings.resolved_config_home() == "isolated":
        fields += ["stream_max_retries=0", "request_max_retries=0"]
    table = "{" + ",".join(fields) + "}"
    return [
        "-c",
        f"model_provider={_toml(GATEWAY_PROVIDER)}",
        "-c",
        f"model_providers.{GATEWAY_PROVIDER}={table}",
    ]


def build_argv(
    request: CodexRequest, *, prefix: Sequence[str], extra: Sequence[str] = ()
) -> list[str]:
    """``prefix`` + ``exec --json`` + gateway ``extra`` + the request's flags (no prompt).

    Every flag and every value is its own element; the prompt is appended by core after ``--``.
    """
    argv = [*prefix, "exec", "--json", *extra, "-m", request.model]
    if request.reasoning_effort is not None:
        argv += ["-c", f"model_reasoning_effort={_toml(request.reasoning_effort)}"]
    if request.fast_mode:
        argv += ["-c", 'service_tier="fast"']
    sandbox = request.sandbox_mode()
    if request.bypass_approvals:
        argv.append("--dangerously-bypass-approvals-and-sandbox")
    elif sandbox is not None:
        argv += ["--sandbox", sandbox]
    if request.skip_git_repo_check:
        argv.append("--skip-git-repo-check")
    if request.ephemeral:
        argv.append("--ephemeral")
    return argv


def seed_codex_home(home: Path) -> Path:
    """Create ``home/.codex`` with :data:`HEADLESS_CONFIG`; return the folder (``CODEX_HOME``)."""
    folder = home / CODEX_DIR
    folder.mkdir(mode=0o700, exist_ok=True)
    (folder / "config.toml").write_text(HEADLESS_CONFIG, encoding="utf-8")
    return folder
