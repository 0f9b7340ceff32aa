"""Who installed what: collisions between distributions, provider imports that exit, and
diagnostics that name the distribution to uninstall or fix (issue 9, items 14-16).

Distributions are real ``.dist-info`` directories read through ``importlib.metadata``; the
command-line cases run ``lionagi-service`` in a subprocess whose ``PYTHONPATH`` holds them, so
the exit status is the one a shell sees.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any

import pytest

from lionagi.service import (
    CatalogValidationError,
    ProviderCatalog,
    ProviderDiagnostic,
    ProviderModuleSpec,
    ProviderUnavailable,
)
from lionagi.service.cli._providers import providers_command

from .conftest import Dists

ACME = "PROVIDER_SPECS = (api('acme', 'chat', provider_aliases=('ac',)),)\n"
HANG_GUARD = 60.0  # seconds; a "did not hang" bound only


def failing(catalog: ProviderCatalog) -> tuple[ProviderDiagnostic, ...]:
    with pytest.raises(CatalogValidationError) as info:
        catalog.snapshot()
    assert catalog.published is None
    return info.value.diagnostics


def cli(dists: Dists, *args: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    env.update({"PYTHONPATH": str(dists.root), "NO_COLOR": "1", "COLUMNS": "200"})
    code = "import sys; from lionagi.service.cli import main; sys.exit(main())"
    return subprocess.run(
        [sys.executable, "-c", code, *args],
        capture_output=True,
        text=True,
        timeout=HANG_GUARD,
        env=env,
        check=False,
    )


# -- item 14: two distributions, one provider module ----------------------------------------------


def test_same_entry_point_in_two_distributions_is_two_rows(dists: Dists) -> None:
    module = dists.module("acme", ACME)
    dists.dist("acme", {"acme": module})
    dists.dist("acme-fork", {"acme": module})
    assert dists.inventory() == (
        ProviderModuleSpec("acme", module, f"{dists.prefix}-acme"),
        ProviderModuleSpec("acme", module, f"{dists.prefix}-acme-fork"),
    )


def test_two_distributions_shipping_one_module_is_one_collision(dists: Dists) -> None:
    module = dists.module("acme", ACME)
    dists.dist("acme", {"acme": module})
    dists.dist("acme-fork", {"acme": module})
    first, second = f"{dists.prefix}-acme", f"{dists.prefix}-acme-fork"

    (diag,) = failing(dists.catalog())

    assert (diag.code, diag.provider, diag.module) == ("duplicate_provider_module", "acme", module)
    assert diag.distributions == (first, second)
    assert first in diag.message and second in diag.message
    assert diag.fix == f"pip uninstall {first} {second}, then reinstall only the one you want"
    assert module not in sys.modules  # a contested module is not imported


def test_one_module_under_two_entry_names_is_one_collision(dists: Dists) -> None:
    module = dists.module("acme", ACME)
    dists.dist("acme", {"acme": module})
    dists.dist("acme-renamed", {"acme2": module})

    (diag,) = failing(dists.catalog())  # no provider_mismatch or reused-class echoes

    assert diag.code == "duplicate_provider_module"
    assert diag.distributions == (f"{dists.prefix}-acme", f"{dists.prefix}-acme-renamed")
    assert "'acme'" in diag.message and "'acme2'" in diag.message


def test_one_key_from_two_distributions_names_both(dists: Dists) -> None:
    dists.provider("acme", ACME)
    dists.provider("acme", "PROVIDER_SPECS = (api('acme', 'embed'),)\n", name="acme_fork")
    first, second = f"{dists.prefix}-acme", f"{dists.prefix}-acme_fork"

    (diag,) = failing(dists.catalog())

    assert (diag.code, diag.key) == ("duplicate_provider_key", "acme")
    assert diag.distributions == (first, second)
    assert first in diag.message and second in diag.message
    assert diag.fix == f"pip uninstall all but one of: {first}, {second}"


# -- item 15: a provider that exits at import ------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "fragment", "cause"),
    [
        ("import sys\nsys.exit(3)\n", "exit code 3", "SystemExit"),
        ("raise SystemExit('bye')\n", "exit code 'bye'", "SystemExit"),
        ("raise GeneratorExit\n", "GeneratorExit", "GeneratorExit"),
    ],
)
def test_exit_at_import_is_an_import_error(
    dists: Dists, body: str, fragment: str, cause: str
) -> None:
    dists.provider("acme", ACME)
    dists.provider("stop", body)
    catalog = dists.catalog()

    snapshot = catalog.snapshot()

    (diag,) = snapshot.diagnostics
    assert (diag.code, diag.provider, diag.cause_type) == ("import_error", "stop", cause)
    assert fragment in diag.message
    assert diag.distributions == (f"{dists.prefix}-stop",)
    assert catalog.match("acme", "chat").config.provider == "acme"
    with pytest.raises(ProviderUnavailable):
        catalog.match("stop", "chat")


def test_cancellation_at_import_propagates(dists: Dists) -> None:
    dists.provider("stop", "import asyncio\nraise asyncio.CancelledError\n")
    import asyncio

    with pytest.raises(asyncio.CancelledError):
        dists.catalog().snapshot()


def test_command_line_survives_a_provider_that_exits(dists: Dists) -> None:
    dists.provider("stop", "import sys\nsys.exit(3)\n")

    demo = cli(dists, "demo", "--json", "--pace", "0")
    assert demo.returncode == 0, demo.stderr
    assert '"type": "result"' in demo.stdout

    listed = cli(dists, "providers", "--json")
    assert listed.returncode == 0, listed.stderr
    rows = {p["provider"]: p for p in json.loads(listed.stdout)["providers"]}
    assert rows["stop"]["availability"] == "unavailable"
    (diag,) = rows["stop"]["diagnostics"]
    assert (diag["code"], diag["cause_type"]) == ("import_error", "SystemExit")
    assert "exit code 3" in diag["message"]


# -- item 16: diagnostics name distributions; providers lists an invalid catalog ------------------


def test_every_diagnostic_names_its_distribution_and_a_fix(dists: Dists) -> None:
    dists.provider("broken", "raise ImportError('missing sdk')\n")
    dists.provider("beta", "PROVIDER_SPECS = (api('beta', 'chat', provider_aliases=('BETA',)),)\n")
    diags = {d.code: d for d in failing(dists.catalog())}

    broken, beta = f"{dists.prefix}-broken", f"{dists.prefix}-beta"
    assert diags["import_error"].distributions == (broken,)
    assert (
        diags["import_error"].fix is not None and f"reinstall {broken}" in diags["import_error"].fix
    )
    assert diags["self_alias"].distributions == (beta,)
    assert (
        diags["self_alias"].fix is not None and f"pip uninstall {beta}" in diags["self_alias"].fix
    )


def test_cross_provider_collision_is_reported_once(dists: Dists) -> None:
    dists.provider("acme", ACME)
    dists.provider("other", "PROVIDER_SPECS = (api('other', 'chat', provider_aliases=('AC',)),)\n")

    (diag,) = failing(dists.catalog())

    assert (diag.code, diag.key) == ("duplicate_provider_key", "ac")
    assert diag.distributions == (f"{dists.prefix}-acme", f"{dists.prefix}-other")
    assert "acme" in diag.message and "other" in diag.message


def test_providers_lists_what_is_installed_when_invalid(
    dists: Dists, default_catalog: ProviderCatalog, capsys: pytest.CaptureFixture[str]
) -> None:
    module = dists.module("acme", ACME)
    dists.dist("acme", {"acme": module})
    dists.dist("acme-fork", {"acme": module})
    dists.provider("fine", "PROVIDER_SPECS = (api('fine', 'chat'),)\n")
    dists.provider("broken", "raise ImportError('missing sdk')\n")

    assert providers_command(as_json=True) == 5
    document: dict[str, Any] = json.loads(capsys.readouterr().out)

    assert document["valid"] is False
    rows = [(p["provider"], p["distribution"], p["availability"]) for p in document["providers"]]
    assert rows == [
        ("acme", f"{dists.prefix}-acme", "invalid"),
        ("acme", f"{dists.prefix}-acme-fork", "invalid"),
        ("broken", f"{dists.prefix}-broken", "unavailable"),
        ("fine", f"{dists.prefix}-fine", "blocked"),
    ]
    codes = [d["code"] for d in document["diagnostics"]]
    assert codes == ["duplicate_provider_module", "import_error"]  # the collision, once
    assert document["providers"][0]["diagnostics"] == document["providers"][1]["diagnostics"]


def test_providers_command_exits_5_with_a_table_naming_distributions(dists: Dists) -> None:
    module = dists.module("acme", ACME)
    dists.dist("acme", {"acme": module})
    dists.dist("acme-fork", {"acme": module})

    done = cli(dists, "providers")

    assert done.returncode == 5, done.stderr
    assert "Traceback" not in done.stderr
    assert "scripted" in done.stdout  # healthy installed rows are still listed
    assert f"pip uninstall {dists.prefix}-acme {dists.prefix}-acme-fork" in done.stdout
