"""Image and document ``source`` objects: typed as Anthropic documents them, sent as written.

A source was an open mapping, so a malformed one (an image ``media_type`` the API does not
read, a missing ``data`` or ``url``, a misspelled ``type``, an unknown key) went out and came
back as a 400. Each refusal here names the key to change and never repeats the data; each
accepted source is sent byte for byte as the caller wrote it.
"""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
from pydantic import ValidationError

from lionagi.providers.anthropic import AnthropicMessagesEndpoint, AnthropicMessagesRequest
from lionagi.providers.anthropic._request import (
    AnthropicBase64ImageSource,
    AnthropicBase64PDFSource,
    AnthropicContentSource,
    AnthropicDocumentBlock,
    AnthropicFileSource,
    AnthropicImageBlock,
    AnthropicMessage,
    AnthropicPlainTextSource,
    AnthropicTextBlock,
    AnthropicURLSource,
)
from lionagi.service import EndpointConfigurationError, match_endpoint
from lionagi.service_testing import FakeProviderServer

# Base64 text long enough that pydantic's own error text would show a head and a tail of it.
DATA = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAAB" * 2000
PDF = "JVBERi0xLjQKJcOkw7zDtsOfCjIgMCBvYmoK" * 2000
FRAGMENT = "iVBORw0KGgo"
PDF_FRAGMENT = "JVBERi0xLjQK"

IMAGE = "messages.0.content.blocks.0.image.source"
DOCUMENT = "messages.0.content.blocks.0.document.source"


def endpoint() -> AnthropicMessagesEndpoint:
    ep = match_endpoint("anthropic", "messages", api_key="k")
    assert isinstance(ep, AnthropicMessagesEndpoint)
    return ep


def user(*blocks: Any) -> list[dict[str, Any]]:
    return [{"role": "user", "content": list(blocks)}]


def image(source: Any) -> dict[str, Any]:
    return {"type": "image", "source": source}


def document(source: Any, **fields: Any) -> dict[str, Any]:
    return {"type": "document", "source": source, **fields}


def refused(block: dict[str, Any]) -> EndpointConfigurationError:
    with pytest.raises(EndpointConfigurationError) as info:
        endpoint().create_payload({"model": "claude-x", "messages": user(block)})
    return info.value


def request(messages: list[dict[str, Any]]) -> AnthropicMessagesRequest:
    """The typed request, validated the way a caller building it directly would."""
    body = {"model": "claude-x", "max_tokens": 64, "messages": messages}
    return AnthropicMessagesRequest.model_validate(body)


def sent(messages: list[dict[str, Any]]) -> bytes:
    """The body bytes the endpoint would put on the wire for ``messages``."""
    ep = endpoint()
    payload, _ = ep.create_payload({"model": "claude-x", "messages": messages})
    content = ep.encode_payload(payload).content
    assert content is not None
    return content


def as_written(messages: list[dict[str, Any]]) -> bytes:
    """``messages`` in the body the way core encodes JSON, keys in the order written here."""
    body = {"model": "claude-x", "messages": messages, "max_tokens": 4096}
    return json.dumps(body, separators=(",", ":"), ensure_ascii=False).encode()


# -- every documented source is sent as written -------------------------------------------------

# Keys in several orders on purpose (``type`` last, ``data`` before ``media_type``): what is sent
# must be the caller's JSON value, nothing added, dropped or changed (the keys go out in field
# order, as every block's do; JSON objects are unordered).
VALID_SOURCES = [
    image({"type": "base64", "media_type": "image/jpeg", "data": DATA}),
    image({"data": DATA, "media_type": "image/png", "type": "base64"}),
    image({"type": "base64", "data": DATA, "media_type": "image/gif"}),
    image({"media_type": "image/webp", "type": "base64", "data": DATA}),
    image({"type": "url", "url": "https://example.com/cat.png"}),
    image({"url": "https://example.com/cat.png", "type": "url"}),
    image({"type": "file", "file_id": "file_011CNha8iCJcU1wXNR6q4V8w"}),
    document({"type": "base64", "media_type": "application/pdf", "data": PDF}),
    document({"type": "text", "data": "The grass is green.", "media_type": "text/plain"}),
    document({"type": "content", "content": "one chunk"}),
    document(
        {
            "content": [
                {"type": "text", "text": "first chunk"},
                {"type": "image", "source": {"url": "https://example.com/fig.png", "type": "url"}},
            ],
            "type": "content",
        },
        title="Report",
        context="quarterly",
        citations={"enabled": True},
    ),
    document({"type": "url", "url": "https://example.com/report.pdf"}),
    document({"file_id": "file_011CNha8iCJcU1wXNR6q4V8w", "type": "file"}),
]


@pytest.mark.parametrize("block", VALID_SOURCES)
def test_a_documented_source_is_sent_as_written(block: dict[str, Any]) -> None:
    messages = user({"type": "text", "text": "what is this?"}, block)
    assert json.loads(sent(messages)) == json.loads(as_written(messages))


