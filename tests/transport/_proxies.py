"""What the proxy tests share: a port nothing listens on, a model routed through a proxy, and
the failure a call through it ends with (``invoke``'s recorded exception or ``stream``'s raise).
"""

from __future__ import annotations

import socket

import anyio
import pytest

from lionagi.service import AttemptPolicy, EventStatus, iModel

MESSAGES = [{"role": "user", "content": "hi"}]


def closed_port() -> int:
    """A loopback port nothing listens on: a request sent there directly fails to connect."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def proxied_model(
    proxy: str, target: str, *, attempts: int = 3, retry_statuses: frozenset[int] = frozenset({429})
) -> iModel:
    """A chat model at ``target`` whose client goes through ``proxy``.

    ``attempts`` above one lets the lifecycle retry (quickly), so a test can count how often a
    failure typed as retryable reached the proxy; ``retry_statuses`` is the policy's (a caller
    retrying a 403 must still not retry a status given to an error that is never retried).
    """
    return iModel(
        provider="loopback-chat",
        endpoint="chat/completions",
        openai_compatible=True,
        base_url=target,
        api_key="sk-loopback",
        allow_local_network=True,
        request_defaults={"model": "m"},
        client_kwargs={"proxy": proxy},
        attempt_policy=AttemptPolicy(
            max_attempts=attempts,
            base_delay=0.001,
            max_delay=0.01,
            jitter_factor=0,
            retry_statuses=retry_statuses,
        ),
    )


async def failure(model: iModel, mode: str) -> BaseException:
    """The error a call through ``model`` ends with, by ``invoke`` or by ``stream``."""
    with anyio.fail_after(20):
        if mode == "invoke":
            call = await model.invoke(messages=MESSAGES)
            assert call.status is EventStatus.FAILED
            assert call.exception is not None
            return call.exception
        with pytest.raises(Exception) as caught:
            async for _ in model.stream(messages=MESSAGES):
                pass
        return caught.value
