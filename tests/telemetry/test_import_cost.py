"""Telemetry off costs no import: core never imports opentelemetry until ``instrument()``."""

from __future__ import annotations

import subprocess
import sys

import opentelemetry.trace  # noqa: F401 - the point is that it is installed here


def _loaded(code: str) -> list[str]:
    probe = (
        f"import sys; {code}; "
        "print(','.join(sorted(m for m in sys.modules if m.startswith('opentelemetry'))))"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    return [m for m in out.stdout.strip().split(",") if m]


def test_importing_core_with_otel_installed_but_off_imports_no_opentelemetry() -> None:
    code = (
        "import lionagi.service, lionagi.service.telemetry, lionagi.service.lifecycle; "
        "from lionagi.service._lifecycle import supervisor, attempts, circuit"
    )
    assert _loaded(code) == []


def test_instrument_is_what_imports_it() -> None:
    assert "opentelemetry.trace" in _loaded("import lionagi.service.telemetry as t; t.instrument()")
