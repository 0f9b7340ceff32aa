"""The NLIP endpoint's local cap: 60 s unless the caller gives one, and then exactly that.

Regression: the catalog gave every agentic row the generic agentic cap (3600 s), so the NLIP
endpoint took ``config.timeout == 3600`` to mean "not set" and applied 60 s; a caller who asked
for ``timeout=3600`` (through ``iModel`` or ``AG2NlipEndpoint(timeout=3600)``) silently got
60 s. A direct ``stream()`` (no supervisor) was held to 60 s whatever the config said, and a
config built without a timeout ran on ``EndpointConfig``'s generic 300 s. The ``nlip`` row now
declares its 60 s cap, and the endpoint applies ``config.timeout`` as given.

The cap is read where it acts: the httpx timeout of the request the endpoint sends (recorded
by a transport in front of nlip-server's real app), and ``config.timeout``, which the
supervisor reads as the run's local cap.
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from ag2_nlip_fixtures import ScriptedApp, asgi_transport, echo

from lionagi.providers.ag2 import PROVIDER_SPECS, AG2NlipEndpoint
from lionagi.service import EndpointConfig, iModel

pytestmark = pytest.mark.anyio

_SERVER = {"base_url": "http://nlip.test", "allow_local_network": True}
_NAMES = {"name": "ag2-nlip", "provider": "ag2", "endpoint": "nlip"}


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


class Recording(httpx.AsyncBaseTransport):
    """nlip-server's app in-process; keeps the httpx timeout of every request sent to it."""

    def __init__(self) -> None:
        self.inner = asgi_transport(ScriptedApp(echo))
        self.timeouts: list[dict[str, float | None]] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.timeouts.append(dict(request.extensions["timeout"]))
        return await self.inner.handle_async_request(request)

    def sent(self) -> float:
        """The one request's timeout (connect, read, write and pool are the same value)."""
        (timeout,) = self.timeouts
        values = set(timeout.values())
        assert len(values) == 1, timeout
        (value,) = values
        assert value is not None
        return value


async def _answer(model: iModel, **call: Any) -> str:
    chunks = [c async for c in model.stream(prompt="ping", **call)]
    return "".join(c.content for c in chunks if c.type == "text")


def test_the_nlip_row_declares_its_cap_and_the_other_rows_do_not() -> None:
    rows = {spec.endpoint: spec for spec in PROVIDER_SPECS}
    assert rows["nlip"].timeout == 60.0
    # The in-process rows keep the generic agentic cap.
    assert rows["group_chat"].timeout is None
    assert rows["agent"].timeout is None


@pytest.mark.parametrize(
    ("given", "cap"),
    [({}, 60.0), ({"timeout": 3600}, 3600.0), ({"timeout": 5}, 5.0)],
    ids=["default", "3600", "5"],
)
async def test_imodel_nlip_cap_is_the_callers_timeout_or_60_s(
    given: dict[str, Any], cap: float
) -> None:
    model = iModel(provider="ag2", endpoint="nlip", **_SERVER, **given)
    endpoint = model.endpoint
    assert isinstance(endpoint, AG2NlipEndpoint)
    assert endpoint.config.timeout == cap  # what the supervisor caps the run at
    assert endpoint.transport_cap() == cap
    # The catalog's config, sent through the real app: the request carries the same cap.
    recording = Recording()
    served = iModel(endpoint=AG2NlipEndpoint(endpoint.config, transport=recording))
    assert await _answer(served) == "echo: ping"
    assert recording.sent() == cap


async def test_callers_deadline_still_clips_an_explicit_3600_s_cap() -> None:
    recording = Recording()
    config = iModel(provider="ag2", endpoint="nlip", **_SERVER, timeout=3600).endpoint.config
    model = iModel(endpoint=AG2NlipEndpoint(config, transport=recording))
    assert await _answer(model, timeout=2) == "echo: ping"
    assert 0 < recording.sent() <= 2


@pytest.mark.parametrize(
    ("given", "cap"),
    [({}, 60.0), ({"timeout": 3600}, 3600.0), ({"timeout": 5}, 5.0)],
    ids=["default", "3600", "5"],
)
async def test_imodel_nlip_cap_survives_to_dict_and_from_dict(
    given: dict[str, Any], cap: float
) -> None:
    data = iModel(provider="ag2", endpoint="nlip", **_SERVER, **given).to_dict()
    restored = iModel.from_dict(data)
    assert isinstance(restored.endpoint, AG2NlipEndpoint)
    assert restored.endpoint.transport_cap() == cap
    assert restored.endpoint.config.timeout == cap


@pytest.mark.parametrize(
    ("build", "cap"),
    [
        (lambda: AG2NlipEndpoint(), 60.0),
        (lambda: AG2NlipEndpoint(timeout=3600), 3600.0),
        (lambda: AG2NlipEndpoint(timeout=5), 5.0),
        (lambda: AG2NlipEndpoint(_NAMES), 60.0),
        (lambda: AG2NlipEndpoint(EndpointConfig(**_NAMES)), 60.0),
        (lambda: AG2NlipEndpoint(_NAMES, max_retries=2), 60.0),
        (lambda: AG2NlipEndpoint(EndpointConfig(**_NAMES), max_retries=2), 60.0),
        (lambda: AG2NlipEndpoint({**_NAMES, "timeout": 3600}), 3600.0),
        (lambda: AG2NlipEndpoint(EndpointConfig(**_NAMES, timeout=3600)), 3600.0),
        (lambda: AG2NlipEndpoint(_NAMES, timeout=300), 300.0),
    ],
    ids=[
        "no-config",
        "override-3600",
        "override-5",
        "mapping-without-timeout",
        "config-without-timeout",
        "mapping-without-timeout-plus-override",
        "config-without-timeout-plus-override",
        "mapping-3600",
        "config-3600",
        "mapping-without-timeout-override-300",
    ],
)
def test_direct_endpoint_cap_is_the_given_timeout_or_60_s(build: Any, cap: float) -> None:
    endpoint = build()
    assert endpoint.transport_cap() == cap
    # The config says the cap it applies: the supervisor reads its run cap from it.
    assert endpoint.config.timeout == cap
    assert endpoint.copy().transport_cap() == cap


@pytest.mark.parametrize(("given", "cap"), [({}, 60.0), ({"timeout": 3600}, 3600.0)])
async def test_direct_stream_without_a_supervisor_uses_the_configured_cap(
    given: dict[str, Any], cap: float
) -> None:
    recording = Recording()
    endpoint = AG2NlipEndpoint({**_NAMES, **_SERVER, **given}, transport=recording)
    chunks = [c async for c in endpoint.stream({"prompt": "ping"})]
    assert [c.content for c in chunks if c.type == "text"] == ["echo: ping"]
    assert recording.sent() == cap
