"""A real AG2 NLIP server asking for human input is read as ``input_required``.

AG2's ``AG2NlipSession`` answers "Input required" and puts the agent's prompt in an ``error``
submessage (``response_message_to_nlip``); the prompt does not say ``INPUT_REQUIRED``, so
reading only that word (as AG2's own client does) reported ``input_required=None``.
"""

from __future__ import annotations

import warnings

import pytest
from ag2_nlip_fixtures import ScriptedApp, asgi_transport
from autogen.agentchat.contrib.nlip_agent import response_message_to_nlip
from autogen.agentchat.remote.protocol import ResponseMessage
from nlip_sdk.nlip import NLIP_Factory, NLIP_Message

from lionagi.providers.ag2 import AG2NlipEndpoint
from lionagi.providers.ag2._nlip import nlip_result
from lionagi.service import iModel

pytestmark = pytest.mark.anyio

PROMPT = "Please, provide additional information:\n"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def _endpoint(respond: object) -> AG2NlipEndpoint:
    return AG2NlipEndpoint(
        {
            "name": "ag2-nlip",
            "provider": "ag2",
            "endpoint": "nlip",
            "base_url": "http://nlip.test",
            "allow_local_network": True,
        },
        transport=asgi_transport(ScriptedApp(respond)),  # type: ignore[arg-type]
    )


async def test_ag2_servers_input_request_is_input_required() -> None:
    async def asks(msg: NLIP_Message) -> NLIP_Message:
        # Exactly what AG2NlipSession.execute returns when its agent asks for input.
        return response_message_to_nlip(
            ResponseMessage(
                messages=[{"role": "assistant", "content": "Input required"}],
                context={"step": 2},
                input_required=PROMPT,
            )
        )

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # nlip-sdk's own enum serializer warning
        async with iModel(endpoint=_endpoint(asks)) as model:
            chunks = [c async for c in model.stream(prompt="book a flight")]
    assert chunks[-1].type == "result"
    assert chunks[-1].metadata["nlip"] == {
        "content": "Input required",
        "context": {"step": 2},
        "input_required": PROMPT,
    }


def test_an_error_submessage_of_an_ordinary_answer_is_not_an_input_request() -> None:
    answer = NLIP_Factory.create_text("done")
    answer.add_error_code("partial result: one source was unreachable")
    body = answer.model_dump(mode="json", exclude_none=True)
    assert nlip_result(body)["input_required"] is None
