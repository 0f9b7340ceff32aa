"""``EndpointConfig.params`` values are redacted like ``base_url`` query values.

``params`` fills the ``{name}`` placeholders of the endpoint path (``endpoint_params``), so a
value is part of every request URL: a tenant id, a deployment, or a token in the path
(``bot{token}/sendMessage``). Before, every value showed in ``repr``/``str``, ``model_dump``,
``to_dict`` and ``iModel.to_dict()``, and the request path carrying it showed in every HTTP error
message (``POST http://host/v1/<value>/chat/completions rejected the request``), in the library's
DEBUG line and in httpx's request log. Now a value is ``[REDACTED]`` in every dump (names stay,
and ``api-version``/``alt``/``version`` values show, as in ``base_url``), the error paths redact
it from the URL they name, and ``iModel.from_dict`` asks for it again (``params=``).
The request itself still carries the real value.
"""

from __future__ import annotations

import json
import logging
import socket
from typing import Any

import pytest

from lionagi.service import (
    EndpointConfig,
    EndpointConfigurationError,
    ProviderError,
    iModel,
)
from lionagi.service_testing import FakeProviderServer

from ._leaks import assert_absent, assert_logs_clean, exception_text, marker

TEMPLATE = "v1/{tenant}/chat/completions"
CHAT = {"model": "fake-model", "messages": [{"role": "user", "content": "hi"}]}


def _config(**params: str) -> EndpointConfig:
    return EndpointConfig(
        name="p",
        provider="p",
        endpoint="v1/{tenant}/{token}/chat/completions",
        endpoint_params=["tenant", "token"],
        base_url="https://api.example.test",
        params=params,
    )


# -- dumps -----------------------------------------------------------------------------------------


def test_config_dumps_redact_params_values_and_keep_the_names(caplog):
    caplog.set_level(logging.DEBUG)
    m = {"tenant": marker("tenant"), "token": marker("token")}
    config = _config(**m, **{"api-version": "2024-10-21"})
    dumped = config.model_dump()
    assert_absent(
        m,
        repr(config),
        str(config),
        dumped,
        config.model_dump(mode="json"),
        config.model_dump_json(),
        config.to_dict(),
        json.dumps(config.to_dict()),
    )
    assert dumped["params"] == {
        "tenant": "[REDACTED]",
        "token": "[REDACTED]",
        "api-version": "2024-10-21",  # an API version shows, as in a base_url query
    }
    assert "params={'tenant': '[REDACTED]'" in repr(config)
    # The live config keeps the real values: they are what the request path carries.
    assert config.params["token"] == m["token"]
    assert (
        config.full_url
        == f"https://api.example.test/v1/{m['tenant']}/{m['token']}/chat/completions"
    )
    assert_logs_clean(m, caplog)


def test_a_copy_keeps_the_real_values():
    m = {"tenant": marker("tenant"), "token": marker("token")}
    copy = _config(**m).with_updates(timeout=5.0)
    assert copy.params == m


async def test_imodel_and_endpoint_dumps_redact_params(caplog):
    caplog.set_level(logging.DEBUG)
    m = {"tenant": marker("tenant")}
    model = iModel(
        provider="fakeopenai",
        endpoint="chat/completions",
        openai_compatible=True,
        base_url="https://api.example.test/v1",
        endpoint_params=["tenant"],
        params=m,
    )
    try:
        serialized = model.to_dict()
        assert serialized["config"]["params"] == {"tenant": "[REDACTED]"}
        assert_absent(
            m,
            repr(model),
            str(model),
            repr(model.endpoint),
            repr(model.endpoint.config),
            serialized,
            json.dumps(serialized, default=str),
        )
    finally:
        await model.close()
    assert_logs_clean(m, caplog)


# -- restoring -------------------------------------------------------------------------------------


async def test_from_dict_asks_for_a_redacted_param_again():
    m = {"tenant": marker("tenant")}
    model = iModel(
        provider="fakeopenai",
        endpoint="chat/completions",
        openai_compatible=True,
        base_url="https://api.example.test/v1",
        endpoint_params=["tenant"],
        params={**m, "api-version": "2024-10-21"},
    )
    data = json.loads(json.dumps(model.to_dict()))
    with pytest.raises(EndpointConfigurationError) as info:
        iModel.from_dict(data)
    assert info.value.field == "config.params.tenant"
    assert "params=" in str(info.value)
    assert_absent(m, exception_text(info.value))

    restored = iModel.from_dict(data, params=m)
    try:
        # Merged over the data's: the harmless value came from the data, the secret from params=.
        assert restored.endpoint.config.params == {**m, "api-version": "2024-10-21"}
        assert restored.to_dict() == model.to_dict()
    finally:
        await restored.close()
        await model.close()


