"""``make_endpoint``/``valid_request`` from an installed catalog row, for the HTTP kits.

Most HTTP adapters test the endpoint their catalog row builds, pointed at the fake server; this
mixin does that from three class attributes, so a vendor's kit subclass is only its flags.
"""

from __future__ import annotations

from typing import Any, ClassVar

from lionagi.service import Endpoint, match_endpoint

__all__ = ["CatalogRow", "catalog_row_endpoint"]


class CatalogRow:
    """Mix in before a kit class: ``class TestAcme(CatalogRow, HTTPChatConformance)``.

    ``provider`` and ``endpoint`` (a key or alias) name the row; ``path`` is appended to the
    kit's base URL (for a row whose base URL carries a path the fake server does not route,
    e.g. ``"/api"``); ``model`` is the request's model. ``valid_request()`` sends a one-message
    chat for the chat dialects and two inputs for ``openai_embeddings``; override it otherwise.
    """

    provider: ClassVar[str]
    endpoint: ClassVar[str] = "chat"
    path: ClassVar[str] = ""
    model: ClassVar[str] = "fake-model"
    dialect: ClassVar[str]

    def make_endpoint(self, base_url: str, api_key: str) -> Endpoint:
        """The catalog row's endpoint at the fake server (see :func:`catalog_row_endpoint`)."""
        return catalog_row_endpoint(self.provider, self.endpoint, base_url + self.path, api_key)

    def valid_request(self) -> dict[str, Any]:
        """A minimal request in the row's dialect."""
        if self.dialect == "openai_embeddings":
            return {"model": self.model, "input": ["alpha", "beta gamma"]}
        return {"model": self.model, "messages": [{"role": "user", "content": "hello"}]}


def catalog_row_endpoint(provider: str, endpoint: str, base_url: str, api_key: str) -> Endpoint:
    """The catalog row's endpoint at ``base_url`` (a loopback fake server: the opt-in is set).

    ``api_key`` is passed only to a row that authenticates: a row with ``auth_type="none"`` (a
    local server such as Ollama) refuses a key it would not send, so a kit that hands every row
    a key must ask the row first.
    """
    keyless = match_endpoint(provider, endpoint, base_url=base_url, allow_local_network=True)
    if keyless.config.auth_type == "none":
        return keyless
    # The keyless one is dropped unused: an endpoint opens its client at the first request.
    return match_endpoint(
        provider, endpoint, base_url=base_url, api_key=api_key, allow_local_network=True
    )
