"""A model stream cut off mid-answer is a disconnect on every CLI, as it is on codex.

Each CLI reports it in its own words: Claude Code "Connection to the API was lost (ECONNRESET)",
Gemini CLI "[API Error: terminated]", pi a bare "terminated". Those were plain
``ProviderStreamError`` s, so an ``except ProviderDisconnectError`` (docs/errors.md: "stream
dropped before completion") missed them; the texts are from the real CLIs against a server
that dropped the stream.
"""

from __future__ import annotations

import pytest

from lionagi.providers.claude_code import ClaudeCodeEndpoint
from lionagi.providers.gemini_cli import GeminiCodeEndpoint
from lionagi.providers.pi import PiCliEndpoint
from lionagi.service import ProviderDisconnectError, StreamChunk
from lionagi.service.agentic import SubprocessCliEndpoint

CUT = [
    (ClaudeCodeEndpoint, "Connection to the API was lost (ECONNRESET)"),
    (GeminiCodeEndpoint, "[API Error: terminated]"),
    (PiCliEndpoint, "terminated"),
]


@pytest.mark.parametrize(("cls", "text"), CUT, ids=["claude", "gemini", "pi"])
def test_the_cli_s_words_for_a_cut_stream_are_a_disconnect(
    cls: type[SubprocessCliEndpoint], text: str
) -> None:
    error = cls().stream_error(StreamChunk("error", text, is_error=True))
    assert isinstance(error, ProviderDisconnectError), type(error)


def test_pi_s_rule_is_the_whole_message_only() -> None:
    """A message merely containing the word is not a disconnect."""
    chunk = StreamChunk("error", "the run was terminated by policy", is_error=True)
    assert not isinstance(PiCliEndpoint().stream_error(chunk), ProviderDisconnectError)
