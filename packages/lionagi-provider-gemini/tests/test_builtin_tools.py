"""The built-in tools of ``tools``: what the Gemini Developer API takes is sent, the rest refused.

The reference is Google's ``google-genai`` SDK: its Developer API converter passes
``mcpServers`` (remote MCP servers the API calls itself) and raises "not supported in Gemini
API" on ``retrieval``, ``enterpriseWebSearch``, ``parallelAiSearch`` and ``exaAiSearch``, which
are Vertex AI's. An MCP server entry is checked field by field and reaches the wire as written;
a Vertex AI tool is an ``EndpointConfigurationError`` naming the tool and saying why.
"""

from __future__ import annotations

from typing import Any

import pytest
from gemini_loopback import native_model, sent

from lionagi.providers.gemini._requests import GeminiGenerateContentRequest
from lionagi.service import EndpointConfigurationError, EventStatus

CONTENTS = [{"role": "user", "parts": [{"text": "What is the weather in Boston?"}]}]
BEARER = "Bearer mcp-server-credential-0123456789"
WEATHER: dict[str, Any] = {
    "name": "weather_server",
    "streamableHttpTransport": {
        "url": "https://mcp.example.com/mcp",
        "headers": {"Authorization": BEARER},
        "timeout": "10s",
        "sseReadTimeout": "2.5s",
        "terminateOnClose": True,
    },
}


def refused(request: dict[str, Any]) -> EndpointConfigurationError:
    """The error building ``request`` raises; fails the test if none is raised."""
    with pytest.raises(EndpointConfigurationError) as info:
        native_model().endpoint.create_payload(request)
    return info.value


def wire(request: dict[str, Any]) -> dict[str, Any]:
    """The JSON body ``request`` is sent as (the payload after routing)."""
    endpoint = native_model().endpoint
    payload, _ = endpoint.create_payload(request)
    _, body = endpoint.request_target(payload, stream=False)
    return dict(body)


# -- mcpServers ------------------------------------------------------------------------------------


async def test_an_mcp_server_tool_reaches_the_wire_as_written() -> None:
    request = {"contents": CONTENTS, "tools": [{"mcpServers": [WEATHER, {"name": "bare"}]}]}
    call, body = await sent(request)
    assert call.execution.status is EventStatus.COMPLETED
    assert body == request


def test_an_mcp_server_beside_other_tools_is_sent() -> None:
    tools = [{"googleSearch": {}}, {"mcpServers": [WEATHER]}, {"urlContext": {}}]
    assert wire({"contents": CONTENTS, "tools": tools})["tools"] == tools


@pytest.mark.parametrize(
    ("server", "field", "says"),
    [
        # The SDK's snake_case spelling: the REST names are camelCase, as everywhere here.
        (
            {"name": "w", "streamable_http_transport": {"url": "https://x/mcp"}},
            "streamable_http_transport",
            "did you mean 'streamableHttpTransport'",
        ),
        ({"name": "w", "transport": {}}, "transport", "unknown field of GeminiMcpServer"),
        ({"name": 7}, "name", "valid string"),
        ({"streamableHttpTransport": {"uri": "https://x"}}, "streamableHttpTransport.uri", "url"),
        # A bare number is not read as seconds: the API's JSON takes a Duration string.
        ({"streamableHttpTransport": {"timeout": 10}}, "streamableHttpTransport.timeout", ""),
        ({"streamableHttpTransport": {"timeout": "10"}}, "streamableHttpTransport.timeout", "'s'"),
        (
            {"streamableHttpTransport": {"sseReadTimeout": "5 minutes"}},
            "streamableHttpTransport.sseReadTimeout",
            "such as '10s'",
        ),
        (
            {"streamableHttpTransport": {"headers": {"X-Retries": 3}}},
            "streamableHttpTransport.headers.X-Retries",
            "valid string",
        ),
        (
            {"streamableHttpTransport": {"terminateOnClose": "yes"}},
            "streamableHttpTransport.terminateOnClose",
            "valid boolean",
        ),
    ],
)
def test_a_malformed_mcp_server_is_refused_naming_its_field(
    server: dict[str, Any], field: str, says: str
) -> None:
    error = refused({"contents": CONTENTS, "tools": [{"mcpServers": [server]}]})
    assert error.field == f"tools.0.mcpServers.0.{field}"
    assert says in str(error)


def test_mcp_servers_must_be_a_list() -> None:
    error = refused({"contents": CONTENTS, "tools": [{"mcpServers": WEATHER}]})
    assert error.field == "tools.0.mcpServers"


def test_an_mcp_server_credential_stays_out_of_the_model_repr_and_errors() -> None:
    tools = [{"mcpServers": [WEATHER]}]
    request = GeminiGenerateContentRequest.model_validate(
        {"model": "gemini-2.5-flash", "contents": CONTENTS, "tools": tools}
    )
    assert BEARER not in repr(request)
    assert "weather_server" in repr(request)
    broken = {**WEATHER["streamableHttpTransport"], "timeout": 10}
    error = refused(
        {"contents": CONTENTS, "tools": [{"mcpServers": [{"streamableHttpTransport": broken}]}]}
    )
    assert BEARER not in str(error)


@pytest.mark.parametrize(
    "calling",
    [
        {"mode": "ANY"},
        {"mode": "ANY", "allowedFunctionNames": ["get_weather"]},
        {"mode": "VALIDATED", "allowedFunctionNames": ["get_weather", "shell"]},
    ],
)
def test_a_forced_call_with_an_mcp_server_is_left_to_the_api(calling: dict[str, Any]) -> None:
    """The server's tools are the declarations here: the request alone cannot tell."""
    tools = [{"mcpServers": [WEATHER]}, {"functionDeclarations": [{"name": "shell"}]}]
    fields = {"tools": tools, "toolConfig": {"functionCallingConfig": calling}}
    body = wire({"contents": CONTENTS, **fields})
    assert body["toolConfig"] == fields["toolConfig"]


def test_an_empty_mcp_server_list_declares_nothing() -> None:
    fields = {
        "tools": [{"mcpServers": []}],
        "toolConfig": {"functionCallingConfig": {"mode": "ANY"}},
    }
    error = refused({"contents": CONTENTS, **fields})
    assert error.field == "toolConfig"


# -- Vertex AI tools ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("tool", "instead"),
    [
        ({"retrieval": {"vertexAiSearch": {"datastore": "projects/p/dataStores/d"}}}, "fileSearch"),
        ({"enterpriseWebSearch": {}}, "googleSearch"),
        ({"parallelAiSearch": {"apiKey": "k"}}, "googleSearch"),
        ({"exaAiSearch": {"apiKey": "k"}}, "googleSearch"),
        # Named explicitly but empty: still a tool this API does not take.
        ({"retrieval": None}, "fileSearch"),
    ],
)
def test_a_vertex_ai_tool_is_refused_saying_why(tool: dict[str, Any], instead: str) -> None:
    error = refused({"contents": CONTENTS, "tools": [{"googleSearch": {}}, tool]})
    (name,) = tool
    assert error.field == f"tools.1.{name}"
    assert "is a Vertex AI tool" in str(error)
    assert "Gemini Developer API" in str(error)
    assert instead in str(error)
    assert "unknown field" not in str(error)


def test_a_vertex_ai_tool_key_is_never_echoed_in_the_error() -> None:
    error = refused({"contents": CONTENTS, "tools": [{"exaAiSearch": {"apiKey": "exa-secret-42"}}]})
    assert "exa-secret-42" not in str(error)
