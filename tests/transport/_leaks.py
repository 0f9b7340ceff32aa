"""What the transport's redaction tests share: unique markers and the places they must not be."""

from __future__ import annotations

import traceback
import uuid

import pytest


def marker(label: str) -> str:
    """An opaque, unique value no generic key shape matches (only config redaction hides it)."""
    return f"M{label}{uuid.uuid4().hex}"


def exception_text(exc: BaseException) -> str:
    """The whole formatted traceback, chained causes included."""
    return "".join(traceback.format_exception(exc))


def assert_absent(values: dict[str, str], *surfaces: object) -> None:
    for surface in surfaces:
        text = surface if isinstance(surface, str) else repr(surface)
        leaked = [label for label, value in values.items() if value in text]
        assert not leaked, f"leaked {leaked} in {text}"


def assert_logs_clean(values: dict[str, str], caplog: pytest.LogCaptureFixture) -> None:
    """No marker in the captured log text, any record's message or its arguments."""
    assert_absent(values, caplog.text)
    for record in caplog.records:
        assert_absent(values, record.getMessage(), str(record.args))
