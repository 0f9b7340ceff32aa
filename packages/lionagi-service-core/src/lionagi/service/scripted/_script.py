"""Script steps for the scripted provider: chunks to yield, pauses, and errors to raise."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .._base.chunk import StreamChunk
from .._base.errors import ProviderConnectionError

__all__ = ["Delay", "Raise", "ScriptStep", "default_script"]


@dataclass(frozen=True, slots=True)
class Delay:
    """Pause for ``seconds`` before the next step (tests use it to exercise deadlines)."""

    seconds: float


@dataclass(frozen=True, slots=True)
class Raise:
    """Raise ``error`` at this point of the stream."""

    error: BaseException


ScriptStep = StreamChunk | Delay | Raise

# Prompt keywords that switch the default script, so the command line and end-to-end tests can
# reach every outcome without writing Python.
FAIL_KEYWORD = "SCRIPTED_FAIL"
RAISE_KEYWORD = "SCRIPTED_RAISE"
STALL_KEYWORD = "SCRIPTED_STALL"


def _words(text: str) -> list[str]:
    words = text.split()
    return [w + " " for w in words[:-1]] + words[-1:] if words else []


def default_script(prompt: str, *, model: str, pace: float = 0.0) -> Sequence[ScriptStep]:
    """The demo answer: thinking, a tool round trip, text deltas and a result with usage."""
    if FAIL_KEYWORD in prompt:
        return [
            StreamChunk(type="text", content="Working on it", is_delta=True),
            StreamChunk(
                type="error",
                content="scripted provider failure requested by the prompt",
                is_error=True,
                metadata={"provider_error": "scripted"},
            ),
        ]
    if RAISE_KEYWORD in prompt:
        return [
            Raise(ProviderConnectionError("scripted transport failure requested by the prompt"))
        ]
    if STALL_KEYWORD in prompt:
        return [StreamChunk(type="text", content="Stalling", is_delta=True), Delay(3600.0)]
    shown = prompt.strip().rstrip(".!?") or "(empty prompt)"
    answer = f"You said: {shown}. This answer comes from the scripted provider; no key needed."
    steps: list[ScriptStep] = [
        StreamChunk(type="system", metadata={"provider": "scripted", "model": model}),
        StreamChunk(type="thinking", content="The user wants a demonstration.", is_delta=True),
        StreamChunk(
            type="tool_use",
            tool_name="word_count",
            tool_id="scripted-tool-1",
            tool_input={"text": shown},
        ),
        StreamChunk(
            type="tool_result",
            tool_name="word_count",
            tool_id="scripted-tool-1",
            tool_output=len(shown.split()),
        ),
    ]
    for word in _words(answer):
        if pace:
            steps.append(Delay(pace))
        steps.append(StreamChunk(type="text", content=word, is_delta=True))
    steps.append(
        StreamChunk(
            type="result",
            metadata={
                "model": model,
                "usage": {
                    "input_tokens": max(1, len(shown) // 4),
                    "output_tokens": max(1, len(answer) // 4),
                },
                "num_turns": 1,
            },
        )
    )
    return steps
