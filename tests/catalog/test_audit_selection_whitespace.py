"""Whitespace before an effort suffix is dropped with it (outside-in audit of model selection).

Surrounding whitespace is trimmed around the spec, around each side of its first ``/`` and
before a suffix written after a model alias (docs/decisions.md, "Whitespace around either part
of `provider/model` is trimmed"): ``claude -high`` selected ``sonnet``. The same suffix after a
written model name kept the space, so ``claude_code/sonnet -high`` sent the model ``'sonnet '``.
"""

from __future__ import annotations

import pytest

from lionagi.service import iModel, parse_model_spec


@pytest.mark.parametrize(
    ("spec", "model", "field", "effort"),
    [
        ("claude_code/sonnet -high", "sonnet", "effort", "high"),
        ("codex/gpt-5 \t-low", "gpt-5", "reasoning_effort", "low"),
        ("pi/x  -XHIGH", "x", "thinking", "xhigh"),
    ],
)
def test_the_model_name_before_an_effort_suffix_is_trimmed(
    spec: str, model: str, field: str, effort: str
) -> None:
    parsed = parse_model_spec(spec)
    assert (parsed.model_name, parsed.effort) == (model, effort)
    defaults = iModel(model=spec).endpoint.config.request_defaults
    assert defaults["model"] == model
    assert defaults[field] == effort


def test_the_alias_and_the_written_name_select_the_same_model() -> None:
    by_alias = iModel(model="claude -high").endpoint.config.request_defaults
    by_name = iModel(provider="claude_code", model="sonnet -high").endpoint.config.request_defaults
    assert dict(by_alias) == dict(by_name) == {"model": "sonnet", "effort": "high"}
