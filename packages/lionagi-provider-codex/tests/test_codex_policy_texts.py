"""Codex's texts for a safety-policy refusal, a workspace hook's denial and an access program.

Each capture is the real 0.171.0 binary against a one-route stub server
(``captures/README.md``). A ``response.failed`` with an empty message makes codex print its own
fallback text for the code; with codex's default retries none of them is sent twice.

- ``cyber_policy``: "This request has been flagged for possible cybersecurity risk.";
  ``bio_policy``: "This content was flagged for possible biological risk.";
  ``misalignment_policy_violation``: "This request was blocked due to a misalignment policy
  violation." OpenAI's safety policies refusing the content: the content-filter family (the
  OpenAI adapter types the same codes so), never retried, neutral for the circuit.
- ``inference_hook_denied``: "Your workspace inference hook blocked this request." The
  workspace's own check of each request denied this one: what was sent is refused again, the
  provider is healthy, so it is the content-filter family too.
- ``access_program_not_enabled``: "The requested access program is not enabled." The request
  asks for an access program (codex's cyber program) the account is not enrolled in: neither a
  refused key (signing in again does not help) nor transient; the deployment must stop asking
  or the account be enrolled: the config family, never retried.

Their HTTP forms: a 403 ``cyber_policy`` or ``access_program_not_enabled`` is printed as
"unexpected status 403 Forbidden: <body>", which read as a refused key (auth); a 400
``inference_hook_denied`` as the raw body. The body's code decides, as it does over HTTP.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from codex_runs import captured_error, error_chunk, failed_run, stderr_only_failure

from lionagi.providers.codex import CodexCliEndpoint
from lionagi.service import (
    ProviderConfigError,
    ProviderContentFilterError,
    ProviderStreamConfigError,
    ProviderStreamContentFilterError,
    ProviderStreamError,
)

CYBER = "This request has been flagged for possible cybersecurity risk."
BIO = "This content was flagged for possible biological risk."
MISALIGNMENT = "This request was blocked due to a misalignment policy violation."
HOOK = "Your workspace inference hook blocked this request."
ACCESS_PROGRAM = "The requested access program is not enabled."

FILTERED = ProviderStreamContentFilterError
CONFIG = ProviderStreamConfigError
CAPTURED = [
    ("codex-cyber-policy.jsonl", CYBER, FILTERED),
    ("codex-bio-policy.jsonl", BIO, FILTERED),
    ("codex-misalignment-policy.jsonl", MISALIGNMENT, FILTERED),
    ("codex-inference-hook.jsonl", HOOK, FILTERED),
    ("codex-access-program.jsonl", ACCESS_PROGRAM, CONFIG),
    ("codex-cyber-policy-403.jsonl", "unexpected status 403 Forbidden: ", FILTERED),
    ("codex-inference-hook-400.jsonl", '{"error": {"code": "inference_hook_denied"', FILTERED),
    ("codex-access-program-403.jsonl", "unexpected status 403 Forbidden: ", CONFIG),
]


@pytest.mark.parametrize(("name", "text", "twin"), CAPTURED)
def test_the_captured_refusal_is_its_family_twin(
    name: str, text: str, twin: type[ProviderStreamError]
) -> None:
    error = captured_error(name, text)
    assert type(error) is twin, repr(error)
    assert error.retryable is False


def test_the_servers_own_cyber_wording_is_the_family_too() -> None:
    # With a message codex relays the server's words; OpenAI's own says "This content was".
    chunk = error_chunk(
        failed_run(
            "This content was flagged for possible cybersecurity risk. If this seems wrong, "
            "try rephrasing your request."
        )
    )
    assert type(CodexCliEndpoint().stream_error(chunk)) is ProviderStreamContentFilterError


@pytest.mark.parametrize(
    ("stderr", "family"),
    [
        (CYBER, ProviderContentFilterError),
        (BIO, ProviderContentFilterError),
        (MISALIGNMENT, ProviderContentFilterError),
        (HOOK, ProviderContentFilterError),
        (ACCESS_PROGRAM, ProviderConfigError),
    ],
)
async def test_on_stderr_only_the_same_texts_are_the_families(
    stderr: str, family: type[Exception], tmp_path: Path
) -> None:
    error = await stderr_only_failure(stderr, tmp_path)
    assert type(error) is family, repr(error)
