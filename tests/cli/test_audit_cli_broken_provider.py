"""``models`` and ``doctor`` when an installed provider distribution is broken.

The distributions are built by hand on ``PYTHONPATH`` (a ``*.dist-info`` with the
``lionagi.providers`` entry point and the module it names), and the installed console script
runs in a subprocess, as a user's environment would hold them:

- ``broken``: its module fails to import. ``providers`` lists it and ``chat broken/x`` says it
  is installed but unavailable; ``models broken`` and ``doctor broken`` said "names no installed
  provider", sending the user to install what is installed.
- ``lazy``: its module imports, but the endpoint class a row names does not (a deferred row).
  ``models lazy`` was a traceback, and ``doctor --json`` wrote its failure line on stdout in front
  of the JSON document.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from ._support import HANG_GUARD, cli_env, command

SECRET = "sk-proj-AuditBrokenProvider0123456789abcdefXYZ"


def _distribution(root: Path, name: str, key: str, module: str, source: str) -> Path:
    info = root / f"{name}-0.1.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: {name}\nVersion: 0.1\n", encoding="utf-8"
    )
    (info / "entry_points.txt").write_text(
        f"[lionagi.providers]\n{key} = {module}\n", encoding="utf-8"
    )
    (root / f"{module}.py").write_text(source, encoding="utf-8")
    return root


def _broken(root: Path) -> Path:
    return _distribution(
        root,
        "lionagi-provider-broken",
        "broken",
        "audit_broken_provider",
        f"raise ImportError('needs a missing dependency; key {SECRET}')\n",
    )


def _lazy(root: Path) -> Path:
    source = (
        "from lionagi.service import EndpointType, ProviderEndpointSpec\n"
        "PROVIDER_SPECS = (\n"
        "    ProviderEndpointSpec(\n"
        "        provider='lazy', endpoint='chat/completions', endpoint_aliases=('chat',),\n"
        "        endpoint_type=EndpointType.API,\n"
        "        endpoint_class='audit_lazy_provider_missing:Endpoint',\n"
        "        base_url='https://example.invalid/v1', auth_type='bearer',\n"
        "        api_key_env='LAZY_API_KEY',\n"
        "    ),\n"
        ")\n"
    )
    return _distribution(root, "lionagi-provider-lazy", "lazy", "audit_lazy_provider", source)


def run(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    path = os.pathsep.join(p for p in (str(root), os.environ.get("PYTHONPATH", "")) if p)
    return subprocess.run(
        [*command(), *args],
        capture_output=True,
        text=True,
        timeout=HANG_GUARD,
        env=cli_env(columns="200", PYTHONPATH=path),
        check=False,
    )


def _one_line(done: subprocess.CompletedProcess[str]) -> str:
    assert "Traceback" not in done.stderr, done.stderr
    [line] = done.stderr.splitlines()
    assert SECRET not in done.stdout + done.stderr
    return line


def test_models_of_a_provider_that_fails_to_import_says_it_is_installed(tmp_path: Path) -> None:
    root = _broken(tmp_path)
    listed = run(root, "providers", "--json")
    assert any(p["provider"] == "broken" for p in json.loads(listed.stdout)["providers"])

    done = run(root, "models", "broken")

    assert done.returncode == 2, done.stderr
    line = _one_line(done)
    assert line.startswith("models: provider 'broken' is installed but unavailable: "), line
    assert "pip install --force-reinstall lionagi-provider-broken" in line
    assert "names no installed provider" not in line


def test_models_of_a_provider_whose_row_fails_to_import_is_one_line(tmp_path: Path) -> None:
    done = run(_lazy(tmp_path), "models", "lazy", "--json")

    assert done.returncode == 2, done.stderr
    line = _one_line(done)
    assert line.startswith("models: provider 'lazy' is installed but unavailable: "), line
    assert "audit_lazy_provider_missing" in line
    assert done.stdout == ""


def test_doctor_json_stays_json_when_a_row_fails_to_import(tmp_path: Path) -> None:
    done = run(_lazy(tmp_path), "doctor", "--json")

    assert done.returncode == 1, done.stderr
    rows = json.loads(done.stdout)  # the failure line is on stderr, not in front of the JSON
    assert isinstance(rows, list)
    assert "doctor: lazy: provider 'lazy' is installed but unavailable" in done.stderr
    assert "Traceback" not in done.stderr


def test_doctor_names_a_provider_that_fails_to_import(tmp_path: Path) -> None:
    root = _broken(tmp_path)

    named = run(root, "doctor", "broken")
    assert named.returncode == 1, named.stderr
    line = _one_line(named)
    assert line.startswith("doctor: broken: provider 'broken' is installed but unavailable"), line

    every = run(root, "doctor", "--json")  # not named: still reported, as a deferred row is
    assert every.returncode == 1
    json.loads(every.stdout)
    assert "doctor: broken: provider 'broken' is installed but unavailable" in every.stderr
    assert SECRET not in every.stdout + every.stderr
