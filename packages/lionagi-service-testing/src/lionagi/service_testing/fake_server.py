"""A fake model-provider HTTP server on loopback, for tests, benchmarks and the real CLIs.

It speaks, from one scripted-scenario model, the OpenAI chat-completions (JSON/SSE), OpenAI
Responses, Anthropic Messages, Gemini ``generateContent``/``streamGenerateContent``, Ollama native
(``/api/chat``, ``/api/generate`` as NDJSON, ``/api/embed``) and OpenAI embeddings wires, plus a
generic JSON endpoint in Exa's shape (``/search``, ``/findSimilar``, ``/contents``, ``/json/...``,
and ``/answer``, one-shot or streamed), well enough that the real ``codex``, ``claude``,
``gemini`` and ``pi`` binaries run end to end against it. See ``docs/fake-server.md`` for the full
table.

Usage::

    async with FakeProviderServer() as server:
        async with httpx.AsyncClient(base_url=server.base_url) as client:
            await client.post("/v1/chat/completions", json={"model": "m", "messages": []})
        assert server.requests[0].path == "/v1/chat/completions"

Scenario per request, from an explicit selector only: header ``x-fake-behaviour: <names>`` wins;
otherwise a path prefix ``/scenario/<names>/`` (stripped before routing; give a CLI the base URL
``http://127.0.0.1:PORT/scenario/tool/v1``); otherwise ``text``. ``<names>`` is one of
:data:`BEHAVIOURS` or several joined by ``+`` (``thinking+tool``): the content behaviours
``text``, ``thinking``, ``tool``, ``usage``, ``token_limit`` (the answer stops at the output
token limit) and ``extra_fields`` (every object carries an unknown field) combine, with at most
one error or fault behaviour on top. Words in the conversation never select anything; the one
piece of conversation state read is that a ``tool`` scenario whose last turn is a tool result
answers with text quoting it.

Knobs: ``x-fake-text`` (answer text), ``x-fake-chunks`` (number of text deltas),
``x-fake-delay-ms`` (pause between stream frames, before a JSON body, or between ``drip``
pieces), ``x-fake-retry-after`` (429 ``Retry-After``, default ``"1"``). A 401 body echoes up to
64 characters of the credential the client sent, so clients can test that they redact provider
error text.

The server is hand-built: h11 parses requests inside asyncio protocols and replies are
pre-rendered bytes, so it adds no dependency and stays fast (``TCP_NODELAY``, keep-alive, one
socket write per reply, repeated requests answered from templates). It runs on asyncio; use
:meth:`FakeProviderServer.running_in_thread` from anything else. Output is deterministic: ids
come from a per-server request counter, timestamps and token counts are fixed (the one exception
is ``retry_after_date``, whose HTTP-date follows the clock).
"""

from __future__ import annotations

import argparse
import asyncio
import enum
import ipaddress
import signal
import socket
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from types import TracebackType

import anyio
import anyio.lowlevel
from anyio.abc import TaskGroup
from anyio.from_thread import start_blocking_portal

from ._fake_http import ConnectionHub
from ._fake_record import RecordedRequest
from ._fake_routes import FakeApp

__all__ = ["FakeProviderServer", "main", "serve_forever"]

_LISTENING = "fake provider server listening on {url}"
# Benchmarks open hundreds of concurrent streams at once.
_BACKLOG = 1024


class _State(enum.Enum):
    UNOPENED = "unopened"
    OPEN = "open"
    CLOSED = "closed"


def _loopback(host: str) -> str:
    """Normalize ``host`` to a loopback IP literal, refusing anything else."""
    if host == "localhost":
        return "127.0.0.1"
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        address = None
    if address is None or not address.is_loopback:
        raise ValueError(
            f"host must be a loopback address ('127.0.0.1', '::1' or 'localhost'); got {host!r}. "
            "The fake provider server never listens on other interfaces."
        )
    return str(address)


