"""A 403 is not worded as a refused key: it accepted the key and refused what it asked for.

The error tables type both 401 and 403 as auth (`ProviderUnauthorizedError`, `status` kept), but
the message said "refused the credentials" for both. A 403 for a model the key has no access to,
or a region the account may not use, then sent the caller to rotate a key that works.
"""

from __future__ import annotations

import json

import pytest

from lionagi.service import ProviderAuthError, ProviderUnauthorizedError


@pytest.mark.parametrize(
    ("status", "says", "never"),
    [
        (401, "refused the credentials (HTTP 401); check the API key", "HTTP 403"),
        (
            403,
            "refused the request for these credentials (HTTP 403: the key may lack access to "
            "this model, project or region); check the API key",
            "refused the credentials",
        ),
    ],
)
async def test_the_auth_message_follows_the_status(
    serve, wire, secret, make_endpoint, status: int, says: str, never: str
) -> None:
    body = json.dumps({"error": {"message": f"not allowed ({secret})", "code": "forbidden"}})
    server = await serve(lambda req: wire.full(status, body))
    endpoint = make_endpoint(server.base_url)
    with pytest.raises(ProviderUnauthorizedError) as raised:
        await endpoint.call({"model": "m", "messages": [{"role": "user", "content": "hi"}]})
    error = raised.value
    assert isinstance(error, ProviderAuthError) and error.status == status
    assert says in str(error), str(error)
    assert never not in str(error)
    assert secret not in str(error)
