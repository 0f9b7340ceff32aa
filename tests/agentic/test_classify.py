"""classify_provider_error: each generic pattern, order precedence, vendor rules, redaction, bounds.

Fixture texts marked "capture" are copied verbatim from /work/shared/captures (real CLI output
against a local fake server); the others reproduce provider wording the table records.
"""

from __future__ import annotations

import pytest

from lionagi.service import (
    ProviderAuthError,
    ProviderCapacityError,
    ProviderConnectionError,
    ProviderContextError,
    ProviderDisconnectError,
    ProviderError,
    ProviderPermissionError,
    ProviderProcessError,
    ProviderQuotaError,
    ProviderQuotaSpentError,
    ProviderUnsupportedModelError,
    classify_provider_error,
)
from lionagi.service._transport.classify import CLASSIFY_WINDOW, STDERR_TAIL_LIMIT
from lionagi.service.agentic import DEFAULT_ERROR_PATTERNS, ProviderErrorPattern

# capture: codex-fake-401.stdout (turn.failed message)
CODEX_401 = (
    "unexpected status 401 Unauthorized: Incorrect API key provided: sk-fake., "
    "url: http://127.0.0.1:4012/v1/responses"
)
# capture: codex-exec-nokey.stdout (error event)
CODEX_DISCONNECT = (
    "Reconnecting... 5/5 (stream disconnected before completion: failed to lookup address "
    "information: Name does not resolve)"
)
# capture: codex-exec-nokey.stderr (no classifiable text)
CODEX_NOKEY_STDERR = (
    "WARNING: proceeding, even though we could not create PATH aliases: Refusing to create helper "
    'binaries under temporary dir "/tmp" (codex_home: AbsolutePathBuf("/home/dev/fakehome/'
    'codex-exec-nokey/.codex"))\nReading additional input from stdin...\n'
    "2026-11-29T21:00:11.308493Z ERROR codex_api::endpoint::responses_websocket: failed to "
    "connect to Responses WebSocket stage=Unknown\n"
)
# capture: claude-fake-401.stdout (result event "result")
CLAUDE_INVALID_KEY = "Invalid API key · Fix external API key"
# capture: claude-p-nokey.stdout (result event "result")
CLAUDE_NOT_LOGGED_IN = "Not logged in · Please run /login"
# capture: gemini-fake-401.stderr (the error line; exit code 145)
GEMINI_401_STDERR = (
    "Ripgrep is not available. Falling back to GrepTool.\n"
    "Error when talking to Gemini API Full report available at: /home/dev/gemini-client-error-"
    "Turn.run-sendMessageStream-2026-11-29T21-13-47-890Z.json _ApiError: "
    '{"error":{"code":401,"message":"API key not valid. Please pass a valid API key.",'
    '"status":"UNAUTHENTICATED"}}\n'
    "    at throwErrorIfNotOK (file:///home/dev/clis/gemini/node_modules/@google/gemini-cli/"
    "bundle/chunk-JDPZ4CE3.js:267833:24)\n"
)
# capture: pi-fake-401.stdout (assistant errorMessage)
PI_401 = "401 Incorrect API key provided: sk-fake."
# capture: gemini-p-nokey.stderr (exit code 41)
GEMINI_NO_AUTH = (
    "Please set an Auth method in your /home/dev/fakehome/gemini-p-nokey/.gemini/settings.json "
    "or specify one of the following environment variables before running: GEMINI_API_KEY, "
    "GOOGLE_GENAI_USE_VERTEXAI, GOOGLE_GENAI_USE_GCA"
)

# capture: pi-p-nokey.stderr (exit code 1)
PI_NO_KEY = (
    "No API key found for the selected model.\n\nUse /login to log into a provider via OAuth or "
    "API key. See:\n  /home/dev/clis/pi/node_modules/@mariozechner/pi-coding-agent/docs/"
    "providers.md\n"
)
# capture: gemini-fake-401.stdout (result event error.message)
GEMINI_401_RESULT = (
    '[API Error: {"error":{"code":401,"message":"API key not valid. Please pass a valid API '
    'key.","status":"UNAUTHENTICATED"}}]'
)
# capture: claude-fake-401.stdout and claude-p-nokey.stdout (assistant event "error" field)
CLAUDE_AUTH_FIELD = "authentication_failed"

