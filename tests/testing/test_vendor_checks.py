"""``service_testing.vendor_checks``: the checks pass on the fake server and catch drift.

A fidelity check that cannot fail proves nothing, so each SDK check is also pointed at a fake
server scenario whose bytes break the dialect, and must fail there.
"""

from __future__ import annotations

import pytest

from lionagi.service import iModel
from lionagi.service_testing import FakeProviderServer
from lionagi.service_testing.vendor_checks import (
    LIVE_ENV,
    assert_openai_sdk_accepts_chat,
    assert_openai_sdk_accepts_embeddings,
    assert_round_trip,
    live_model,
)

openai = pytest.importorskip("openai")


async def test_openai_sdk_checks_pass_on_the_fake_server() -> None:
    async with FakeProviderServer() as server:
        await assert_openai_sdk_accepts_chat(f"{server.base_url}/v1")
        await assert_openai_sdk_accepts_embeddings(f"{server.base_url}/v1")


@pytest.mark.parametrize("scenario", ["reset_mid_line", "invalid_utf8", "context_length"])
async def test_chat_check_fails_when_the_wire_breaks(scenario: str) -> None:
    async with FakeProviderServer() as server:
        with pytest.raises((AssertionError, UnicodeDecodeError, openai.OpenAIError)):
            await assert_openai_sdk_accepts_chat(f"{server.base_url}/scenario/{scenario}/v1")


async def test_embeddings_check_fails_on_an_error_status() -> None:
    async with FakeProviderServer() as server:
        with pytest.raises(openai.APIStatusError):
            await assert_openai_sdk_accepts_embeddings(f"{server.base_url}/scenario/quota/v1")


def test_live_model_skips_unless_switched_on_and_keyed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(LIVE_ENV, raising=False)
    monkeypatch.setenv("VENDOR_CHECKS_KEY", "k")
    with pytest.raises(pytest.skip.Exception, match=LIVE_ENV):
        live_model("scripted", "demo", "VENDOR_CHECKS_KEY")
    monkeypatch.setenv(LIVE_ENV, "1")
    monkeypatch.delenv("VENDOR_CHECKS_KEY")
    with pytest.raises(pytest.skip.Exception, match="VENDOR_CHECKS_KEY"):
        live_model("scripted", "demo", "VENDOR_CHECKS_KEY")
    with pytest.raises(pytest.skip.Exception, match="no model"):
        live_model("scripted", None, None)


async def test_live_model_round_trips_when_switched_on(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(LIVE_ENV, "1")
    monkeypatch.setenv("VENDOR_CHECKS_KEY", "k")
    async with live_model("scripted", "demo", "VENDOR_CHECKS_KEY") as model:
        assert isinstance(model, iModel)
        await assert_round_trip(model)
