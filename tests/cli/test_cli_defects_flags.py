"""``chat`` flags and error output that contradicted docs/cli.md, one test (or two) per fix.

- a credential is never a flag: ``--endpoint-setting api_key=...`` and credential headers are
  refused, and the missing-key error tells a command-line user about ``--api-key-env``;
- a deadline that ran out while waiting to retry says why the attempts failed;
- a provider's stream error ends ``--json`` with the documented ``exception`` record;
- an endpoint that does not take chat messages is refused before any request;
- ``--endpoint``'s help says what the default is.
"""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
from collections.abc import Iterator

import pytest

from lionagi.service.cli import main
from lionagi.service_testing import FakeProviderServer

from ._support import command

HANG_GUARD = 60.0  # seconds; a "did not hang" bound only
KEY = "sk-defects-flag-key-0123456789"


def run(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "NO_COLOR": "1", "TERM": "dumb", "DEFECTS_KEY": KEY}
    return subprocess.run(
        [*command(), *args],
        capture_output=True,
        text=True,
        timeout=HANG_GUARD,
        env=env,
        check=False,
    )


def lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.strip()]


@pytest.fixture(scope="module")
def server() -> Iterator[FakeProviderServer]:
    with FakeProviderServer.running_in_thread() as running:
        yield running


def via(
    server: FakeProviderServer, *extra: str, model: str = "openai/gpt-4.1", key: bool = True
) -> list[str]:
    flags = ["--base-url", f"{server.base_url}/v1", "--allow-local-network"]
    if key:
        flags += ["--api-key-env", "DEFECTS_KEY"]
    return ["chat", model, "hi", *flags, *extra]


def behaviour(name: str) -> list[str]:
    return ["--endpoint-setting", "default_headers=" + json.dumps({"x-fake-behaviour": name})]


# -- a credential is never a flag -----------------------------------------------------------------


def test_endpoint_setting_api_key_is_refused_before_any_request(server: FakeProviderServer) -> None:
    before = len(server.requests)
    done = run(*via(server, "--endpoint-setting", f"api_key={KEY}"))
    assert done.returncode == 2, done.stderr
    (line,) = lines(done.stderr)
    assert "--api-key-env NAME" in line and "--gateway-key-env" in line
    assert KEY not in done.stdout + done.stderr
    assert len(server.requests) == before
    # A header that is no credential still passes.
    done = run(*via(server, "--endpoint-setting", 'default_headers={"X-Org": "defects"}'))
    assert done.returncode == 0, done.stderr
    assert server.requests[-1].headers.get("x-org") == "defects"


@pytest.mark.parametrize(
    "setting",
    [
        'default_headers={"Authorization": "Bearer sk-defects-header-0123456789"}',
        'default_headers={"x-api-key": "sk-defects-header-0123456789"}',
        'client_kwargs={"headers": {"Cookie": "session=sk-defects-header-0123456789"}}',
        'client_kwargs={"auth": ["user", "sk-defects-header-0123456789"]}',
    ],
)
def test_a_credential_inside_an_endpoint_setting_is_refused(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, setting: str
) -> None:
    # A key is set, so without the refusal the call would go on (to a closed port, exit 3).
    monkeypatch.setenv("DEFECTS_KEY", KEY)
    argv = ["chat", "mycorp/m", "hi", "--openai-compatible", "--base-url", "http://127.0.0.1:9/v1"]
    flags = ["--allow-local-network", "--api-key-env", "DEFECTS_KEY", "--timeout", "0.5"]
    assert main([*argv, *flags, "--endpoint-setting", setting]) == 2
    err = capsys.readouterr().err
    (line,) = lines(err)
    assert "--endpoint-setting " in line and "shows in ps and shell history" in line, line
    assert "--api-key-env NAME" in line
    assert "sk-defects-header" not in err