class FakeProviderServer:
    """A fake provider API on ``127.0.0.1``; serve it with ``async with`` or from a thread.

    The server owns an anyio task group for its listener and connections; leaving the ``async
    with`` block closes the listener and every open connection, stalled streams included, and
    leaves no task behind. A server cannot be reopened after it closed.

    Args:
        host: A loopback address; anything else raises ``ValueError``.
        port: TCP port; 0 picks a free one (read it back from :attr:`port`).
        record_requests: Keep every request in :attr:`requests`. Benchmarks making very many
            calls may turn this off.
    """

    def __init__(self, host: str = "127.0.0.1", port: int = 0, *, record_requests: bool = True):
        self._host = _loopback(host)
        if isinstance(port, bool) or not isinstance(port, int) or not 0 <= port <= 65535:
            raise ValueError(f"port must be an integer from 0 to 65535; got {port!r}")
        self._port = port
        self._app = FakeApp(record_requests=record_requests)
        self._state = _State.UNOPENED
        self._task_group: TaskGroup | None = None
        self._hub: ConnectionHub | None = None

    @property
    def host(self) -> str:
        """The loopback address the server binds."""
        return self._host

    @property
    def port(self) -> int:
        """The bound port (only known once the server is open when constructed with 0)."""
        if self._state is _State.UNOPENED and self._port == 0:
            raise RuntimeError("the port is chosen when the server opens; use `async with` first")
        return self._port

    @property
    def base_url(self) -> str:
        """``http://HOST:PORT`` with no trailing slash; add the vendor prefix (``/v1``)."""
        host = f"[{self._host}]" if ":" in self._host else self._host
        return f"http://{host}:{self.port}"

    @property
    def requests(self) -> list[RecordedRequest]:
        """Every request served so far, oldest first, with credentials redacted."""
        return self._app.requests

    async def __aenter__(self) -> FakeProviderServer:
        """Bind and start serving in a task group owned by this server."""
        if self._state is not _State.UNOPENED:
            raise RuntimeError("a FakeProviderServer cannot be reopened; create a new one")
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            raise RuntimeError(
                "FakeProviderServer serves on an asyncio event loop; from other event loops "
                "use FakeProviderServer.running_in_thread()"
            ) from None
        self._state = _State.CLOSED  # until fully open, so a failed open is never retried
        family = socket.AF_INET6 if ":" in self._host else socket.AF_INET
        sock = socket.create_server((self._host, self._port), family=family, backlog=_BACKLOG)
        try:
            sock.setblocking(False)
            self._port = int(sock.getsockname()[1])
            task_group = anyio.create_task_group()
            await task_group.__aenter__()
        except BaseException:
            sock.close()
            raise
        self._hub = ConnectionHub(self._app, task_group)
        task_group.start_soon(self._hub.work_loop)
        task_group.start_soon(self._hub.accept_loop, sock)
        self._task_group = task_group
        self._state = _State.OPEN
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        """Close the listener and every connection, then wait for their tasks to end."""
        task_group, self._task_group = self._task_group, None
        hub, self._hub = self._hub, None
        self._state = _State.CLOSED
        if task_group is None or hub is None:
            return
        task_group.cancel_scope.cancel()
        hub.abort_all()
        try:
            # The body's own exception propagates unchanged; only server failures surface here.
            await task_group.__aexit__(None, None, None)
        finally:
            # Aborted transports close their sockets in a loop callback: let it run.
            with anyio.CancelScope(shield=True):
                await anyio.lowlevel.checkpoint()

    @classmethod
    @contextmanager
    def running_in_thread(
        cls, host: str = "127.0.0.1", port: int = 0, *, record_requests: bool = True
    ) -> Iterator[FakeProviderServer]:
        """Serve from an event loop in a worker thread, for synchronous tests and tools.

        The thread is not a daemon: leaving the block stops the server and joins the thread.
        Benchmarks should prefer a separate process (``main``), since a thread shares the GIL
        with the client being measured.
        """
        server = cls(host, port, record_requests=record_requests)
        with (
            start_blocking_portal(backend="asyncio") as portal,
            portal.wrap_async_context_manager(server),
        ):
            yield server


async def _serve_until_signal(server: FakeProviderServer) -> None:
    with anyio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
        async with server:
            print(_LISTENING.format(url=server.base_url), flush=True)
            async for _signum in signals:
                return


def serve_forever(host: str = "127.0.0.1", port: int = 0) -> int:
    """Serve until SIGINT or SIGTERM, after printing the one "listening on" line; return 0.

    Raises:
        ValueError: ``host`` is not a loopback address or ``port`` is out of range.
        OSError: The port cannot be bound.
    """
    # Nobody can read the records of a command-line server: do not let them pile up.
    server = FakeProviderServer(host, port, record_requests=False)
    anyio.run(_serve_until_signal, server, backend="asyncio")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``lionagi-service fake-server``; returns the process exit code."""
    parser = argparse.ArgumentParser(
        prog="lionagi-service fake-server",
        description=(
            "Serve fake OpenAI, Anthropic, Gemini, Ollama and search APIs on loopback until "
            "interrupted."
        ),
    )
    parser.add_argument("--host", default="127.0.0.1", help="loopback address (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=0, help="TCP port; 0 picks a free one")
    args = parser.parse_args(argv)
    try:
        return serve_forever(args.host, args.port)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"error: cannot listen on {args.host}:{args.port}: {exc}", file=sys.stderr)
        return 1
