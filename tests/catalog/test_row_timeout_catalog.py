"""A catalog row's own ``timeout``: the local cap its configs start with, checked at build.

Regression: every agentic row's config got the generic agentic cap (3600 s) and every API row's
the registered API cap (600 s), whatever the endpoint needed; an endpoint with a shorter cap of
its own (AG2's NLIP, 60 s) could only guess that a 3600 it saw was the catalog's and not a
caller's, and replaced a caller's explicit ``timeout=3600`` with 60 s. A row now declares its
cap, and a bad one fails the build with a diagnostic naming ``timeout``.
"""

from __future__ import annotations

import math

import pytest

from lionagi.service import (
    CatalogValidationError,
    EndpointMeta,
    EndpointType,
    ProviderDiagnostic,
)

from .conftest import Dists


def _failing(dists: Dists) -> tuple[ProviderDiagnostic, ...]:
    catalog = dists.catalog()
    with pytest.raises(CatalogValidationError) as info:
        catalog.snapshot()
    assert catalog.published is None
    return info.value.diagnostics


@pytest.mark.parametrize(
    ("value", "said"),
    [
        ("0", "got 0: Input should be a finite number greater than 0"),
        ("0.0", "got 0.0: Input should be a finite number greater than 0"),
        ("-1", "got -1: Input should be a finite number greater than 0"),
        ("float('nan')", "got nan: Input should be a finite number greater than 0"),
        ("float('inf')", "got inf: Input should be a finite number greater than 0"),
        ("True", "got True: Input should be a valid number"),
        ("'60'", "got '60': Input should be a valid number"),
    ],
)
@pytest.mark.parametrize("row", ["api", "agentic"])
def test_bad_row_timeout_is_a_diagnostic_naming_the_field(
    dists: Dists, row: str, value: str, said: str
) -> None:
    dists.provider("acme", f"PROVIDER_SPECS = ({row}('acme', 'chat', timeout={value}),)\n")
    (diag,) = _failing(dists)
    assert (diag.code, diag.key, diag.provider, diag.endpoint) == (
        "invalid_endpoint_config",
        "timeout",
        "acme",
        "chat",
    )
    assert diag.message.startswith("timeout must be ")
    assert said in diag.message


def test_bad_row_timeout_is_reported_with_the_rows_other_problems(dists: Dists) -> None:
    # Checked in the row's terms, not only by the config dry run (which a row with another
    # problem never reaches): the build reports every problem at once.
    dists.provider(
        "acme", "PROVIDER_SPECS = (api('acme', 'chat', endpoint_aliases='c', timeout=-5),)\n"
    )
    keys = {(d.code, d.key) for d in _failing(dists)}
    assert keys == {
        ("invalid_endpoint_config", "endpoint_aliases"),
        ("invalid_endpoint_config", "timeout"),
    }


def test_row_timeout_is_the_config_default_and_a_caller_timeout_replaces_it(
    dists: Dists,
) -> None:
    dists.provider(
        "acme",
        "PROVIDER_SPECS = (\n"
        "    api('acme', 'chat', timeout=42),\n"
        "    agentic('acme', 'agent', timeout=7.5),\n"
        "    agentic('acme', 'whole', timeout=60),\n"
        ")\n",
    )
    catalog = dists.catalog()
    assert catalog.match("acme", "chat").config.timeout == 42.0
    assert catalog.match("acme", "agent").config.timeout == 7.5
    whole = catalog.match("acme", "whole").config.timeout
    assert (whole, type(whole)) == (60.0, float)
    # A caller's value is kept as given, the generic agentic cap included.
    assert catalog.match("acme", "agent", timeout=3600).config.timeout == 3600.0
    assert catalog.match("acme", "agent", timeout=5).config.timeout == 5.0
    assert catalog.match("acme", "chat", timeout=600).config.timeout == 600.0


def test_row_without_timeout_keeps_its_endpoint_types_cap(dists: Dists) -> None:
    dists.provider(
        "acme",
        "PROVIDER_SPECS = (\n"
        "    api('acme', 'chat'),\n"
        "    agentic('acme', 'agent'),\n"
        "    api('acme', 'embed', timeout=None),\n"
        "    agentic('acme', 'explicit', timeout=None),\n"
        ")\n",
    )
    catalog = dists.catalog()
    assert catalog.match("acme", "chat").config.timeout == 600.0
    assert catalog.match("acme", "agent").config.timeout == 3600.0
    assert catalog.match("acme", "embed").config.timeout == 600.0
    assert catalog.match("acme", "explicit").config.timeout == 3600.0


def test_deferred_row_timeout_is_checked_at_build_not_first_use(dists: Dists) -> None:
    # A row naming its class by reference is only partly checked at build; its cap is not
    # deferred: the build fails, nothing is imported.
    dists.provider(
        "acme",
        "PROVIDER_SPECS = (ProviderEndpointSpec(provider='acme', endpoint='agent', "
        "endpoint_type=AGENTIC, endpoint_class='acme_nowhere._missing:Agent', "
        "timeout=float('nan')),)\n",
    )
    assert {(d.code, d.key) for d in _failing(dists)} == {("invalid_endpoint_config", "timeout")}


@pytest.mark.parametrize(
    ("endpoint_type", "timeout", "expected"),
    [
        (EndpointType.API, None, 600.0),
        (EndpointType.AGENTIC, None, 3600.0),
        (EndpointType.API, 12.0, 12.0),
        (EndpointType.AGENTIC, 60.0, 60.0),
    ],
)
def test_endpoint_meta_carries_the_row_timeout(
    endpoint_type: EndpointType, timeout: float | None, expected: float
) -> None:
    meta = EndpointMeta(provider="p", endpoint="e", endpoint_type=endpoint_type, timeout=timeout)
    meta.check_config()
    config = meta.create_config()
    assert config.timeout == expected
    assert "timeout" in config.model_fields_set
    assert meta.create_config(timeout=3600).timeout == 3600.0
    assert math.isclose(meta.create_config(timeout=0.5).timeout, 0.5)
