"""Launch safety: argv only, minimal environment, stdin modes, new session, missing binaries.

Troubleshooting: an unexpected variable in ``env_keys`` means something other than ``env``,
``inherit_env`` or the PATH default reached the child.
"""

from __future__ import annotations

import math
import os
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest

from lionagi.service import (
    AgenticRequestValidationError,
    EndpointConfigurationError,
    ProviderExecutableNotFound,
)
from lionagi.service._transport.subprocess import (
    PORTABLE_INHERIT_ENV,
    SubprocessSpec,
    discover_cli,
    json_events_from_process,
    resolve_executable,
)
from lionagi.service_testing.fake_clis import SCRIPTS, fake_cli_argv, script_path

HANG_GUARD = 30.0


async def echo(*args: str, **kw: Any) -> dict[str, Any]:
    with anyio.fail_after(HANG_GUARD):
        events = [e async for e in json_events_from_process(fake_cli_argv("echo", *args), **kw)]
    assert len(events) == 1
    return events[0]


async def test_environment_is_only_path_declared_and_inherited(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("LIONAGI_UNDECLARED_SECRET", "must-not-leak")
    monkeypatch.setenv("LIONAGI_INHERITED", "copied")
    monkeypatch.delenv("LIONAGI_NOT_SET", raising=False)
    event = await echo(
        "--show",
        "LIONAGI_INHERITED",
        "--show",
        "VENDOR_FLAG",
        env={"VENDOR_FLAG": "1"},
        inherit_env=("LIONAGI_INHERITED", "LIONAGI_NOT_SET"),
    )
    assert event["env_keys"] == ["LIONAGI_INHERITED", "PATH", "VENDOR_FLAG"]
    assert event["env"] == {"LIONAGI_INHERITED": "copied", "VENDOR_FLAG": "1"}


async def test_default_environment_is_path_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", "/somewhere")
    event = await echo("--show", "PATH")
    assert event["env_keys"] == ["PATH"]
    assert event["env"]["PATH"] == os.environ["PATH"]


async def test_explicit_path_wins() -> None:
    event = await echo("--show", "PATH", env={"PATH": "/nowhere:/bin"})
    assert event["env"]["PATH"] == "/nowhere:/bin"


def test_portable_inherit_env_names_no_credentials() -> None:
    assert "HOME" in PORTABLE_INHERIT_ENV
    assert not any("KEY" in name or "TOKEN" in name for name in PORTABLE_INHERIT_ENV)


async def test_shell_metacharacters_pass_literally(tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    hostile = [
        f"$(touch {marker})",
        f"`touch {marker}`",
        f"; touch {marker}",
        f"| touch {marker}",
        "a b  c",
        "'quoted' \"double\"",
        "*",
        "~",
        "$HOME",
        "",
        "--",
    ]
    event = await echo("--", *hostile)
    assert event["argv"] == ["--", *hostile]  # exactly the elements given, none expanded
    assert not marker.exists()


@pytest.mark.parametrize("argv", ["codex exec hi", b"codex exec hi"])
def test_string_argv_is_rejected(argv: Any) -> None:
    with pytest.raises(TypeError, match="not a string"):
        json_events_from_process(argv)


@pytest.mark.parametrize(
    ("argv", "error"),
    [([], ValueError), ([""], ValueError), (["x", 3], TypeError), (["x", "a\x00b"], ValueError)],
)
def test_malformed_argv_is_rejected(argv: Any, error: type[Exception]) -> None:
    with pytest.raises(error):
        json_events_from_process(argv)


def test_malformed_env_is_rejected() -> None:
    with pytest.raises(ValueError, match="invalid variable name"):
        SubprocessSpec(argv=["x"], env={"A=B": "1"})
    with pytest.raises(TypeError):
        SubprocessSpec(argv=["x"], env={"A": 1})  # type: ignore[dict-item]
    with pytest.raises(TypeError):
        SubprocessSpec(argv=["x"], inherit_env="HOME")
    with pytest.raises(ValueError, match="terminate_grace"):
        SubprocessSpec(argv=["x"], terminate_grace=-1)
    with pytest.raises(ValueError, match="stdin"):
        SubprocessSpec(argv=["x"], stdin="pipe")  # type: ignore[arg-type]


@pytest.mark.parametrize("name", ["terminate_grace", "drain_timeout"])
@pytest.mark.parametrize("value", [math.nan, math.inf, True])
def test_non_finite_teardown_waits_are_refused_naming_the_field(name: str, value: float) -> None:
    # NaN slipped past ``value < 0``; inf would make teardown wait for SIGTERM forever.
    with pytest.raises(EndpointConfigurationError) as info:
        SubprocessSpec(argv=["x"], **{name: value})
    assert info.value.field == name


def test_missing_binary_fails_before_any_process() -> None:
    # Raised synchronously by the call itself: no event loop step, so no process, can exist.
    with pytest.raises(ProviderExecutableNotFound) as info:
        json_events_from_process(["lionagi-no-such-cli-xyz", "exec"], install_hint="npm i -g x")
    assert info.value.binary == "lionagi-no-such-cli-xyz"
    assert info.value.install_hint == "npm i -g x"
    assert "npm i -g x" in str(info.value)
    assert "not found on PATH" in str(info.value)


def test_a_missing_path_is_not_reported_as_missing_from_path(tmp_path: Path) -> None:
    # A binary given as a path is run as given, never searched on PATH: say so.
    missing = str(tmp_path / "bin" / "codex")
    with pytest.raises(ProviderExecutableNotFound) as info:
        json_events_from_process([missing, "exec"], install_hint="npm i -g x")
    assert (
        str(info.value)
        == f"executable {missing!r} is not an executable file; install it: npm i -g x"
    )


def test_binary_missing_from_the_childs_path_is_reported() -> None:
    name = Path(sys.executable).name
    with pytest.raises(ProviderExecutableNotFound):
        json_events_from_process([name, "-c", "pass"], env={"PATH": "/lionagi-empty-dir"})


def test_relative_binary_resolves_against_cwd(tmp_path: Path) -> None:
    tool = tmp_path / "tool"
    tool.write_text("#!/bin/sh\necho '{}'\n")
    tool.chmod(0o755)
    assert resolve_executable("./tool", cwd=tmp_path) == str(tool)
    assert resolve_executable("./tool", cwd=tmp_path / "..") is None
    assert discover_cli("lionagi-no-such-cli-xyz") == (False, None)
    found, path = discover_cli("sh")
    assert found
    assert path is not None
    assert os.path.isabs(path)


def test_non_executable_file_is_not_found(tmp_path: Path) -> None:
    tool = tmp_path / "tool"
    tool.write_text("data")
    with pytest.raises(ProviderExecutableNotFound):
        json_events_from_process([str(tool)])


async def test_absolute_binary_runs(tmp_path: Path) -> None:
    tool = tmp_path / "tool"
    tool.write_text("#!/bin/sh\necho '{\"ok\": true}'\n")
    tool.chmod(0o755)
    with anyio.fail_after(HANG_GUARD):
        assert [e async for e in json_events_from_process([str(tool)])] == [{"ok": True}]


async def test_new_session_and_process_group() -> None:
    event = await echo()
    assert event["pgid"] == event["pid"]
    assert event["sid"] == event["pid"]
    assert event["pgid"] != os.getpgid(0)


async def test_stdin_defaults_to_devnull() -> None:
    event = await echo("--stdin")
    assert event["stdin"] == ""
    assert event["stdin_isatty"] is False


async def test_stdin_bytes_are_written_then_closed() -> None:
    payload = "prompt with ünïcode\n" * 50_000  # > pipe buffer: written while stdout is read
    event = await echo("--stdin", stdin=payload.encode())
    assert event["stdin"] == payload


async def test_stdin_inherit_shares_our_stdin() -> None:
    # Inheritance is the explicit opt-in (Pi-like adapters); compare the open file identity.
    ours = os.fstat(0)
    with anyio.fail_after(HANG_GUARD):
        argv = [
            sys.executable,
            "-I",
            "-S",
            "-c",
            "import os, json; s = os.fstat(0); "
            "print(json.dumps({'ino': s.st_ino, 'dev': s.st_dev}))",
        ]
        for spelling in ("inherit", None):
            events = [e async for e in json_events_from_process(argv, stdin=spelling)]
            assert events == [{"ino": ours.st_ino, "dev": ours.st_dev}]


async def test_cwd_is_applied(tmp_path: Path) -> None:
    event = await echo(cwd=tmp_path)
    assert event["cwd"] == str(tmp_path)  # pytest hands out an already-resolved path


def test_missing_cwd_is_rejected_before_launch(tmp_path: Path) -> None:
    with pytest.raises(AgenticRequestValidationError) as info:
        json_events_from_process(fake_cli_argv("echo"), cwd=tmp_path / "absent")
    assert info.value.field == "cwd"


def test_fake_cli_scripts_are_shipped() -> None:
    for name in SCRIPTS:
        assert script_path(name).is_file()
    with pytest.raises(ValueError, match="unknown fake CLI"):
        script_path("nope")


def test_environment_precedence_is_env_over_inherited_over_path_default() -> None:
    environ = {"PATH": "/parent/bin", "HOME": "/home/u", "X": "parent", "API_KEY": "k"}
    spec = SubprocessSpec(argv=["x"], env={"X": "explicit"}, inherit_env=("HOME", "X", "MISSING"))
    assert spec.child_env(environ) == {"PATH": "/parent/bin", "HOME": "/home/u", "X": "explicit"}
    assert SubprocessSpec(argv=["x"]).child_env({}) == {"PATH": os.defpath}
    assert SubprocessSpec(argv=["x"], env={"PATH": "/p"}).child_env(environ) == {"PATH": "/p"}


def test_credential_looking_env_values_are_redaction_secrets() -> None:
    spec = SubprocessSpec(
        argv=["x"], env={"ANTHROPIC_API_KEY": "k1", "GH_TOKEN": "k2", "MODE": "m"}, secrets=["s"]
    )
    assert set(spec.secret_values()) == {"k1", "k2", "s"}
