"""OpenAI's own policy sentences that codex relays, and an access program the model refuses.

Each capture is the real 0.171.0 binary against a one-route stub server
(``captures/README.md``).

- A ``response.failed`` that carries a message makes codex print the server's words, without
  the code. OpenAI's documented policy refusals (``invalid_prompt`` from reasoning models, the
  OpenAI adapter's ``POLICY_PATTERN``) say "... flagged as potentially violating our usage
  policy ..." or "We've limited access to this content for safety reasons ...": the
  content-filter family, never retried, neutral for the circuit. Generic words ("Request
  blocked.") name no policy and stay unclassified.
- Codes ``unsupported_access_program`` and ``invalid_access_program`` (an access program the
  chosen model does not take; both seen in the 0.171.0 binary, which maps them to one text):
  "The requested access program cannot be used with this model.", or a 403 printed with its
  body. The same request is refused the same way and the provider is healthy: the
  invalid-request family, never retried; not the auth family a 403 otherwise is.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from codex_runs import captured_error, error_chunk, failed_run, stderr_only_failure

from lionagi.providers.codex import CodexCliEndpoint
from lionagi.service import (
    ProviderContentFilterError,
    ProviderInvalidRequestError,
    ProviderStreamContentFilterError,
    ProviderStreamError,
    ProviderStreamInvalidRequestError,
)

USAGE_POLICY = (
    "Invalid prompt: your prompt was flagged as potentially violating our usage policy. "
    "Please try again with a different prompt"
)
LIMITED = "We've limited access to this content for safety reasons."
PROGRAM_MODEL = "The requested access program cannot be used with this model."

CAPTURED = [
    ("codex-usage-policy-message.jsonl", USAGE_POLICY, ProviderStreamContentFilterError),
    ("codex-limited-access-message.jsonl", LIMITED, ProviderStreamContentFilterError),
    ("codex-access-program-model.jsonl", PROGRAM_MODEL, ProviderStreamInvalidRequestError),
    (
        "codex-access-program-model-403.jsonl",
        "unexpected status 403 Forbidden: ",
        ProviderStreamInvalidRequestError,
    ),
]


@pytest.mark.parametrize(("name", "text", "twin"), CAPTURED)
def test_the_captured_refusal_is_its_family_twin(
    name: str, text: str, twin: type[ProviderStreamError]
) -> None:
    error = captured_error(name, text)
    assert type(error) is twin, repr(error)
    assert error.retryable is False


@pytest.mark.parametrize(
    "body",
    [
        '{"error": {"code": "unsupported_access_program", "message": "", "type": "x"}}',
        'unexpected status 400 Bad Request: {"error": {"code": "invalid_access_program"}}',
    ],
)
def test_the_access_program_codes_in_a_printed_body_are_the_family(body: str) -> None:
    chunk = error_chunk(failed_run(body))
    assert type(CodexCliEndpoint().stream_error(chunk)) is ProviderStreamInvalidRequestError


@pytest.mark.parametrize(
    ("stderr", "family"),
    [
        (USAGE_POLICY, ProviderContentFilterError),
        (LIMITED, ProviderContentFilterError),
        (PROGRAM_MODEL, ProviderInvalidRequestError),
    ],
)
async def test_on_stderr_only_the_same_texts_are_the_families(
    stderr: str, family: type[Exception], tmp_path: Path
) -> None:
    error = await stderr_only_failure(stderr, tmp_path)
    assert type(error) is family, repr(error)
