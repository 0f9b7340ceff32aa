"""The generic status mapping reads a content-filter 4xx from its body, with classify's rule.

An endpoint with no dialect hook of its own (a vendor's native API, a plain ``Endpoint``) goes
through ``status_error``, which already reads the context family from a 4xx body with the rule the
CLI and stream classification use. The content-filter rule is as specific (Azure's inner code and
"content management policy" text, OpenAI's safety-system text, Anthropic's "blocked by content
filtering policy"), so the same refusal is the same family whatever path reports it. 401/403 keep
their auth meaning, and a 429 or 5xx keeps its status type. Real loopback server (``serve``), as
in ``test_status.py``.

The new class is imported inside the tests, so the behaviour tests still run (and fail on their
assertions) against a core that lacks it.
"""

from __future__ import annotations

import json

import pytest

from lionagi.service import (
    ProviderClientError,
    ProviderContentFilterError,
    ProviderRateLimitError,
    ProviderServerError,
    ProviderStatusContextError,
    ProviderUnauthorizedError,
)
from lionagi.service._transport.classify import DEFAULT_ERROR_PATTERNS
from lionagi.service._transport.http import status

# The bodies providers send for a filtered prompt, each from its source.
_REFUSAL_BODIES = [
    # Azure OpenAI (openai/openai-python#331).
    pytest.param(
        json.dumps(
            {
                "error": {
                    "message": "The response was filtered due to the prompt triggering Azure "
                    "OpenAI's content management policy. Please modify your prompt and retry.",
                    "type": None,
                    "param": "prompt",
                    "code": "content_filter",
                    "status": 400,
                    "innererror": {"code": "ResponsibleAIPolicyViolation"},
                }
            }
        ),
        id="azure",
    ),
    # OpenAI's safety-system refusal (songquanpeng/one-api#737).
    pytest.param(
        json.dumps(
            {
                "error": {
                    "code": "content_policy_violation",
                    "message": "Your request was rejected as a result of our safety system.",
                    "param": None,
                    "type": "invalid_request_error",
                }
            }
        ),
        id="openai",
    ),
    # Anthropic's filtered output (anthropics/claude-code#17389), in its Messages error shape.
    pytest.param(
        json.dumps(
            {
                "type": "error",
                "error": {
                    "type": "invalid_request_error",
                    "message": "Output blocked by content filtering policy",
                },
            }
        ),
        id="anthropic",
    ),
]


@pytest.mark.parametrize("body", _REFUSAL_BODIES)
async def test_a_content_filter_4xx_body_is_a_content_filter_error(
    serve, make_endpoint, wire, secret, body
):
    from lionagi.service import ProviderStatusContentFilterError

    server = await serve(lambda req: wire.full(400, body[:-1] + f', "k": "{secret}"}}'))
    ep = make_endpoint(server.base_url)
    with pytest.raises(ProviderContentFilterError) as info:
        await ep.call({"model": "m"})
    error = info.value
    assert type(error) is ProviderStatusContentFilterError
    assert isinstance(error, ProviderClientError)  # still a refused request, status kept
    assert error.status == 400
    assert not error.retryable
    assert "content filter" in str(error)
    assert error.body_excerpt.startswith(body[:-1])
    assert secret not in str(error) and secret not in error.body_excerpt
    assert len(server.requests) == 1


def test_the_mapping_reuses_the_classification_rule() -> None:
    # One compiled rule for the CLI, stream and status paths: they cannot drift apart.
    rule = next(r for r in DEFAULT_ERROR_PATTERNS if r.kind == "content_filter")
    assert status._CONTENT_FILTER is rule


@pytest.mark.parametrize(
    ("code", "expected"),
    [
        (401, ProviderUnauthorizedError),  # the status names the family; text does not outweigh it
        (403, ProviderUnauthorizedError),
        (429, ProviderRateLimitError),
        (500, ProviderServerError),
        (503, ProviderServerError),
    ],
)
async def test_the_status_types_are_never_re_typed_by_the_text(
    serve, make_endpoint, wire, code, expected
):
    body = _REFUSAL_BODIES[0].values[0]
    server = await serve(lambda req: wire.full(code, body))
    ep = make_endpoint(server.base_url)
    with pytest.raises(expected) as info:
        await ep.call({"model": "m"})
    assert not isinstance(info.value, ProviderContentFilterError)
    assert info.value.status == code


@pytest.mark.parametrize(
    "body",
    [
        # The words alone, in ordinary errors, are no refusal.
        '{"error": {"message": "Unrecognized request argument supplied: content_filter"}}',
        '{"error": {"message": "invalid value", "code": "content_filter_error"}}',
        '{"error": {"message": "content_filter_results could not be computed"}}',
    ],
)
async def test_ordinary_4xx_bodies_stay_client_errors(serve, make_endpoint, wire, body):
    server = await serve(lambda req: wire.full(400, body))
    ep = make_endpoint(server.base_url)
    with pytest.raises(ProviderClientError) as info:
        await ep.call({"model": "m"})
    assert type(info.value) is ProviderClientError


async def test_a_context_body_is_still_a_context_error(serve, make_endpoint, wire):
    body = '{"error": {"message": "prompt is too long: 210000 tokens > 200000 maximum"}}'
    server = await serve(lambda req: wire.full(400, body))
    ep = make_endpoint(server.base_url)
    with pytest.raises(ProviderStatusContextError):
        await ep.call({"model": "m"})