# Every 401 / no-credential text the four CLIs print in the captures: stdout error events
# (codex turn.failed, claude result and assistant error field, gemini result, pi errorMessage)
# and stderr (gemini, pi).
AUTH_CAPTURES = [
    pytest.param(CODEX_401, id="codex-fake-401 turn.failed"),
    pytest.param(CLAUDE_INVALID_KEY, id="claude-fake-401 result"),
    pytest.param(CLAUDE_NOT_LOGGED_IN, id="claude-p-nokey result"),
    pytest.param(CLAUDE_AUTH_FIELD, id="claude-fake-401/nokey assistant error field"),
    pytest.param(GEMINI_401_RESULT, id="gemini-fake-401 result.error"),
    pytest.param(GEMINI_401_STDERR, id="gemini-fake-401 stderr"),
    pytest.param(GEMINI_NO_AUTH, id="gemini-p-nokey stderr"),
    pytest.param(PI_401, id="pi-fake-401 errorMessage"),
    pytest.param(PI_NO_KEY, id="pi-p-nokey stderr"),
]


@pytest.mark.parametrize("text", AUTH_CAPTURES)
def test_every_captured_auth_failure_classifies_to_auth(text: str) -> None:
    assert type(classify_provider_error(text, provider="cli")) is ProviderAuthError


# Wording the CLIs print, or relay verbatim from their APIs, for the other families: from the
# CLIs' issue trackers (claude-code, gemini-cli, codex) and pi-ai's overflow rules.
@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # quota / rate
        ("429 Rate limit reached for requests. Please try again later.", ProviderQuotaError),
        # Without OpenAI's own ending or code the sentence is Google's too, for a per-minute
        # limit: the retryable family.
        (
            "You exceeded your current quota, please check your plan and billing details.",
            ProviderQuotaError,
        ),
        # quota used up (the spent-quota family, never retried)
        ('{"error":{"type":"insufficient_quota"}}', ProviderQuotaSpentError),
        ("Quota exceeded for quota metric 'Generate Content API requests'", ProviderQuotaError),
        (
            '[API Error: {"error":{"code":429,"message":"Resource has been exhausted (e.g. check '
            'quota).","status":"RESOURCE_EXHAUSTED"}}]',
            ProviderQuotaError,
        ),
        ("Resource exhausted. Please try again later.", ProviderQuotaError),
        (
            "Your credit balance is too low to access the Anthropic API. Please go to Plans & "
            "Billing to upgrade or purchase credits.",
            ProviderQuotaSpentError,
        ),
        ('{"type":"rate_limit_error","message":"Number of request tokens"}', ProviderQuotaError),
        # auth
        ("invalid x-api-key", ProviderAuthError),
        (
            "OAuth token has expired. Please obtain a new token or refresh your existing token.",
            ProviderAuthError,
        ),
        ('{"type":"authentication_error"}', ProviderAuthError),
        ("API key expired. Please renew the API key.", ProviderAuthError),
        # context
        ("Prompt is too long", ProviderContextError),
        ("Your input exceeds the context window of this model.", ProviderContextError),
        (
            "The input token count (1196265) exceeds the maximum number of tokens allowed "
            "(1048575).",
            ProviderContextError,
        ),
        (
            "This model's maximum context length is 128000 tokens. However, your messages "
            "resulted in 130000 tokens.",
            ProviderContextError,
        ),
        # capacity / overloaded
        (
            "API Error: 529 Overloaded. This is a server-side issue, usually temporary - try "
            "again in a moment.",
            ProviderCapacityError,
        ),
        (
            'API Error: 529 {"type":"error","error":{"type":"overloaded_error","message":'
            '"Overloaded"}}',
            ProviderCapacityError,
        ),
        ("The model is overloaded. Please try again later.", ProviderCapacityError),
        # permission
        (
            "Claude requested permissions to write to /work/x.txt, but you haven't granted it yet.",
            ProviderPermissionError,
        ),
    ],
)
def test_cli_texts_of_the_other_families(text: str, expected: type[ProviderError]) -> None:
    assert type(classify_provider_error(text, provider="cli")) is expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # quota (retryable)
        ("Error: usage limit reached for this billing period", ProviderQuotaError),
        ("rate limit exceeded", ProviderQuotaError),
        ('{"code": "rate_limit_exceeded"}', ProviderQuotaError),
        ("Rate.Limit.Exceeded", ProviderQuotaError),
        ("rate-limit-exceeded", ProviderQuotaError),
        ("Upgrade to Pro or try again at 3:05 PM.", ProviderQuotaError),
        ("You've hit your usage limit.", ProviderQuotaError),
        # quota used up (not retryable): the balance is spent
        ("Your balance is too low. Please purchase more credits.", ProviderQuotaSpentError),
        # auth
        (CLAUDE_INVALID_KEY, ProviderAuthError),
        ("error: invalid_api_key", ProviderAuthError),
        ("Invalid-API-Key", ProviderAuthError),
        (CLAUDE_NOT_LOGGED_IN, ProviderAuthError),
        (CODEX_401, ProviderAuthError),
        (GEMINI_401_STDERR, ProviderAuthError),
        (PI_401, ProviderAuthError),
        # context
        ("context window exceeded", ProviderContextError),
        ('{"code":"context_length_exceeded"}', ProviderContextError),
        ("Context length is too long for this model", ProviderContextError),
        ("prompt is too long: 212345 tokens > 200000 maximum", ProviderContextError),
        (
            "Codex ran out of room in the model's context window. Start a new thread.",
            ProviderContextError,
        ),
        # capacity (retryable)
        ("Selected model is at capacity. Please try a different model.", ProviderCapacityError),
        # unsupported model
        (
            "The 'gpt-9' model is not supported when using Codex with a ChatGPT account.",
            ProviderUnsupportedModelError,
        ),
        # stream disconnect (retryable before output)
        (CODEX_DISCONNECT, ProviderDisconnectError),
        # permission
        (
            "Permission to use Bash has been auto-denied (prompts unavailable)",
            ProviderPermissionError,
        ),
    ],
)
def test_each_pattern_maps_to_its_class(text: str, expected: type[ProviderError]) -> None:
    err = classify_provider_error(text, provider="cli")
    assert type(err) is expected
    assert err.raw == text
    assert str(err).startswith("cli: ")


