"""The live (terminal) view redraws at rich's frame rate, not once per chunk.

Forcing a refresh per chunk re-rendered the whole markdown answer every time, so time and
terminal output grew with the square of the answer's length. The final frame is still drawn
once, whole, when the run ends.
"""

from __future__ import annotations

import io

import pytest
from rich.console import Console
from rich.live import Live

from lionagi.service._base.chunk import StreamChunk
from lionagi.service.cli._render import LiveRenderer

CHUNKS = 400


@pytest.fixture
def refreshes(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Counts every ``Live.refresh`` (forced, automatic and the final one)."""
    calls: list[int] = []
    original = Live.refresh

    def counting(self: Live) -> None:
        calls.append(1)
        original(self)

    monkeypatch.setattr(Live, "refresh", counting)
    return calls


def fake_terminal() -> tuple[Console, io.StringIO]:
    out = io.StringIO()
    console = Console(
        file=out, force_terminal=True, width=80, height=20, color_system=None, highlight=False
    )
    return console, out


def test_an_answer_of_many_chunks_is_not_redrawn_per_chunk(refreshes: list[int]) -> None:
    console, out = fake_terminal()
    renderer = LiveRenderer(console)
    renderer.start()
    for i in range(CHUNKS):
        renderer.chunk(StreamChunk("text", content=f"w{i} "))
    renderer.chunk(StreamChunk("result", metadata={"usage": {"output_tokens": CHUNKS}}))
    renderer.close()
    assert len(refreshes) < CHUNKS // 10, len(refreshes)
    drawn = out.getvalue()
    assert f"w{CHUNKS - 1}" in drawn  # the final frame holds the whole answer
    assert f"output_tokens={CHUNKS}" in drawn


def test_tool_panels_and_the_first_answer_text_are_drawn_at_once(refreshes: list[int]) -> None:
    console, out = fake_terminal()
    renderer = LiveRenderer(console)
    renderer.start()
    renderer.chunk(StreamChunk("thinking", content="pondering"))
    renderer.chunk(StreamChunk("tool_use", tool_name="calc", tool_id="1", tool_input={"x": 1}))
    assert "tool call: calc" in out.getvalue()
    renderer.chunk(StreamChunk("text", content="first"))
    assert "first" in out.getvalue()
    renderer.close()
