"""iModelManager: named ownership, no silent replacement, isolated concurrent shutdown."""

from __future__ import annotations

import logging

import anyio
import pytest

from lionagi.service import EventStatus, ModelNameConflict, iModel, iModelManager
from lionagi.service.scripted import ScriptedEndpoint

CONFIG = {"name": "scripted", "provider": "scripted", "endpoint": "chat"}


class CloseProbe(ScriptedEndpoint):
    """A scripted endpoint whose ``aclose`` can hang or fail, recording who was closing when."""

    closing: list[str]

    def __init__(self, name: str, mode: str = "ok", closing: list[str] | None = None) -> None:
        super().__init__(CONFIG)
        self.name = name
        self.mode = mode
        self.closing = closing if closing is not None else []
        self.seen_closing: list[str] | None = None
        self.closed_ok = False

    async def aclose(self) -> None:
        self.closing.append(self.name)
        if self.mode == "hang":
            try:
                await anyio.sleep(60)
            finally:
                self.seen_closing = list(self.closing)
        if self.mode == "fail":
            raise RuntimeError(f"{self.name} refuses to close")
        self.closed_ok = True


def model(name: str = "m", mode: str = "ok", closing: list[str] | None = None) -> iModel:
    return iModel(endpoint=CloseProbe(name, mode, closing))


def test_positional_models_are_chat_then_parse():
    chat, parse, extra = model("chat"), model("parse"), model("extra")
    manager = iModelManager(chat, parse, extra=extra)

    assert manager.chat is chat and manager.parse is parse
    assert manager["extra"] is extra
    assert set(manager) == {"chat", "parse", "extra"}
    assert len(manager) == 3 and "chat" in manager
    assert manager.get("missing") is None
    with pytest.raises(TypeError):
        iModelManager(model(), model(), model())


def test_registering_a_taken_name_is_refused():
    first = model("first")
    manager = iModelManager(chat=first)

    with pytest.raises(ModelNameConflict) as info:
        manager.register("chat", model("second"))
    assert info.value.name == "chat"
    assert isinstance(info.value, KeyError)
    assert str(info.value) == "'chat' is already registered; use replace() to close and swap it"
    assert manager.chat is first
    with pytest.raises(ModelNameConflict):
        iModelManager(model(), chat=model())  # positional chat plus chat=
    with pytest.raises(TypeError):
        manager.register("other", object())  # type: ignore[arg-type]


async def test_replace_closes_the_displaced_model():
    old, new = model("old"), model("new")
    manager = iModelManager(chat=old)

    displaced = await manager.replace("chat", new)

    assert displaced is old
    assert old.closed and old.endpoint.closed_ok
    assert manager.chat is new and not new.closed
    assert await manager.replace("parse", model("p")) is None  # a free name just registers
    removed = await manager.remove("parse")
    assert removed.closed
    await manager.shutdown()


async def test_a_model_another_name_still_holds_is_not_closed():
    shared, new = model("shared"), model("new")
    manager = iModelManager(chat=shared, parse=shared)  # one model serving both roles

    assert await manager.replace("parse", new) is shared
    assert not shared.closed  # chat still hands it out
    assert (await manager.chat.invoke(prompt="x")).status is EventStatus.COMPLETED
    manager.register("alias", new)
    assert await manager.remove("alias") is new
    assert not new.closed  # parse still holds it

    assert await manager.remove("chat") is shared
    assert shared.closed  # the last name went: closed as before
    await manager.shutdown()


async def test_shutdown_is_concurrent_and_isolates_slow_and_failing_models(caplog):
    closing: list[str] = []
    models = {
        "good": model("good", closing=closing),
        "slow": model("slow", "hang", closing),
        "slower": model("slower", "hang", closing),
        "broken": model("broken", "fail", closing),
    }
    manager = iModelManager(**models)

    with caplog.at_level(logging.WARNING, logger="lionagi.service"), anyio.fail_after(5):
        outcomes = await manager.shutdown(per_model_timeout=0.2)

    assert outcomes == {"good": "closed", "slow": "timeout", "slower": "timeout", "broken": "error"}
    assert models["good"].endpoint.closed_ok
    # Concurrent: each hanging close was still running when the other one had started.
    assert set(models["slow"].endpoint.seen_closing) >= {"slow", "slower"}
    assert set(models["slower"].endpoint.seen_closing) >= {"slow", "slower"}
    messages = " ".join(r.getMessage() for r in caplog.records)
    assert "'broken'" in messages and "timed out" in messages
    assert all(m.closed for m in models.values())


async def test_shutdown_reports_a_shared_models_outcome_under_every_name():
    closing: list[str] = []
    slow, broken = model("slow", "hang", closing), model("broken", "fail", closing)
    manager = iModelManager(chat=slow, parse=slow, a=broken, b=broken)

    with anyio.fail_after(5):
        outcomes = await manager.shutdown(per_model_timeout=0.2)

    # Before: the second name's close() returned at once and reported "closed".
    assert outcomes == {"chat": "timeout", "parse": "timeout", "a": "error", "b": "error"}
    assert sorted(closing) == ["broken", "slow"]  # each model closed once


async def test_shutdown_of_an_empty_manager_and_bad_timeout():
    manager = iModelManager()
    assert await manager.shutdown() == {}
    with pytest.raises(ValueError, match="per_model_timeout"):
        await manager.shutdown(per_model_timeout=0)


async def test_shutdown_aborts_in_flight_calls():
    m = iModel(model="scripted/demo")
    manager = iModelManager(chat=m)
    errors: list[BaseException] = []

    async def call() -> None:
        try:
            await m.invoke(prompt="SCRIPTED_STALL")
        except Exception as exc:
            errors.append(exc)

    async with anyio.create_task_group() as tg:
        tg.start_soon(call)
        with anyio.fail_after(5):
            while m.admission_snapshot().active == 0:  # noqa: ASYNC110 - no event to wait on
                await anyio.sleep(0.005)
        outcomes = await manager.shutdown(per_model_timeout=2.0)

    assert outcomes == {"chat": "closed"}
    assert [type(e).__name__ for e in errors] == ["AdmissionClosed"]
