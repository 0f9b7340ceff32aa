"""``reasoning_effort`` takes every level codex 0.171.0's catalog offers, ``max`` and ``ultra`` too.

``codex debug models`` (0.171.0's bundled catalog) lists ``low`` .. ``xhigh``, ``max``
("Maximum reasoning depth for the hardest problems") and ``ultra`` ("Maximum reasoning with
automatic task delegation") for its current models (``gpt-6.2-sol``, ``gpt-5.6-sol``, ...).
Against the fake server codex sends ``max`` as the request's ``reasoning.effort`` and turns
``ultra`` into ``xhigh`` plus its own delegation. The request model refused both.

The model policy's suffix levels are left as they were: a ``-max`` suffix there would split
OpenAI's ``gpt-5.1-codex-max`` into another model at effort ``max``; the policy lists ``max`` as a
model-name word instead, so that name selects its model.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from lionagi.providers.codex import CodexCliEndpoint, CodexRequest
from lionagi.service import EventStatus, iModel
from lionagi.service_testing import FakeProviderServer
from lionagi.service_testing.real_clis import require_real_cli
from lionagi.service_testing.real_tier import isolated_settings, scenario_url


@pytest.mark.parametrize("level", ["max", "ultra"])
def test_the_catalog_levels_are_sent_as_codex_config(level: str) -> None:
    endpoint = CodexCliEndpoint()
    payload, _ = endpoint.create_payload({"prompt": "hi", "reasoning_effort": level})
    request = payload["request"]
    assert isinstance(request, CodexRequest)
    argv = endpoint.cli_arguments(request)
    at = argv.index(f'model_reasoning_effort="{level}"')
    assert argv[at - 1] == "-c"


@pytest.fixture(scope="module")
def server() -> Iterator[FakeProviderServer]:
    with FakeProviderServer.running_in_thread() as running:
        yield running


@pytest.mark.real_cli
@pytest.mark.timeout(180)
@pytest.mark.parametrize(("level", "sent"), [("max", "max"), ("ultra", "xhigh")])
async def test_the_real_codex_takes_the_level(
    level: str, sent: str, server: FakeProviderServer, real_cli_marker: str, tmp_path: Path
) -> None:
    binary = require_real_cli("codex")
    settings = isolated_settings(
        binary,
        scenario_url(server, "text"),
        real_cli_marker,
        api_key="sk-fake-codex-key",
        cwd=tmp_path,
    )
    async with iModel(
        model="codex", request_defaults={"skip_git_repo_check": True}, agentic_settings=settings
    ) as model:
        call = await model.invoke(
            prompt="hi", model="gpt-6.2-sol", reasoning_effort=level, timeout=60.0
        )
    assert call.status is EventStatus.COMPLETED, call.execution.error
    assert server.requests[-1].json["reasoning"]["effort"] == sent


def test_a_model_named_with_max_is_that_model_and_takes_an_effort_after_it() -> None:
    # `codex/gpt-5.1-codex-max` is OpenAI's model, not the default model at effort `max`; it was
    # refused as an unaccepted effort level.
    kept = iModel(model="codex/gpt-5.1-codex-max")
    assert kept.endpoint.config.request_defaults["model"] == "gpt-5.1-codex-max"
    assert "reasoning_effort" not in kept.endpoint.config.request_defaults
    high = iModel(model="codex/gpt-5.1-codex-max-high")
    assert high.endpoint.config.request_defaults["model"] == "gpt-5.1-codex-max"
    assert high.endpoint.config.request_defaults["reasoning_effort"] == "high"
