"""The ``lionagi-service`` command line: output, exit codes (see ``lionagi.service.cli``) and the
fake server's process life cycle.

The installed console script runs in a subprocess for the cases a user runs from a shell; cheap
cases call ``main(argv)`` in-process.
"""

from __future__ import annotations

import json
import re
import signal
import subprocess
from typing import Any

import httpx
import pytest

from lionagi.service.cli import main

from ._support import HANG_GUARD, cli_env, command


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*command(), *args],
        capture_output=True,
        text=True,
        timeout=HANG_GUARD,
        env=cli_env(columns="200"),
        check=False,
    )


def no_traceback(*texts: str) -> None:
    for text in texts:
        assert "Traceback" not in text


# -- demo -----------------------------------------------------------------------------------------


def test_demo_json_prints_ndjson_chunks_and_a_result_with_usage():
    done = run("demo", "--json", "--pace", "0")

    assert done.returncode == 0, done.stderr
    no_traceback(done.stderr)
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    types = [line["type"] for line in lines]
    assert types.count("text") > 1
    assert types[-1] == "result" and types.count("result") == 1
    usage = lines[-1]["metadata"]["usage"]
    assert usage["input_tokens"] > 0 and usage["output_tokens"] > 0
    text = "".join(line["content"] for line in lines if line["type"] == "text")
    assert text.startswith("You said: Show me what lionagi-service streams")


def test_demo_in_terminal_mode_renders_text_and_usage(capsys):
    assert main(["demo", "--pace", "0", "--progress", "hello there"]) == 0
    out, err = capsys.readouterr()
    assert "You said: hello there" in out
    # Not a terminal here: with --progress the usage line is on stderr, stdout the answer alone.
    assert re.search(r"usage: input_tokens=\d+, output_tokens=\d+", err)


# -- chat errors map to documented exit codes -----------------------------------------------------


def test_provider_error_chunk_exits_1_and_is_rendered_once():
    done = run("chat", "scripted/demo", "x SCRIPTED_FAIL")

    assert done.returncode == 1
    no_traceback(done.stdout, done.stderr)
    combined = done.stdout + done.stderr
    assert combined.count("scripted provider failure requested by the prompt") == 1
    assert "Working on it" in done.stdout


def test_provider_error_chunk_in_json_mode_is_one_line(capsys):
    assert main(["chat", "--json", "scripted/demo", "x SCRIPTED_FAIL"]) == 1
    captured = capsys.readouterr()
    lines = [json.loads(line) for line in captured.out.splitlines()]
    # The error chunk, then the documented final record; stderr says it once.
    assert [line["type"] for line in lines] == ["text", "error", "exception"]
    assert captured.err.count("scripted provider failure requested by the prompt") == 1


def test_deadline_exits_3_with_one_readable_line():
    done = run("chat", "scripted/demo", "SCRIPTED_STALL", "--timeout", "0.3")

    assert done.returncode == 3
    no_traceback(done.stdout, done.stderr)
    errors = [
        line for line in (done.stdout + done.stderr).splitlines() if line.startswith("error:")
    ]
    assert len(errors) == 1
    assert errors[0].startswith("error: RequestDeadlineExceeded:")
    assert "deadline" in errors[0]


def test_deadline_in_json_mode_ends_with_an_exception_line(capsys):
    assert main(["chat", "--json", "--timeout", "0.2", "scripted/demo", "SCRIPTED_STALL"]) == 3
    last = json.loads(capsys.readouterr().out.splitlines()[-1])
    assert last["type"] == "exception" and last["error"] == "RequestDeadlineExceeded"


def test_transport_failure_exits_1(capsys):
    assert main(["chat", "scripted/demo", "SCRIPTED_RAISE"]) == 1
    captured = capsys.readouterr()
    # Errors go to stderr so stdout stays the answer.
    assert captured.err.count("error: ProviderConnectionError") == 1
    assert "error:" not in captured.out


