"""A key pasted where `--api-key-env NAME` wants a name never comes back on stderr.

Before: the flag refused only words that are not identifiers, then printed the "name" back in
`$NAME is not set`. Many keys are identifiers: a Gemini key (`AIza` plus 35 of letters, digits,
`_` and `-`) has no `-` more often than not, and a hex key starting with a letter never has one.
A new user writing `--api-key-env "$GEMINI_API_KEY"` (the value, not the name) saw the key in
the error, and so did every CI log that kept stderr. `--gateway-key-env` and a bare `--env NAME`
printed it the same way.
"""

from __future__ import annotations

import contextlib
import io

import pytest

from lionagi.service.cli import main

GEMINI_LIKE = "AIzaSyDwalkthroughNotARealKey0123456789"
HEX_LIKE = "deadbeef0123456789abcdef01234567"
SHOWN = "WALKTHROUGH_UNSET_KEY_VAR"


def _chat(*argv: str) -> tuple[int, str]:
    """Run `lionagi-service chat` in this process: exit code and stderr."""
    err = io.StringIO()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
        code = main(["chat", *argv])
    return code, err.getvalue()


@pytest.fixture(autouse=True)
def _unset(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in (GEMINI_LIKE, HEX_LIKE, SHOWN):
        monkeypatch.delenv(name, raising=False)


@pytest.mark.parametrize("value", [GEMINI_LIKE, HEX_LIKE])
@pytest.mark.parametrize(
    "argv",
    [
        ("openai/gpt-4.1", "hi", "--api-key-env"),
        ("claude_code/sonnet", "hi", "--gateway-key-env"),
        ("claude_code/sonnet", "hi", "--env"),
    ],
    ids=["api-key-env", "gateway-key-env", "env"],
)
def test_a_key_shaped_name_is_refused_without_being_repeated(
    argv: tuple[str, ...], value: str
) -> None:
    code, err = _chat(*argv, value)
    assert code == 2
    assert value not in err, err
    assert value[:12] not in err, err  # not even cut short
    flag = argv[-1]
    assert err.startswith(f"error: EndpointConfigurationError: {flag}: "), err
    assert "is not set" in err and "not shown" in err, err


def test_an_upper_case_name_is_still_named() -> None:
    code, err = _chat("openai/gpt-4.1", "hi", "--api-key-env", SHOWN)
    assert code == 2
    assert f"--api-key-env: ${SHOWN} is not set" in err, err


def test_a_lower_case_name_that_is_set_still_works(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("my_key", "anything")
    code, err = _chat("scripted/demo", "hi", "--api-key-env", "my_key")
    # The scripted provider sends no key: refused for that, never for the name's case.
    assert code == 2
    assert "this endpoint sends no credentials" in err, err


@pytest.mark.parametrize("value", [GEMINI_LIKE, HEX_LIKE])
def test_the_python_api_does_not_echo_a_key_given_as_api_key_env(
    value: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The same mistake through `iModel(api_key_env=...)`: the missing-key advice named it.
    import anyio

    from lionagi.service import EndpointConfigurationError, iModel

    monkeypatch.delenv("GEMINI_API_KEY", raising=False)

    async def call() -> None:
        model = iModel(model="gemini/gemini-2.5-flash", api_key_env=value)
        await model.invoke(messages=[{"role": "user", "content": "hi"}])

    with pytest.raises(EndpointConfigurationError) as caught:
        anyio.run(call)
    assert caught.value.field == "api_key"
    assert value not in str(caught.value)
    assert "the variable api_key_env names" in str(caught.value)


def test_the_python_api_still_names_an_upper_case_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    import anyio

    from lionagi.service import EndpointConfigurationError, iModel

    async def call() -> None:
        model = iModel(model="gemini/gemini-2.5-flash", api_key_env=SHOWN)
        await model.invoke(messages=[{"role": "user", "content": "hi"}])

    with pytest.raises(EndpointConfigurationError) as caught:
        anyio.run(call)
    assert f"set {SHOWN}," in str(caught.value)
