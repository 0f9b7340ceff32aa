"""``config_home="user"`` runs a CLI as a person would: with their keys, proxies and CA bundles.

User mode promises the run a person gets typing the CLI's name in their shell, and the auth
hints say "or set ANTHROPIC_API_KEY". A child that received only HOME, the locale and the XDG
dirs could keep neither promise (a key in the environment read "Not logged in"; behind a
corporate proxy nothing connected). User mode now also inherits the network environment (core)
and the credential and config names the adapter declares (``user_inherit_env``, the vendor's);
isolated mode inherits none of them. Inherited credentials are redacted like a gateway key, and
a gateway or ``env=`` value still wins over the caller's own.

Every launch here is a real child (the ``replay`` fake, or a small script that echoes a key),
whose environment is what is checked.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any, ClassVar

import pytest

from lionagi.service import EventStatus, ProviderError, iModel
from lionagi.service.agentic import SubprocessCliEndpoint
from lionagi.service_testing.fake_clis import fake_cli_argv
from lionagi.service_testing.reference_cli import ReferenceCliEndpoint

KEY = "acme-key-marker-4c1d9e7f"
NETWORK = {
    "HTTPS_PROXY": "http://proxy.corp.example:3128",
    "https_proxy": "http://proxy.corp.example:3129",
    "HTTP_PROXY": "http://proxy.corp.example:3130",
    "http_proxy": "http://proxy.corp.example:3131",
    "NO_PROXY": "localhost,.corp.example",
    "no_proxy": "127.0.0.1",
    "ALL_PROXY": "socks5://proxy.corp.example:1080",
    "all_proxy": "socks5://proxy.corp.example:1081",
    "SSL_CERT_FILE": "/etc/corp/ca.pem",
    "SSL_CERT_DIR": "/etc/corp/certs",
    "NODE_EXTRA_CA_CERTS": "/etc/corp/extra.pem",
}
DECLARED = {"ACME_API_KEY": KEY, "ACME_BASE_URL": "https://acme.example/v1"}
UNDECLARED = {"OTHER_API_KEY": "other-key-marker-0b2e4a61", "ACME_DEBUG": "1"}
LOGGED = [*NETWORK, *DECLARED, *UNDECLARED, "LIONAGI_REFERENCE_GATEWAY_KEY"]


class AcmeEndpoint(ReferenceCliEndpoint):
    """A vendor adapter whose CLI reads its key and base URL from the environment."""

    user_inherit_env: ClassVar[tuple[str, ...]] = (
        "ACME_API_KEY",
        "ACME_BASE_URL",
        "LIONAGI_REFERENCE_GATEWAY_KEY",
    )


@pytest.fixture
def caller_env(user_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The caller's shell: proxies, CA bundles, the vendor's key and an unrelated key."""
    for name, value in {**NETWORK, **DECLARED, **UNDECLARED}.items():
        monkeypatch.setenv(name, value)


async def child_env(replay: Any, endpoint: SubprocessCliEndpoint) -> dict[str, str | None]:
    async with iModel(endpoint=endpoint) as model:
        call = await model.invoke(prompt="hi")
    assert call.status is EventStatus.COMPLETED, call.execution.error
    env: dict[str, str | None] = replay.launch()["env"]
    return {name: value for name, value in env.items() if value is not None}


async def test_user_mode_passes_network_and_declared_names(replay: Any, caller_env: None) -> None:
    replay.write(log_env=LOGGED)
    endpoint = AcmeEndpoint(argv=replay.argv, settings={"config_home": "user"})
    assert await child_env(replay, endpoint) == {**NETWORK, **DECLARED}


async def test_user_mode_passes_the_network_to_any_adapter(replay: Any, caller_env: None) -> None:
    # An adapter declaring no names still gets the proxies: they are nobody's grammar.
    replay.write(log_env=LOGGED)
    endpoint = ReferenceCliEndpoint(argv=replay.argv, settings={"config_home": "user"})
    assert await child_env(replay, endpoint) == NETWORK


async def test_isolated_mode_inherits_none_of_them(replay: Any, caller_env: None) -> None:
    replay.write(log_env=LOGGED)
    endpoint = AcmeEndpoint(argv=replay.argv, settings={"config_home": "isolated"})
    assert await child_env(replay, endpoint) == {}
    # The user-mode launch does inherit them: the difference is the mode, not the adapter.
    user = AcmeEndpoint(argv=replay.argv, settings={"config_home": "user"}).launch_settings()
    assert {*NETWORK, *DECLARED} <= set(user.inherit_env)