async def test_the_wire_carries_the_sources_as_written() -> None:
    seen: list[bytes] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request.content)
        return httpx.Response(
            200,
            json={
                "id": "msg_1",
                "type": "message",
                "role": "assistant",
                "model": "claude-x",
                "content": [{"type": "text", "text": "a cat"}],
                "stop_reason": "end_turn",
                "usage": {"input_tokens": 1, "output_tokens": 1},
            },
        )

    config = match_endpoint(
        "anthropic", "messages", api_key="k", base_url="http://127.0.0.1:9/v1"
    ).config
    ep = AnthropicMessagesEndpoint(
        config.with_updates(allow_local_network=True), transport=httpx.MockTransport(handler)
    )
    messages = user(*VALID_SOURCES)
    try:
        await ep.call({"model": "claude-x", "messages": messages})
    finally:
        await ep.aclose()
    assert [json.loads(body) for body in seen] == [json.loads(as_written(messages))]


async def test_the_fake_server_receives_the_sources(fake: FakeProviderServer) -> None:
    ep = match_endpoint(
        "anthropic",
        "messages",
        api_key="k",
        base_url=fake.base_url + "/v1",
        allow_local_network=True,
    )
    messages = user(*VALID_SOURCES[4:], {"type": "text", "text": "compare"})
    try:
        await ep.call({"model": "claude-fake", "messages": messages})
    finally:
        await ep.aclose()
    [request] = fake.requests
    assert request.json["messages"] == messages


# -- a malformed source is refused naming the key, before the round trip -------------------------


@pytest.mark.parametrize(
    ("block", "field", "says"),
    [
        (
            image({"type": "base64", "media_type": "image/bmp", "data": DATA}),
            f"{IMAGE}.base64.media_type",
            "'image/jpeg', 'image/png', 'image/gif' or 'image/webp'",
        ),
        (
            image({"type": "base64", "media_type": "application/pdf", "data": DATA}),
            f"{IMAGE}.base64.media_type",
            "'image/jpeg'",
        ),
        (image({"type": "base64", "media_type": "image/png"}), f"{IMAGE}.base64.data", "required"),
        (
            image({"type": "base64", "media_type": "image/png", "data": DATA, "detail": "high"}),
            f"{IMAGE}.base64.detail",
            "unknown field",
        ),
        (image({"type": "url"}), f"{IMAGE}.url.url", "required"),
        (
            image({"type": "url", "url": "https://x/i.png", "alt": "a cat"}),
            f"{IMAGE}.url.alt",
            "unknown field",
        ),
        (image({"type": "file"}), f"{IMAGE}.file.file_id", "required"),
        (
            image({"type": "URL", "url": "https://x/i.png"}),
            f"{IMAGE}.type",
            "unknown image source type; expected base64, url or file",
        ),
        (
            image({"type": "image_url", "image_url": {"url": "https://x/i.png"}}),
            f"{IMAGE}.type",
            "unknown image source type",
        ),
        (image({"media_type": "image/png", "data": DATA}), f"{IMAGE}.type", "required"),
        (
            # A document-only source is no image source.
            image({"type": "text", "media_type": "text/plain", "data": "x"}),
            f"{IMAGE}.type",
            "unknown image source type",
        ),
        (image("https://x/i.png"), IMAGE, "expected an image source object"),
        (
            document({"type": "base64", "media_type": "image/png", "data": PDF}),
            f"{DOCUMENT}.base64.media_type",
            "'application/pdf'",
        ),
        (document({"type": "base64", "data": PDF}), f"{DOCUMENT}.base64.media_type", "required"),
        (
            document({"type": "base64", "media_type": "application/pdf", "data": PDF, "name": "a"}),
            f"{DOCUMENT}.base64.name",
            "unknown field",
        ),
        (
            document({"type": "text", "media_type": "text/markdown", "data": "# x"}),
            f"{DOCUMENT}.text.media_type",
            "'text/plain'",
        ),
        (
            document({"type": "text", "media_type": "text/plain"}),
            f"{DOCUMENT}.text.data",
            "required",
        ),
        (
            document({"type": "text", "media_type": "text/plain", "data": 42}),
            f"{DOCUMENT}.text.data",
            "valid string",
        ),
        (document({"type": "content"}), f"{DOCUMENT}.content.content", "required"),
        (
            document({"type": "content", "content": [{"type": "document", "source": {}}]}),
            f"{DOCUMENT}.content.content.blocks.0",
            "a content document source holds text and image blocks only",
        ),
        (
            document({"type": "content", "content": [{"type": "text", "text": "x", "txt": "x"}]}),
            f"{DOCUMENT}.content.content.blocks.0.text.txt",
            "unknown field",
        ),
        (
            document(
                {
                    "type": "content",
                    "content": [
                        image({"type": "base64", "media_type": "image/tiff", "data": DATA})
                    ],
                }
            ),
            f"{DOCUMENT}.content.content.blocks.0.image.source.base64.media_type",
            "'image/jpeg'",
        ),
        (document({"type": "url"}), f"{DOCUMENT}.url.url", "required"),
        (
            document({"type": "file", "file_id": "file_1", "id": "file_1"}),
            f"{DOCUMENT}.file.id",
            "unknown field",
        ),
        (
            document({"type": "pdf", "data": PDF}),
            f"{DOCUMENT}.type",
            "unknown document source type; expected base64, text, content, url or file",
        ),
        (document({"data": PDF}), f"{DOCUMENT}.type", "required"),
        (document(["a", "b"]), DOCUMENT, "expected a document source object"),
    ],
)
def test_a_malformed_source_is_refused_naming_the_key(
    block: dict[str, Any], field: str, says: str
) -> None:
    error = refused(block)
    assert error.field == field
    assert says in str(error)
    assert FRAGMENT not in str(error)
    assert PDF_FRAGMENT not in str(error)