def test_retryable_flags_follow_the_table() -> None:
    retryable = {
        type(classify_provider_error(t)): classify_provider_error(t).retryable
        for t in (
            "usage limit reached",
            "insufficient_quota",
            "invalid api key",
            "context window exceeded",
            "model is at capacity",
            "model is not supported",
            "stream disconnected before completion",
            "auto-denied",
        )
    }
    assert retryable == {
        ProviderQuotaError: True,
        ProviderQuotaSpentError: False,
        ProviderAuthError: False,
        ProviderContextError: False,
        ProviderCapacityError: True,
        ProviderUnsupportedModelError: False,
        ProviderDisconnectError: True,
        ProviderPermissionError: False,
    }
    # Capacity must not be caught by "quota exhausted, buy credits" handling.
    assert not issubclass(ProviderCapacityError, ProviderQuotaError)
    assert issubclass(ProviderDisconnectError, ProviderConnectionError)


def test_pattern_order_is_the_documented_precedence() -> None:
    assert [p.kind for p in DEFAULT_ERROR_PATTERNS] == [
        "quota_exhausted",
        "quota",
        "auth",
        "context",
        "capacity",
        "unsupported_model",
        "stream_disconnect",
        "connection",
        "permission",
        "content_filter",
        "capability",
    ]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (f"{CODEX_DISCONNECT}\nusage limit reached", ProviderQuotaError),
        ("401 Unauthorized; also context window exceeded", ProviderAuthError),
        ("context length exceeded; model is at capacity", ProviderContextError),
        ("model is at capacity; model is not supported", ProviderCapacityError),
        ("stream disconnected before completion after tool auto-denied", ProviderDisconnectError),
    ],
)
def test_earlier_family_wins_when_several_match(text: str, expected: type[ProviderError]) -> None:
    assert type(classify_provider_error(text)) is expected


def test_no_match_is_base_error_or_process_error_with_code() -> None:
    plain = classify_provider_error(CODEX_NOKEY_STDERR, provider="codex")
    assert type(plain) is ProviderError
    assert "failed to connect to Responses WebSocket" in str(plain)

    proc = classify_provider_error(
        CODEX_NOKEY_STDERR, returncode=124, stderr_tail=CODEX_NOKEY_STDERR, provider="codex"
    )
    assert type(proc) is ProviderProcessError
    assert proc.returncode == 124
    assert "exited with code 124" in str(proc)
    assert proc.stderr_tail == CODEX_NOKEY_STDERR


