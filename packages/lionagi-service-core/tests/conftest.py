"""Fixtures shared by this package's tests of the process-wide carried-credential set."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from lionagi.service._base import secrets


@pytest.fixture
def carried_state() -> Iterator[None]:
    """Start with an empty carried set, and put the process's back afterwards.

    The set is process-wide and bounded: a test that fills it, or asserts what it holds, must
    neither see another test's values nor leave its own behind.
    """
    known = secrets._KNOWN
    with known.lock:
        saved, view = dict(known.carried), known.carried_view
        known.carried.clear()
        known.carried_view = ()
    yield
    with known.lock:
        known.carried.clear()
        known.carried.update(saved)
        known.carried_view = view
