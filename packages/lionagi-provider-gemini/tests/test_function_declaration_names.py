"""A function declaration's ``name`` follows the API's rule, checked before anything is sent.

The API documents a declared function's name as starting with a letter or an underscore and
holding only letters, digits, underscores, dots, colons and dashes (google-genai 3.6.1's
``FunctionDeclaration.name``: "with a maximum length of 128"); any other name is answered with a
400 ("tools[0].function_declarations[12].name: [FIELD_INVALID] Invalid function name. Must start
with a letter or an underscore..."), one per bad name. Tool names from MCP servers or other
vendors often break it (a leading digit, a space, a slash). The name was only checked to be
non-empty, so such a request went out and came back as a 400; it is now refused at the
declaration's ``name``, with the rule.
"""

from __future__ import annotations

from typing import Any

import pytest
from gemini_loopback import native_model, sent

from lionagi.service import EndpointConfigurationError, EventStatus

CONTENTS = [{"role": "user", "parts": [{"text": "List the files."}]}]


def _tools(*names: str) -> list[dict[str, Any]]:
    return [{"functionDeclarations": [{"name": name} for name in names]}]


@pytest.mark.parametrize(
    "name",
    [
        "21st_magic_component_builder",  # a leading digit
        "list files",
        "fs/read",
        "get-weather!",
        "-dash-first",
        ".dot-first",
        "naïve",
        "a" * 129,
    ],
)
def test_a_name_outside_the_api_rule_is_refused(name: str) -> None:
    endpoint = native_model().endpoint
    with pytest.raises(EndpointConfigurationError) as info:
        endpoint.create_payload({"contents": CONTENTS, "tools": _tools("ok", name)})
    assert info.value.field == "tools.0.functionDeclarations.1.name"
    assert "letter or an underscore" in str(info.value)


async def test_every_name_the_rule_allows_is_sent() -> None:
    names = ("shell", "_private", "fs.read_file", "mcp:github:create-issue", "Tool9", "a" * 128)
    call, body = await sent({"contents": CONTENTS, "tools": _tools(*names)})
    assert call.execution.status is EventStatus.COMPLETED
    assert body["tools"] == _tools(*names)
