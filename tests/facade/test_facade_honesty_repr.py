"""`repr(iModel(...))` shows the effort a model string (or a request default) set.

`iModel(model="claude_code/sonnet-high")` sends `effort="high"` on every call and `to_dict()`
writes it, but its repr read `model='sonnet'` only: two models that behave differently looked
the same in a log. The repr now shows the effort under the field the provider's policy sends
it in, when one is set, and only then.
"""

from __future__ import annotations

import json

import pytest

from lionagi.service import iModel


@pytest.mark.parametrize(
    ("spec", "field", "level"),
    [
        ("claude_code/sonnet-high", "effort", "high"),
        ("pi/gemini-3.1-pro-preview-low", "thinking", "low"),
    ],
)
def test_repr_shows_the_effort_the_model_string_set(spec: str, field: str, level: str) -> None:
    model = iModel(model=spec)
    assert model.to_dict()["config"]["request_defaults"][field] == level
    assert f"effort={level!r}" in repr(model)
    # It stays shown wherever the model goes: a copy, a restored document.
    assert f"effort={level!r}" in repr(model.copy())
    restored = iModel.from_dict(json.loads(json.dumps(model.to_dict())))
    assert f"effort={level!r}" in repr(restored)


def test_repr_shows_an_effort_given_as_a_request_default_and_none_when_unset() -> None:
    given = iModel(model="claude_code/sonnet", request_defaults={"effort": "low"})
    assert "effort='low'" in repr(given)
    assert "effort" not in repr(iModel(model="claude_code/sonnet"))
    assert "effort" not in repr(iModel(model="scripted/echo"))
