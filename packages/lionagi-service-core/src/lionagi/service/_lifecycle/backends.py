"""Choosing the admission controller: in-process by default, Redis-shared when configured.

The one seam the facade calls. The Redis controller (and so ``redis``) is imported here, lazily,
only when a :class:`SharedAdmission` is given, so the default path never loads it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._base.errors import AdmissionConfigError
from .admission import Admission, AdmissionController
from .clock import Clock, Sleep
from .config import AdmissionConfig

if TYPE_CHECKING:
    from .shared_config import SharedAdmission

__all__ = ["build_admission"]


def build_admission(
    config: AdmissionConfig,
    backend: SharedAdmission | None,
    *,
    clock: Clock | None = None,
    sleep: Sleep | None = None,
) -> Admission:
    """The controller for ``config``: in-process by default, Redis-shared when ``backend`` is set.

    Raises:
        AdmissionConfigError: ``backend`` is not a :class:`SharedAdmission` (field
            ``admission_backend``), or the ``redis`` extra is not installed.
    """
    if backend is None:
        return AdmissionController(config, clock=clock, sleep=sleep)
    from .shared_config import SharedAdmission  # a backend was given: only then (cold start)

    if not isinstance(backend, SharedAdmission):
        raise AdmissionConfigError(
            "admission_backend", f"must be None or a SharedAdmission, got {type(backend).__name__}"
        )
    try:
        from .redis_admission import RedisAdmissionController
    except ImportError as exc:
        if exc.name is not None and exc.name.split(".")[0] == "redis":
            raise AdmissionConfigError(
                "admission_backend",
                "SharedAdmission needs redis-py; install lionagi-service-core[redis]",
            ) from None
        raise
    return RedisAdmissionController(config, backend, clock=clock, sleep=sleep)
