"""``copy(share_session=True)`` resumes in the home the session was saved in.

A CLI keeps its sessions in its config home. In isolated mode each model had a private one,
so a copy given the original's session id ran in a new, empty home and every call failed to
resume ("No conversation found"). The copy now shares the original's home; the directory is
removed when the last of the two closes.
"""

from __future__ import annotations

import os
from typing import Any

from lionagi.service import EventStatus, iModel
from lionagi.service_testing.reference_cli import ReferenceCliEndpoint

EVENTS = [
    {"type": "session", "session_id": "s-1", "model": "m"},
    {"type": "text", "content": "answer"},
    {"type": "result", "content": None},
]


def exists(path: str) -> bool:
    return os.path.isdir(path)


def homes(replay: Any) -> list[str]:
    return [r["env"]["HOME"] for r in replay.launches()]


async def test_a_session_sharing_copy_runs_in_the_same_home(replay: Any) -> None:
    replay.write(events=EVENTS, log_env=["HOME"])
    endpoint = ReferenceCliEndpoint(argv=replay.argv, settings={"config_home": "isolated"})
    model = iModel(endpoint=endpoint)
    assert (await model.invoke(prompt="one")).status is EventStatus.COMPLETED
    twin = model.copy(share_session=True)
    other = model.copy()  # not sharing the session: a home of its own
    assert twin.provider_session_id == "s-1"
    assert (await twin.invoke(prompt="two")).status is EventStatus.COMPLETED
    assert (await other.invoke(prompt="three")).status is EventStatus.COMPLETED
    first, shared, own = homes(replay)
    assert shared == first
    assert own != first

    await model.close()
    assert exists(first)  # the twin still uses it
    assert (await twin.invoke(prompt="four")).status is EventStatus.COMPLETED
    await twin.close()
    assert not exists(first)
    await other.close()
    assert not exists(own)