def test_unknown_provider_exits_2_in_a_subprocess():
    done = run("chat", "nope/x", "hi")

    assert done.returncode == 2
    no_traceback(done.stdout, done.stderr)
    assert "unknown provider 'nope'" in done.stdout + done.stderr


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (["chat", "nope/x", "hi"], "EndpointNotFound"),
        (["chat", "scripted/demo", "hi", "--endpoint", "nope"], "EndpointNotFound"),
        (["chat", "scripted/", "hi"], "EndpointConfigurationError: model:"),
    ],
)
def test_configuration_errors_exit_2(capsys, argv, needle):
    code = main(argv)
    out = capsys.readouterr().err
    assert code == 2, out
    assert needle in out
    assert len([line for line in out.splitlines() if line.startswith("error:")]) == 1


def test_bad_usage_exits_2(capsys):
    with pytest.raises(SystemExit) as info:
        main(["chat"])
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and "--help" in err  # one line; the usage is in --help


# -- providers ------------------------------------------------------------------------------------


def test_providers_json_lists_scripted_as_available(capsys):
    assert main(["providers", "--json"]) == 0
    document: dict[str, Any] = json.loads(capsys.readouterr().out)
    assert document["valid"] is True
    scripted = {p["provider"]: p for p in document["providers"]}["scripted"]
    assert scripted["availability"] == "available"
    assert [e["endpoint"] for e in scripted["endpoints"]] == ["chat"]


def test_providers_table(capsys):
    assert main(["providers"]) == 0
    out = capsys.readouterr().out
    assert "scripted" in out and "available" in out


# -- fake-server ----------------------------------------------------------------------------------


