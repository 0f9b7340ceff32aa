"""Shared helpers for the hand-run benchmarks: a fake provider server process and interleaving.

The fake server always runs in a SEPARATE process (``lionagi.service_testing.main``), so it does
not share the client's GIL; on a 2-core VM client and server then get one core each.

Rounds are interleaved (every contender once per round, the order rotated each round) and the
median of the per-round samples is reported; on a noisy VM trust the ratios, not the numbers.
"""

from __future__ import annotations

import os
import selectors
import signal
import statistics
import subprocess
import sys
from collections.abc import Awaitable, Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager

__all__ = [
    "fake_server",
    "interleave",
    "interleave_sync",
    "markdown_table",
    "machine_note",
    "median",
    "rotated",
]

_SERVER_CODE = (
    "import sys\n"
    "from lionagi.service_testing import main\n"
    "sys.exit(main(['--host', '127.0.0.1', '--port', '0']))\n"
)
_LISTENING_PREFIX = "fake provider server listening on "
_START_TIMEOUT_S = 30.0
_STOP_TIMEOUT_S = 10.0


@contextmanager
def fake_server() -> Iterator[str]:
    """Start the fake provider server in its own process; yield ``http://127.0.0.1:PORT``.

    The process is stopped with SIGTERM (SIGKILL after a bounded wait) when the block exits.
    """
    proc = subprocess.Popen(
        [sys.executable, "-c", _SERVER_CODE],
        stdout=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert proc.stdout is not None
        with selectors.DefaultSelector() as sel:
            sel.register(proc.stdout, selectors.EVENT_READ)
            if not sel.select(timeout=_START_TIMEOUT_S):
                raise RuntimeError("fake provider server did not start in time")
        line = proc.stdout.readline().strip()
        if not line.startswith(_LISTENING_PREFIX):
            raise RuntimeError(f"unexpected fake server output: {line!r}")
        yield line[len(_LISTENING_PREFIX) :]
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=_STOP_TIMEOUT_S)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=_STOP_TIMEOUT_S)
        if proc.stdout is not None:
            proc.stdout.close()


def rotated(names: Sequence[str], round_index: int) -> list[str]:
    """``names`` rotated by ``round_index`` so no contender always runs first."""
    k = round_index % len(names) if names else 0
    return [*names[k:], *names[:k]]


async def interleave(
    contenders: Mapping[str, Callable[[], Awaitable[float]]], rounds: int
) -> dict[str, list[float]]:
    """Run every contender once per round (rotating the order); collect each one's samples."""
    names = list(contenders)
    samples: dict[str, list[float]] = {name: [] for name in names}
    for r in range(rounds):
        for name in rotated(names, r):
            samples[name].append(await contenders[name]())
    return samples


def interleave_sync(
    contenders: Mapping[str, Callable[[], float]], rounds: int
) -> dict[str, list[float]]:
    """:func:`interleave` for blocking contenders (subprocess timings)."""
    names = list(contenders)
    samples: dict[str, list[float]] = {name: [] for name in names}
    for r in range(rounds):
        for name in rotated(names, r):
            samples[name].append(contenders[name]())
    return samples


def median(values: Sequence[float]) -> float:
    """The median (``nan`` for no values)."""
    return statistics.median(values) if values else float("nan")


def markdown_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """A GitHub-flavoured markdown table."""
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines.extend("| " + " | ".join(row) + " |" for row in rows)
    return "\n".join(lines)


def machine_note() -> str:
    """One line naming the interpreter and core count, for the bottom of a report."""
    return f"os.cpu_count()={os.cpu_count()}  python={sys.version.split()[0]}"
