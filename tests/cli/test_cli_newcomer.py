"""Issue 17 item 8: what a newcomer met on the command line, one test (or two) per fix.

The installed console script runs in a subprocess, as from a shell: stdout is a pipe, so these
also pin the non-terminal output (no escape codes, no folded table cells).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import uuid
from pathlib import Path

import pytest

from lionagi.service import AdmissionConfigError
from lionagi.service.cli._chat import exit_code_for

from ._support import HANG_GUARD, cli_env, command


def run(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*command(), *args],
        capture_output=True,
        text=True,
        timeout=HANG_GUARD,
        env=cli_env(**env),
        check=False,
    )


def error_lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.strip()]


# -- --version ------------------------------------------------------------------------------------


def test_version_prints_core_and_every_installed_provider_distribution():
    from importlib import metadata

    done = run("--version")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == f"lionagi-service-core {metadata.version('lionagi-service-core')}: scripted"
    expected = {
        f"{ep.dist.name} {ep.dist.version}: {ep.name}"
        for ep in metadata.entry_points(group="lionagi.providers")
        if ep.dist is not None and ep.dist.name != "lionagi-service-core"
    }
    assert expected, "the workspace installs provider distributions"
    assert expected <= set(lines)
    assert f"lionagi-service {metadata.version('lionagi-service')}" in lines


def test_version_imports_no_provider_module():
    """A broken provider must not break --version: only distribution metadata is read."""
    code = (
        "import sys\n"
        "from lionagi.service.cli._version import version_text\n"
        "assert 'lionagi-provider-openai' in version_text()\n"
        "print(sorted(m for m in sys.modules if m.startswith('lionagi.providers')))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=HANG_GUARD,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


# -- errors: stderr, one line ---------------------------------------------------------------------


def test_a_provider_error_chunk_is_one_line_on_stderr_not_stdout():
    done = run("chat", "scripted/demo", "SCRIPTED_FAIL")
    assert done.returncode == 1
    assert "provider error" not in done.stdout
    assert error_lines(done.stderr) == [
        "provider error: scripted provider failure requested by the prompt"
    ]
    assert done.stdout == "Working on it\n"  # the partial answer, its line ended


def test_json_keeps_the_error_chunk_on_stdout_and_says_it_on_stderr():
    done = run("chat", "--json", "scripted/demo", "SCRIPTED_FAIL")
    assert done.returncode == 1
    records = [json.loads(line) for line in done.stdout.splitlines()]
    assert [r["type"] for r in records[-2:]] == ["error", "exception"]
    assert len(error_lines(done.stderr)) == 1


def test_usage_errors_are_one_line():
    done = run("chat", "scripted/demo")
    assert done.returncode == 2
    (line,) = error_lines(done.stderr)
    assert "prompt" in line and "--help" in line


def _broken_catalog(root: Path) -> dict[str, str]:
    """A distribution whose request_options factory fails: the catalog does not validate."""
    prefix = f"lnewcomer_{uuid.uuid4().hex[:10]}"
    (root / prefix).mkdir()
    (root / prefix / "__init__.py").write_text("")
    (root / prefix / "badopts.py").write_text(
        textwrap.dedent(
            """
            from lionagi.service import Endpoint, EndpointType, ProviderEndpointSpec

            class BadChat(Endpoint):
                pass

            def options():
                raise RuntimeError("factory broke\\non two lines")

            PROVIDER_SPECS = (
                ProviderEndpointSpec(
                    provider="badopts",
                    endpoint="chat",
                    endpoint_type=EndpointType.API,
                    endpoint_class=BadChat,
                    base_url="https://api.example.test/v1",
                    request_options=options,
                ),
            )
            """
        )
    )
    info = root / f"{prefix}_badopts-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {prefix}-badopts\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(f"[lionagi.providers]\nbadopts = {prefix}.badopts\n")
    return {"PYTHONPATH": os.pathsep.join(filter(None, [str(root), os.environ.get("PYTHONPATH")]))}


def test_an_invalid_catalog_is_exit_5_and_one_stderr_line_in_every_command(tmp_path):
    env = _broken_catalog(tmp_path)
    chat = run("chat", "scripted/demo", "hi", **env)
    providers = run("providers", **env)
    models = run("models", "scripted", **env)
    for done in (chat, providers, models):
        assert done.returncode == 5, done.stderr
        assert len(error_lines(done.stderr)) == 1, done.stderr
    assert "CatalogValidationError" in chat.stderr


# -- exit codes -----------------------------------------------------------------------------------


@pytest.mark.parametrize("value", ["nan", "inf", "-1", "soon"])
def test_a_timeout_that_is_not_a_finite_number_of_seconds_is_bad_usage(value):
    done = run("chat", "scripted/demo", "hi", "--timeout", value)
    assert done.returncode == 2
    (line,) = error_lines(done.stderr)
    assert "--timeout" in line


def test_a_bad_admission_setting_maps_to_bad_usage():
    assert exit_code_for(AdmissionConfigError("timeout", "must be finite")) == 2


def test_timeout_zero_is_explained_in_help_and_runs_without_deadline():
    helped = run("chat", "--help")
    assert "0 or omitted: no deadline" in " ".join(helped.stdout.split())
    done = run("chat", "scripted/demo", "hi", "--timeout", "0")
    assert done.returncode == 0, done.stderr


# -- Ctrl-C ---------------------------------------------------------------------------------------


def _sigint_as_in_a_terminal() -> None:
    # A process inherits an ignored SIGINT (a script's background job, nohup), and Python then
    # keeps ignoring it, as Unix programs should: the CLI must not override that choice. The
    # child this test starts stands for a chat run from a terminal, so it gets the default.
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _interrupt(*args: str) -> tuple[int, str, str]:
    """Start a stalling chat, wait for its first output, send SIGINT, collect everything."""
    proc = subprocess.Popen(
        [*command(), *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=cli_env(),
        preexec_fn=_sigint_as_in_a_terminal,
    )
    try:
        assert proc.stdout is not None
        first = (
            proc.stdout.read(len("Stalling")) if "--json" not in args else proc.stdout.readline()
        )
        proc.send_signal(signal.SIGINT)
        rest, err = proc.communicate(timeout=HANG_GUARD)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    return proc.returncode, first + rest, err


def test_ctrl_c_ends_the_partial_line_and_exits_130():
    code, out, err = _interrupt("chat", "scripted/demo", "SCRIPTED_STALL")
    assert code == 130
    assert out == "Stalling\n"
    assert error_lines(err) == ["interrupted"]


def test_ctrl_c_with_json_writes_a_final_interrupted_record():
    code, out, _ = _interrupt("chat", "--json", "scripted/demo", "SCRIPTED_STALL")
    assert code == 130
    records = [json.loads(line) for line in out.splitlines()]
    assert records[0]["content"] == "Stalling"
    assert records[-1] == {"type": "interrupted", "exit_code": 130}


# -- messages and hints ---------------------------------------------------------------------------


def test_a_bare_provider_name_is_called_a_provider_that_needs_a_model():
    done = run("chat", "scripted", "hi")
    assert done.returncode == 2
    assert "names no provider" not in done.stderr
    assert "'scripted' is a provider but names no model" in done.stderr
    assert "scripted/<model>" in done.stderr


def test_endpoint_setting_passes_any_endpoint_config_field():
    from lionagi.service_testing.fake_server import FakeProviderServer

    with FakeProviderServer.running_in_thread() as server:
        base = [
            "chat",
            "mycorp/some-model",
            "hi",
            "--openai-compatible",
            "--base-url",
            f"{server.base_url}/v1",
            "--allow-local-network",
            "--api-key-env",
            "NEWCOMER_KEY",
            "--json",
        ]
        ok = run(
            *base,
            "--endpoint-setting",
            "max_retries=1",
            "--endpoint-setting",
            'default_headers={"X-Org": "newcomer"}',
            NEWCOMER_KEY="sk-newcomer-000000",
        )
        recorded = server.requests
        unknown = run(*base, "--endpoint-setting", "no_such_field=1", NEWCOMER_KEY="k")
        twice = run(
            *base,
            "--endpoint-setting",
            "max_retries=1",
            "--endpoint-setting",
            "max_retries=2",
            NEWCOMER_KEY="k",
        )
    assert ok.returncode == 0, ok.stderr
    assert recorded[-1].headers.get("x-org") == "newcomer"
    assert unknown.returncode == 2 and "no_such_field" in unknown.stderr
    assert twice.returncode == 2 and "max_retries" in twice.stderr


def test_malformed_endpoint_setting_is_bad_usage():
    done = run("chat", "scripted/demo", "hi", "--endpoint-setting", "novalue")
    assert done.returncode == 2
    assert "KEY=VALUE" in done.stderr


# -- providers --strict, tables -------------------------------------------------------------------


def test_providers_strict_exists_and_passes_on_a_healthy_catalog():
    done = run("providers", "--strict")
    assert done.returncode in (0, 1)  # 1 only when an installed provider is unavailable
    assert "unrecognized arguments" not in done.stderr


def test_piped_tables_do_not_fold_cells():
    document = json.loads(run("providers", "--json").stdout)
    table = run("providers", COLUMNS="80")
    assert table.returncode == 0, table.stderr
    assert "\x1b[" not in table.stdout
    lines = table.stdout.splitlines()
    for item in document["providers"]:
        aliases = ", ".join(item["aliases"])
        row = [line for line in lines if f" {item['provider']} " in line]
        assert row, item["provider"]
        assert aliases in row[0], (item["provider"], row[0])


# -- models PROVIDER ------------------------------------------------------------------------------


def test_models_lists_aliases_and_effort_levels_from_the_policy():
    from lionagi.service._catalog.registry import EndpointRegistry

    snapshot = EndpointRegistry.snapshot()
    provider, policy = next(
        (key, p.policy)
        for key, p in sorted(snapshot.providers.items())
        if p.policy is not None and p.policy.effort_levels
    )
    assert policy is not None
    as_json = run("models", provider, "--json")
    assert as_json.returncode == 0, as_json.stderr
    report = json.loads(as_json.stdout)
    assert report["provider"] == provider
    assert report["effort_levels"] == list(policy.effort_levels)
    for name, alias in snapshot.model_aliases.items():
        if alias.provider == provider:
            assert report["model_aliases"][name] == alias.target
    table = run("models", provider)
    assert table.returncode == 0
    for level in policy.effort_levels:
        assert level in table.stdout


def test_models_resolves_a_provider_alias_and_refuses_an_unknown_provider():
    by_alias = run("models", "scripted", "--json")
    assert by_alias.returncode == 0
    assert json.loads(by_alias.stdout)["endpoints"] == ["chat"]
    unknown = run("models", "no-such-provider")
    assert unknown.returncode == 2
    assert len(error_lines(unknown.stderr)) == 1


def test_models_of_a_provider_whose_requests_take_no_model_says_how_to_write_it():
    # AG2's in-process agents take no model: "ag2/<model>" would put a name in a field its
    # requests do not have (iModel then refuses it), so the listing says provider= endpoint=.
    as_json = run("models", "ag2", "--json")
    assert as_json.returncode == 0, as_json.stderr
    assert json.loads(as_json.stdout)["takes_model"] is False
    table = run("models", "ag2")
    assert "ag2/<model>" not in table.stdout
    assert "provider='ag2'" in table.stdout
    assert json.loads(run("models", "openai", "--json").stdout)["takes_model"] is True
