"""``AgenticEndpoint.injects_resume``: the adapter decides whether iModel continues its session.

iModel injects the stored session id into the adapter's ``resume_field`` before validation
(ADR-0030 D3 "Injection"). A request that by its own fields starts no resumable run (pi's
``ephemeral=True``) was then refused for a resume its caller never passed. The hook lets the
adapter say "not for this request"; the default keeps injecting, and an explicit caller value
still wins without asking the hook. Runs go through the reference CLI adapter and the ``replay``
fake (conftest), which confirms session ``s-1`` on every run.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from lionagi.service import AgenticEndpoint, EventStatus, iModel
from lionagi.service_testing.reference_cli import ReferenceCliEndpoint

pytestmark = pytest.mark.anyio

EVENTS = [
    {"type": "session", "session_id": "s-1", "model": "m"},
    {"type": "text", "content": "ok"},
    {"type": "result", "session_id": "s-1"},
]


class FreshOnRequest(ReferenceCliEndpoint):
    """Continues its session unless the request asks for model ``fresh``; records each ask."""

    asked: list[dict[str, Any]]

    def injects_resume(self, request: Mapping[str, Any]) -> bool:
        self.__dict__.setdefault("asked", []).append(dict(request))
        return request.get("model") != "fresh"


def resumes(launch: dict[str, Any]) -> str | None:
    argv: list[str] = launch["argv"]
    return argv[argv.index("--resume") + 1] if "--resume" in argv else None


def test_the_default_hook_injects() -> None:
    assert AgenticEndpoint.injects_resume(ReferenceCliEndpoint(), {"prompt": "x"}) is True


async def test_an_adapter_can_decline_injection_for_one_request(replay: Any) -> None:
    replay.write(events=EVENTS)
    endpoint = FreshOnRequest(argv=replay.argv)
    model = iModel(endpoint=endpoint)
    try:
        first = await model.invoke(prompt="one")
        assert first.status is EventStatus.COMPLETED, first.execution.error
        assert model.provider_session_id == "s-1"
        declined = await model.invoke(prompt="two", model="fresh")
        assert declined.status is EventStatus.COMPLETED, declined.execution.error
        assert declined.payload["request"].resume is None
        resumed = await model.invoke(prompt="three")
        assert resumed.payload["request"].resume == "s-1"
        explicit = model.create_api_calling(prompt="four", model="fresh", resume="s-9")
        assert explicit.payload["request"].resume == "s-9"  # the caller's value wins
    finally:
        await model.close()
    assert [resumes(launch) for launch in replay.launches()] == [None, None, "s-1"]
    # Asked only with a stored session and no explicit value: turns two and three.
    assert [ask["prompt"] for ask in endpoint.asked] == ["two", "three"]
    assert all("resume" not in ask for ask in endpoint.asked)


async def test_without_an_override_every_call_continues_the_session(replay: Any) -> None:
    replay.write(events=EVENTS)
    model = iModel(endpoint=ReferenceCliEndpoint(argv=replay.argv))
    try:
        await model.invoke(prompt="one")
        second = await model.invoke(prompt="two", model="fresh")
    finally:
        await model.close()
    assert second.payload["request"].resume == "s-1"
