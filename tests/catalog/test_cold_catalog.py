"""Cold catalog build (issue 15 item 3): what every command pays, and that it stays exact.

* The entry-point inventory is read by a direct walk of the ``*.dist-info`` directories on
  ``sys.path`` (``_catalog/entry_scan.py``); it must give exactly what ``importlib.metadata``
  gives, and defer to it for layouts it does not model.
* The build dry-runs each registration's config by ``EndpointConfig``'s rules without building
  the model's validator (so without pydantic's plugin scan either).
* An agentic row may declare its program (``AgenticProgram``): ``providers`` reports it without
  importing the adapter, and an imported class that says otherwise fails the row.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Any

import pytest

from lionagi.service import (
    AgenticProgram,
    CatalogValidationError,
    EndpointConfig,
    EndpointConfigurationError,
)
from lionagi.service._catalog.discovery import _importlib_group
from lionagi.service._catalog.entry_scan import scan_group
from lionagi.service._transport.config import check_config_fields

from .conftest import Dists

GROUP = "lionagi.providers"


def _fresh(code: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=False,
        timeout=180,
        env={**os.environ, **(env or {})},
    )


# -- the direct entry-point scan --------------------------------------------------------------


def _dist(root: Path, dirname: str, entry_points: str | None, metadata: str | None) -> None:
    info = root / dirname
    info.mkdir(parents=True)
    if entry_points is not None:
        (info / "entry_points.txt").write_text(entry_points)
    if metadata is not None:
        (info / "METADATA").write_text(metadata)


def _same_as_importlib(group: str = GROUP) -> list[tuple[str, str, str | None]]:
    scanned = scan_group(group)
    assert scanned is not None
    assert sorted(scanned) == sorted(_importlib_group(group))
    return sorted(scanned)


def test_scan_matches_importlib_on_the_installed_environment() -> None:
    rows = _same_as_importlib()
    assert ("openai", "lionagi.providers.openai", "lionagi-provider-openai") in rows
    for group in ("console_scripts", "pytest11"):
        _same_as_importlib(group)


def test_scan_matches_importlib_on_shadowing_comments_and_metadata_fallbacks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first, second = tmp_path / "first", tmp_path / "second"
    ep = "[lionagi.providers]\n"
    # The first distribution of a normalized name shadows every later one, across paths and
    # spellings (Foo.Bar / foo_bar / foo-bar).
    _dist(first, "Foo.Bar-1.0.dist-info", ep + "foo = pkg.foo\n", "Name: Foo.Bar\n\nbody\n")
    _dist(second, "foo_bar-2.0.dist-info", ep + "shadowed = pkg.shadowed\n", "Name: foo_bar\n")
    # Comments, blank lines, other sections, spaces around "=" and a value with "=" in it.
    _dist(
        second,
        "acme-0.1.dist-info",
        "# comment\n\n[console_scripts]\nacme = acme:main\n"
        "[lionagi.providers]\n  # not an entry\n acme =  acme.provider \nweird = a=b\n",
        "Metadata-Version: 2.1\nname: Acme-Tools\nVersion: 0.1\n",
    )
    # Empty METADATA: the name comes from PKG-INFO; an egg-info directory counts the same.
    _dist(second, "eggy-0.1.egg-info", ep + "eggy = eggy.mod\n", "")
    (second / "eggy-0.1.egg-info" / "PKG-INFO").write_text("Name: eggy\n")
    # No metadata at all: the row has no distribution name.
    _dist(second, "anon-0.1.dist-info", ep + "anon = anon.mod\n", None)
    # Not metadata, and a file named like a dist-info directory.
    (second / "README.txt").write_text("[lionagi.providers]\n")
    (second / "flat-0.1.egg-info").write_text("Name: flat\n")
    monkeypatch.syspath_prepend(str(second))
    monkeypatch.syspath_prepend(str(first))
    monkeypatch.syspath_prepend(str(tmp_path / "missing"))  # a path entry that does not exist

    rows = [r for r in _same_as_importlib() if not r[1].startswith("lionagi.")]
    assert rows == [
        ("acme", "acme.provider", "Acme-Tools"),
        ("anon", "anon.mod", None),
        ("eggy", "eggy.mod", "eggy"),
        ("foo", "pkg.foo", "Foo.Bar"),
        ("weird", "a=b", "Acme-Tools"),
    ]


@pytest.mark.parametrize("mentions_group", [False, True])
def test_an_undecodable_entry_points_file_fails_the_scan_as_it_fails_importlib(
    mentions_group: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The scan reads bytes first and decodes only files that mention the group; a corrupt file
    # elsewhere must still fail the same way importlib.metadata's text read fails on it.
    info = tmp_path / "corrupt-0.1.dist-info"
    info.mkdir()
    header = f"[{GROUP}]\n".encode() if mentions_group else b"[console_scripts]\n"
    (info / "entry_points.txt").write_bytes(header + b"x = caf\xe9.mod\n")
    (info / "METADATA").write_text("Name: corrupt\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(UnicodeDecodeError):
        _importlib_group(GROUP)
    with pytest.raises(UnicodeDecodeError):
        scan_group(GROUP)


@pytest.mark.parametrize("layout", ["zip", "egg-dir", "upper-suffix", "finder", "no-equals"])
def test_scan_defers_to_importlib_for_layouts_it_does_not_model(
    layout: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if layout == "zip":
        archive = tmp_path / "bundle.zip"
        with zipfile.ZipFile(archive, "w") as zf:
            zf.writestr("zipped-0.1.dist-info/entry_points.txt", f"[{GROUP}]\nzipped = z.mod\n")
            zf.writestr("zipped-0.1.dist-info/METADATA", "Name: zipped\n")
        monkeypatch.syspath_prepend(str(archive))
    elif layout == "egg-dir":
        (tmp_path / "old.egg" / "EGG-INFO").mkdir(parents=True)
        monkeypatch.syspath_prepend(str(tmp_path / "old.egg"))
    elif layout == "upper-suffix":
        _dist(tmp_path, "Shouty-0.1.DIST-INFO", f"[{GROUP}]\nshouty = s.mod\n", "Name: shouty\n")
        monkeypatch.syspath_prepend(str(tmp_path))
    elif layout == "finder":

        class Finder:
            @staticmethod
            def find_spec(*_: Any) -> None:
                return None

            @staticmethod
            def find_distributions(*_: Any) -> list[Any]:
                return []

        monkeypatch.setattr(sys, "meta_path", [*sys.meta_path, Finder()])
    else:
        _dist(tmp_path, "broken-0.1.dist-info", f"[{GROUP}]\nno equals sign\n", "Name: b\n")
        monkeypatch.syspath_prepend(str(tmp_path))
    assert scan_group(GROUP) is None
    if layout == "zip":  # and importlib, which reads zips, is what the inventory then uses
        assert ("zipped", "z.mod", "zipped") in _importlib_group(GROUP)


def test_catalog_build_reads_metadata_without_importlib_metadata_or_a_config_validator() -> None:
    # Both walked every installed distribution: the inventory through importlib.metadata, and
    # pydantic's plugin loader, run when the config dry run built EndpointConfig's validator.
    out = _fresh(
        "import sys\n"
        "from lionagi.service import EndpointConfig, ProviderCatalog\n"
        "snap = ProviderCatalog().snapshot()\n"
        "assert 'openai' in snap.providers and 'scripted' in snap.providers\n"
        "print(sorted(m for m in ('importlib.metadata', 'pydantic.plugin._loader')"
        " if m in sys.modules))\n"
        "print(EndpointConfig.__pydantic_complete__)\n"
    )
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.split("\n")[:2] == ["[]", "False"]


def test_catalog_build_builds_no_request_model_for_rows_declared_by_reference() -> None:
    # Every workspace vendor names its request models by reference, the dialect's defaults
    # included; building them at catalog build would cost every command, used or not.
    out = _fresh(
        "import sys\n"
        "from lionagi.service import ProviderCatalog\n"
        "snap = ProviderCatalog().snapshot()\n"
        "assert 'ollama' in snap.providers and 'deepseek' in snap.providers\n"
        "print(sorted(m for m in ('lionagi.service._catalog.openai_request',"
        " 'lionagi.service._transport.agentic.records') if m in sys.modules))\n"
    )
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.split("\n")[0] == "[]"


# -- the config dry run -------------------------------------------------------------------------

_BASE: dict[str, Any] = {
    "name": "acme_chat",
    "provider": "acme",
    "endpoint": "chat",
    "base_url": "https://api.example.test/v1",
    "request_options": None,
    "timeout": 600.0,
    "auth_type": "bearer",
    "content_type": "application/json",
    "api_key_env": None,
    "request_defaults": {},
    "method": "POST",
}


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("auth_type", "basic"),
        ("auth_type", None),
        ("base_url", "ftp://example.test"),
        ("base_url", "https://"),
        ("base_url", "https://example.test/#frag"),
        ("base_url", 42),
        ("content_type", 3),
        ("api_key_env", ["X"]),
        ("name", " "),
        ("provider", ""),
        ("endpoint", None),
        ("request_defaults", [("a", 1)]),
        ("request_options", int),
        ("method", "FETCH"),
        ("timeout", 0),
        ("timeout", float("inf")),
        # the model's cross-field rule: userinfo beside the (default) bearer key
        ("base_url", "https://user:secret@example.test/v1"),
    ],
)
def test_static_config_check_refuses_what_endpoint_config_refuses(field: str, value: Any) -> None:
    data = {**_BASE, field: value}
    with pytest.raises(EndpointConfigurationError) as model_error:
        EndpointConfig(**data)
    with pytest.raises(EndpointConfigurationError) as static_error:
        check_config_fields(data)
    assert static_error.value.field == model_error.value.field == field


@pytest.mark.parametrize(
    "changes",
    [
        {},
        {"base_url": None, "auth_type": "none", "content_type": None},
        {"auth_type": "x-api-key", "api_key_env": "ACME_KEY", "request_defaults": {"k": 1}},
        {"base_url": "http://127.0.0.1:8080/v1?api-version=1", "timeout": 3600},
        {"base_url": "https://user:secret@example.test/v1", "auth_type": "none"},
        {"base_url": "https://user:secret@example.test/v1", "auth_type": "x-api-key"},
    ],
)
def test_static_config_check_accepts_what_endpoint_config_accepts(changes: dict[str, Any]) -> None:
    data = {**_BASE, **changes}
    EndpointConfig(**data)
    check_config_fields(data)


def test_a_field_without_a_static_rule_is_validated_by_the_model() -> None:
    with pytest.raises(EndpointConfigurationError) as err:
        check_config_fields({**_BASE, "max_retries": 0})
    assert err.value.field == "max_retries"
    with pytest.raises(EndpointConfigurationError) as err:
        check_config_fields({**_BASE, "nonsense": 1})
    assert err.value.field == "nonsense"


# -- rows that declare their agentic program ----------------------------------------------------

_PROGRAM_ROW = """
from lionagi.service import AgenticProgram

