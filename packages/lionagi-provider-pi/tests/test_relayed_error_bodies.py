"""Error texts pi 0.73.1 relays without its usual ``"<status> <message>"`` form get their family.

Each capture is the real binary's run (``--mode json``, retries off) against a local server:

* ``gemini-500`` / ``gemini-403``: pi's ``google-generative-ai`` API (its default provider's)
  relays the Gemini API's error body whole, ``{"error":{"code":500,...,"status":"INTERNAL"}}``,
  with no status in front, so the status was lost: a 500 was a plain, never retried
  ``ProviderStreamError`` instead of the server fault, a 403 unclassified.
* ``anthropic-api-error``: an Anthropic stream's in-band ``error`` event is relayed as its raw
  JSON; its ``api_error`` type is Anthropic's server fault.
* ``responses-server-error``: the OpenAI Responses API's failure is relayed as
  ``"<code>: <message>"`` (``server_error: ...``), the code not read.
* ``finish-content-filter`` / ``finish-network-error``: a chat-completions stream that ends with
  ``finish_reason`` ``content_filter`` or ``network_error`` is pi's own
  ``"Provider finish_reason: <reason>"``, the content-filter family and a stream cut off.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from lionagi.providers.pi import PiCliEndpoint
from lionagi.providers.pi._events import PiEventProjector
from lionagi.service import (
    EventStatus,
    ProviderContentFilterError,
    ProviderDisconnectError,
    ProviderStreamAuthError,
    ProviderStreamContentFilterError,
    ProviderStreamDisconnectError,
    ProviderStreamError,
    ProviderStreamServerError,
    iModel,
)
from lionagi.service_testing.conformance import replay_argv

CAPTURES = Path(__file__).resolve().parent / "captures"


def _events(name: str) -> list[dict[str, Any]]:
    lines = (CAPTURES / f"{name}.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def _error_of(name: str) -> ProviderStreamError:
    projector = PiEventProjector()
    chunks = [chunk for event in _events(name) for chunk in projector.feed(event)]
    (error,) = [c for c in chunks + projector.finish() if c.type == "error"]
    return PiCliEndpoint().stream_error(error)


def _error(text: str) -> ProviderStreamError:
    """A run whose last assistant message failed with ``text`` as its ``errorMessage``."""
    failed = {"role": "assistant", "content": [], "stopReason": "error", "errorMessage": text}
    projector = PiEventProjector()
    projector.feed({"type": "message_end", "message": failed})
    (error,) = projector.finish()
    return PiCliEndpoint().stream_error(error)


# -- a JSON error body relayed whole --------------------------------------------------------------


def test_a_gemini_500_body_is_the_retryable_server_fault() -> None:
    error = _error_of("gemini-500")
    assert type(error) is ProviderStreamServerError, repr(error)
    assert error.retryable
    assert error.status == 500
    assert error.code == "INTERNAL"
    # The body's own shape only: other JSON gives no status.
    for text in (
        '{"error": "not an object"}',
        '{"error":{"code":"500","status":"INTERNAL"}}',
        '{"error":{"code":200,"status":"OK"}}',
        "{not json at all",
        '["a", "list"]',
    ):
        assert _error(text).status is None, text


def test_a_gemini_403_body_is_the_auth_family() -> None:
    error = _error_of("gemini-403")
    assert type(error) is ProviderStreamAuthError, repr(error)
    assert error.status == 403


def test_an_anthropic_in_stream_api_error_is_the_server_fault() -> None:
    error = _error_of("anthropic-api-error")
    assert type(error) is ProviderStreamServerError, repr(error)
    assert error.code == "api_error"


async def test_a_fake_pi_relaying_a_gemini_500_fails_with_its_status(tmp_path: Path) -> None:
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps({"events": _events("gemini-500"), "exit_code": 0}), "utf-8")
    async with iModel(endpoint=PiCliEndpoint(argv=replay_argv(plan))) as model:
        call = await model.invoke(prompt="hi")
    assert call.status is EventStatus.FAILED
    assert type(call.exception) is ProviderStreamServerError, repr(call.exception)
    assert call.exception.status == 500


# -- the Responses API's "<code>: <message>" ------------------------------------------------------


def test_a_responses_server_error_is_the_retryable_server_fault() -> None:
    error = _error_of("responses-server-error")
    assert type(error) is ProviderStreamServerError, repr(error)
    assert error.retryable
    assert error.code == "server_error"


def test_the_in_stream_error_event_form_names_its_code_too() -> None:
    error = _error("Error Code server_error: The server had an error processing your request.")
    assert type(error) is ProviderStreamServerError, repr(error)
    assert error.code == "server_error"
    # Only a leading snake_case code is read.
    for text in ("Note: the model said server_error: twice", "terminated: x", "Server_Error: x"):
        assert _error(text).code is None, text


# -- pi's "Provider finish_reason: <reason>" ------------------------------------------------------


def test_a_content_filter_finish_is_the_content_filter_family() -> None:
    error = _error_of("finish-content-filter")
    assert type(error) is ProviderStreamContentFilterError, repr(error)
    assert not error.retryable


def test_a_network_error_finish_is_a_cut_stream() -> None:
    error = _error_of("finish-network-error")
    assert type(error) is ProviderStreamDisconnectError, repr(error)
    assert error.retryable
    # The whole message only; another reason stays unclassified.
    assert type(_error("Provider finish_reason: something_new")) is ProviderStreamError


def test_on_stderr_the_finish_reasons_are_the_families_themselves() -> None:
    """Text mode prints the same ``errorMessage`` on stderr and exits 1."""
    classifier = PiCliEndpoint().stderr_classifier()
    assert classifier is not None
    filtered = classifier("Provider finish_reason: content_filter\n", returncode=1)
    assert isinstance(filtered, ProviderContentFilterError), repr(filtered)
    cut = classifier("Provider finish_reason: network_error\n", returncode=1)
    assert isinstance(cut, ProviderDisconnectError), repr(cut)
