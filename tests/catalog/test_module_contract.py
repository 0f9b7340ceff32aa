"""A provider module that imports but breaks the module contract is an author's mistake.

A missing, misspelled, ``None`` or empty ``PROVIDER_SPECS``, a bare spec without its tuple, a
wrong ``MODEL_POLICIES`` or an entry point written as ``module:object`` used to be an
``import_error`` (provider unavailable, catalog valid, fix "pip install --force-reinstall", which
changes nothing). Each is now a typed diagnostic naming the module and the change to make there,
and like every other invalid record it fails the whole catalog.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import types
from typing import Any

import pytest

from lionagi.service import (
    CatalogValidationError,
    EndpointType,
    OpenAIChatCompletionsRequest,
    ProviderCatalog,
    ProviderDiagnostic,
    ProviderEndpointSpec,
    ProviderModuleSpec,
)
from lionagi.service.http import OpenAIChatEndpoint

from .conftest import Dists

HEALTHY = 'PROVIDER_SPECS = (api("acme", "chat/completions", endpoint_aliases=("chat",)),)\n'
EXAMPLE = "PROVIDER_SPECS = (ProviderEndpointSpec(...),)"


def only_diagnostic(catalog: ProviderCatalog) -> ProviderDiagnostic:
    with pytest.raises(CatalogValidationError) as info:
        catalog.snapshot()
    assert catalog.published is None
    (diag,) = info.value.diagnostics
    return diag


@pytest.mark.parametrize(
    ("body", "message", "change"),
    [
        ("X = 1\n", "does not define PROVIDER_SPECS", f"define {EXAMPLE}"),
        (
            "PROVIDER_SPEC = (api('bad', 'chat'),)\n",
            "(it defines PROVIDER_SPEC: a misspelling?)",
            "rename PROVIDER_SPEC to PROVIDER_SPECS",
        ),
        (
            "provider_specs = (api('bad', 'chat'),)\n",
            "(it defines provider_specs: a misspelling?)",
            "rename provider_specs to PROVIDER_SPECS",
        ),
        ("PROVIDER_SPECS = ()\n", "PROVIDER_SPECS is empty", EXAMPLE),
        ("PROVIDER_SPECS = []\n", "PROVIDER_SPECS is empty", EXAMPLE),
        ("PROVIDER_SPECS = None\n", "got NoneType", EXAMPLE),
        (
            "PROVIDER_SPECS = ('chat',)\n",
            "must be a tuple (or another sequence) of ProviderEndpointSpec, got tuple of str",
            f"make it a tuple of ProviderEndpointSpec records: {EXAMPLE}",
        ),
        (
            "PROVIDER_SPECS = api('bad', 'chat')\n",
            "got ProviderEndpointSpec",
            f"put the spec in a tuple (mind the trailing comma): {EXAMPLE}",
        ),
    ],
)
def test_a_module_contract_mistake_is_an_invalid_provider_module(
    dists: Dists, body: str, message: str, change: str
) -> None:
    dists.provider("acme", HEALTHY)
    module = dists.provider("bad", body)
    catalog = dists.catalog()

    diag = only_diagnostic(catalog)

    distribution = f"{dists.prefix}-bad"
    assert (diag.code, diag.provider, diag.module) == ("invalid_provider_module", "bad", module)
    assert diag.distributions == (distribution,)
    assert message in diag.message
    assert diag.fix is not None
    assert diag.fix.startswith(f"in {module}, ")
    assert change in diag.fix
    assert "reinstall" in diag.fix and "--force-reinstall" not in diag.fix
    assert f"pip uninstall {distribution}" in diag.fix
    # Like every invalid record, it fails the whole catalog, not only its provider.
    with pytest.raises(CatalogValidationError):
        catalog.match("acme", "chat")


def test_a_list_of_specs_is_accepted_as_documented(dists: Dists) -> None:
    dists.provider("acme", 'PROVIDER_SPECS = [api("acme", "chat/completions")]\n')
    dists.provider(
        "beta",
        "PROVIDER_SPECS = (api('beta', 'chat'),)\n"
        "MODEL_POLICIES = [ProviderModelPolicy(provider='beta')]\n",
    )
    catalog = dists.catalog()
    assert catalog.snapshot().diagnostics == ()
    assert catalog.match("acme", "").config.provider == "acme"
    assert catalog.snapshot().providers["beta"].policy is not None


def test_a_wrong_model_policies_value_is_an_invalid_model_policy(dists: Dists) -> None:
    module = dists.provider(
        "bad", "PROVIDER_SPECS = (api('bad', 'chat'),)\nMODEL_POLICIES = {'x': 1}\n"
    )
    diag = only_diagnostic(dists.catalog())
    assert (diag.code, diag.module) == ("invalid_model_policy", module)
    assert "MODEL_POLICIES must be a tuple (or another sequence) of ProviderModelPolicy" in (
        diag.message
    )
    assert diag.fix is not None
    assert "MODEL_POLICIES = (ProviderModelPolicy(provider='bad', ...),), or remove it" in (
        diag.fix
    )


def test_an_object_reference_entry_point_names_the_pyproject_change(dists: Dists) -> None:
    module = dists.module("acme", HEALTHY)
    dists.dist("acme", {"acme": f"{module}:PROVIDER_SPECS"})
    diag = only_diagnostic(dists.catalog())
    distribution = f"{dists.prefix}-acme"
    assert diag.code == "invalid_provider_module"
    assert "must be a module path" in diag.message
    assert diag.fix is not None
    assert diag.fix.startswith(f"in {distribution}'s pyproject.toml, ")
    assert f"acme = '{module}'" in diag.fix
    assert "--force-reinstall" not in diag.fix


def test_a_hand_built_row_gets_the_change_without_an_uninstall() -> None:
    mod = types.ModuleType("lcat_contract_no_specs")

    class Chat(OpenAIChatEndpoint):
        pass

    mod.PROVIDER_SPEC = ProviderEndpointSpec(  # type: ignore[attr-defined]
        provider="acme",
        endpoint="chat",
        endpoint_type=EndpointType.API,
        endpoint_class=Chat,
        request_options=OpenAIChatCompletionsRequest,
        base_url="https://api.acme.example/v1",
    )
    sys.modules[mod.__name__] = mod
    try:
        row = ProviderModuleSpec(provider="acme", module=mod.__name__)
        diag = only_diagnostic(ProviderCatalog(source=lambda: [row]))
    finally:
        del sys.modules[mod.__name__]
    assert diag.code == "invalid_provider_module"
    assert diag.fix == (
        f"in {mod.__name__}, rename PROVIDER_SPEC to PROVIDER_SPECS, or define {EXAMPLE}"
    )


def test_providers_command_marks_the_catalog_invalid(dists: Dists) -> None:
    """The audit's repro: ``providers --json`` said ``"valid": true`` and exited 0."""
    dists.provider("acme", "PROVIDER_SPEC = (api('acme', 'chat'),)\n")
    env = dict(os.environ, PYTHONPATH=str(dists.root), NO_COLOR="1")
    code = "import sys; from lionagi.service.cli import main; sys.exit(main())"
    done = subprocess.run(
        [sys.executable, "-c", code, "providers", "--json"],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
        check=False,
    )
    assert done.returncode == 5, done.stderr
    document: dict[str, Any] = json.loads(done.stdout)
    assert document["valid"] is False
    row = next(p for p in document["providers"] if p["provider"] == "acme")
    assert row["availability"] == "invalid"
    assert [d["code"] for d in row["diagnostics"]] == ["invalid_provider_module"]
