"""Perplexity's ``file_url`` content part: accepted on its row, refused by the shared dialect.

A user message may attach a document by URL (or as base64) with ``{"type": "file_url", ...}``;
a typo in it is still refused, and it goes out as written.
"""

from __future__ import annotations

from typing import Any

import pytest

from lionagi.service import EndpointConfigurationError, OpenAIChatCompletionsRequest, match_endpoint

ATTACHED: list[dict[str, Any]] = [
    {
        "role": "user",
        "content": [
            {"type": "text", "text": "Summarize this paper."},
            {
                "type": "file_url",
                "file_url": {"url": "https://arxiv.example/paper.pdf"},
                "file_name": "paper.pdf",
            },
            {"type": "file_url", "file_url": "JVBERi0xLjQK"},
        ],
    }
]


def _payload(messages: list[dict[str, Any]]) -> dict[str, Any]:
    ep = match_endpoint("perplexity", "chat", api_key="k-perplexity-0123456789")
    payload, _ = ep.create_payload({"model": "sonar", "messages": messages})
    return payload


def test_a_file_url_part_is_accepted_and_sent_as_written() -> None:
    assert _payload(ATTACHED)["messages"] == ATTACHED


def test_a_bad_file_url_part_is_still_refused() -> None:
    part = {"type": "file_url", "file_url": {"uri": "https://x.example/a.pdf"}}
    with pytest.raises(EndpointConfigurationError) as refused:
        _payload([{"role": "user", "content": [part]}])
    assert refused.value.field.startswith("messages.0.content.0.file_url")


def test_the_shared_dialect_does_not_take_it() -> None:
    with pytest.raises(ValueError, match=r"messages\.0\.content\.1\.type"):
        OpenAIChatCompletionsRequest.model_validate({"model": "m", "messages": ATTACHED})
