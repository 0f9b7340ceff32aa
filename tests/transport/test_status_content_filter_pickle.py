"""Status errors, the content-filter one included, survive pickle and deepcopy with their fields.

``ProviderStatusError.__init__`` takes ``status`` as a required keyword, and an exception's
default pickling rebuilds it as ``cls(*args)``: every status error but ``ProviderRateLimitError``
(whose ``status`` has a default) failed to unpickle with a TypeError, so none could cross a
process boundary or be deep-copied. The stream twins pickle (``test_stream_error.py``); these must
too.
"""

from __future__ import annotations

import copy
import pickle

import pytest

import lionagi.service as service
from lionagi.service import (
    ProviderClientError,
    ProviderQuotaExhaustedError,
    ProviderRateLimitError,
    ProviderServerError,
    ProviderStatusCapacityError,
    ProviderStatusContextError,
    ProviderStatusError,
    ProviderUnauthorizedError,
)

STATUS_CLASSES: list[tuple[type[ProviderStatusError], int]] = [
    (ProviderStatusError, 418),
    (ProviderClientError, 400),
    (ProviderRateLimitError, 429),
    (ProviderUnauthorizedError, 403),
    (ProviderQuotaExhaustedError, 429),
    (ProviderStatusContextError, 400),
    (ProviderServerError, 502),
    (ProviderStatusCapacityError, 529),
]


def _round_trip(cls: type[ProviderStatusError], status: int) -> None:
    error = cls("POST https://x/v1 refused: HTTP", status=status, body_excerpt="b", retry_after=1.5)
    error.returncode = 7
    for back in (pickle.loads(pickle.dumps(error)), copy.deepcopy(error)):
        assert type(back) is cls
        assert repr(back) == repr(error)
        assert (str(back), back.status, back.body_excerpt, back.retry_after, back.raw) == (
            "POST https://x/v1 refused: HTTP",
            status,
            "b",
            1.5,
            "b",
        )
        assert back.returncode == 7
        assert back.retryable is error.retryable


def test_the_content_filter_status_error_pickles_with_its_fields() -> None:
    cls = service.ProviderStatusContentFilterError
    _round_trip(cls, 400)
    back = pickle.loads(pickle.dumps(cls("m", status=403, body_excerpt="e")))
    assert isinstance(back, service.ProviderContentFilterError)
    assert isinstance(back, ProviderClientError)
    assert back.retryable is False


@pytest.mark.parametrize(("cls", "status"), STATUS_CLASSES)
def test_every_status_error_pickles_with_its_fields(
    cls: type[ProviderStatusError], status: int
) -> None:
    _round_trip(cls, status)


def test_a_vendor_status_subclass_with_its_own_signature_pickles() -> None:
    back = pickle.loads(pickle.dumps(_VendorStatusError("quota", tier="free")))
    assert type(back) is _VendorStatusError
    assert (str(back), back.status, back.tier) == ("quota", 402, "free")


class _VendorStatusError(ProviderClientError):
    """A subclass whose constructor takes other arguments than the base's."""

    def __init__(self, message: str, *, tier: str) -> None:
        self.tier = tier
        super().__init__(message, status=402)
