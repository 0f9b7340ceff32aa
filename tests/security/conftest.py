"""Hypothesis profiles for the fuzz suite (``test_fuzz_*.py``).

``ci`` (the default) keeps every fuzz target to a few hundred examples, derandomized so CI runs
are repeatable; ``full`` is the hand-run size, 100,000 examples per target::

    HYPOTHESIS_PROFILE=full python3 -m uv run pytest tests/security -q -k fuzz -p no:cacheprovider

The profiles are registered here and applied by the fuzz tests themselves (``FUZZ`` in each
file reads ``HYPOTHESIS_PROFILE``), not loaded globally, so the rest of the suite keeps its own
Hypothesis settings.
"""

from __future__ import annotations

from hypothesis import HealthCheck, settings

_QUIET = [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much]

settings.register_profile(
    "ci", max_examples=60, deadline=None, derandomize=True, suppress_health_check=_QUIET
)
settings.register_profile(
    "full",
    max_examples=100_000,
    deadline=None,
    suppress_health_check=_QUIET,
    database=None,
    print_blob=True,
)