async def test_from_dict_refuses_params_that_are_not_a_mapping_of_strings():
    model = iModel(
        provider="fakeopenai",
        endpoint="chat/completions",
        openai_compatible=True,
        base_url="https://api.example.test/v1",
    )
    try:
        with pytest.raises(EndpointConfigurationError) as info:
            iModel.from_dict(model.to_dict(), params=["tenant"])  # type: ignore[arg-type]
        assert info.value.field == "params"
    finally:
        await model.close()


# -- the wire and the error paths ------------------------------------------------------------------


@pytest.fixture
async def fake() -> Any:
    async with FakeProviderServer() as server:
        yield server


async def test_the_request_path_still_carries_the_real_value(fake, make_endpoint, caplog):
    caplog.set_level(logging.DEBUG)
    m = {"tenant": marker("tenant")}
    ep = make_endpoint(
        fake.base_url, TEMPLATE, endpoint_params=["tenant"], params=m, api_key="sk-test-pp"
    )
    answer = await ep.call(CHAT)
    assert answer["choices"][0]["message"]["content"]
    assert fake.requests[-1].path == f"/v1/{m['tenant']}/chat/completions"
    # The library's DEBUG line and httpx's request log name the URL without the value.
    lines = [r.getMessage() for r in caplog.records]
    assert any("/v1/[REDACTED]/chat/completions" in line for line in lines), lines
    assert_logs_clean(m, caplog)


ERROR_BEHAVIOURS = [
    "401",
    "403",
    "429",
    "500",
    "context_length",
    "disconnect_before",
    "disconnect_after_head",
    "stall_before",
    "malformed",
    "non_json_200",
    "invalid_utf8",
    "oversized",
    "stream_error",
]


@pytest.mark.parametrize("behaviour", ERROR_BEHAVIOURS)
async def test_error_paths_never_show_a_param_value(fake, make_endpoint, behaviour, caplog):
    caplog.set_level(logging.DEBUG)
    m = {"tenant": marker("tenant")}
    # The scenario goes in the path: a configured header value is remembered as a secret for
    # the rest of the process, which would redact the word in every later test's errors.
    ep = make_endpoint(
        f"{fake.base_url}/scenario/{behaviour}",
        TEMPLATE,
        endpoint_params=["tenant"],
        params=m,
        api_key="sk-test-pp",
        timeout=0.5,
        max_response_bytes=1024 * 1024,
    )
    failures: list[ProviderError] = []
    try:
        await ep.call(CHAT)
    except ProviderError as exc:
        failures.append(exc)
    try:
        async for _ in ep.stream(CHAT):
            pass
    except ProviderError as exc:
        failures.append(exc)
    assert failures  # some behaviours fail only one of the two paths
    surfaces = [text for exc in failures for text in (str(exc), repr(exc), exception_text(exc))]
    assert all(r.path == f"/v1/{m['tenant']}/chat/completions" for r in fake.requests)
    assert_absent(m, *surfaces)
    assert_logs_clean(m, caplog)


async def test_a_server_error_echoing_the_path_is_redacted(fake, make_endpoint, caplog):
    # The fake server's 404 names the path it was asked for, as many real servers do.
    caplog.set_level(logging.DEBUG)
    m = {"tenant": marker("tenant")}
    ep = make_endpoint(fake.base_url, "v1/{tenant}/nowhere", endpoint_params=["tenant"], params=m)
    with pytest.raises(ProviderError) as info:
        await ep.call(CHAT)
    assert "404" in str(info.value)
    assert fake.requests[-1].path == f"/v1/{m['tenant']}/nowhere"
    assert_absent(m, str(info.value), exception_text(info.value))
    assert_logs_clean(m, caplog)


async def test_a_connection_error_never_shows_a_param_value(make_endpoint, caplog):
    caplog.set_level(logging.DEBUG)
    with socket.socket() as probe:  # a loopback port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    m = {"tenant": marker("tenant")}
    ep = make_endpoint(f"http://127.0.0.1:{port}", TEMPLATE, endpoint_params=["tenant"], params=m)
    with pytest.raises(ProviderError) as info:
        await ep.call(CHAT)
    assert "/v1/[REDACTED]/chat/completions" in str(info.value)
    assert_absent(m, str(info.value), exception_text(info.value))
    assert_logs_clean(m, caplog)


async def test_a_failed_imodel_call_never_shows_a_param_value(fake, make_endpoint, caplog):
    caplog.set_level(logging.DEBUG)
    m = {"tenant": marker("tenant")}
    ep = make_endpoint(
        f"{fake.base_url}/scenario/context_length",
        TEMPLATE,
        endpoint_params=["tenant"],
        params=m,
    )
    model = iModel(endpoint=ep)
    try:
        event = await model.invoke(**CHAT)
        assert event.exception is not None
        assert_absent(
            m,
            exception_text(event.exception),
            str(event.execution.error),
            event.model_dump_json(),
            repr(model),
            model.to_dict(),
        )
    finally:
        await model.close()
    assert_logs_clean(m, caplog)
