"""``instrument()`` refuses clearly: without the ``otel`` extra, and for a non-bool switch.

Without ``opentelemetry-api`` it raised a bare ``ModuleNotFoundError`` from deep inside
``Telemetry.__init__``, naming neither the caller nor what to install; now a typed
``TelemetryUnavailableError`` (still an ``ImportError``) names the extra.
``capture_content="false"`` was taken as truthy and recorded the prompts and responses on every
span.
"""

from __future__ import annotations

import pickle
import subprocess
import sys
from collections.abc import Iterator

import pytest

from lionagi.service import EndpointConfigurationError
from lionagi.service.telemetry import (
    TelemetryUnavailableError,
    instrument,
    is_instrumented,
    uninstrument,
)


@pytest.fixture(autouse=True)
def _off() -> Iterator[None]:
    uninstrument()
    yield
    uninstrument()


def test_instrument_without_opentelemetry_names_the_extra(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setitem(sys.modules, "opentelemetry", None)  # as if not installed

    with pytest.raises(ImportError) as raised:
        instrument()

    error = raised.value
    assert type(error) is TelemetryUnavailableError
    assert isinstance(error, ModuleNotFoundError)
    assert "pip install 'lionagi-service-core[otel]'" in str(error)
    assert error.install_hint == "pip install 'lionagi-service-core[otel]'"
    assert error.name == "opentelemetry"
    assert not is_instrumented()
    again = pickle.loads(pickle.dumps(error))
    assert type(again) is TelemetryUnavailableError and str(again) == str(error)


def test_a_failed_instrument_leaves_telemetry_as_it_was(monkeypatch: pytest.MonkeyPatch):
    instrument()
    monkeypatch.setitem(sys.modules, "opentelemetry", None)
    with pytest.raises(TelemetryUnavailableError):
        instrument()
    assert is_instrumented()


def test_in_a_fresh_process_without_opentelemetry():
    script = (
        "import sys\n"
        "sys.modules['opentelemetry'] = None\n"
        "from lionagi.service.telemetry import instrument, is_instrumented\n"
        "try:\n"
        "    instrument()\n"
        "except ImportError as exc:\n"
        "    print(type(exc).__name__, is_instrumented(), exc)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=True
    )
    assert result.stdout.startswith("TelemetryUnavailableError False ")
    assert "lionagi-service-core[otel]" in result.stdout


@pytest.mark.parametrize("value", ["false", "true", 0, 1, object()])
def test_capture_content_must_be_a_bool_or_none(value: object):
    with pytest.raises(EndpointConfigurationError) as raised:
        instrument(capture_content=value)  # type: ignore[arg-type]
    assert raised.value.field == "capture_content"
    assert str(raised.value).startswith("capture_content: ")
    assert not is_instrumented()


@pytest.mark.parametrize("value", [True, False, None])
def test_capture_content_accepts_bools_and_none(value: bool | None):
    instrument(capture_content=value)
    assert is_instrumented()