def test_the_missing_key_error_points_a_cli_user_at_api_key_env(
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = ["chat", "mycorp/m", "hi", "--openai-compatible", "--base-url", "http://127.0.0.1:9/v1"]
    assert main([*argv, "--allow-local-network"]) == 2
    err = capsys.readouterr().err
    assert "api_key: mycorp chat/completions needs an API key" in err, err
    assert "pass --api-key-env NAME" in err and "--endpoint-setting auth_type=none" in err
    assert "api_key=..." not in err


# -- a deadline during retry_delay says why the attempts failed -----------------------------------


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_a_deadline_after_refused_connections_names_the_last_attempt() -> None:
    port = _closed_port()
    argv = ["chat", "openai/gpt-4.1", "hi", "--base-url", f"http://127.0.0.1:{port}/v1"]
    flags = ["--allow-local-network", "--api-key-env", "DEFECTS_KEY", "--timeout", "1"]
    done = run(*argv, *flags, "--endpoint-setting", "max_retries=50")
    assert done.returncode == 3, done.stderr
    (line,) = lines(done.stderr)
    assert line.startswith("error: RequestDeadlineExceeded: ")
    # The deadline lands in a retry delay almost always, during the next connect attempt when
    # a delay happens to end just before it; the refused connection is named either way.
    assert re.search(
        r"during (retry_delay|transport) \(last attempt: ProviderConnectionError: ", line
    ), line
    assert f"127.0.0.1:{port}" in line and line.endswith(")")


def test_a_deadline_after_http_500s_names_the_last_attempt_in_both_streams(
    server: FakeProviderServer,
) -> None:
    flags = [*behaviour("500"), "--endpoint-setting", "max_retries=50", "--timeout", "1"]
    done = run(*via(server, "--json", *flags))
    assert done.returncode == 3, done.stderr
    record = json.loads(done.stdout.splitlines()[-1])
    assert record["type"] == "exception" and record["error"] == "RequestDeadlineExceeded"
    assert record["last_attempt"]["error"] == "ProviderServerError"
    assert "HTTP 500" in record["last_attempt"]["message"]
    (line,) = lines(done.stderr)
    assert "(last attempt: ProviderServerError: " in line and "HTTP 500" in line
    assert KEY not in done.stdout + done.stderr


def test_the_last_attempt_is_redacted_like_the_line() -> None:
    import io

    from lionagi.service import ProviderConnectionError, RequestDeadlineExceeded
    from lionagi.service.cli._render import JsonRenderer

    secret = "sk-proj-" + "z9" * 20
    exc = RequestDeadlineExceeded("call-1", "retry_delay")
    exc.__cause__ = ProviderConnectionError(f"refused; api_key={secret}")
    out, err = io.StringIO(), io.StringIO()
    JsonRenderer(out, err).error(exc)
    record = json.loads(out.getvalue())
    assert record["last_attempt"]["error"] == "ProviderConnectionError"
    assert "refused" in record["last_attempt"]["message"]
    assert "(last attempt: ProviderConnectionError: refused" in err.getvalue()
    assert secret not in out.getvalue() + err.getvalue()


# -- a provider's stream error ends --json with an exception record --------------------------------


def test_a_stream_error_ends_json_with_the_exception_record(server: FakeProviderServer) -> None:
    done = run(*via(server, "--json", *behaviour("stream_error")))
    assert done.returncode == 1, done.stderr
    records = [json.loads(line) for line in done.stdout.splitlines()]
    assert [r["type"] for r in records[-2:]] == ["error", "exception"]
    assert records[-1]["error"].startswith("ProviderStream")
    assert records[-1]["message"] == records[-2]["content"]
    # stderr stays one line: the chunk's, not a second one for the raised error
    assert lines(done.stderr) == [f"provider error: {records[-2]['content']}"]
    # Text mode still prints the error once.
    done = run(*via(server, *behaviour("stream_error")))
    assert done.returncode == 1
    (line,) = lines(done.stderr)
    assert line.startswith("provider error: ")


# -- an endpoint that takes no chat messages is refused up front ----------------------------------


@pytest.mark.parametrize(
    ("model", "endpoint", "request_model"),
    [
        ("openai/gpt-4.1", "responses", "OpenAIResponsesRequest"),
        ("gemini/gemini-2.5-flash", "generate", "GeminiGenerateContentRequest"),
        ("ollama/llama3", "generate", "OllamaGenerateRequest"),
    ],
)
def test_an_endpoint_without_messages_is_bad_usage_before_any_request(
    server: FakeProviderServer, model: str, endpoint: str, request_model: str
) -> None:
    pytest.importorskip(f"lionagi.providers.{model.split('/')[0]}")
    before = len(server.requests)
    # ollama authenticates with nothing: a key would be refused before the endpoint is looked at
    done = run(*via(server, "--endpoint", endpoint, model=model, key=model != "ollama/llama3"))
    assert done.returncode == 2, done.stderr
    (line,) = lines(done.stderr)
    assert "--endpoint" in line and request_model in line, line
    assert "chat messages" in line and "Python API" in line
    assert "unknown request field" not in line
    assert len(server.requests) == before


# -- --endpoint's help says what the default is ---------------------------------------------------


def test_endpoint_help_names_the_chat_fallback() -> None:
    done = run("chat", "--help")
    text = " ".join(done.stdout.split())
    assert "default: provider's only" not in text
    assert "the provider's only or default endpoint, else the one keyed or aliased chat" in text
