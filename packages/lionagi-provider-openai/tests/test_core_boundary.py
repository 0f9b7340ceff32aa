"""The Responses dialect lives here, not in core: core keeps only the shared chat dialect."""

from __future__ import annotations

import importlib


def test_core_projection_module_no_longer_carries_the_responses_dialect() -> None:
    projection = importlib.import_module("lionagi.service._transport.http.projection")
    assert not hasattr(projection, "ResponsesProjector")
    assert not hasattr(projection, "RESPONSES_IGNORED_EVENTS")
    http = importlib.import_module("lionagi.service.http")
    assert not hasattr(http, "ResponsesProjector")
