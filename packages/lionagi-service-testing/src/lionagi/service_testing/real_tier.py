"""Helpers for a CLI package's ``real_cli`` tests: settings, URLs, collection, survivors.

Every CLI package's real-binary module drove its pinned CLI the same way: an isolated config
home, the fake provider server as the gateway (the scenario in the URL path, since a CLI cannot
send the server's selector header), a marker variable in the child's environment so survivors
are found in ``/proc``, a port nothing listens on for the "server down" case, and the pinned
version check. Those mechanics live here once; a package keeps only its vendor cases (tool
shells, flags, error texts).

The ``real_cli_marker`` fixture of the pytest plugin yields a fresh marker and fails the test
when any process carrying it is still alive shortly after the test.
"""

from __future__ import annotations

import socket
import time
from collections.abc import Mapping
from contextlib import aclosing
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio

from lionagi.service import AgenticEndpoint, APICalling, ProviderStreamError, StreamChunk, iModel

from .fake_server import FakeProviderServer
from .real_clis import MARKER_ENV, PINNED_VERSIONS, processes_with_marker, real_cli_version

__all__ = [
    "SURVIVOR_WAIT",
    "FailedRun",
    "assert_no_survivors",
    "assert_pinned_version",
    "closed_port",
    "collect_into",
    "collect_stream",
    "isolated_model",
    "isolated_settings",
    "scenario_url",
    "settled_survivors",
    "stream_then_invoke",
    "survivors_after",
    "wait_for_process",
]

SURVIVOR_WAIT = 10.0
"""Seconds teardown may take (it reaps asynchronously) before a live process is a survivor."""


def isolated_settings(
    binary: Path,
    gateway: str,
    marker: str,
    *,
    api_key: str,
    env: Mapping[str, str] | None = None,
    cwd: Path | None = None,
) -> dict[str, Any]:
    """``agentic_settings`` for one real run: the binary, the gateway, an isolated home.

    ``marker`` reaches the CLI and every descendant as :data:`MARKER_ENV`; ``env`` adds
    variables (a slow tool's shell setup, say); ``cwd`` is the run's working directory.
    """
    settings: dict[str, Any] = {
        "binary": str(binary),
        "gateway_url": gateway,
        "gateway_api_key": api_key,
        "config_home": "isolated",
        "env": {MARKER_ENV: marker, **(env or {})},
    }
    if cwd is not None:
        settings["cwd"] = str(cwd)
    return settings


def isolated_model(
    model: str,
    binary: Path,
    gateway: str,
    marker: str,
    *,
    api_key: str,
    env: Mapping[str, str] | None = None,
    cwd: Path | None = None,
    **options: Any,
) -> iModel:
    """``iModel(model, agentic_settings=isolated_settings(...), **options)`` for one real run."""
    settings = isolated_settings(binary, gateway, marker, api_key=api_key, env=env, cwd=cwd)
    return iModel(model=model, agentic_settings=settings, **options)


def scenario_url(server: FakeProviderServer, scenario: str) -> str:
    """The gateway URL selecting ``scenario`` by path prefix (``/scenario/<names>``)."""
    return f"{server.base_url}/scenario/{scenario}"


def closed_port() -> int:
    """A loopback port nothing listens on (bound, then released before the CLI connects)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


async def collect_into(
    model: iModel, chunks: list[StreamChunk], *, deadline: float, **request: Any
) -> None:
    """Append the stream's chunks to ``chunks`` (kept when the stream then raises).

    ``deadline`` is the call's ``timeout`` (seconds); a hard stop 30 s later guards the test
    itself against a stream that never ends.
    """
    with anyio.fail_after(deadline + 30):
        async with aclosing(model.stream(timeout=deadline, **request)) as stream:
            async for chunk in stream:
                chunks.append(chunk)


async def collect_stream(model: iModel, *, deadline: float, **request: Any) -> list[StreamChunk]:
    """Every chunk of one streamed call (see :func:`collect_into`)."""
    chunks: list[StreamChunk] = []
    await collect_into(model, chunks, deadline=deadline, **request)
    return chunks


@dataclass(frozen=True)
class FailedRun:
    """What :func:`stream_then_invoke` saw: the stream's chunks and error, then the invoke call."""

    chunks: list[StreamChunk]
    error: ProviderStreamError | None
    call: APICalling  # the event `invoke()` returned: its `status` and `exception`


async def stream_then_invoke(model: iModel, *, deadline: float, **request: Any) -> FailedRun:
    """Run ``request`` as a stream, then once more as ``invoke()``: how a failure shows in each.

    A failure test checks both forms a caller meets: the stream's chunks with the
    :class:`~lionagi.service.ProviderStreamError` it ended on (None when it ended cleanly), and
    the failed call event ``invoke()`` returns. Any other exception propagates.
    """
    chunks: list[StreamChunk] = []
    error: ProviderStreamError | None = None
    try:
        await collect_into(model, chunks, deadline=deadline, **request)
    except ProviderStreamError as exc:
        error = exc
    call = await model.invoke(timeout=deadline, **request)
    return FailedRun(chunks=chunks, error=error, call=call)


def settled_survivors(marker: str, wait: float = SURVIVOR_WAIT) -> list[int]:
    """Live processes carrying ``marker`` once up to ``wait`` seconds have passed."""
    end = time.monotonic() + wait
    while True:
        left = processes_with_marker(marker)
        if not left or time.monotonic() > end:
            return left
        time.sleep(0.1)


def assert_no_survivors(marker: str, wait: float = SURVIVOR_WAIT) -> None:
    """Fail naming the pids when a process carrying ``marker`` outlives ``wait`` seconds."""
    left = settled_survivors(marker, wait)
    assert not left, f"processes left behind (CLI or tool shells): {left}"


async def survivors_after(marker: str, wait: float = SURVIVOR_WAIT) -> list[int]:
    """:func:`settled_survivors` for async tests: polls without blocking the event loop."""
    with anyio.move_on_after(wait):
        while processes_with_marker(marker):  # noqa: ASYNC110 - polling /proc, no event to await
            await anyio.sleep(0.1)
    return processes_with_marker(marker)


async def wait_for_process(marker: str, limit: float, command: str = "") -> None:
    """Wait until a process carrying ``marker`` whose command line starts with ``command`` runs.

    ``command`` is the argv joined by spaces (e.g. ``"sleep 300"``, a slow tool's shell).

    Raises:
        AssertionError: none appeared within ``limit`` seconds.
    """
    end = anyio.current_time() + limit
    while anyio.current_time() < end:
        if any(_cmdline(pid).startswith(command) for pid in processes_with_marker(marker)):
            return
        await anyio.sleep(0.1)
    raise AssertionError(f"no process running {command!r} started within {limit} s")


def assert_pinned_version(
    name: str, binary: Path, endpoint_type: type[AgenticEndpoint] | None = None
) -> str:
    """Check ``binary --version`` against the pinned version (and the adapter's); return it.

    The version is printed, so the CI log shows what the tier ran against.
    """
    version = real_cli_version(binary)
    print(f"{name} --version: {version}")
    assert PINNED_VERSIONS[name] in version, (name, version)
    if endpoint_type is not None:
        assert endpoint_type.tested_version == PINNED_VERSIONS[name]
    return version


def _cmdline(pid: int) -> str:
    try:
        raw = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return ""
    return raw.rstrip(b"\0").replace(b"\0", b" ").decode(errors="replace")
