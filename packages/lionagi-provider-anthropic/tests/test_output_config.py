"""``output_config``: Anthropic's effort level and structured output, checked and sent as written.

The request model had no ``output_config``: structured output (``format: {"type":
"json_schema", "schema": ...}``) and ``effort`` were refused as unknown fields, and through
``extra_body`` they went out unchecked (``"json_schem"`` reached the API).
"""

from __future__ import annotations

from typing import Any

import pytest

from lionagi.service import EndpointConfigurationError, EventStatus, iModel
from lionagi.service_testing import FakeProviderServer

KEY = "sk-ant-test-0123456789outputconfig"
HI = [{"role": "user", "content": "hi"}]
SCHEMA = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}


def _model(server: FakeProviderServer) -> iModel:
    return iModel(
        model="anthropic/claude-x",
        api_key=KEY,
        base_url=f"{server.base_url}/v1",
        allow_local_network=True,
    )


@pytest.mark.parametrize(
    "config",
    [
        {"format": {"type": "json_schema", "schema": SCHEMA}},
        {"effort": "xhigh"},
        {"effort": "low", "task_budget": {"type": "tokens", "total": 40000}},
    ],
)
async def test_output_config_is_sent_as_written(config: dict[str, Any]) -> None:
    async with FakeProviderServer() as server, _model(server) as model:
        call = await model.invoke(messages=HI, output_config=config)
    assert call.status is EventStatus.COMPLETED, call.exception
    [seen] = server.requests
    assert seen.json["output_config"] == config


@pytest.mark.parametrize(
    ("config", "field"),
    [
        ({"format": {"type": "json_schem", "schema": SCHEMA}}, "output_config.format.type"),
        ({"format": {"type": "json_schema"}}, "output_config.format.schema"),
        (
            {"format": {"type": "json_schema", "schema": SCHEMA, "strict": True}},
            "output_config.format.strict",
        ),
        ({"effort": "maximum"}, "output_config.effort"),
        ({"efort": "low"}, "output_config.efort"),
        ({"task_budget": {"type": "tokens", "total": "4000"}}, "output_config.task_budget.total"),
    ],
)  # fmt: skip
async def test_a_malformed_output_config_is_refused_before_sending(
    config: dict[str, Any], field: str
) -> None:
    async with FakeProviderServer() as server, _model(server) as model:
        with pytest.raises(EndpointConfigurationError) as refused:
            await model.invoke(messages=HI, output_config=config)
    assert refused.value.field == field
    assert server.requests == []


async def test_output_config_through_extra_body_is_refused_as_a_field() -> None:
    async with FakeProviderServer() as server, _model(server) as model:
        with pytest.raises(EndpointConfigurationError) as refused:
            await model.invoke(messages=HI, extra_body={"output_config": {"effort": "low"}})
    assert refused.value.field == "extra_body.output_config"
