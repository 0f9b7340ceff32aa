"""Layer 3: admission, deadlines, attempts and circuit breaking (ADR-0029 D1, D2, D4).

The facade composes these primitives into the iModel supervisor; the public names are
re-exported from :mod:`lionagi.service`.
"""

from .admission import Admission as Admission
from .admission import AdmissionCall as AdmissionCall
from .admission import AdmissionController as AdmissionController
from .admission import AdmissionSnapshot as AdmissionSnapshot
from .attempts import call_with_attempts as call_with_attempts
from .attempts import stream_with_attempts as stream_with_attempts
from .budget import NO_DEADLINE as NO_DEADLINE
from .budget import RequestBudget as RequestBudget
from .budget import request_budget_from_timeout as request_budget_from_timeout
from .circuit import CircuitBreaker as CircuitBreaker
from .circuit import CircuitPermit as CircuitPermit
from .circuit import CircuitState as CircuitState
from .clock import Clock as Clock
from .clock import Sleep as Sleep
from .clock import default_clock as default_clock
from .clock import default_sleep as default_sleep
from .config import ADMISSION_FAMILY_DEFAULTS as ADMISSION_FAMILY_DEFAULTS
from .config import AdmissionConfig as AdmissionConfig
from .config import AdmissionFamily as AdmissionFamily
from .deadline import DeadlineReached as DeadlineReached
from .deadline import run_before as run_before
from .lease import AdmissionLease as AdmissionLease
from .lease import LeaseAbortScope as LeaseAbortScope
from .policy import AttemptPolicy as AttemptPolicy
from .policy import CircuitPolicy as CircuitPolicy
from .retry import backoff_delay as backoff_delay
from .retry import counts_as_circuit_failure as counts_as_circuit_failure
from .retry import is_retryable as is_retryable
from .retry import retry_after_of as retry_after_of

__all__ = [
    "ADMISSION_FAMILY_DEFAULTS",
    "NO_DEADLINE",
    "Admission",
    "AdmissionCall",
    "AdmissionConfig",
    "AdmissionController",
    "AdmissionFamily",
    "AdmissionLease",
    "AdmissionSnapshot",
    "AttemptPolicy",
    "CircuitBreaker",
    "CircuitPermit",
    "CircuitPolicy",
    "CircuitState",
    "Clock",
    "DeadlineReached",
    "LeaseAbortScope",
    "RequestBudget",
    "Sleep",
    "backoff_delay",
    "call_with_attempts",
    "counts_as_circuit_failure",
    "default_clock",
    "default_sleep",
    "is_retryable",
    "request_budget_from_timeout",
    "retry_after_of",
    "run_before",
    "stream_with_attempts",
]
