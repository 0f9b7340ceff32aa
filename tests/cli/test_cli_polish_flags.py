"""A refused flag is named as the user typed it, and the HTTP advice reads right before one flag.

Before, `--api-key-env NAME` whose key an endpoint refused (it sends no credentials, or the key
holds a control character) or whose variable was unset was reported as `api_key: ...`, and
`--gateway-key-env` / `--env` as `gateway_api_key: ...` / `env.NAME: ...`: settings fields a
command-line user never typed. And an agentic flag given to an HTTP endpoint said "these flags
are for agentic CLIs" after naming only `--cwd`.
"""

from __future__ import annotations

import contextlib
import io
import json

import pytest

from lionagi.service.cli import main

SET_KEY = "POLISH_SET_KEY"
UNSET = "POLISH_UNSET_VAR_42"


def _chat(*argv: str) -> tuple[int, str, str]:
    """Run `lionagi-service chat` in this process: exit code, stdout, stderr."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["chat", *argv])
    return code, out.getvalue(), err.getvalue()


@pytest.fixture(autouse=True)
def _variables(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(SET_KEY, "k-polish-0123456789")
    monkeypatch.delenv(UNSET, raising=False)


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        pytest.param(
            ["scripted/demo", "hi", "--api-key-env", SET_KEY],
            "error: EndpointConfigurationError: --api-key-env: this endpoint sends no credentials",
            id="key-never-sent",
        ),
        pytest.param(
            ["openai/gpt-4.1", "hi", "--api-key-env", UNSET],
            f"error: EndpointConfigurationError: --api-key-env: ${UNSET} is not set",
            id="api-key-env-unset",
        ),
        pytest.param(
            ["claude_code/sonnet", "hi", "--gateway-key-env", UNSET],
            f"error: EndpointConfigurationError: --gateway-key-env: ${UNSET} is not set",
            id="gateway-key-env-unset",
        ),
        pytest.param(
            ["claude_code/sonnet", "hi", "--env", UNSET],
            f"error: EndpointConfigurationError: --env: {UNSET} copies ${UNSET} from this "
            f"environment, where it is not set; set it or write --env {UNSET}=VALUE",
            id="env-copy-unset",
        ),
        pytest.param(
            ["claude_code/sonnet", "hi", "--env", "9-not-a-name"],
            "error: EndpointConfigurationError: --env: takes NAME=VALUE or a bare NAME",
            id="env-not-a-name",
        ),
    ],
)
def test_a_refused_flag_is_named_as_typed(argv: list[str], expected: str) -> None:
    code, out, err = _chat(*argv)
    assert code == 2, err
    assert out == ""
    assert err.startswith(expected), err
    assert err.count("\n") == 1, err  # still the one error line
    for field in ("api_key:", "api_key_env:", "gateway_api_key:", "env."):
        assert field not in err, err


def test_a_key_with_a_control_character_names_the_flag(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(SET_KEY, "k-polish\n0123456789")
    code, _, err = _chat("openai/gpt-4.1", "hi", "--api-key-env", SET_KEY, "--json")
    assert code == 2, err
    assert err.startswith(
        "error: EndpointConfigurationError: --api-key-env: the key has a control character"
    ), err
    assert "0123456789" not in err  # the key itself is never repeated


def test_the_json_record_names_the_flag_too() -> None:
    code, out, _ = _chat("openai/gpt-4.1", "hi", "--api-key-env", UNSET, "--json")
    assert code == 2
    record = json.loads(out.splitlines()[-1])
    assert record["message"] == f"--api-key-env: ${UNSET} is not set", record


@pytest.mark.parametrize(
    ("flags", "named"),
    [(["--cwd", "/tmp"], "--cwd"), (["--cwd", "/tmp", "--binary", "x"], "--binary, --cwd")],
    ids=["one-flag", "two-flags"],
)
def test_agentic_flags_on_an_http_endpoint_read_right_in_any_number(
    flags: list[str], named: str
) -> None:
    code, _, err = _chat("openai/gpt-4.1", "hi", "--api-key-env", SET_KEY, *flags)
    assert code == 2, err
    assert err == (
        f"error: EndpointConfigurationError: {named}: OpenAIChatCompletionsEndpoint is an HTTP "
        "endpoint; agentic CLI flags do not apply to it (for HTTP use --base-url and "
        "--api-key-env NAME)\n"
    ), err