def test_a_wrong_type_is_one_error_not_a_union_dump() -> None:
    block = image({"type": "bas64", "media_type": "image/png", "data": DATA})
    with pytest.raises(ValidationError) as info:
        request(user(block))
    errors = info.value.errors()
    assert [(error["loc"], error["msg"]) for error in errors] == [
        (
            ("messages", 0, "content", "blocks", 0, "image", "source", "type"),
            "unknown image source type; expected base64, url or file",
        )
    ]


# -- pydantic's own text never repeats the data ---------------------------------------------------


@pytest.mark.parametrize(
    "block",
    [
        image({"type": "base64", "media_type": "image/bmp", "data": DATA}),
        image({"type": "base64", "media_type": "image/png", "data": DATA, "extra": DATA}),
        document({"type": "base64", "media_type": "text/plain", "data": PDF}),
        # A key the image block itself does not have: its value was shown before too.
        {"type": "image", "source": {"type": "url", "url": "u"}, "thumbnail": DATA},
    ],
)
def test_a_model_built_directly_does_not_repeat_the_data(block: dict[str, Any]) -> None:
    with pytest.raises(ValidationError) as info:
        request(user(block))
    text = str(info.value)
    assert FRAGMENT not in text
    assert PDF_FRAGMENT not in text
    assert "input_value" not in text
    with pytest.raises(ValidationError) as info:
        (AnthropicImageBlock if block["type"] == "image" else AnthropicDocumentBlock)(**block)
    assert FRAGMENT not in str(info.value)
    assert PDF_FRAGMENT not in str(info.value)


# -- typed sources --------------------------------------------------------------------------------


def test_sources_are_read_as_typed_models() -> None:
    content = request(user(*VALID_SOURCES)).messages[0].content
    assert isinstance(content, list)
    kinds = [type(block.source) for block in content]  # type: ignore[union-attr]
    assert kinds == [
        *[AnthropicBase64ImageSource] * 4,
        AnthropicURLSource,
        AnthropicURLSource,
        AnthropicFileSource,
        AnthropicBase64PDFSource,
        AnthropicPlainTextSource,
        AnthropicContentSource,
        AnthropicContentSource,
        AnthropicURLSource,
        AnthropicFileSource,
    ]
    chunked = content[10]
    assert isinstance(chunked, AnthropicDocumentBlock)
    assert isinstance(chunked.source, AnthropicContentSource)
    assert isinstance(chunked.source.content, list)
    assert isinstance(chunked.source.content[0], AnthropicTextBlock)
    assert isinstance(chunked.source.content[1], AnthropicImageBlock)


def test_a_source_built_as_a_model_is_sent() -> None:
    block = AnthropicImageBlock(
        type="image", source=AnthropicURLSource(type="url", url="https://x/i.png")
    )
    pdf = AnthropicDocumentBlock(
        type="document",
        source=AnthropicBase64PDFSource(type="base64", media_type="application/pdf", data=PDF),
        title="Report",
    )
    message = AnthropicMessage(role="user", content=[block, pdf])
    built = AnthropicMessagesRequest(model="claude-x", max_tokens=64, messages=[message])
    payload, _ = endpoint().create_payload(built)
    assert payload["messages"][0]["content"] == [
        {"type": "image", "source": {"type": "url", "url": "https://x/i.png"}},
        {
            "type": "document",
            "source": {"type": "base64", "media_type": "application/pdf", "data": PDF},
            "title": "Report",
        },
    ]


def test_a_source_model_of_the_wrong_kind_is_refused_at_its_type() -> None:
    text = AnthropicPlainTextSource(type="text", media_type="text/plain", data="x")
    with pytest.raises(ValidationError) as info:
        AnthropicImageBlock(type="image", source=text)  # type: ignore[arg-type]
    [error] = info.value.errors()
    assert error["loc"] == ("source", "type")
    assert error["msg"] == "unknown image source type; expected base64, url or file"


def test_a_source_compares_by_value() -> None:
    written = AnthropicURLSource.model_validate({"url": "https://x/i.png", "type": "url"})
    built = AnthropicURLSource(type="url", url="https://x/i.png")
    assert written == built
    assert written != AnthropicURLSource(type="url", url="https://x/other.png")
    assert written.model_dump() == built.model_dump() == {"type": "url", "url": "https://x/i.png"}
