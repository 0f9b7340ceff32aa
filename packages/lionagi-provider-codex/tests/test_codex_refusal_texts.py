"""Codex's fixed texts for a content-policy refusal, a capacity refusal and a region block.

Each capture is the real 0.171.0 binary with the fail-fast provider table against a one-route
stub server (``captures/README.md``); with codex's default retries the first three are sent
once (codex treats them as terminal) and the region block is retried five times first, then
printed the same way.

- ``response.failed`` with code ``content_policy_violation`` and an empty message: "The input
  was rejected by the content policy." The same prompt is refused the same way: the
  content-filter family, never retried, neutral for the circuit.
- ``response.failed`` with code ``policy_capacity_unavailable`` ("Policy-restricted capacity is
  unavailable. Please try again later.") or ``flex_unavailable`` ("Flex capacity
  unavailable."; also an HTTP 429 with that code): no capacity for the request's tier right
  now, the capacity family (retryable), as codex's "Selected model is at capacity" is.
- An HTTP 403 whose body names Cloudflare and a block: "Access blocked by Cloudflare. This
  usually happens when connecting from a restricted region (status 403 Forbidden), url: ...".
  Not the credentials (signing in again does not help) and not transient: where the
  deployment connects from must change, so it is the config family, never retried.

Without the codex patterns all four were unclassified stream errors, which count against the
provider's health (a burst of blocked prompts opened the circuit) and were never retried.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from codex_runs import captured_error, error_chunk, failed_run, stderr_only_failure

from lionagi.providers.codex import CodexCliEndpoint
from lionagi.service import (
    ProviderCapacityError,
    ProviderConfigError,
    ProviderContentFilterError,
    ProviderStreamCapacityError,
    ProviderStreamConfigError,
    ProviderStreamContentFilterError,
    ProviderStreamError,
)

CONTENT_POLICY = "The input was rejected by the content policy."
POLICY_CAPACITY = "Policy-restricted capacity is unavailable. Please try again later."
FLEX_CAPACITY = "Flex capacity unavailable."
CLOUDFLARE = (
    "Access blocked by Cloudflare. This usually happens when connecting from a restricted region"
)

CAPTURED = [
    ("codex-content-policy.jsonl", CONTENT_POLICY, ProviderStreamContentFilterError, False),
    ("codex-policy-capacity.jsonl", POLICY_CAPACITY, ProviderStreamCapacityError, True),
    ("codex-flex-capacity.jsonl", FLEX_CAPACITY, ProviderStreamCapacityError, True),
    ("codex-cloudflare-403.jsonl", CLOUDFLARE, ProviderStreamConfigError, False),
]


@pytest.mark.parametrize(("name", "text", "twin", "retryable"), CAPTURED)
def test_the_captured_refusal_is_its_family_twin(
    name: str, text: str, twin: type[ProviderStreamError], retryable: bool
) -> None:
    error = captured_error(name, text)
    assert type(error) is twin, repr(error)
    assert error.retryable is retryable


def test_the_api_errors_shorter_capacity_wording_is_the_family_too() -> None:
    # codex-api's own display of the same refusal, which codex logs.
    chunk = error_chunk(failed_run("policy-restricted capacity unavailable"))
    assert type(CodexCliEndpoint().stream_error(chunk)) is ProviderStreamCapacityError


@pytest.mark.parametrize(
    ("stderr", "family"),
    [
        (CONTENT_POLICY, ProviderContentFilterError),
        (POLICY_CAPACITY, ProviderCapacityError),
        (FLEX_CAPACITY, ProviderCapacityError),
        (f"{CLOUDFLARE} (status 403 Forbidden)", ProviderConfigError),
    ],
)
async def test_on_stderr_only_the_same_texts_are_the_families(
    stderr: str, family: type[Exception], tmp_path: Path
) -> None:
    error = await stderr_only_failure(stderr, tmp_path)
    assert type(error) is family, repr(error)
