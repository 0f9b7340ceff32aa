"""A CLI that echoes the deployment's gateway key in an error event is redacted like an API key."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lionagi.service import ProviderStreamError, iModel
from lionagi.service_testing.conformance import replay_argv
from lionagi.service_testing.reference_cli import ReferenceCliEndpoint

GATEWAY_KEY = "gw-key-marker-5b1e2c9d"
ENV_VALUE = "env-value-marker-77aa31"


async def test_gateway_key_and_env_values_never_reach_the_consumer(tmp_path: Path) -> None:
    plan = tmp_path / "plan.json"
    message = f"401 Unauthorized: key {GATEWAY_KEY} refused (token={ENV_VALUE})"
    plan.write_text(json.dumps({"events": [{"type": "error", "message": message}]}))
    endpoint = ReferenceCliEndpoint(
        argv=replay_argv(plan),
        settings={
            "gateway_url": "http://127.0.0.1:9/v1",
            "gateway_api_key": GATEWAY_KEY,
            "env": {"ACME_OPTION": ENV_VALUE},
        },
    )
    seen = []
    async with iModel(endpoint=endpoint) as model:
        with pytest.raises(ProviderStreamError) as info:
            async for chunk in model.stream(prompt="hi", timeout=60):
                seen.append(chunk)
    text = repr(seen) + str(info.value) + repr(info.value.__dict__)
    assert GATEWAY_KEY not in text
    assert ENV_VALUE not in text
    assert seen and seen[-1].type == "error"
