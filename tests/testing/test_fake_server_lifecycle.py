"""Lifecycle and HTTP plumbing of the fake provider server: keep-alive, shutdown, threads, CLI."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import os
import signal
import socket
import subprocess
import sys
import threading

import anyio
import httpx
import pytest

import lionagi.service_testing as testing_pkg
from lionagi.service_testing import REDACTED, FakeProviderServer, main

CHAT = "/v1/chat/completions"
BODY = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}


def _local_port(response: httpx.Response) -> int:
    stream = response.extensions["network_stream"]
    return int(stream.get_extra_info("client_addr")[1])


async def test_public_surface() -> None:
    assert sorted(testing_pkg.__all__) == sorted(
        [
            "BEHAVIOURS",
            "DEFAULT_TEXT",
            "EMBEDDING_DIMENSIONS",
            "OVERSIZED_BYTES",
            "REDACTED",
            "THINKING_TEXT",
            "TOOL_COMMAND",
            "TOOL_DESCRIPTION",
            "USAGE_INPUT",
            "USAGE_OUTPUT",
            "FakeProviderServer",
            "RecordedRequest",
            "ScriptedStream",
            "ServingError",
            "assert_secret_hidden",
            "embed",
            "main",
            "plain_secret",
            "scripted_replies_server",
            "scripted_stream_server",
            "secret_shown",
            "serve_forever",
            "serving",
        ]
    )


# --- recording -----------------------------------------------------------------------------------
async def test_requests_are_recorded_with_credentials_redacted(
    server: FakeProviderServer, client: httpx.AsyncClient
) -> None:
    await client.post(
        CHAT,
        json=BODY,
        params={"trace": "yes"},
        headers={"authorization": "Bearer sk-live-123", "x-custom": "kept"},
    )
    await client.post("/v1/messages?beta=true", json=BODY, headers={"x-api-key": "ant-9"})
    await client.post(
        "/v1beta/models/g:generateContent?key=AIzaSECRET",
        json={"contents": []},
        headers={"x-goog-api-key": "AIzaOTHER"},
    )
    first, second, third = server.requests
    assert first.method == "POST"
    assert first.path == CHAT
    assert first.query == {"trace": "yes"}
    assert first.headers["authorization"] == REDACTED
    assert first.headers["x-custom"] == "kept"
    assert first.json == BODY
    assert second.path == "/v1/messages"
    assert second.query == {"beta": "true"}
    assert second.headers["x-api-key"] == REDACTED
    assert third.query == {"key": REDACTED}
    assert third.headers["x-goog-api-key"] == REDACTED
    for recorded in server.requests:
        text = repr(recorded)
        assert "sk-live-123" not in text
        assert "ant-9" not in text
        assert "AIza" not in text


async def test_recorded_credential_is_a_digest_of_what_was_sent(
    server: FakeProviderServer, client: httpx.AsyncClient
) -> None:
    """The record says which key arrived (its SHA-256), never the key: the HTTP kit's
    "the key it was given reached the server" check rests on it."""
    await client.post(CHAT, json=BODY, headers={"authorization": "Bearer sk-live-123"})
    await client.post("/v1/messages", json=BODY, headers={"x-api-key": "ant-9"})
    await client.post(CHAT, json=BODY)
    bearer, header, none = server.requests
    assert bearer.credential_sha256 == hashlib.sha256(b"sk-live-123").hexdigest()
    assert header.credential_sha256 == hashlib.sha256(b"ant-9").hexdigest()
    assert none.credential_sha256 == ""
    assert "credential_sha256" not in repr(bearer)


async def test_recording_can_be_turned_off() -> None:
    async with (
        FakeProviderServer(record_requests=False) as srv,
        httpx.AsyncClient(base_url=srv.base_url) as http,
    ):
        assert (await http.post(CHAT, json=BODY)).status_code == 200
        assert srv.requests == []


# --- HTTP plumbing -------------------------------------------------------------------------------
async def test_keep_alive_reuses_one_connection(client: httpx.AsyncClient) -> None:
    ports = set()
    for stream in (False, True, False, True):
        r = await client.post(CHAT, json={**BODY, "stream": stream})
        assert r.status_code == 200
        ports.add(_local_port(r))
    r = await client.get("/v1/models")
    ports.add(_local_port(r))
    assert len(ports) == 1


async def _raw_exchange(server: FakeProviderServer, payload: bytes) -> bytes:
    """Send raw bytes, then read until the server closes the connection."""
    with anyio.fail_after(5):
        async with await anyio.connect_tcp(server.host, server.port) as stream:
            await stream.send(payload)
            received = b""
            try:
                while True:
                    received += await stream.receive()
            except (anyio.EndOfStream, anyio.BrokenResourceError):
                return received


def _raw_request(path: str, body: bytes, *extra: bytes, version: bytes = b"1.1") -> bytes:
    head = [
        b"POST " + path.encode() + b" HTTP/" + version,
        b"Host: x",
        b"Content-Type: application/json",
        b"Content-Length: " + str(len(body)).encode(),
        *extra,
    ]
    return b"\r\n".join(head) + b"\r\n\r\n" + body


async def test_pipelined_requests_are_answered_in_order(server: FakeProviderServer) -> None:
    body = json.dumps(BODY).encode()
    payload = (
        _raw_request(CHAT, body)
        + _raw_request("/v1/messages", body)
        + _raw_request(CHAT, body, b"Connection: close")
    )
    received = await _raw_exchange(server, payload)
    assert received.count(b"HTTP/1.1 200 OK") == 3
    first, second, third = (
        received.index(s) for s in (b"chatcmpl-fake-1", b"msg_fake_2", b"chatcmpl-fake-3")
    )
    assert first < second < third
    assert b"connection: close" in received.lower()


async def test_http_1_0_client_gets_a_close_delimited_stream(server: FakeProviderServer) -> None:
    body = json.dumps({**BODY, "stream": True}).encode()
    received = await _raw_exchange(server, _raw_request(CHAT, body, version=b"1.0"))
    head, _, rest = received.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 200 OK")
    assert b"transfer-encoding" not in head.lower()
    assert b"connection: close" in head.lower()
    assert rest.startswith(b"data: ")
    assert rest.endswith(b"data: [DONE]\n\n")


async def test_chunked_request_body_and_expect_continue(server: FakeProviderServer) -> None:
    body = json.dumps(BODY).encode()
    head = (
        b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n"
        b"Expect: 100-continue\r\nConnection: close\r\n\r\n"
    )
    with anyio.fail_after(5):
        async with await anyio.connect_tcp(server.host, server.port) as stream:
            await stream.send(head)
            assert await stream.receive() == b"HTTP/1.1 100 Continue\r\n\r\n"
            await stream.send(f"{len(body):x}\r\n".encode() + body + b"\r\n0\r\n\r\n")
            received = b""
            with contextlib.suppress(anyio.EndOfStream):
                while True:
                    received += await stream.receive()
    assert received.startswith(b"HTTP/1.1 200 OK")
    assert b"Hello from the fake server." in received
    assert server.requests[0].json == BODY


async def test_malformed_http_gets_a_400_and_the_server_keeps_serving(
    server: FakeProviderServer, client: httpx.AsyncClient
) -> None:
    received = await _raw_exchange(server, b"THIS IS NOT HTTP\r\n\r\n")
    assert received.startswith(b"HTTP/1.1 400 Bad Request")
    assert b"bad HTTP request" in received
    assert (await client.post(CHAT, json=BODY)).status_code == 200


# --- lifecycle -----------------------------------------------------------------------------------
def _other_tasks() -> set[asyncio.Task[object]]:
    return {task for task in asyncio.all_tasks() if task is not asyncio.current_task()}


async def test_shutdown_with_a_stalled_stream_in_flight() -> None:
    """Leaving the server's block ends stalled and slow streams at once and leaves no task.

    Troubleshooting: a hang here means a connection was not aborted at shutdown; a leftover
    task means something was spawned outside the server's task group.
    """
    before = _other_tasks()
    outcome: list[str] = []
    started = [anyio.Event(), anyio.Event()]

    async def reader(
        http: httpx.AsyncClient, url: str, headers: dict[str, str], index: int
    ) -> None:
        try:
            async with http.stream(
                "POST", url, json={**BODY, "stream": True}, headers=headers
            ) as r:
                async for _chunk in r.aiter_raw():
                    started[index].set()
        except httpx.RemoteProtocolError:
            outcome.append(headers.get("x-fake-behaviour", "delayed"))

    with anyio.fail_after(10):
        async with (
            httpx.AsyncClient(timeout=60) as http,
            anyio.create_task_group() as tg,
            FakeProviderServer() as srv,
        ):
            url = srv.base_url + CHAT
            tg.start_soon(reader, http, url, {"x-fake-behaviour": "stall"}, 0)
            slow = {"x-fake-delay-ms": "60000", "x-fake-chunks": "3"}
            tg.start_soon(reader, http, url, slow, 1)
            for event in started:
                await event.wait()
        # the server closed first (innermost), then the task group waited for both readers
    assert sorted(outcome) == ["delayed", "stall"]
    assert _other_tasks() == before


async def test_exiting_cleanly_leaves_no_task_and_frees_the_port() -> None:
    before = _other_tasks()
    async with FakeProviderServer() as srv, httpx.AsyncClient(base_url=srv.base_url) as http:
        await http.post(CHAT, json=BODY)
        port = srv.port
    assert _other_tasks() == before
    with socket.create_server(("127.0.0.1", port)):  # the listener is really gone
        pass


async def test_body_exception_propagates_unchanged() -> None:
    with pytest.raises(KeyError, match="boom"):
        async with FakeProviderServer():
            raise KeyError("boom")


async def test_a_server_cannot_be_reopened() -> None:
    srv = FakeProviderServer()
    with pytest.raises(RuntimeError, match="port"):
        _ = srv.base_url
    async with srv:
        assert srv.base_url == f"http://127.0.0.1:{srv.port}"
    with pytest.raises(RuntimeError, match="reopened"):
        async with srv:
            pass


@pytest.mark.parametrize("host", ["0.0.0.0", "192.168.1.10", "example.com", "", "::"])
def test_non_loopback_host_is_refused(host: str) -> None:
    with pytest.raises(ValueError, match="host") as info:
        FakeProviderServer(host=host)
    assert repr(host) in str(info.value)


@pytest.mark.parametrize("port", [-1, 65536, 1.5, True])
def test_port_out_of_range_is_refused(port: object) -> None:
    with pytest.raises(ValueError, match="port"):
        FakeProviderServer(port=port)  # type: ignore[arg-type]


async def test_localhost_and_fixed_port() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        free = probe.getsockname()[1]
    async with FakeProviderServer(host="localhost", port=free) as srv:
        assert srv.host == "127.0.0.1"
        assert srv.port == free
        async with httpx.AsyncClient(base_url=srv.base_url) as http:
            assert (await http.post(CHAT, json=BODY)).status_code == 200


def test_running_in_thread_serves_synchronous_clients() -> None:
    threads_before = set(threading.enumerate())
    with FakeProviderServer.running_in_thread() as srv:
        with httpx.Client(base_url=srv.base_url) as http:
            r = http.post(CHAT, json=BODY)
            assert r.status_code == 200
            assert r.json()["id"] == "chatcmpl-fake-1"
        assert [req.path for req in srv.requests] == [CHAT]
    assert set(threading.enumerate()) == threads_before


def test_running_in_thread_stops_a_stalled_stream() -> None:
    headers = {"x-fake-behaviour": "stall"}
    with httpx.Client(timeout=30) as http, contextlib.ExitStack() as stack:
        with FakeProviderServer.running_in_thread() as srv:
            url = srv.base_url + CHAT
            response = stack.enter_context(
                http.stream("POST", url, json={**BODY, "stream": True}, headers=headers)
            )
            chunks = response.iter_raw()
            assert next(chunks).startswith(b"data: ")
        # the server is gone: the stalled read ends instead of hanging
        with pytest.raises(httpx.RemoteProtocolError):
            for _chunk in chunks:
                pass


# --- command line --------------------------------------------------------------------------------
def test_main_refuses_a_public_host(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--host", "0.0.0.0"]) == 2
    assert "host" in capsys.readouterr().err


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_main_serves_until_signalled(signum: int) -> None:
    code = "import sys; from lionagi.service_testing import main; sys.exit(main(['--port', '0']))"
    proc = subprocess.Popen(
        [sys.executable, "-c", code],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline().strip()
        prefix = "fake provider server listening on http://127.0.0.1:"
        assert line.startswith(prefix), line
        url = line.removeprefix("fake provider server listening on ")
        r = httpx.post(f"{url}/v1/messages", json={**BODY, "max_tokens": 5}, timeout=10)
        assert r.status_code == 200
        assert r.json()["type"] == "message"
        proc.send_signal(signum)
        assert proc.wait(timeout=20) == 0
        assert proc.stdout.read() == ""
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        for pipe in (proc.stdout, proc.stderr):
            if pipe is not None:
                pipe.close()


@pytest.mark.parametrize("knob", [{"x-fake-delay-ms": "5"}, {"x-fake-behavior": "drip"}])
def test_slow_replies_work_under_plain_asyncio_run(knob: dict[str, str]) -> None:
    """A paced or dripped reply is started from a protocol callback, outside any task.

    There anyio cannot tell which loop runs it under plain ``asyncio.run`` (no anyio runner):
    the reply used to fail and the client saw "Server disconnected without sending a response".
    """
    from lionagi.service_testing import FakeProviderServer

    async def main() -> tuple[int, str]:
        async with FakeProviderServer() as server, httpx.AsyncClient() as client:
            reply = await client.post(
                f"{server.base_url}/v1/chat/completions",
                json={"model": "m", "messages": [{"role": "user", "content": "hi"}]},
                headers={"authorization": "Bearer k", **knob},
            )
            return reply.status_code, reply.text

    status, text = asyncio.run(main())
    assert status == 200, text
    assert '"chat.completion"' in text
