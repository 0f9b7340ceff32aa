"""A deadline that ends a retried request says, in its own text, why the attempts failed.

``RequestDeadlineExceeded`` raised while waiting to retry (``phase="retry_delay"``), or during an
attempt after an earlier one failed (``phase="transport"``), carried the last provider error only
as ``__cause__``. A service that logs ``str(err)`` (or ``logger.error("%s", err)``) read "request
... exceeded its deadline during retry_delay": a refused connection, a wrong port and a provider
answering HTTP 500 all looked like a slow server. The text now ends with
``(last attempt: <type>: <message>)``, redacted and on one line, as the command line prints it.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import anyio
import pytest

from lionagi.service import (
    AttemptPolicy,
    ProviderConnectionError,
    ProviderServerError,
    RequestBudget,
    RequestDeadlineExceeded,
    StreamChunk,
    iModel,
)
from lionagi.service.lifecycle import call_with_attempts, stream_with_attempts
from lionagi.service_testing import FakeProviderServer

from .conftest import FakeClock

KEY = "sk-proj-" + "q7" * 20
MESSAGES = [{"role": "user", "content": "hi"}]
# Five attempts one second apart: a 0.4 s deadline always runs out in the first retry delay.
PATIENT = AttemptPolicy(max_attempts=5, base_delay=1.0, jitter_factor=0.0)


def _model(server: FakeProviderServer, behaviour: str) -> iModel:
    return iModel(
        model="openai/gpt-4.1",
        base_url=server.base_url + "/v1",
        api_key=KEY,
        allow_local_network=True,
        default_headers={"x-fake-behaviour": behaviour},
        attempt_policy=PATIENT,
    )


@pytest.mark.anyio
async def test_invoke_deadline_in_retry_delay_names_the_http_500() -> None:
    async with FakeProviderServer() as server, _model(server, "500") as model:
        with pytest.raises(RequestDeadlineExceeded) as info:
            await model.invoke(messages=MESSAGES, timeout=0.4)
    err = info.value
    assert err.phase == "retry_delay"
    assert isinstance(err.__cause__, ProviderServerError)  # kept for code that walks causes
    text = str(err)
    assert "during retry_delay (last attempt: ProviderServerError: " in text, text
    assert "HTTP 500" in text and text.endswith(")")
    assert "\n" not in text and KEY not in text
    assert len(server.requests) == 1  # the deadline ended the first delay: one attempt only


@pytest.mark.anyio
async def test_stream_deadline_in_retry_delay_names_the_http_503() -> None:
    async with FakeProviderServer() as server, _model(server, "503") as model:
        with pytest.raises(RequestDeadlineExceeded) as info:
            async for _ in model.stream(messages=MESSAGES, timeout=0.4):
                pass
    text = str(info.value)
    assert info.value.phase == "retry_delay"
    assert "(last attempt: ProviderServerError: " in text and "HTTP 503" in text, text
    assert KEY not in text


@pytest.mark.anyio
async def test_the_last_attempt_text_is_redacted() -> None:
    # An adapter's own transport (call_with_attempts is public) put a credential in its error.
    clock = FakeClock(auto=True)

    async def attempt(limit: float | None) -> str:
        raise ProviderConnectionError(f"connect refused; Authorization: Bearer {KEY}\nretry")

    with pytest.raises(RequestDeadlineExceeded) as info:
        await call_with_attempts(
            attempt,
            call_id="c-1",
            policy=PATIENT,
            budget=RequestBudget(clock() + 0.5),
            clock=clock,
            sleep=clock.sleep,
        )
    text = str(info.value)
    assert info.value.phase == "retry_delay"
    assert "(last attempt: ProviderConnectionError: connect refused;" in text, text
    assert KEY not in text and "[REDACTED]" in text
    assert "\n" not in text  # one log line, as the CLI prints it
    # The cause itself is the caller's exception, untouched.
    assert KEY in str(info.value.__cause__)


@pytest.mark.anyio
async def test_a_deadline_during_the_next_attempt_names_the_failed_one() -> None:
    # phase="transport": the first attempt failed fast, the retry hung until the deadline.
    clock = FakeClock()
    calls = 0

    async def attempt(limit: float | None) -> str:
        nonlocal calls
        calls += 1
        if calls == 1:
            raise ProviderConnectionError("connection refused by 127.0.0.1:9")
        await anyio.sleep_forever()
        raise AssertionError("unreachable")

    async def run() -> RequestDeadlineExceeded:
        with pytest.raises(RequestDeadlineExceeded) as info:
            await call_with_attempts(
                attempt,
                call_id="c-2",
                policy=AttemptPolicy(max_attempts=3, base_delay=0.1, jitter_factor=0.0),
                budget=RequestBudget(clock() + 1.0),
                clock=clock,
                sleep=clock.sleep,
            )
        return info.value

    result: list[RequestDeadlineExceeded] = []
    async with anyio.create_task_group() as tg:

        async def keep() -> None:
            result.append(await run())

        tg.start_soon(keep)
        await clock.advance(2.0)
    (err,) = result
    assert err.phase == "transport" and calls == 2
    assert "(last attempt: ProviderConnectionError: connection refused by 127.0.0.1:9)" in str(err)


@pytest.mark.anyio
async def test_a_deadline_with_no_failed_attempt_says_nothing_more() -> None:
    clock = FakeClock()

    async def opener(limit: float | None) -> AsyncIterator[StreamChunk]:
        await anyio.sleep_forever()
        yield  # pragma: no cover

    async def run() -> RequestDeadlineExceeded:
        with pytest.raises(RequestDeadlineExceeded) as info:
            async for _ in stream_with_attempts(
                opener,
                call_id="c-3",
                budget=RequestBudget(clock() + 1.0),
                clock=clock,
                sleep=clock.sleep,
            ):
                pass
        return info.value

    result: list[RequestDeadlineExceeded] = []
    async with anyio.create_task_group() as tg:

        async def keep() -> None:
            result.append(await run())

        tg.start_soon(keep)
        await clock.advance(2.0)
    (err,) = result
    assert err.phase == "transport" and err.__cause__ is None
    assert str(err) == "request c-3 exceeded its deadline during transport"