def test_fake_server_serves_then_exits_cleanly_on_sigterm():
    proc = subprocess.Popen(
        [*command(), "fake-server", "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=cli_env(columns="200"),
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        match = re.fullmatch(r"fake provider server listening on (http://127\.0\.0\.1:\d+)\n", line)
        assert match, line
        base_url = match.group(1)

        response = httpx.post(
            base_url + "/v1/chat/completions",
            json={"model": "m", "messages": [{"role": "user", "content": "hi"}]},
            headers={"x-fake-text": "pong"},
            timeout=HANG_GUARD,
        )
        assert response.status_code == 200
        assert response.json()["choices"][0]["message"]["content"] == "pong"

        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=HANG_GUARD) == 0
        assert "Traceback" not in (proc.stderr.read() if proc.stderr else "")
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        for stream in (proc.stdout, proc.stderr):
            if stream is not None:
                stream.close()


# -- HTTP flags -----------------------------------------------------------------------------------


def test_chat_streams_from_a_local_openai_compatible_server_with_the_http_flags():
    from lionagi.service_testing.fake_server import FakeProviderServer

    with FakeProviderServer.running_in_thread() as server:
        env = {**cli_env(columns="200"), "CORE12_FAKE_KEY": "sk-cli-flag-key-123456"}
        proc = subprocess.run(
            [*command(), *_chat_via(server, "--openai-compatible", "--json")],
            capture_output=True,
            text=True,
            timeout=HANG_GUARD,
            env=env,
            check=False,
        )
        recorded = server.requests
    no_traceback(proc.stdout, proc.stderr)
    assert proc.returncode == 0, proc.stderr
    chunks = [json.loads(line) for line in proc.stdout.splitlines() if line.strip()]
    text = "".join(c.get("content") or "" for c in chunks if c.get("type") == "text")
    assert text == "Hello from the fake server."
    assert chunks[-1]["type"] == "result"
    assert recorded[-1].path.endswith("/v1/chat/completions")
    assert "authorization" in recorded[-1].headers  # the key from --api-key-env was sent
    assert recorded[-1].json["stream_options"] == {"include_usage": True}  # the chat dialect's
    assert "sk-cli-flag-key-123456" not in proc.stdout + proc.stderr


def test_chat_refuses_loopback_without_allow_local_network_and_unset_key_env():
    from lionagi.service_testing.fake_server import FakeProviderServer

    with FakeProviderServer.running_in_thread() as server:
        base = ["chat", "openai/gpt-4.1", "hi", "--base-url", f"{server.base_url}/v1"]
        # Any set variable serves as the key: the SSRF guard refuses before anything is sent.
        refused = run(*base, "--openai-compatible", "--api-key-env", "PATH")
        unset = run(
            *base,
            "--openai-compatible",
            "--allow-local-network",
            "--api-key-env",
            "CORE12_UNSET_VAR",
        )
    no_traceback(refused.stderr, unset.stderr)
    # UnsafeURLError is a ProviderError in Python, but nothing was sent and the fix is a flag:
    # bad usage or configuration, exit 2, with the flag named.
    assert refused.returncode == 2, refused.stderr
    assert "UnsafeURLError" in refused.stderr and "--allow-local-network" in refused.stderr
    assert unset.returncode == 2 and "CORE12_UNSET_VAR" in unset.stderr


# -- error lines read whole -----------------------------------------------------------------------


def test_a_credential_named_config_error_keeps_every_word(capsys, monkeypatch):
    # `api_key: <message>` looks like a credential pair to the redactor; the message's first
    # word was printed as [REDACTED] ("api_key: [REDACTED] chat/completions needs an API key").
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    assert main(["chat", "openai/gpt-4.1", "hi", "--endpoint", "chat/completions"]) == 2
    err = capsys.readouterr().err
    assert "api_key: openai chat/completions needs an API key" in err, err
    assert "[REDACTED]" not in err

    monkeypatch.delenv("CORE12_UNSET_VAR", raising=False)
    argv = ["chat", "openai/gpt-4.1", "hi", "--api-key-env", "CORE12_UNSET_VAR", "--json"]
    assert main(argv) == 2
    out, err = capsys.readouterr()
    line = "--api-key-env: $CORE12_UNSET_VAR is not set"
    assert f"error: EndpointConfigurationError: {line}" in err, err
    assert json.loads(out.splitlines()[-1])["message"] == line

    # Set to the empty string is another mistake with another fix: said so, not "not set".
    monkeypatch.setenv("CORE12_UNSET_VAR", "")
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "$CORE12_UNSET_VAR is set but empty" in err, err


def test_a_pace_that_is_not_a_finite_number_says_so(capsys):
    assert main(["demo", "--pace", "nan", "hi"]) == 2
    err = capsys.readouterr().err
    assert "pace: Input should be a finite number" in err, err


def test_a_secret_inside_a_config_error_is_still_redacted():
    from lionagi.service import (
        AdmissionConfigError,
        AgenticRequestValidationError,
        EndpointConfigurationError,
    )
    from lionagi.service.cli._render import exception_line

    key = "sk-proj-" + "q7" * 20
    exc = EndpointConfigurationError("api_key", f"{key} was refused; password=hunter22")
    line = exception_line("error: ", exc)
    assert key not in line and "hunter22" not in line
    assert line.startswith("error: api_key: [REDACTED] was refused")
    # A field that is itself secret-shaped (a request key the caller typed) is redacted too.
    assert key not in exception_line("", EndpointConfigurationError(key, "unknown field"))
    # Every error that names its field reads whole.
    for error in (AdmissionConfigError, AgenticRequestValidationError):
        line = exception_line("", error("session_id", "session-0001 was never confirmed"))
        assert line == "session_id: session-0001 was never confirmed"


def test_refused_credentials_read_whole_on_the_command_line():
    from lionagi.service_testing.fake_server import FakeProviderServer

    with FakeProviderServer.running_in_thread() as server:
        env = {**cli_env(columns="200"), "CORE12_FAKE_KEY": "sk-cli-flag-key-123456"}
        setting = 'default_headers={"x-fake-behaviour": "401"}'
        proc = subprocess.run(
            [*command(), *_chat_via(server, "--endpoint-setting", setting)],
            capture_output=True,
            text=True,
            timeout=HANG_GUARD,
            env=env,
            check=False,
        )
    assert proc.returncode == 1, proc.stderr
    assert "refused the credentials (HTTP 401); check the API key" in proc.stderr, proc.stderr
    assert "sk-cli-flag-key-123456" not in proc.stdout + proc.stderr


def _chat_via(server: object, *extra: str) -> list[str]:
    """``chat openai/gpt-4.1 hi`` against the fake server, the key from $CORE12_FAKE_KEY."""
    base = f"{server.base_url}/v1"  # type: ignore[attr-defined]
    flags = ["--base-url", base, "--allow-local-network", "--api-key-env", "CORE12_FAKE_KEY"]
    return ["chat", "openai/gpt-4.1", "hi", *flags, *extra]


def test_doctor_table_names_the_endpoint_of_a_provider_with_several(capsys):
    from lionagi.service.cli._doctor import _print

    def row(provider: str, endpoint: str) -> dict[str, object]:
        return {
            "provider": provider, "endpoint": endpoint, "binary": "prog", "found": False,
            "path": None, "version": None, "detail": "not found", "tested": None,
            "tested_version": None, "install_hint": "", "auth_hint": "",
        }  # fmt: skip

    _print([row("multi", "agent"), row("multi", "group_chat"), row("single", "query_cli")])  # type: ignore[list-item]
    out = capsys.readouterr().out
    assert "multi agent" in out and "multi group_chat" in out, out
    assert "single query_cli" not in out and "single" in out


# -- the terminal summary -------------------------------------------------------------------------


def test_usage_line_shows_the_counts_not_the_vendor_records():
    from lionagi.service.cli._render import usage_line

    claude = {
        "input_tokens": 84,
        "cache_read_input_tokens": 0,
        "output_tokens": 14,
        "server_tool_use": {"web_search_requests": 0, "web_fetch_requests": 2},
        "service_tier": "standard",
        "iterations": [],
        "cache_creation": {"ephemeral_1h_input_tokens": 0},
    }
    line = usage_line({"usage": claude, "total_cost_usd": 0.0008}, latency=None)
    assert line == (
        "usage: input_tokens=84, cache_read_input_tokens=0, output_tokens=14, "
        "server_tool_use.web_fetch_requests=2 · cost $0.0008"
    )
    openai = {"prompt_tokens": 9, "completion_tokens_details": {"reasoning_tokens": 64}}
    assert usage_line({"usage": openai}, latency=None) == (
        "usage: prompt_tokens=9, completion_tokens_details.reasoning_tokens=64"
    )
    assert usage_line({"usage": {"tier": "x"}}, latency=None) == ""


def test_a_tool_result_is_labelled_with_its_calls_tool_and_shows_text_as_text():
    import io

    from lionagi.service import StreamChunk
    from lionagi.service.cli._render import PlainRenderer

    out, err = io.StringIO(), io.StringIO()
    renderer = PlainRenderer(out=out, err=err)
    renderer.chunk(StreamChunk("tool_use", tool_name="Bash", tool_id="t-1", tool_input={"c": 1}))
    renderer.chunk(StreamChunk("tool_result", tool_id="t-1", tool_output="ran\nok"))
    renderer.chunk(StreamChunk("tool_result", tool_id="t-9", tool_output={"n": 2}, is_error=True))
    renderer.close()
    assert out.getvalue() == ""  # tool activity is not the answer: stderr
    assert err.getvalue().splitlines() == [
        '→ Bash({"c": 1})',
        "← Bash: ran",
        "ok",
        '← t-9 (failed): {"n": 2}',
    ]


def test_env_copying_an_unset_variable_says_which_and_how_to_fix(capsys, monkeypatch):
    monkeypatch.delenv("CORE12_UNSET_VAR", raising=False)
    argv = ["chat", "claude_code/sonnet", "hi", "--env", "CORE12_UNSET_VAR"]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert (
        "--env: CORE12_UNSET_VAR copies $CORE12_UNSET_VAR from this "
        "environment, where it is not set; set it or write --env CORE12_UNSET_VAR=VALUE"
    ) in err, err


@pytest.mark.parametrize(("scenario", "noted"), [("token_limit", True), ("text", False)])
def test_an_answer_cut_at_the_token_limit_is_noted_on_stderr(scenario: str, noted: bool):
    from lionagi.service_testing.fake_server import FakeProviderServer

    with FakeProviderServer.running_in_thread() as server:
        argv = _chat_via(server)
        base = argv.index("--base-url") + 1
        argv[base] = f"{server.base_url}/scenario/{scenario}/v1"
        env = {**cli_env(columns="200"), "CORE12_FAKE_KEY": "sk-cli-limit-key-123456"}
        proc = subprocess.run(
            [*command(), *argv],
            capture_output=True,
            text=True,
            timeout=HANG_GUARD,
            env=env,
            check=False,
        )
    no_traceback(proc.stdout, proc.stderr)
    assert proc.returncode == 0, proc.stderr  # the provider answered: not a failure
    assert proc.stdout.strip()  # the text it did write is shown
    note = "note: the answer stopped at the output token limit (finish reason 'length')"
    assert (note in proc.stderr) is noted, proc.stderr
    assert note not in proc.stdout
