"""``iModel(model="anthropic/<model>")`` streams and invokes end to end over the fake server."""

from __future__ import annotations

from lionagi.service import EventStatus, iModel
from lionagi.service_testing import FakeProviderServer

MESSAGES = [{"role": "user", "content": "hi"}]


def model_for(server: FakeProviderServer, scenario: str = "text") -> iModel:
    return iModel(
        model="anthropic/claude-fake",
        base_url=f"{server.base_url}/scenario/{scenario}/v1",
        api_key="sk-ant-test-FAKEkey0123456789abcdef",
        allow_local_network=True,
    )


async def test_imodel_streams(fake: FakeProviderServer) -> None:
    async with model_for(fake, "thinking") as model:
        chunks = [c async for c in model.stream(messages=MESSAGES)]
    kinds = [c.type for c in chunks]
    assert "thinking" in kinds
    assert "text" in kinds
    assert kinds[-1] == "result"
    assert kinds.count("result") == 1
    [seen] = fake.requests
    assert seen.json["model"] == "claude-fake"
    assert seen.json["stream"] is True
    assert seen.headers["anthropic-version"] == "2023-06-01"
    assert seen.headers["x-api-key"] != "sk-ant-test-FAKEkey0123456789abcdef"  # recorded redacted


async def test_imodel_invokes(fake: FakeProviderServer) -> None:
    async with model_for(fake) as model:
        event = await model.invoke(messages=MESSAGES, max_tokens=128)
    assert event.status is EventStatus.COMPLETED
    response = event.execution.response
    assert response["type"] == "message"
    assert response["content"][0]["type"] == "text"
    [seen] = fake.requests
    assert seen.json["max_tokens"] == 128
    assert "stream" not in seen.json
