"""OpenTelemetry tracing and metrics for `iModel` calls (`lionagi-service-core[otel]`).

Off until `instrument` is called; importing this module imports no `opentelemetry`
module. See docs/production.md, "Tracing and metrics", for what is recorded.
"""

from ._lifecycle.telemetry import CONTENT_ENV as CONTENT_ENV
from ._lifecycle.telemetry import TelemetryUnavailableError as TelemetryUnavailableError
from ._lifecycle.telemetry import instrument as instrument
from ._lifecycle.telemetry import is_instrumented as is_instrumented
from ._lifecycle.telemetry import uninstrument as uninstrument

__all__ = [
    "CONTENT_ENV",
    "TelemetryUnavailableError",
    "instrument",
    "is_instrumented",
    "uninstrument",
]
