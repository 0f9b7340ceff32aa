"""On the command line, an error's advice names the flag, not the Python keyword.

Before, ``chat`` told its user to "Set allow_local_network=True on the endpoint config", "pass
openai_compatible=True with base_url" and "pass base_url='https://host/v1'", keywords no flag
spells, while docs/cli.md promises that every setting an error recommends can be passed there.
"""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

import anyio
import pytest

from lionagi.service import EndpointConfigurationError, EndpointNotFound, UnsafeURLError, iModel
from lionagi.service.cli import main
from lionagi.service.cli._render import exception_line


def test_an_unknown_provider_names_the_flags() -> None:
    with pytest.raises(EndpointNotFound) as info:
        iModel(model="nosuchvendor/m", api_key="k-123456789")
    line = exception_line("error: ", info.value)
    assert "pass --openai-compatible with --base-url" in line
    assert "openai_compatible=True" not in line
    assert "openai_compatible=True" in str(info.value)  # Python callers keep the keyword


def test_a_compatible_endpoint_without_a_url_names_the_flag() -> None:
    with pytest.raises(EndpointConfigurationError) as info:
        iModel(model="nosuchvendor/m", openai_compatible=True, api_key="k-123456789")
    assert "pass --base-url https://host/v1" in exception_line("error: ", info.value)


def test_a_refused_local_address_names_the_flag() -> None:
    async def main() -> BaseException | None:
        async with iModel(
            model="openai/gpt-4.1", base_url="http://127.0.0.1:9/v1", api_key="k-123456789"
        ) as model:
            call = await model.invoke(messages=[{"role": "user", "content": "hi"}])
            return call.exception

    error = anyio.run(main)
    assert isinstance(error, UnsafeURLError)
    line = exception_line("error: ", error)
    assert "Pass --allow-local-network" in line and "allow_local_network=True" not in line


# -- errors found as the run starts, and advice given in flags ------------------------------------
#
# `--cwd` and `--root` are checked when the run starts (they must exist, one inside the other),
# after the model is built; those errors named the setting (`cwd: ...`), not the flag typed.


def _chat(*argv: str) -> tuple[int, str, str]:
    """Run `lionagi-service chat` in this process: exit code, stdout, stderr."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["chat", *argv])
    return code, out.getvalue(), err.getvalue()


@pytest.mark.parametrize(
    ("flags", "expected"),
    [
        (["--cwd", "relative/path"], "--cwd: relative/path does not exist or cannot be resolved"),
        (["--cwd", "{tmp}/gone"], "--cwd: {tmp}/gone does not exist or cannot be resolved"),
        (["--root", "{tmp}/gone"], "--root: {tmp}/gone does not exist or cannot be resolved"),
        (["--root", "{tmp}", "--cwd", "sub"], "--cwd: 'sub' does not exist under {tmp}"),
    ],
    ids=["cwd-relative", "cwd-absolute", "root", "cwd-under-root"],
)
def test_a_directory_refused_as_the_run_starts_names_the_flag(
    flags: list[str], expected: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    tmp = str(tmp_path.resolve())
    argv = [flag.replace("{tmp}", tmp) for flag in flags]
    code, _, err = _chat("claude_code/sonnet", "hi", *argv)
    assert code == 2, err
    assert f"error: AgenticRequestValidationError: {expected.replace('{tmp}', tmp)}" in err, err


def test_the_json_record_of_a_refused_root_names_the_flag(tmp_path: Path) -> None:
    code, out, _ = _chat("--json", "claude_code/sonnet", "hi", "--root", str(tmp_path / "gone"))
    assert code == 2
    record = json.loads(out.splitlines()[-1])
    assert record["error"] == "AgenticRequestValidationError"
    assert record["message"].startswith(f"--root: {tmp_path / 'gone'} does not exist"), record


def test_agentic_flags_on_an_http_endpoint_advise_the_http_flags() -> None:
    code, _, err = _chat("openai/gpt-4.1", "q", "--cwd", "/tmp", "--api-key-env", "PATH")
    assert code == 2, err
    assert "--cwd: OpenAIChatCompletionsEndpoint is an HTTP endpoint" in err, err
    assert "--base-url" in err and "--api-key-env NAME" in err, err
    assert "base_url and api_key" not in err and "agentic settings" not in err, err


def test_the_python_api_keeps_its_keywords_for_agentic_settings_on_http() -> None:
    with pytest.raises(EndpointConfigurationError) as info:
        iModel(model="openai/gpt-4.1", api_key="k-123456789", agentic_settings={"cwd": "/tmp"})
    assert "use base_url and api_key for HTTP" in str(info.value)
    assert "--base-url" in exception_line("error: ", info.value)


def test_a_base_url_for_an_agentic_cli_names_the_flags() -> None:
    code, _, err = _chat("claude_code/sonnet", "hi", "--base-url", "https://gateway.example")
    assert code == 2, err
    assert "error: EndpointConfigurationError: --base-url: ClaudeCodeEndpoint" in err, err
    assert "model gateway is --gateway-url URL" in err, err
    assert "agentic_settings" not in err and "base_url" not in err, err