async def test_gateway_and_env_win_over_inherited_values(
    replay: Any, caller_env: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LIONAGI_REFERENCE_GATEWAY_KEY", "callers-own-gateway-key-3f9a")
    replay.write(log_env=LOGGED)
    settings = {
        "config_home": "user",
        "gateway_url": "http://127.0.0.1:9/v1",
        "gateway_api_key": "deployment-gateway-key-81c2",
        "env": {"ACME_BASE_URL": "https://explicit.example/v1"},
    }
    endpoint = AcmeEndpoint(argv=replay.argv, settings=settings)
    env = await child_env(replay, endpoint)
    assert env["LIONAGI_REFERENCE_GATEWAY_KEY"] == "deployment-gateway-key-81c2"
    assert env["ACME_BASE_URL"] == "https://explicit.example/v1"
    assert env["ACME_API_KEY"] == KEY  # a name neither sets is still the caller's
    secrets = endpoint.launch_settings().secrets
    assert KEY in secrets
    assert "callers-own-gateway-key-3f9a" not in secrets  # never reached the child


def echo_script(tmp_path: Path, *, stderr: bool) -> list[str]:
    """A CLI that quotes its ``ACME_API_KEY`` in an error event, or on stderr and exits 1."""
    body = (
        "import json, os, sys\n"
        "message = '401 Unauthorized: key ' + str(os.environ.get('ACME_API_KEY')) + ' refused'\n"
        + (
            "sys.stderr.write(message + '\\n')\nsys.exit(1)\n"
            if stderr
            else "print(json.dumps({'type': 'error', 'message': message, 'kind': 'auth'}))\n"
        )
    )
    script = tmp_path / "echo_key.py"
    script.write_text(body, encoding="utf-8")
    return [sys.executable, "-I", "-S", os.fspath(script)]


@pytest.mark.parametrize("stderr", [False, True], ids=["error-event", "stderr"])
async def test_an_inherited_key_is_redacted_like_a_gateway_key(
    tmp_path: Path, caller_env: None, stderr: bool
) -> None:
    # The endpoint's own stream, not iModel's: a caller of AgenticEndpoint.stream gets the
    # adapter's error chunk as is, so the launch's secrets are all that stands between it and
    # the key (iModel's later process-wide redaction is a second line, not the first).
    endpoint = AcmeEndpoint(
        argv=echo_script(tmp_path, stderr=stderr), settings={"config_home": "user"}
    )
    seen = []
    text = ""
    try:
        async for chunk in endpoint.stream({"prompt": "hi"}, timeout=60):
            seen.append(chunk)
    except ProviderError as exc:
        text = str(exc) + repr(exc.__dict__)
    finally:
        await endpoint.aclose()
    text += repr(seen)
    assert KEY not in text
    # The child did receive the key and echoed it: the echo is redacted, not missing.
    assert "key [REDACTED] refused" in text


def test_inherited_secrets_follow_the_credential_name_rule(
    caller_env: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    class Flags(ReferenceCliEndpoint):
        user_inherit_env: ClassVar[tuple[str, ...]] = (
            "ACME_API_KEY",
            "ACME_BASE_URL",
            "ACME_SKIP_AUTH",
        )

    monkeypatch.setenv("ACME_SKIP_AUTH", "1")  # a credential-looking flag, too short to redact
    launch = Flags(argv=fake_cli_argv("echo"), settings={"config_home": "user"}).launch_settings()
    assert launch.secrets == (KEY,)


async def test_a_proxy_url_with_credentials_is_not_shown(
    tmp_path: Path, user_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # What the child may print about its proxy: userinfo is redacted by shape, as anywhere.
    monkeypatch.setenv("HTTPS_PROXY", "http://alice:proxy-pass-7d3e@proxy.corp.example:3128")
    script = tmp_path / "proxy.py"
    script.write_text(
        "import json, os\n"
        "print(json.dumps({'type': 'error', 'kind': 'network',"
        " 'message': 'proxy refused: ' + str(os.environ.get('HTTPS_PROXY'))}))\n",
        encoding="utf-8",
    )
    endpoint = ReferenceCliEndpoint(
        argv=[sys.executable, "-I", "-S", os.fspath(script)], settings={"config_home": "user"}
    )
    async with iModel(endpoint=endpoint) as model:
        with pytest.raises(ProviderError) as info:
            async for _ in model.stream(prompt="hi", timeout=60):
                pass
    assert "proxy-pass-7d3e" not in str(info.value)
    assert "proxy.corp.example" in str(info.value)  # the child did see the proxy
