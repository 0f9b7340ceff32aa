"""``extra_fields``: every JSON object of an answer gains a field no client knows.

Vendors add fields to their answers without notice (a new usage counter, the name of the
upstream that served a routed request, a padding field on every event), and a client must carry
on reading. The behaviour is applied after rendering, so every dialect gets the same treatment:
each JSON document of the reply (the body, each SSE ``data:`` line, each NDJSON line) is
decoded, :data:`UNKNOWN_FIELD` is added to every object in it, and it is encoded again. Objects
holding the caller's own data (tool-call arguments) are left as they are: a field added there
would change the call, not the envelope around it. ``[DONE]`` and other lines that are not a JSON
object or array pass through.
"""

from __future__ import annotations

import json
from typing import Any

from ._fake_wire import Rendered, dumps

__all__ = ["UNKNOWN_FIELD", "UNKNOWN_FIELD_VALUE", "with_unknown_fields"]

UNKNOWN_FIELD = "fake_unknown_field"
# A value no answer contains, so a client that shows it as output is caught.
UNKNOWN_FIELD_VALUE = "fake-unknown-field-value"
# Keys whose object value is the caller's data: Anthropic ``input``, Gemini ``args``, Ollama
# ``arguments`` (the tool call's arguments as an object).
_CALLER_DATA = frozenset({"input", "args", "arguments"})
_DATA = b"data: "


def _extend(value: Any) -> Any:
    if isinstance(value, list):
        return [_extend(item) for item in value]
    if not isinstance(value, dict):
        return value
    out = {key: item if key in _CALLER_DATA else _extend(item) for key, item in value.items()}
    out[UNKNOWN_FIELD] = UNKNOWN_FIELD_VALUE
    return out


def _extend_line(line: bytes) -> bytes:
    prefix = _DATA if line.startswith(_DATA) else b""
    raw = line[len(prefix) :]
    if raw[:1] not in (b"{", b"["):
        return line
    try:
        value = json.loads(raw)
    except ValueError:
        return line  # not one JSON document: nothing to extend
    return prefix + dumps(_extend(value))


def with_unknown_fields(rendered: Rendered) -> Rendered:
    """``rendered`` with :data:`UNKNOWN_FIELD` added to every object of every JSON document."""
    frames = [b"\n".join(map(_extend_line, frame.split(b"\n"))) for frame in rendered.frames]
    return Rendered(frames, rendered.first_output, rendered.stream)
