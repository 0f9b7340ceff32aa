"""Fixtures for agentic-core tests that drive real subprocesses through the reference adapter.

- ``replay``: writes a plan for the ``replay`` fake CLI and returns a :class:`Replay` with the
  argv prefix for :class:`ReferenceCliEndpoint`, a stand-alone executable wrapper (for the
  ``binary`` setting) and the launch log the fake writes.
- ``count_scopes``: ``count_scopes(patch)`` counts the cancel scopes entered while ``patch`` is
  active (a read bounded by a scope of its own shows up here, one bounded by the run control
  does not).
- ``taken_controls``: ``taken_controls(on_take=None)`` records every ``RunControl`` a process
  reader picks up (proof the reader-bound path ran), calling ``on_take`` on each as it is taken.
- ``timer_descriptors``: ``timer_descriptors()`` counts the kernel timers (timerfd) this process
  holds (a run's limit is one while its process runs; none may outlive the run).
- ``closed_after_two_chunks``: ``await closed_after_two_chunks(model, stream, pause)`` consumes
  ``stream`` in a task, closes ``model`` ``pause`` seconds after the second chunk, and returns
  the ``AdmissionClosed`` errors the consumer saw.
- ``reference_catalog``: points ``EndpointRegistry`` (``match_endpoint``, ``iModel``) at a
  catalog whose only provider is ``reference`` (the reference adapter), as a vendor package
  would register it.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import os
import sys
import textwrap
import uuid
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest

from lionagi.service import AdmissionClosed, EndpointRegistry, ProviderCatalog, ProviderModuleSpec
from lionagi.service_testing.fake_clis import fake_cli_argv, script_path

TEXT_EVENTS: list[dict[str, Any]] = [
    {"type": "text", "content": "first", "delta": True},
    {"type": "text", "content": " second", "delta": True},
    {"type": "result"},
]


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def _count_scopes(patch: pytest.MonkeyPatch) -> list[int]:
    backend_scope = type(anyio.CancelScope())
    original = backend_scope.__enter__
    entered = [0]

    def counting(self: Any) -> Any:
        entered[0] += 1
        return original(self)

    patch.setattr(backend_scope, "__enter__", counting)
    return entered


@pytest.fixture
def count_scopes() -> Callable[[pytest.MonkeyPatch], list[int]]:
    return _count_scopes


async def _closed_after_two_chunks(
    model: Any, stream: AsyncIterator[Any], pause: float
) -> list[BaseException]:
    raised: list[BaseException] = []
    two = anyio.Event()

    async def consume() -> None:
        seen = 0
        try:
            async for _ in stream:
                seen += 1
                if seen == 2:
                    two.set()
        except AdmissionClosed as exc:
            raised.append(exc)

    with anyio.fail_after(10.0):
        async with anyio.create_task_group() as tg:
            tg.start_soon(consume)
            await two.wait()
            await anyio.sleep(pause)
            await model.close()
    return raised


@pytest.fixture
def closed_after_two_chunks() -> Callable[..., Any]:
    return _closed_after_two_chunks


def _timer_descriptors() -> int:
    count = 0
    for name in os.listdir("/proc/self/fd"):
        with contextlib.suppress(OSError):  # closed since the listing
            count += os.readlink(f"/proc/self/fd/{name}") == "anon_inode:[timerfd]"
    return count


@pytest.fixture
def timer_descriptors() -> Callable[[], int]:
    return _timer_descriptors


@pytest.fixture
def taken_controls(
    monkeypatch: pytest.MonkeyPatch,
) -> Callable[[Callable[[Any], object] | None], list[Any]]:
    from lionagi.service._transport import run_control as module

    original = module.current_run_control

    def install(on_take: Callable[[Any], object] | None = None) -> list[Any]:
        seen: list[Any] = []

        def spy() -> Any:
            found = original()
            if found is not None:
                seen.append(found)
                if on_take is not None:
                    on_take(found)
            return found

        monkeypatch.setattr(
            "lionagi.service._transport.subprocess.process.current_run_control", spy
        )
        return seen

    return install


class Replay:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.log = root / "launch.jsonl"
        self.plan = root / "plan.json"

    def write(self, **plan: Any) -> Replay:
        plan.setdefault("events", TEXT_EVENTS)
        plan["log"] = str(self.log)
        self.plan.write_text(json.dumps(plan), encoding="utf-8")
        return self

    @property
    def argv(self) -> list[str]:
        return fake_cli_argv("replay", str(self.plan))

    def wrapper(self) -> str:
        """An executable that runs the replay fake with this plan (what ``binary`` names)."""
        path = self.root / "fake-agent"
        path.write_text(
            "#!/bin/sh\n"
            f'exec "{sys.executable}" -I -S "{script_path("replay")}" "{self.plan}" "$@"\n',
            encoding="utf-8",
        )
        path.chmod(0o755)
        return str(path)

    def records(self) -> list[dict[str, Any]]:
        """Every line the fake logged (launches, signals it recorded, children)."""
        if not self.log.exists():
            return []
        return [json.loads(line) for line in self.log.read_text().splitlines()]

    def launches(self) -> list[dict[str, Any]]:
        return [r for r in self.records() if "launched" in r]

    def launch(self) -> dict[str, Any]:
        found = self.launches()
        assert len(found) == 1, found
        return found[0]


@pytest.fixture
def replay(tmp_path: Path) -> Replay:
    return Replay(tmp_path).write()


def pid_alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.fixture
def alive() -> Any:
    return pid_alive


_PROVIDER_MODULE = """
from lionagi.service import EndpointType, ProviderEndpointSpec
from lionagi.service_testing.reference_cli import ReferenceCliEndpoint, ReferenceCliRequest

PROVIDER_SPECS = (
    ProviderEndpointSpec(
        provider="reference",
        endpoint="cli",
        endpoint_type=EndpointType.AGENTIC,
        endpoint_class=ReferenceCliEndpoint,
        request_options=ReferenceCliRequest,
    ),
)
"""


@pytest.fixture
def reference_catalog(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    name = f"lref_{uuid.uuid4().hex[:10]}"
    folder = tmp_path / "providers"
    folder.mkdir()
    (folder / f"{name}.py").write_text(textwrap.dedent(_PROVIDER_MODULE), encoding="utf-8")
    monkeypatch.syspath_prepend(str(folder))
    importlib.invalidate_caches()
    catalog = ProviderCatalog(lambda: (ProviderModuleSpec(provider="reference", module=name),))
    monkeypatch.setattr(EndpointRegistry, "_catalog", catalog)
    yield
    sys.modules.pop(name, None)


@pytest.fixture
def user_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A temporary directory standing in for the user's home (``config_home="user"`` tests)."""
    home = tmp_path / "user-home"
    home.mkdir()
    monkeypatch.setenv("HOME", os.fspath(home))
    return home
