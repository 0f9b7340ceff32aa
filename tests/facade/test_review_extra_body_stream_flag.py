"""The transport's own `stream` key in an `extra_body` default is refused with advice that works.

`check_extra_body_default` turns the call's "is a field of <Request>" refusal into "put it in
`request_defaults` itself". For the stream flag that advice fails at once: `request_defaults`
refuses `stream` too ("is set by the transport on each call"). The key has no place in the
defaults at all, so the refusal says that and names where it was written.
"""

from __future__ import annotations

from typing import Any

import pytest

from lionagi.service import EndpointConfigurationError, iModel
from lionagi.service_testing import FakeProviderServer


@pytest.mark.parametrize("flag", [True, False])
async def test_stream_in_an_extra_body_default_is_said_to_be_the_transports(
    server: FakeProviderServer, http_kwargs: dict[str, Any], flag: bool
) -> None:
    with pytest.raises(EndpointConfigurationError) as refused:
        iModel(**http_kwargs, request_defaults={"extra_body": {"stream": flag}})
    assert refused.value.field == "request_defaults.extra_body.stream"
    text = str(refused.value)
    assert "is set by the transport on each call" in text
    assert "remove it from request_defaults.extra_body" in text
    assert "put 'stream' in request_defaults itself" not in text  # advice refused in turn
    # What the old advice led to is refused too, so the new advice is the only way out.
    with pytest.raises(EndpointConfigurationError):
        iModel(**http_kwargs, request_defaults={"stream": flag})
    assert server.requests == []
