"""Secret scan: unique markers configured everywhere a credential goes never appear anywhere.

Markers are opaque (``S<label><hex>``: no generic key shape matches them), so only the library's
knowledge of what was configured can hide them. They are set as the API key (passed, and read
from the row's key variable), a credential header, URL userinfo, agentic ``env`` values and the
gateway key. Every installed catalog row runs: each HTTP row against the fake provider server
with error scenarios (the server echoes the credential it received in its 401 body), each CLI
row against a fake CLI that prints its whole environment and argv on stderr and stdout.

Surfaces scanned: ``repr``/``str``/``to_dict``/JSON of the model and its endpoint config, the
call event, every streamed chunk, exceptions with their chained tracebacks, every log record at
DEBUG on every logger, the catalog report, and the command line's stdout and stderr.
"""

from __future__ import annotations

import base64
import binascii
import dataclasses
import json
import logging
import os
import re
import stat
import subprocess
import sys
import traceback
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal, get_args, get_origin
from urllib.parse import urlsplit

import pytest

from lionagi.service import EndpointRegistry, ProviderError, match_endpoint
from lionagi.service import iModel as IModel
from lionagi.service.agentic import SubprocessCliEndpoint
from lionagi.service_testing import FakeProviderServer

pytestmark = pytest.mark.filterwarnings("ignore::ResourceWarning")


def _marker(label: str) -> str:
    return f"S{label}{uuid.uuid4().hex}"


MARKERS = {
    "api_key": _marker("key"),
    "env_key": _marker("envkey"),
    "header": _marker("header"),
    "userinfo": _marker("userinfo"),
    "cli_env": _marker("clienv"),
    "gateway_key": _marker("gateway"),
}

_REPORT = EndpointRegistry.inspect()
_ROWS = [
    (item["provider"], endpoint["endpoint"], endpoint["endpoint_type"])
    for item in _REPORT["providers"]
    for endpoint in item["endpoints"]
]
HTTP_ROWS = [(p, e) for p, e, kind in _ROWS if kind != "agentic"]
_SNAPSHOT = EndpointRegistry.snapshot()


def _runs_a_program(provider: str, endpoint: str) -> bool:
    """A subprocess CLI row (the fake CLI can stand in for its program); in-process and remote
    agentic rows (AG2) run no program."""
    cls = _SNAPSHOT.provider(provider).endpoints[endpoint].resolved_class
    return isinstance(cls, type) and issubclass(cls, SubprocessCliEndpoint)


CLI_ROWS = [p for p, e, kind in _ROWS if kind == "agentic" and _runs_a_program(p, e)]
CLI_MODELS = {"codex": "gpt-5", "claude_code": "sonnet", "gemini_code": "gemini-2.5-pro"}

INVOKE_SCENARIOS = ("401", "403", "500", "non_json_200", "hostile_content_type", "malformed")
STREAM_SCENARIOS = ("401", "stream_error", "malformed", "invalid_utf8", "disconnect_after")


_BASE64ISH = re.compile(r"[A-Za-z0-9+/_-]{16,}={0,2}")


def _decoded(text: str) -> str:
    """Every base64-looking run of ``text`` decoded (a Basic credential hides its password so)."""
    found: list[str] = []
    for run in _BASE64ISH.findall(text):
        for decode in (base64.b64decode, base64.urlsafe_b64decode):
            for cut in range(4):  # the credential may start at any offset inside the run
                piece = run[cut:]
                piece = piece[: len(piece) - len(piece) % 4] if "=" not in piece else piece
                try:
                    found.append(decode(piece).decode("utf-8", "ignore"))
                except (binascii.Error, ValueError):
                    continue
    return "\n".join(found)


def scan(*surfaces: object) -> None:
    """Fail naming the marker and the surface that carried it, in clear or in base64."""
    for surface in surfaces:
        text = surface if isinstance(surface, str) else repr(surface)
        decoded = _decoded(text)
        for label, value in MARKERS.items():
            assert value not in text, f"marker {label} leaked in: {text[:2000]}"
            assert value not in decoded, f"marker {label} leaked in base64 in: {text[:2000]}"


def exception_text(exc: BaseException | None) -> str:
    if exc is None:
        return ""
    return "".join(traceback.format_exception(exc)) + str(exc) + repr(exc)


@pytest.fixture
def debug_logs(caplog: pytest.LogCaptureFixture) -> Iterator[pytest.LogCaptureFixture]:
    """Every logger that exists (and the root, for later ones) at DEBUG, captured."""
    caplog.set_level(logging.DEBUG)
    for name in list(logging.root.manager.loggerDict):
        caplog.set_level(logging.DEBUG, logger=name)
    yield caplog
    scan(caplog.text, *(r.getMessage() for r in caplog.records))
    for record in caplog.records:
        if record.exc_info and record.exc_info[1] is not None:
            scan(exception_text(record.exc_info[1]))


