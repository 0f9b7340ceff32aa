"""A token-limited native Gemini model counts the request's text, not nothing.

Core's estimate reads chat ``messages``; a native ``generateContent`` request keeps its turns in
``contents`` and its instructions in ``systemInstruction``, so with ``requires_tokens=True`` and
a ``limit_tokens`` every native call was refused with ``TokenEstimateUnavailable``.
"""

from __future__ import annotations

import json

from gemini_loopback import native_model

CONTENTS = [{"role": "user", "parts": [{"text": "x" * 400}]}]
SYSTEM = {"parts": [{"text": "y" * 800}]}


def test_native_requests_are_estimated_from_contents_and_system_instruction() -> None:
    model = native_model(requires_tokens=True, limit_tokens=100_000)
    alone = model.create_api_calling(contents=CONTENTS)
    with_system = model.create_api_calling(contents=CONTENTS, systemInstruction=SYSTEM)
    assert alone.required_tokens == len(json.dumps(alone.payload["contents"])) // 4
    assert alone.required_tokens is not None
    assert alone.required_tokens >= 100
    assert with_system.required_tokens is not None
    assert with_system.required_tokens >= alone.required_tokens + 200  # the instruction counts
