"""Lower-level lifecycle primitives (ADR-0029) behind `iModel`.

For adapter authors and advanced callers composing their own supervision: attempts, circuit
breaker, clock seam, admission internals. `iModel` wires all of them already.
"""

from ._lifecycle.admission import Admission as Admission
from ._lifecycle.admission import AdmissionCall as AdmissionCall
from ._lifecycle.attempts import call_with_attempts as call_with_attempts
from ._lifecycle.attempts import stream_with_attempts as stream_with_attempts
from ._lifecycle.circuit import CircuitBreaker as CircuitBreaker
from ._lifecycle.circuit import CircuitPermit as CircuitPermit
from ._lifecycle.circuit import CircuitState as CircuitState
from ._lifecycle.clock import Clock as Clock
from ._lifecycle.clock import Sleep as Sleep
from ._lifecycle.config import ADMISSION_FAMILY_DEFAULTS as ADMISSION_FAMILY_DEFAULTS
from ._lifecycle.config import AdmissionFamily as AdmissionFamily
from ._lifecycle.lease import LeaseAbortScope as LeaseAbortScope
from ._lifecycle.retry import counts_as_circuit_failure as counts_as_circuit_failure
from ._lifecycle.retry import is_retryable as is_retryable
from ._lifecycle.supervisor import CallSupervisor as CallSupervisor

__all__ = [
    "ADMISSION_FAMILY_DEFAULTS",
    "Admission",
    "AdmissionCall",
    "AdmissionFamily",
    "CallSupervisor",
    "CircuitBreaker",
    "CircuitPermit",
    "CircuitState",
    "Clock",
    "LeaseAbortScope",
    "Sleep",
    "call_with_attempts",
    "counts_as_circuit_failure",
    "is_retryable",
    "stream_with_attempts",
]
