"""Pytest fixtures for provider authors, registered through the ``pytest11`` entry point.

Installing ``lionagi-service-testing`` makes these fixtures available to any pytest run; nothing
needs importing or listing in ``conftest.py``. Every fixture is synchronous on purpose: a
synchronous fixture works the same under anyio's pytest plugin, pytest-asyncio (strict or auto
mode) or no async plugin at all, whereas an ``async`` fixture is only run by the plugin that
claims it (the "async fixture ... with no plugin" error).

Fixtures:

``fake_provider_server``
    A :class:`FakeProviderServer` on 127.0.0.1 at a free port, new for each test, served from an
    event loop in a worker thread; its ``requests`` records what each test sent.
``fake_provider_server_session``
    The same, shared by the whole session (cheaper; ``requests`` accumulates across tests).
``leak_check``
    After the test, fails if a descendant process of this process is still there, a thread it
    started still runs (idle pool workers aside), the count of open file descriptors grew, or a
    model registered with ``leak_check.watch(model)`` still has admission queued/active or a
    busy pool connection. Request it *after* the fixtures whose resources outlive the test body
    (a server fixture, say), so its baseline already includes them.
``recording_fake_cli``
    A :class:`RecordingFakeCli`: ``argv(events)`` is an argv prefix for your adapter that runs the
    ``record`` fake CLI, which logs what it received (argv, stdin, environment, cwd, process ids)
    and then writes ``events`` (your CLI's own grammar) to stdout; ``records()`` reads the log.
``real_cli_marker``
    A fresh value for ``LIONAGI_TEST_PROCESS_MARKER`` (pass it in the CLI's env, e.g. through
    :func:`lionagi.service_testing.real_tier.isolated_settings`); after the test, fails when a
    process carrying it (the CLI or a tool shell) is still alive once teardown had time to reap.
``isolated_cli_home``
    Every agentic endpoint launched during the test gets a throwaway config home
    (``LIONAGI_SERVICE_CONFIG_HOME=isolated``), and ``HOME`` points at a temporary folder, so
    nothing a CLI writes can reach the developer's real config. Yields that folder.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from lionagi.service.agentic import CONFIG_HOME_ENV

from .conformance._leaks import descendant_pids, model_leaks, open_fd_count, thread_idents
from .conformance._subprocess import record_argv
from .fake_server import FakeProviderServer
from .real_clis import new_marker
from .real_tier import assert_no_survivors

__all__ = [
    "RecordingFakeCli",
    "fake_provider_server",
    "isolated_cli_home",
    "fake_provider_server_session",
    "leak_check",
    "pytest_configure",
    "real_cli_marker",
    "recording_fake_cli",
]

_SETTLE_SECONDS = 2.0


def pytest_configure(config: pytest.Config) -> None:
    """Register the ``real_cli`` marker, so ``--strict-markers`` runs accept it."""
    config.addinivalue_line(
        "markers",
        "real_cli: drives an installed real agentic CLI "
        "(lionagi.service_testing.real_clis; skips when absent outside CI)",
    )


@pytest.fixture
def fake_provider_server() -> Iterator[FakeProviderServer]:
    """A fake provider server for one test (loopback, free port)."""
    with FakeProviderServer.running_in_thread() as server:
        yield server


@pytest.fixture(scope="session")
def fake_provider_server_session() -> Iterator[FakeProviderServer]:
    """A fake provider server shared by the whole test session (loopback, free port)."""
    with FakeProviderServer.running_in_thread() as server:
        yield server


class ProcessAndDescriptorLeaks:
    """Baseline of descendants, threads and open descriptors, checked when the test ends.

    The synchronous twin of :class:`lionagi.service_testing.conformance.LeakCheck` (which also
    sees asyncio tasks, from inside a loop); both observe through the same helpers.
    """

    def __init__(self) -> None:
        self.children = set(descendant_pids())
        self.threads = thread_idents()
        self.descriptors = open_fd_count()
        self.models: list[Any] = []

    def watch(self, *models: Any) -> None:
        """Also require these ``iModel`` s' admission and HTTP pool to be idle at the end."""
        self.models.extend(models)

    def problems(self) -> list[str]:
        """What the test left behind; empty when nothing. Waits briefly for late cleanup."""
        deadline = time.monotonic() + _SETTLE_SECONDS
        while True:
            new_children = {p: s for p, s in descendant_pids().items() if p not in self.children}
            threads = thread_idents() - self.threads
            descriptors = open_fd_count()
            clean = not new_children and not threads and descriptors <= self.descriptors
            if clean or time.monotonic() >= deadline:
                break
            time.sleep(0.01)
        found = model_leaks(self.models)
        if new_children:
            found.append(f"descendant processes left behind (pid: state): {new_children}")
        if threads:
            found.append(f"threads left running: {len(threads)}")
        if descriptors > self.descriptors:
            found.append(f"file descriptors leaked: {descriptors} open, {self.descriptors} before")
        return found


@pytest.fixture
def leak_check() -> Iterator[ProcessAndDescriptorLeaks]:
    """Fail the test if it leaves a child process or an open file descriptor behind."""
    leaks = ProcessAndDescriptorLeaks()
    yield leaks
    problems = leaks.problems()
    if problems:
        pytest.fail("; ".join(problems), pytrace=False)


class RecordingFakeCli:
    """Argv prefixes for the ``record`` fake CLI, and what each launch of it received."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.log = folder / "record.jsonl"
        self._plans = 0

    def argv(self, events: Sequence[Any] = (), **plan: Any) -> list[str]:
        """Argv prefix replaying ``events`` (plus replay plan keys such as ``exit_code``)."""
        self._plans += 1
        path = self.folder / f"plan-{self._plans}.json"
        path.write_text(json.dumps({**plan, "events": list(events)}), encoding="utf-8")
        return record_argv(path, self.log)

    def records(self) -> list[Mapping[str, Any]]:
        """One record per launch, oldest first (empty before any launch)."""
        if not self.log.exists():
            return []
        return [json.loads(line) for line in self.log.read_text().splitlines() if line]


@pytest.fixture
def recording_fake_cli(tmp_path: Path) -> RecordingFakeCli:
    """A recording fake CLI in the test's temporary folder."""
    folder = tmp_path / "recording-fake-cli"
    folder.mkdir()
    return RecordingFakeCli(folder)


@pytest.fixture
def real_cli_marker() -> Iterator[str]:
    """A process marker for one real-CLI test; no process carrying it may outlive the test."""
    value = new_marker()
    yield value
    assert_no_survivors(value)


@pytest.fixture
def isolated_cli_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Throwaway CLI config homes for the test, and a temporary ``HOME`` behind them."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv(CONFIG_HOME_ENV, "isolated")
    monkeypatch.setenv("HOME", str(home))
    return home
