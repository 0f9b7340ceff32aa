"""Each CLI adapter's user mode passes the variables its CLI reads when run by hand.

``lionagi-service doctor`` tells a user "set ANTHROPIC_API_KEY" (claude), "set OPENAI_API_KEY"
(codex), "set GEMINI_API_KEY" (gemini) or "the provider's key" (pi); the docs promise the run a
person gets in their own shell. Here each real adapter launches a real child (the ``replay``
fake in place of the vendor binary) with those variables set in this process, and the child's
own environment is checked: all of them in user mode, none in isolated mode.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lionagi.providers.claude_code import ClaudeCodeEndpoint
from lionagi.providers.codex import CodexCliEndpoint
from lionagi.providers.gemini_cli import GeminiCodeEndpoint
from lionagi.providers.pi import PiCliEndpoint
from lionagi.service import ProviderError
from lionagi.service.agentic import SubprocessCliEndpoint
from lionagi.service_testing.fake_clis import fake_cli_argv

# What the auth hint and the provider page name, plus the config dir a user may have moved.
EXPECTED: dict[type[SubprocessCliEndpoint], tuple[str, ...]] = {
    ClaudeCodeEndpoint: (
        "ANTHROPIC_API_KEY",
        "ANTHROPIC_AUTH_TOKEN",
        "ANTHROPIC_BASE_URL",
        "CLAUDE_CONFIG_DIR",
        "CLAUDE_CODE_USE_BEDROCK",
        "CLAUDE_CODE_USE_VERTEX",
    ),
    CodexCliEndpoint: ("OPENAI_API_KEY", "OPENAI_BASE_URL", "CODEX_HOME"),
    GeminiCodeEndpoint: (
        "GEMINI_API_KEY",
        "GOOGLE_API_KEY",
        "GOOGLE_CLOUD_PROJECT",
        "GOOGLE_APPLICATION_CREDENTIALS",
        "GOOGLE_GENAI_USE_VERTEXAI",
    ),
    PiCliEndpoint: ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "GEMINI_API_KEY", "PI_CODING_AGENT_DIR"),
}
PROXY = {"HTTPS_PROXY": "http://proxy.corp.example:3128", "NODE_EXTRA_CA_CERTS": "/etc/ca.pem"}
ADAPTERS = pytest.mark.parametrize("cls", list(EXPECTED), ids=lambda cls: cls.__name__)


def value_of(name: str) -> str:
    return f"{name.lower()}-value-5e0c"


async def launched_env(
    tmp_path: Path, cls: type[SubprocessCliEndpoint], mode: str, names: list[str]
) -> dict[str, str | None]:
    """Run ``cls`` on the replay fake (no events) and return the child's view of ``names``."""
    log = tmp_path / "launch.jsonl"
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps({"events": [], "log": str(log), "log_env": names}))
    endpoint = cls(argv=fake_cli_argv("replay", str(plan)), settings={"config_home": mode})
    try:
        async for _ in endpoint.stream({"prompt": "hi"}, timeout=60):
            pass
    except ProviderError:
        pass  # no events is no answer in any vendor's grammar; the launch is what counts
    finally:
        await endpoint.aclose()
    records = [json.loads(line) for line in log.read_text().splitlines()]
    (launch,) = [r for r in records if "launched" in r]
    env: dict[str, str | None] = launch["env"]
    return env


@pytest.fixture
def caller_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "user-home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    for names in EXPECTED.values():
        for name in names:
            monkeypatch.setenv(name, value_of(name))
    for name, value in PROXY.items():
        monkeypatch.setenv(name, value)


@ADAPTERS
async def test_user_mode_passes_the_clis_own_variables(
    tmp_path: Path, caller_env: None, cls: type[SubprocessCliEndpoint]
) -> None:
    names = [*EXPECTED[cls], *PROXY]
    env = await launched_env(tmp_path, cls, "user", names)
    assert env == {**{name: value_of(name) for name in EXPECTED[cls]}, **PROXY}


@ADAPTERS
async def test_isolated_mode_passes_none_of_them(
    tmp_path: Path, caller_env: None, cls: type[SubprocessCliEndpoint]
) -> None:
    names = [*EXPECTED[cls], *PROXY]
    env = await launched_env(tmp_path, cls, "isolated", names)
    # An isolated home sets its own config dir (CODEX_HOME, PI_CODING_AGENT_DIR, ...).
    assert all(env[name] != value_of(name) for name in EXPECTED[cls])
    assert all(env[name] is None for name in PROXY)
    user = cls(settings={"config_home": "user"}).launch_settings()
    assert set(EXPECTED[cls]) <= set(user.inherit_env)


@ADAPTERS
def test_inherited_keys_are_launch_secrets(
    caller_env: None, cls: type[SubprocessCliEndpoint]
) -> None:
    secrets = cls(settings={"config_home": "user"}).launch_settings().secrets
    keys = [name for name in EXPECTED[cls] if name.endswith(("_API_KEY", "_AUTH_TOKEN"))]
    assert keys
    assert {value_of(name) for name in keys} <= set(secrets)
    assert value_of("ANTHROPIC_BASE_URL") not in secrets  # not a credential name