PROGRAM = AgenticProgram(
    binary="lcat-no-such-program", tested_version="1.0", install_hint="get it", auth_hint="login"
)
PROVIDER_SPECS = (
    agentic(
        "progcli",
        "cli",
        cls=__name__.rpartition(".")[0] + ".progcli_impl:ProgCli",
        request_options=__name__.rpartition(".")[0] + "._support:CliRequest",
        program=PROGRAM,
    ),
)
"""

_PROGRAM_IMPL = """
from .progcli import PROGRAM

class ProgCli(AgenticEndpoint):
    capabilities = CAPS
    request_type = CliRequest
    cli_binary = {binary!r}
    tested_version = PROGRAM.tested_version
    install_hint = PROGRAM.install_hint
    auth_hint = PROGRAM.auth_hint
"""


def _plant_program(dists: Dists, binary: str) -> None:
    dists.provider("progcli", _PROGRAM_ROW)
    dists.module("progcli_impl", _PROGRAM_IMPL.format(binary=binary))


def _providers(argv: list[str], root: Path) -> tuple[int, str, list[str]]:
    env = {"PYTHONPATH": os.pathsep.join([str(root), os.environ.get("PYTHONPATH", "")])}
    out = _fresh(
        "import atexit, sys\n"
        "atexit.register(lambda: sys.__stderr__.write('\\nMODULES ' + ' '.join(sorted(\n"
        "    m for m in sys.modules if m.endswith(('_impl', '._endpoint')))) + '\\n'))\n"
        "from lionagi.service.cli import main\n"
        f"raise SystemExit(main({argv!r}))\n",
        env,
    )
    line = next(x for x in reversed(out.stderr.splitlines()) if x.startswith("MODULES"))
    return out.returncode, out.stdout + out.stderr, line.split()[1:]


def test_providers_reports_a_declared_program_without_importing_the_adapter(
    dists: Dists, tmp_path: Path
) -> None:
    _plant_program(dists, "lcat-no-such-program")
    code, output, modules = _providers(["providers", "--json"], tmp_path)
    assert code == 0, output[-3000:]
    assert modules == []  # neither this adapter nor any installed one was imported
    report = json.loads(output[: output.rindex("}") + 1])
    (row,) = [p for p in report["cli_programs"] if p["provider"] == "progcli"]
    assert (row["binary"], row["found"], row["install_hint"]) == (
        "lcat-no-such-program",
        False,
        "get it",
    )
    code, output, modules = _providers(["providers", "--strict", "--json"], tmp_path)
    assert f"{dists.prefix}.progcli_impl" in modules  # --strict still imports every row
    assert code == 0, output[-3000:]  # a missing program is reported, not a catalog failure


def test_a_class_that_contradicts_its_rows_program_fails_the_row(
    dists: Dists, tmp_path: Path
) -> None:
    _plant_program(dists, "something-else")
    code, output, _ = _providers(["providers", "--strict"], tmp_path)
    assert code == 5, output[-3000:]
    assert "cli_binary is 'something-else'" in output and "program.binary" in output
    catalog = dists.catalog()
    with pytest.raises(CatalogValidationError) as err:
        catalog.snapshot().provider("progcli")
    assert [(d.code, d.key) for d in err.value.diagnostics] == [
        ("invalid_endpoint_class", "program")
    ]


@pytest.mark.parametrize(
    ("row", "message"),
    [
        ("api('progapi', 'chat', program=AgenticProgram(binary='x'))", "agentic rows only"),
        ("agentic('progapi', 'cli', program='x')", "must be an AgenticProgram"),
        ("agentic('progapi', 'cli', program=AgenticProgram(binary=''))", "program.binary"),
        ("agentic('progapi', 'cli', program=AgenticProgram(modules=['m']))", "program.modules"),
    ],
)
def test_a_malformed_program_fails_the_build(dists: Dists, row: str, message: str) -> None:
    dists.provider(
        "progapi", f"from lionagi.service import AgenticProgram\nPROVIDER_SPECS = ({row},)\n"
    )
    with pytest.raises(CatalogValidationError) as err:
        dists.catalog().snapshot()
    (diag,) = err.value.diagnostics
    assert (diag.code, diag.key) == ("invalid_endpoint_config", "program")
    assert message in diag.message


def test_every_installed_cli_row_declares_a_program_its_class_agrees_with() -> None:
    from lionagi.service import EndpointRegistry

    snapshot = EndpointRegistry.snapshot()
    for key in ("ag2", "claude_code", "codex", "gemini_code", "pi", "scripted"):
        if key not in snapshot.providers:
            continue
        for entry in snapshot.providers[key].endpoints.values():
            assert isinstance(entry.program, AgenticProgram), entry
        snapshot.provider(key)  # resolving runs the class/program agreement check


def test_matching_one_provider_imports_no_other_providers_endpoint_module() -> None:
    # Core's own scripted provider was an eager row: every build imported its endpoint.
    out = _fresh(
        "import sys\n"
        "from lionagi.service import match_endpoint\n"
        "match_endpoint('groq', 'chat')\n"
        "print(sorted(m for m in sys.modules if m.endswith(('._endpoint', '._script'))))\n"
    )
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.strip() == "['lionagi.providers.groq._endpoint']"
