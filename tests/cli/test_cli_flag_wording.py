"""On the command line, an error's advice names the flag, not the Python keyword.

Before, ``chat`` told its user to "Set allow_local_network=True on the endpoint config", "pass
openai_compatible=True with base_url" and "pass base_url='https://host/v1'", keywords no flag
spells, while docs/cli.md promises that every setting an error recommends can be passed there.
"""

from __future__ import annotations

import anyio
import pytest

from lionagi.service import EndpointConfigurationError, EndpointNotFound, UnsafeURLError, iModel
from lionagi.service.cli._render import exception_line


def test_an_unknown_provider_names_the_flags() -> None:
    with pytest.raises(EndpointNotFound) as info:
        iModel(model="nosuchvendor/m", api_key="k-123456789")
    line = exception_line("error: ", info.value)
    assert "pass --openai-compatible with --base-url" in line
    assert "openai_compatible=True" not in line
    assert "openai_compatible=True" in str(info.value)  # Python callers keep the keyword


def test_a_compatible_endpoint_without_a_url_names_the_flag() -> None:
    with pytest.raises(EndpointConfigurationError) as info:
        iModel(model="nosuchvendor/m", openai_compatible=True, api_key="k-123456789")
    assert "pass --base-url https://host/v1" in exception_line("error: ", info.value)


def test_a_refused_local_address_names_the_flag() -> None:
    async def main() -> BaseException | None:
        async with iModel(
            model="openai/gpt-4.1", base_url="http://127.0.0.1:9/v1", api_key="k-123456789"
        ) as model:
            call = await model.invoke(messages=[{"role": "user", "content": "hi"}])
            return call.exception

    error = anyio.run(main)
    assert isinstance(error, UnsafeURLError)
    line = exception_line("error: ", error)
    assert "Pass --allow-local-network" in line and "allow_local_network=True" not in line
