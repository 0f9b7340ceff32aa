"""Cold start (issue 15): what `from lionagi.service import iModel` and the public models cost.

Each check runs in a fresh interpreter, because this test process has long since imported and
built everything. The assertions are about *which* work happens, never about how long it takes
(timings belong to ``benchmarks/cold_start_bench.py``).
"""

from __future__ import annotations

import json
import subprocess
import sys
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from lionagi.service_testing import FakeProviderServer

# What a program pays for only once it constructs an iModel or makes a call.
HEAVY = (
    "pydantic",
    "pydantic_core",
    "httpx",
    "httpcore",
    "h11",
    "ssl",
    "anyio",
    "lionagi.service._catalog",
    "lionagi.service._transport.http",
    "lionagi.service._transport.agentic",
    "lionagi.service._transport.subprocess",
    "lionagi.service._lifecycle",
)


def _run(code: str) -> str:
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=False, timeout=120
    )
    assert out.returncode == 0, out.stderr[-3000:]
    return out.stdout


def test_importing_imodel_loads_no_client_stack_catalog_or_vendor() -> None:
    code = (
        "import json, sys\n"
        "from lionagi.service import iModel\n"
        "print(json.dumps(sorted(sys.modules)))\n"
    )
    loaded = json.loads(_run(code))
    heavy = [m for m in loaded if m in HEAVY or m.startswith(tuple(f"{h}." for h in HEAVY))]
    vendors = [m for m in loaded if m.startswith("lionagi.providers")]
    assert heavy == []
    assert vendors == []


def test_public_models_build_their_validators_on_first_use_not_at_import() -> None:
    # Importing a model class must not build its pydantic validator (the expensive step); the
    # first validation does, and behaves exactly as an eagerly built model would.
    code = (
        "import json\n"
        "import lionagi.service as s\n"
        "names = ['Event', 'HookedEvent', 'APICalling', 'EndpointConfig', 'AgenticSettings',\n"
        "         'OpenAIChatCompletionsRequest', 'OpenAIEmbeddingsRequest']\n"
        "before = {n: getattr(s, n).__pydantic_complete__ for n in names}\n"
        "req = s.OpenAIChatCompletionsRequest.model_validate({'model': 'm', 'messages': []})\n"
        "try:\n"
        "    s.OpenAIChatCompletionsRequest.model_validate({'model': 'm', 'nope': 1})\n"
        "    refused = False\n"
        "except Exception as exc:\n"
        "    refused = type(exc).__name__\n"
        "after = s.OpenAIChatCompletionsRequest.__pydantic_complete__\n"
        "print(json.dumps({'before': before, 'after': after, 'refused': refused,\n"
        "                  'model': req.model}))\n"
    )
    result = json.loads(_run(code))
    assert result["before"] == dict.fromkeys(result["before"], False)
    assert result["after"] is True
    assert result["refused"] == "ValidationError"
    assert result["model"] == "m"


def _first_call_modules(server: FakeProviderServer, model_kwargs: str) -> set[str]:
    """The modules a fresh interpreter loaded for one chat call through `iModel(...)`."""
    code = (
        "import asyncio, json, sys\n"
        "from lionagi.service import iModel\n"
        "async def main():\n"
        f"    async with iModel({model_kwargs}, base_url={server.base_url + '/v1'!r},\n"
        "            allow_local_network=True) as model:\n"
        "        call = await model.invoke(messages=[{'role': 'user', 'content': 'hi'}])\n"
        "        assert call.status.value == 'completed', call.exception\n"
        "asyncio.run(main())\n"
        "print(json.dumps(sorted(sys.modules)))\n"
    )
    return set(json.loads(_run(code)))


def test_an_http_first_call_loads_no_agentic_subprocess_or_error_path_module(
    fake_provider_server: FakeProviderServer,
) -> None:
    # Issue 15 item 3: what a first HTTP call imports beyond what it uses. The agentic endpoint
    # (and its subprocess machinery), the shared-admission config, core's scripted endpoint and
    # difflib's suggestions were imported by the catalog and match path.
    loaded = _first_call_modules(
        fake_provider_server, "provider='openai', endpoint='chat', model='m', api_key='sk-test'"
    )
    unwanted = (
        "lionagi.service._transport.agentic.endpoint",
        "lionagi.service._transport.subprocess",
        "lionagi.service._lifecycle.shared_config",
        "lionagi.service.scripted._endpoint",
        "difflib",
        # The nested-shapes check: a plain-text chat never needs it (it cost the first call of
        # the catalog's `openai` row some 50 ms when it was imported for every request).
        "lionagi.service._catalog.openai_chat_types",
        # The same provider's other rows: a chat call imports only the chat row's modules.
        "lionagi.providers.openai._responses",
        "lionagi.providers.openai._embeddings",
    )
    assert "lionagi.providers.openai._endpoints" in loaded
    assert sorted(m for m in loaded if m.startswith(unwanted)) == []


