"""Static conformance of every agentic endpoint in the installed catalog."""

from __future__ import annotations

import pytest

from lionagi.service_testing.conformance import (
    RegisteredAgenticEndpoint,
    assert_static_conformance,
    registered_agentic_endpoints,
)

REGISTERED = registered_agentic_endpoints()


def test_the_installed_catalog_has_agentic_endpoints() -> None:
    assert "scripted/chat" in {str(entry) for entry in REGISTERED}


@pytest.mark.parametrize("entry", REGISTERED, ids=str)
def test_registered_agentic_endpoint_declarations(entry: RegisteredAgenticEndpoint) -> None:
    assert_static_conformance(entry)
