"""A key given to the NLIP endpoint is refused with NLIP's own advice, never the HTTP one.

NLIP's row sends no credentials (`auth_type="none"`), so `EndpointConfig` refused an `api_key`
with the HTTP endpoint's fix: "pass auth_type='bearer' (or 'x-api-key') as well to send it".
Followed, that fix was refused in turn ("not sent by the NLIP endpoint"): NLIP sends no key
whatever its `auth_type` says. The first refusal now gives the advice that works.
"""

from __future__ import annotations

from typing import Any

import pytest

from lionagi.providers.ag2 import AG2NlipEndpoint
from lionagi.service import EndpointConfigurationError, iModel

_KEY = "sk-review-0123456789abcdef"


def _refusal(build: Any) -> EndpointConfigurationError:
    with pytest.raises(EndpointConfigurationError) as info:
        build()
    return info.value


@pytest.mark.parametrize(
    "build",
    [
        lambda: iModel(provider="ag2", endpoint="nlip", api_key=_KEY),
        lambda: AG2NlipEndpoint(
            {"name": "n", "provider": "ag2", "endpoint": "nlip", "auth_type": "none"}, api_key=_KEY
        ),
    ],
    ids=["catalog", "hand-built-as-the-row"],
)
def test_a_key_is_refused_with_advice_that_nlip_accepts(build: Any) -> None:
    error = _refusal(build)
    assert error.field == "api_key"
    message = str(error)
    assert "auth_type='bearer'" not in message  # the fix NLIP itself refuses next
    assert "not sent by the NLIP endpoint" in message
    assert _KEY not in message


def test_the_http_fix_is_refused_the_same_way() -> None:
    """What the old advice led to: the same refusal, so the two never disagree."""
    first = _refusal(lambda: iModel(provider="ag2", endpoint="nlip", api_key=_KEY))
    then = _refusal(
        lambda: iModel(provider="ag2", endpoint="nlip", api_key=_KEY, auth_type="bearer")
    )
    assert str(first) == str(then)