def _request(provider: str, endpoint: str) -> tuple[dict[str, Any], bool]:
    """A valid request for the row, and whether the row's model field is needed."""
    options = match_endpoint(provider, endpoint).config.request_options
    fields = options.model_fields if options is not None else {}
    request: dict[str, Any] = {}
    if "messages" in fields:
        request["messages"] = [{"role": "user", "content": "hi"}]
    elif "contents" in fields and "model" in fields:
        request["contents"] = [{"role": "user", "parts": [{"text": "hi"}]}]
    elif "content" in fields and "model" in fields:  # Gemini's native embedContent
        request["content"] = {"parts": [{"text": "hi"}]}
    elif "requests" in fields and "model" in fields:  # ... and batchEmbedContents
        request["requests"] = [{"content": {"parts": [{"text": "hi"}]}}]
    elif "input" in fields:
        request["input"] = "hi"
    elif "prompt" in fields:
        request["prompt"] = "hi"
    elif "query" in fields:
        request["query"] = "hi"
    elif "url" in fields:
        request["url"] = "https://example.com/"
    elif "ids" in fields:
        request["ids"] = ["doc-1"]
    if "max_tokens" in fields and fields["max_tokens"].is_required():
        request["max_tokens"] = 16
    return request, "model" in fields


def _model(
    provider: str, endpoint: str, server: FakeProviderServer, *, variant: str, scenario: str
) -> IModel:
    catalog = match_endpoint(provider, endpoint).config
    path = urlsplit(catalog.base_url or "").path.rstrip("/")
    port = server.base_url.rsplit(":", 1)[1]
    _, needs_model = _request(provider, endpoint)
    kwargs: dict[str, Any] = {
        "provider": provider,
        "endpoint": endpoint,
        "base_url": f"http://127.0.0.1:{port}{path}",
        "allow_local_network": True,
        "max_retries": 1,
        "default_headers": {"X-Scan-Auth": MARKERS["header"], "x-fake-behaviour": scenario},
    }
    if needs_model:
        kwargs["model"] = _model_name(provider, endpoint)
    if variant == "api_key" and catalog.auth_type != "none":  # a keyless row refuses a key
        kwargs["api_key"] = MARKERS["api_key"]
    # URL userinfo goes beside a key sent in a header of its own; a key sent as the bearer
    # Authorization cannot share the request with it (refused), so those rows get the
    # userinfo on its own in the "userinfo" variant (the only credential, auth_type "none").
    if variant == "userinfo" or not _bearer(provider, endpoint):
        kwargs["base_url"] = f"http://scan:{MARKERS['userinfo']}@127.0.0.1:{port}{path}"
    if variant == "userinfo":
        kwargs["auth_type"] = "none"
    return IModel(**kwargs)


def _model_name(provider: str, endpoint: str) -> str:
    """A model name the row accepts: its first listed one when the field is a closed list."""
    options = match_endpoint(provider, endpoint).config.request_options
    assert options is not None
    annotation = options.model_fields["model"].annotation
    stack = [annotation]
    while stack:
        current = stack.pop()
        if get_origin(current) is Literal:
            return str(get_args(current)[0])
        stack.extend(get_args(current))
    return "scan-model"


def _bearer(provider: str, endpoint: str) -> bool:
    return match_endpoint(provider, endpoint).config.auth_type == "bearer"


def _dumps(model: IModel) -> list[object]:
    endpoint = model.endpoint
    config = endpoint.config
    data = model.to_dict()
    return [
        repr(model),
        str(model),
        data,
        json.dumps(data, default=str),
        repr(endpoint),
        str(endpoint),
        repr(config),
        str(config),
        config.model_dump(),
        config.model_dump_json(),
    ]


async def _drain(model: IModel, request: dict[str, Any]) -> tuple[list[object], Exception | None]:
    """Every chunk a stream yields and the exception that ended it (scanned, never judged)."""
    chunks: list[object] = []
    try:
        async for chunk in model.stream(**request):
            chunks.append(chunk)
            # Every field, metadata included (a slots dataclass has no ``vars``; calling it
            # raised TypeError after the first chunk, which ended the scan there unseen).
            chunks.append(dataclasses.asdict(chunk))
    except ProviderError as exc:  # every provider error is scanned by the caller
        return chunks, exc
    return chunks, None


def _event_dumps(call: Any) -> list[object]:
    return [call.execution.to_dict(), call.model_dump(), call.model_dump_json(), str(call)]


def _variants(provider: str, endpoint: str) -> list[str]:
    env = match_endpoint(provider, endpoint).config.api_key_env
    variants = ["api_key", "env_key"] if env else ["api_key"]
    return [*variants, "userinfo"] if _bearer(provider, endpoint) else variants