def test_a_gemini_chat_first_call_loads_neither_native_models_nor_nested_shapes(
    fake_provider_server: FakeProviderServer,
) -> None:
    # `gemini/<model>` is chat through the compatibility layer: its first call must not import
    # the native generateContent / embeddings request models (a module of some thirty models)
    # nor build core's nested message shapes for a plain-text request.
    loaded = _first_call_modules(
        fake_provider_server, "model='gemini/gemini-2.5-flash', api_key='AIza-test-key-0123456789'"
    )
    assert "lionagi.providers.gemini._chat_request" in loaded
    unwanted = ("lionagi.providers.gemini._requests", "lionagi.service._catalog.openai_chat_types")
    assert sorted(m for m in loaded if m.startswith(unwanted)) == []


def _http_providers() -> list[str]:
    from lionagi.service import EndpointType, ProviderCatalog

    snapshot = ProviderCatalog().snapshot()
    return [
        key
        for key, provider in sorted(snapshot.providers.items())
        if key != "scripted"
        and all(e.endpoint_type is EndpointType.API for e in provider.endpoints.values())
    ]


@pytest.mark.parametrize("provider", _http_providers())
def test_an_http_vendors_endpoints_load_no_agentic_stack_nor_nested_shapes(provider: str) -> None:
    # Issue 15 item 3, per vendor: matching any endpoint of an HTTP vendor imports neither the
    # agentic surface (and with it the subprocess machinery: Anthropic's endpoint once did, for
    # one validation helper) nor core's nested chat shapes, which a vendor's `shapes` built at
    # class definition put on every first call (`lazy_chat_shapes` builds them on first read).
    code = (
        "import json, sys\n"
        "from lionagi.service import EndpointRegistry, match_endpoint\n"
        f"provider = EndpointRegistry.snapshot().provider({provider!r})\n"
        "for key in provider.endpoint_keys:\n"
        f"    match_endpoint({provider!r}, key)\n"
        "print(json.dumps(sorted(sys.modules)))\n"
    )
    loaded = json.loads(_run(code))
    unwanted = (
        "lionagi.service.agentic",
        "lionagi.service._transport.agentic.",  # its modules (its `__init__` imports nothing)
        "lionagi.service._transport.subprocess",
        "lionagi.service._catalog.openai_chat_types",
    )
    assert [m for m in loaded if m.startswith(unwanted)] == []


def test_an_http_vendor_reaches_its_error_pattern_type_without_the_subprocess_stack() -> None:
    # ``Endpoint.error_patterns`` holds ProviderErrorPattern rows; an HTTP vendor that declares
    # some must not have to import lionagi.service.agentic (and with it the subprocess
    # transport) for the type, or every first call of that vendor pays for a CLI stack.
    code = (
        "import json, sys\n"
        "from lionagi.service.http import ProviderErrorPattern\n"
        "from lionagi.service import Endpoint, ProviderError\n"
        "class E(Endpoint):\n"
        "    error_patterns = (ProviderErrorPattern('x', ProviderError, r'boom'),)\n"
        "print(json.dumps(sorted(sys.modules)))\n"
    )
    loaded = json.loads(_run(code))
    stack = ("lionagi.service._transport.agentic", "lionagi.service._transport.subprocess")
    assert [m for m in loaded if m.startswith(stack)] == []
    from lionagi.service.agentic import ProviderErrorPattern as agentic_pattern
    from lionagi.service.http import ProviderErrorPattern as http_pattern

    assert http_pattern is agentic_pattern  # one type, two doors


def test_an_ollama_chat_first_call_loads_no_native_request_models(
    fake_provider_server: FakeProviderServer,
) -> None:
    # `ollama/<model>` is chat through the `/v1` layer: its first call must import its own
    # request model's module and not the native `/api/generate`, `/api/chat` and `/api/embed`
    # models (which shared one module with it), nor the `/v1` embeddings row's model.
    loaded = _first_call_modules(fake_provider_server, "model='ollama/llama3.2'")
    assert "lionagi.providers.ollama._chat_request" in loaded
    unwanted = (
        "lionagi.providers.ollama._requests",
        "lionagi.providers.ollama._embeddings_request",
        "lionagi.providers.ollama._request_base",
    )
    assert sorted(m for m in loaded if m.startswith(unwanted)) == []
