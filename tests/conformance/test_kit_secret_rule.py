"""The HTTP kit's key scan and ``secret_shown`` apply one rule: a key cut short still shows.

An adapter that masks only the tail of its key (``sk-...-abcdef12****``) shows most of it; the
kit used to look for the whole key only and passed such an adapter, while ``secret_shown``
counted the leading half. The kit now uses the same rule, so it fails that adapter too. The
undamaged endpoint passes the same case in ``test_http_kit_openai_compatible.py``.
"""

from __future__ import annotations

from typing import Any, ClassVar

import pytest

from lionagi.service import Endpoint, match_endpoint
from lionagi.service.http import OpenAIChatEndpoint
from lionagi.service_testing.conformance import HTTPChatConformance


class MasksOnlyTheTail(OpenAIChatEndpoint):
    """Shows its key in its repr with only the last four characters masked."""

    def __repr__(self) -> str:
        key = self.config.secret_value() or ""
        return f"MasksOnlyTheTail(key={key[:-4]}****)"


class Chat(HTTPChatConformance):
    dialect = "openai_chat"
    endpoint_class: ClassVar[type[Endpoint]] = OpenAIChatEndpoint

    def make_endpoint(self, base_url: str, api_key: str) -> Endpoint:
        config = match_endpoint(
            "conformance-llm",
            "",
            openai_compatible=True,
            base_url=base_url,
            api_key=api_key,
            allow_local_network=True,
        ).config
        return self.endpoint_class(config)

    def valid_request(self) -> dict[str, Any]:
        return {"model": "fake-model", "messages": [{"role": "user", "content": "hello"}]}


def test_the_kit_fails_a_key_shown_all_but_its_tail() -> None:
    broken = type("ChatMaskingOnlyTheTail", (Chat,), {"endpoint_class": MasksOnlyTheTail})()
    with pytest.raises(AssertionError, match=r"the API key appeared in: .*repr\(endpoint\)"):
        broken.test_api_key_never_leaks()