HTTP_CASES = [
    pytest.param(p, e, v, id=f"{p}/{e}/{v}") for p, e in HTTP_ROWS for v in _variants(p, e)
]


def test_the_scan_covers_every_installed_row() -> None:
    assert len(HTTP_ROWS) >= 15
    assert set(CLI_ROWS) >= {"codex", "claude_code", "gemini_code", "pi"}


@pytest.mark.parametrize(("provider", "endpoint", "variant"), HTTP_CASES)
async def test_http_row_never_shows_a_configured_secret(
    provider: str,
    endpoint: str,
    variant: str,
    debug_logs: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    env_name = match_endpoint(provider, endpoint).config.api_key_env
    if variant == "env_key":
        assert env_name is not None
        monkeypatch.setenv(env_name, MARKERS["env_key"])
    request, _ = _request(provider, endpoint)
    streams = type(match_endpoint(provider, endpoint)).projector is not None
    async with FakeProviderServer() as server:
        scenarios = [(s, False) for s in INVOKE_SCENARIOS]
        if streams:
            scenarios += [(s, True) for s in STREAM_SCENARIOS]
        for scenario, stream in scenarios:
            async with _model(
                provider, endpoint, server, variant=variant, scenario=scenario
            ) as model:
                scan(*_dumps(model))
                if stream:
                    chunks, error = await _drain(model, request)
                    scan(*chunks, exception_text(error))
                else:
                    call = await model.invoke(**request)
                    scan(
                        repr(call),
                        *_event_dumps(call),
                        call.execution.error,
                        exception_text(call.exception),
                    )
                    if scenario in ("401", "403", "500"):
                        assert call.exception is not None, scenario
                scan(*_dumps(model), model.endpoint.copy())
        received = [r.headers for r in server.requests]
    # the markers really were sent: the scan is not vacuous
    sent = json.dumps(received)
    assert MARKERS["header"] in sent
    # (the fake server records credentials redacted, so the key itself cannot be checked here)


# -- CLI rows ------------------------------------------------------------------------------------

_FAKE = """#!/bin/sh
if [ "$1" = "--version" ]; then echo "fake 99.1.0"; exit 0; fi
mode="{mode}"
if [ "$mode" = "stderr" ]; then env >&2; echo "argv: $*" >&2; exit 1; fi
if [ "$mode" = "stdout" ]; then env; echo "argv: $*"; exit 0; fi
if [ "$mode" = "event" ]; then
  printf '{{"type": "error", "message": "%s"}}\\n' "$(env | tr '\\n"' '  ')"
  exit 1
fi
"""


def _fake_cli(tmp_path: Path, mode: str) -> Path:
    path = tmp_path / f"fake-{mode}"
    path.write_text(_FAKE.format(mode=mode))
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def _cli_settings(binary: Path) -> dict[str, Any]:
    return {
        "binary": str(binary),
        "env": {"SCAN_PLAIN": MARKERS["cli_env"]},
        "gateway_url": "http://127.0.0.1:9/v1",
        "gateway_api_key": MARKERS["gateway_key"],
        "config_home": "isolated",
    }


@pytest.mark.parametrize("mode", ["stderr", "stdout", "event"])
@pytest.mark.parametrize("provider", CLI_ROWS)
async def test_cli_row_never_shows_a_configured_secret(
    provider: str, mode: str, tmp_path: Path, debug_logs: pytest.LogCaptureFixture
) -> None:
    binary = _fake_cli(tmp_path, mode)
    model = IModel(
        model=f"{provider}/{CLI_MODELS.get(provider, 'fake/m')}",
        agentic_settings=_cli_settings(binary),
    )
    async with model:
        scan(*_dumps(model), model.endpoint.settings)
        call = await model.invoke(prompt="hello")
        scan(repr(call), *_event_dumps(call), call.execution.error, exception_text(call.exception))
        chunks, error = await _drain(model, {"prompt": "hello"})
        scan(*chunks, exception_text(error))
        scan(*_dumps(model))
    if call.exception is None:
        # Only a CLI that reads plain stdout lines as notices (gemini) completes on the fake's
        # ``env`` output; then those lines, the environment, were the chunks scanned above.
        assert mode == "stdout"
        assert any(getattr(chunk, "type", None) == "system" for chunk in chunks)
    # Otherwise the fake failed the call: the error path really ran.


# -- command line --------------------------------------------------------------------------------

_SCRIPT = Path(sys.executable).with_name("lionagi-service")


def _main(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    """The command line run in this process (``main(argv)``): what it printed, both streams."""
    from lionagi.service.cli import main

    main(list(args))
    captured = capsys.readouterr()
    return captured.out + captured.err


def _http_chat_args(
    server: FakeProviderServer, scenario: str, *, userinfo: bool = False
) -> list[str]:
    port = server.base_url.rsplit(":", 1)[1]
    auth = f"scan:{MARKERS['userinfo']}@" if userinfo else ""
    base = f"http://{auth}127.0.0.1:{port}/scenario/{scenario}/v1"
    return [
        "chat",
        "openai/scan-model",
        "hi",
        "--base-url",
        base,
        "--allow-local-network",
        "--api-key-env",
        "SCAN_CLI_KEY",
    ]


def _cli_chat_args(provider: str, binary: Path) -> list[str]:
    return [
        "chat",
        f"{provider}/{CLI_MODELS.get(provider, 'fake/m')}",
        "hi",
        "--binary",
        str(binary),
        "--env",
        "SCAN_ENV",
        "--gateway-url",
        "http://127.0.0.1:9/v1",
        "--gateway-key-env",
        "SCAN_GW_KEY",
        "--config-home",
        "isolated",
    ]


_CLI_ENV = {
    "SCAN_CLI_KEY": MARKERS["env_key"],
    "SCAN_GW_KEY": MARKERS["gateway_key"],
    "SCAN_ENV": MARKERS["cli_env"],
}


@pytest.mark.parametrize("scenario", ["401", "403", "stream_error", "malformed"])
def test_command_line_http_output_never_shows_a_secret(
    scenario: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    for name, value in _CLI_ENV.items():
        monkeypatch.setenv(name, value)
    with FakeProviderServer.running_in_thread() as server:
        for extra in ([], ["--json"]):
            scan(_main(capsys, *_http_chat_args(server, scenario), *extra))
        assert len(server.requests) >= 2  # both runs reached the server
        # userinfo beside the bearer key is refused, naming the flag typed, never showing it
        sent = len(server.requests)
        for extra in ([], ["--json"]):
            output = _main(capsys, *_http_chat_args(server, scenario, userinfo=True), *extra)
            scan(output)
            assert "--base-url" in output
        assert len(server.requests) == sent


@pytest.mark.parametrize("provider", CLI_ROWS)
def test_command_line_cli_output_never_shows_a_secret(
    provider: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for name, value in _CLI_ENV.items():
        monkeypatch.setenv(name, value)
    for mode in ("stderr", "event"):
        out = _main(capsys, *_cli_chat_args(provider, _fake_cli(tmp_path, mode)), "--json")
        scan(out)
        assert out.strip()  # the failure was reported


def test_catalog_report_and_doctor_never_show_a_secret(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    env = {
        **_CLI_ENV,
        "OPENAI_API_KEY": MARKERS["env_key"],
        "ANTHROPIC_API_KEY": MARKERS["api_key"],
    }
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    scan(json.dumps(EndpointRegistry.inspect(), default=str))
    for args in (["providers"], ["providers", "--json"], ["doctor"]):
        scan(_main(capsys, *args))


def test_the_installed_command_in_a_subprocess_never_shows_a_secret(tmp_path: Path) -> None:
    """The console script itself, once per room: stdout and stderr of a real process."""
    argv = [str(_SCRIPT)] if _SCRIPT.exists() else [sys.executable, "-m", "lionagi.service.cli"]
    env = {**os.environ, "NO_COLOR": "1", "COLUMNS": "200", **_CLI_ENV}
    with FakeProviderServer.running_in_thread() as server:
        runs = [
            _http_chat_args(server, "401"),
            _cli_chat_args("codex", _fake_cli(tmp_path, "stderr")),
        ]
        for args in runs:
            proc = subprocess.run(
                [*argv, *args], capture_output=True, text=True, timeout=60, env=env, check=False
            )
            assert proc.returncode != 0
            scan(proc.stdout, proc.stderr)


def test_the_basic_credential_derived_from_userinfo_or_an_auth_pair_is_redacted() -> None:
    """Regression: the base64 ``user:password`` httpx sends was echoed by providers in clear."""
    from lionagi.service import EndpointConfig
    from lionagi.service._base.secrets import redact

    password, other = _marker("pw"), _marker("auth")
    EndpointConfig(
        name="t",
        provider="p",
        endpoint="chat/completions",
        base_url=f"https://user%40corp:{password}@gateway.example/v1",
        auth_type="none",
    )
    EndpointConfig(
        name="t",
        provider="p",
        endpoint="chat/completions",
        base_url="https://gateway.example/v1",
        client_kwargs={"auth": ("svc", other)},
    )
    for token in (
        base64.b64encode(f"user@corp:{password}".encode()).decode(),
        base64.b64encode(f"svc:{other}".encode()).decode(),
    ):
        assert token not in redact(f"Incorrect API key provided: {token}.")