def test_matched_error_keeps_returncode_and_stderr_tail() -> None:
    err = classify_provider_error(
        "", returncode=145, stderr_tail=GEMINI_401_STDERR, provider="gemini_code"
    )
    assert isinstance(err, ProviderAuthError)
    assert err.returncode == 145
    assert err.stderr_tail == GEMINI_401_STDERR
    assert "exit code 145" in str(err)
    assert "API key not valid" in str(err)


def test_stderr_tail_is_searched_with_the_text() -> None:
    err = classify_provider_error("process failed", stderr_tail=CLAUDE_NOT_LOGGED_IN)
    assert isinstance(err, ProviderAuthError)


def test_vendor_patterns_add_exit_codes_and_win_over_generic_ones() -> None:
    gemini_rules = (
        ProviderErrorPattern("auth", ProviderAuthError, returncodes=frozenset({41})),
        ProviderErrorPattern("auth", ProviderAuthError, r"please set an auth method"),
    )
    # Exit code 41 alone is vendor grammar: the generic rules leave it a process error.
    without = classify_provider_error("", returncode=41, provider="gemini_code")
    assert type(without) is ProviderProcessError

    by_code = classify_provider_error("", returncode=41, extra_patterns=gemini_rules[:1])
    assert type(by_code) is ProviderAuthError
    assert by_code.returncode == 41

    by_text = classify_provider_error(GEMINI_NO_AUTH, extra_patterns=gemini_rules[1:])
    assert type(by_text) is ProviderAuthError

    override = ProviderErrorPattern("capacity", ProviderCapacityError, r"usage limit reached")
    assert (
        type(classify_provider_error("usage limit reached", extra_patterns=[override]))
        is ProviderCapacityError
    )


def test_vendor_pattern_is_case_insensitive_even_when_precompiled_text_is_upper() -> None:
    rule = ProviderErrorPattern("auth", ProviderAuthError, r"PLEASE SET AN AUTH METHOD")
    assert type(classify_provider_error(GEMINI_NO_AUTH, extra_patterns=[rule])) is ProviderAuthError


def test_pattern_definition_errors() -> None:
    with pytest.raises(ValueError, match="regex, return codes"):
        ProviderErrorPattern("auth", ProviderAuthError)
    with pytest.raises(TypeError, match="extra constructor arguments"):
        ProviderErrorPattern("x", ProviderProcessError, "boom")
    with pytest.raises(TypeError, match="ProviderError subclass"):
        ProviderErrorPattern("x", ValueError, "boom")  # type: ignore[arg-type]


def test_key_shaped_strings_and_known_secrets_are_redacted_everywhere() -> None:
    key = "sk-ant-api03-AbCdEfGhIjKlMnOpQrStUv"
    bearer = "Authorization: Bearer zyx987654321token"
    stderr = f"request with {key} failed\n{bearer}\nhunter2-secret-value\nInvalid API key\n"
    err = classify_provider_error(
        f"error: {key} rejected; invalid api key",
        returncode=1,
        stderr_tail=stderr,
        provider="claude_code",
        secrets=("hunter2-secret-value",),
    )
    assert isinstance(err, ProviderAuthError)
    for leaked in (key, "zyx987654321token", "hunter2-secret-value"):
        assert leaked not in str(err)
        assert leaked not in err.stderr_tail
        assert leaked not in err.raw
    assert "[REDACTED]" in err.stderr_tail


def test_key_straddling_the_window_edge_leaves_no_fragment() -> None:
    key = "sk-" + "Q" * 40 + "tail0123456789"
    # Put the key so the kept window starts in the middle of it.
    text = "x " * 10_000 + key + "y" * (CLASSIFY_WINDOW - 20)
    err = classify_provider_error(text, returncode=1, stderr_tail=text)
    assert "tail0123456789" not in err.raw
    assert "tail0123456789" not in err.stderr_tail


def test_texts_are_bounded_to_their_tail() -> None:
    noise = "n" * (300 * 1024)
    err = classify_provider_error(noise + "\nusage limit reached", stderr_tail=noise + "\nbye")
    assert isinstance(err, ProviderQuotaError)  # the end of a huge text is still classified
    assert len(err.raw) <= CLASSIFY_WINDOW
    assert len(err.stderr_tail) <= STDERR_TAIL_LIMIT
    assert err.stderr_tail.endswith("bye")
    assert len(str(err)) < 1024

    # A phrase far before the kept tail no longer decides the class.
    early = classify_provider_error("usage limit reached\n" + "n" * (CLASSIFY_WINDOW + 10))
    assert type(early) is ProviderError
