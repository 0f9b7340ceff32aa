"""The fake server's Gemini ``:embedContent`` and ``:batchEmbedContents`` routes.

Gemini's native embeddings rows went to the fault matrix with no route to answer them (every
call a 404). These answer as the API does: ``{"embedding": {"values": [...]}}`` and
``{"embeddings": [{"values": [...]}, ...]}`` (one per ``requests`` entry, in order), errors and
faults in the ``google.rpc.Status`` shape of ``generateContent``. The distribution's tests import
no provider package, so the wire is read here by hand; the Gemini rows read it in
``tests/reliability``'s fault matrix.
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from lionagi.service_testing import FakeProviderServer
from lionagi.service_testing._fake_embeddings import EMBEDDING_DIMENSIONS, embed
from lionagi.service_testing._fake_errors import UNKNOWN_MODEL

MODEL = "gemini-embedding-001"
SINGLE = f"/v1beta/models/{MODEL}:embedContent"
BATCH = f"/v1beta/models/{MODEL}:batchEmbedContents"
KEY = "AIzaFakeEmbedKey0123456789"


def content(*texts: str) -> dict[str, Any]:
    return {"parts": [{"text": text} for text in texts]}


ONE = {"content": content("alpha ", "beta")}
TWO = {"requests": [{"content": content("alpha beta")}, {"content": content("gamma")}]}


def post(path: str, body: Any, **headers: str) -> httpx.Response:
    with FakeProviderServer.running_in_thread() as server:
        return httpx.post(
            server.base_url + path,
            json=body,
            headers={"x-goog-api-key": KEY, **headers},
            timeout=10,
        )


def test_embed_content_embeds_the_parts_text() -> None:
    reply = post(SINGLE, ONE)
    assert reply.status_code == 200, reply.text
    assert reply.headers["content-type"].startswith("application/json")
    # The parts' text together, embedded as the OpenAI route embeds an input.
    assert reply.json() == {"embedding": {"values": embed("alpha beta")}}
    assert len(reply.json()["embedding"]["values"]) == EMBEDDING_DIMENSIONS
    sized = post(SINGLE, {**ONE, "outputDimensionality": 3}).json()
    assert sized == {"embedding": {"values": embed("alpha beta", 3)}}


def test_batch_answers_one_embedding_per_entry_in_order() -> None:
    body = {
        "requests": [
            {"content": content("gamma"), "outputDimensionality": 2},
            {"model": f"models/{MODEL}", "content": content("alpha beta")},
        ]
    }
    reply = post(BATCH, body)
    assert reply.status_code == 200, reply.text
    assert reply.json() == {
        "embeddings": [{"values": embed("gamma", 2)}, {"values": embed("alpha beta")}]
    }


def test_the_request_is_recorded_with_its_path_and_body() -> None:
    with FakeProviderServer.running_in_thread() as server:
        httpx.post(server.base_url + BATCH, json=TWO, timeout=10)
        [seen] = server.requests
    assert (seen.method, seen.path, seen.json) == ("POST", BATCH, TWO)


@pytest.mark.parametrize(("path", "body"), [(SINGLE, ONE), (BATCH, TWO)])
def test_errors_are_googles_status_objects(path: str, body: dict[str, Any]) -> None:
    denied = post(path, body, **{"x-fake-behaviour": "401"})
    assert denied.status_code == 401
    assert denied.json()["error"]["status"] == "UNAUTHENTICATED"
    assert KEY[:10] in denied.json()["error"]["message"]  # the credential it received, echoed

    limited = post(path, body, **{"x-fake-behaviour": "429", "x-fake-retry-after": "0.05"})
    assert limited.status_code == 429
    assert limited.headers["retry-after"] == "0.05"
    error = limited.json()["error"]
    assert (error["code"], error["status"]) == (429, "RESOURCE_EXHAUSTED")
    assert error["details"] == [
        {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "0.05s"}
    ]

    busy = post(path, body, **{"x-fake-behaviour": "503"})
    assert busy.status_code == 503
    assert busy.json()["error"]["status"] == "UNAVAILABLE"


@pytest.mark.parametrize(
    ("path", "body", "method"),
    [(SINGLE, ONE, "embedContent"), (BATCH, TWO, "batchEmbedContents")],
)
def test_an_unknown_model_names_the_method_called(
    path: str, body: dict[str, Any], method: str
) -> None:
    reply = post(path, body, **{"x-fake-behaviour": "model_not_found"})
    assert reply.status_code == 404
    error = reply.json()["error"]
    assert error["status"] == "NOT_FOUND"
    assert error["message"].startswith(
        f"models/{UNKNOWN_MODEL} is not found for API version v1beta, or is not supported "
        f"for {method}."
    )


_EMBED_DAILY = {
    "quotaMetric": "generativelanguage.googleapis.com/embed_content_free_tier_requests",
    "quotaId": "EmbedContentRequestsPerDayPerUserPerProjectPerModel-FreeTier",
}
_GENERATE_DAILY = {
    "quotaMetric": "generativelanguage.googleapis.com/generate_content_free_tier_requests",
    "quotaId": "GenerateRequestsPerDayPerProjectPerModel-FreeTier",
}
_GENERATE = {"contents": [{"role": "user", "parts": [{"text": "hi"}]}]}


@pytest.mark.parametrize(
    ("path", "body", "violation"),
    [
        (SINGLE, ONE, _EMBED_DAILY),
        (BATCH, TWO, _EMBED_DAILY),
        (f"/v1beta/models/{MODEL}:generateContent", _GENERATE, _GENERATE_DAILY),
        (f"/v1beta/models/{MODEL}:streamGenerateContent?alt=sse", _GENERATE, _GENERATE_DAILY),
    ],
)
def test_a_spent_quota_names_the_methods_own_daily_quota(
    path: str, body: dict[str, Any], violation: dict[str, str]
) -> None:
    """An embeddings call is refused on the embeddings quota, not on generation's.

    Real 429 bodies name ``embed_content_free_tier_requests`` for ``embedContent`` and
    ``batchEmbedContents`` (each text of a batch counts as one request); a generation method's
    violation names ``generate_content_free_tier_requests``. Both daily ids say ``PerDay``,
    which is what a Gemini adapter reads to tell a spent day from a rate limit.
    """
    reply = post(path, body, **{"x-fake-behaviour": "quota"})
    assert reply.status_code == 429
    error = reply.json()["error"]
    assert error["status"] == "RESOURCE_EXHAUSTED"
    failures = [d for d in error["details"] if d["@type"].endswith("google.rpc.QuotaFailure")]
    assert failures == [
        {"@type": "type.googleapis.com/google.rpc.QuotaFailure", "violations": [violation]}
    ]


@pytest.mark.parametrize(("path", "body"), [(SINGLE, ONE), (BATCH, TWO)])
def test_the_body_faults_apply(path: str, body: dict[str, Any]) -> None:
    malformed = post(path, body, **{"x-fake-behaviour": "malformed"})
    assert malformed.status_code == 200
    assert malformed.text.startswith("{malformed ")

    html = post(path, body, **{"x-fake-behaviour": "non_json_200"})
    assert (html.status_code, html.headers["content-type"]) == (200, "text/html; charset=utf-8")

    hostile = post(path, body, **{"x-fake-behaviour": "hostile_content_type"})
    assert hostile.headers["content-type"] == "application/json; charset=base64"
    assert hostile.json() == post(path, body).json()

    unknown = post(path, body, **{"x-fake-behaviour": "extra_fields"}).json()
    assert unknown["fake_unknown_field"]


@pytest.mark.parametrize("path", [SINGLE, BATCH])
def test_invalid_utf8_is_refused_rather_than_ignored(path: str) -> None:
    # The bytes go into a string of the answer; an embeddings answer holds none.
    reply = post(path, ONE if path == SINGLE else TWO, **{"x-fake-behaviour": "invalid_utf8"})
    assert reply.status_code == 400
    assert reply.json()["error"]["status"] == "INVALID_ARGUMENT"
    assert "invalid_utf8 needs a string in the answer" in reply.json()["error"]["message"]


def test_another_method_is_still_not_routed() -> None:
    reply = post(f"/v1beta/models/{MODEL}:countTokens", ONE)
    assert reply.status_code == 404
    assert reply.json()["error"]["message"] == (
        f"no fake route for POST /v1beta/models/{MODEL}:countTokens"
    )
