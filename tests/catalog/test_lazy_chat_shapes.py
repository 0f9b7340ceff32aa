"""`lazy_chat_shapes`: a vendor's chat shapes, refused early when wrong, built on first read.

A vendor request class that sets `shapes = openai_chat_shapes(...)` built core's nested-shapes
models on the first use of its row, plain-text calls included (issue 15's cold first call).
`lazy_chat_shapes` takes the same arguments; these tests hold it to the same behaviour, minus
the early build.
"""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest
from pydantic import BaseModel, ConfigDict, StrictBool

from lionagi.service import OpenAIChatCompletionsRequest, lazy_chat_shapes, openai_chat_shapes


class _CacheControl(BaseModel):
    model_config = ConfigDict(extra="forbid", defer_build=True)

    type: str


_ARGS: dict[str, Any] = {
    "roles": {"assistant": {"prefix": StrictBool}},
    "parts": {"text": {"cache_control": _CacheControl}},
}


class _LazyRequest(OpenAIChatCompletionsRequest):
    shapes = lazy_chat_shapes("LazyTestChat", **_ARGS)


@pytest.mark.parametrize(
    ("kwargs", "words"),
    [
        ({"roles": {"robot": {"a": str}}}, "unknown role 'robot'"),
        ({"parts": {"video": {"a": str}}}, "unknown content part type 'video'"),
        ({"tool_calls": {"mcp": {"a": str}}}, "unknown tool call type 'mcp'"),
        ({"user_parts": {"text": _CacheControl}}, "'text' is typed already"),
    ],
    ids=["role", "part", "tool-call", "typed-user-part"],
)
def test_a_mistake_in_the_arguments_is_refused_when_the_class_is_defined(
    kwargs: dict[str, Any], words: str
) -> None:
    # As `openai_chat_shapes` refuses it: a vendor learns of it at import, not on the first
    # request with a tool call.
    with pytest.raises(ValueError, match=words):
        lazy_chat_shapes("Broken", **kwargs)
    with pytest.raises(ValueError, match=words):
        openai_chat_shapes("Broken", **kwargs)


def test_reading_it_gives_the_model_openai_chat_shapes_builds() -> None:
    built = _LazyRequest.shapes
    assert built is openai_chat_shapes("LazyTestChat", **_ARGS)
    request = _LazyRequest(model="m", messages=[{"role": "user", "content": "hi"}])
    assert request.shapes is built  # through an instance too (how core reads it)


def test_the_vendor_fields_are_checked_as_with_the_eager_shapes() -> None:
    messages = [
        {
            "role": "system",
            "content": [{"type": "text", "text": "x", "cache_control": {"type": "e"}}],
        },
        {"role": "assistant", "content": "x", "prefix": True},
    ]
    assert _LazyRequest.model_validate({"model": "m", "messages": messages}).messages == messages
    with pytest.raises(ValueError) as info:
        _LazyRequest.model_validate(
            {"model": "m", "messages": [{"role": "assistant", "content": "x", "prefx": True}]}
        )
    assert "messages.0.prefx" in str(info.value)


def test_a_later_change_to_the_callers_mapping_does_not_change_the_model() -> None:
    roles: dict[str, dict[str, Any]] = {"assistant": {"prefix": StrictBool}}
    shapes = lazy_chat_shapes("LazyCopiedChat", roles=roles)
    roles["assistant"]["reasoning"] = str  # after the class was defined

    class Request(OpenAIChatCompletionsRequest):
        pass

    Request.shapes = shapes
    with pytest.raises(ValueError) as info:
        Request.model_validate(
            {"model": "m", "messages": [{"role": "assistant", "content": "x", "reasoning": "r"}]}
        )
    assert "messages.0.reasoning" in str(info.value)


_PROBE = """
import json, sys
from pydantic import StrictBool
from lionagi.service import OpenAIChatCompletionsRequest, lazy_chat_shapes

class Request(OpenAIChatCompletionsRequest):
    shapes = lazy_chat_shapes("ProbeChat", roles={"assistant": {"prefix": StrictBool}})

def loaded():
    return "lionagi.service._catalog.openai_chat_types" in sys.modules

seen = {"defined": loaded()}
Request.model_validate({"model": "m", "messages": [{"role": "user", "content": "hi"}]})
seen["plain_text"] = loaded()
Request.model_validate(
    {"model": "m", "messages": [{"role": "assistant", "content": "x", "prefix": True}]}
)
seen["vendor_field"] = loaded()
print(json.dumps(seen))
"""


def test_nothing_is_built_until_a_request_needs_the_shapes() -> None:
    out = subprocess.run(
        [sys.executable, "-c", _PROBE], capture_output=True, text=True, check=False, timeout=120
    )
    assert out.returncode == 0, out.stderr[-3000:]
    seen = json.loads(out.stdout)
    assert seen == {"defined": False, "plain_text": False, "vendor_field": True}
