"""The peers benchmark's server writes what its modes promise (benchmarks/sse_server.py).

The server runs in its own process, read through a raw socket: uvicorn frames every transport
write of a streaming body as one HTTP/1.1 ``chunked`` chunk, so the chunk boundaries on the wire
are the server's writes. ``event`` and ``paced`` must put exactly one SSE event in each write,
``batched`` the whole stream in one; ``paced`` events must also arrive in separate reads. No
timing is asserted beyond the generous bounds a pacing check needs.
"""

from __future__ import annotations

import json
import selectors
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

SERVER = Path(__file__).resolve().parents[2] / "benchmarks" / "sse_server.py"
PREFIX = "sse benchmark server listening on "


@pytest.fixture(scope="module")
def port() -> Iterator[int]:
    proc = subprocess.Popen(
        [sys.executable, str(SERVER), "--port", "0"],
        stdout=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert proc.stdout is not None
        with selectors.DefaultSelector() as sel:
            sel.register(proc.stdout, selectors.EVENT_READ)
            assert sel.select(timeout=60), "server did not start"
        line = proc.stdout.readline().strip()
        assert line.startswith(PREFIX), line
        yield int(line.rsplit(":", 1)[1])
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)
        assert proc.stdout is not None
        proc.stdout.close()


def request(
    port: int, path: str, body: dict[str, object]
) -> tuple[bytes, list[tuple[float, bytes]]]:
    """POST ``body``; return the response head and every ``recv`` with its arrival time."""
    payload = json.dumps(body).encode()
    head = (
        f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(payload)}\r\nConnection: close\r\n\r\n"
    ).encode()
    reads: list[tuple[float, bytes]] = []
    with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
        sock.sendall(head + payload)
        while True:
            data = sock.recv(65536)
            if not data:
                break
            reads.append((time.monotonic(), data))
    raw = b"".join(data for _, data in reads)
    response_head, _, _ = raw.partition(b"\r\n\r\n")
    return response_head, reads


def chunked_writes(reads: list[tuple[float, bytes]]) -> list[bytes]:
    """The body's HTTP/1.1 chunks, in order (each one is one server write)."""
    raw = b"".join(data for _, data in reads)
    _, _, body = raw.partition(b"\r\n\r\n")
    chunks: list[bytes] = []
    while body:
        size_line, _, rest = body.partition(b"\r\n")
        size = int(size_line.split(b";")[0], 16)
        if size == 0:
            break
        chunks.append(rest[:size])
        assert rest[size : size + 2] == b"\r\n"
        body = rest[size + 2 :]
    return chunks


def events(data: bytes) -> list[str]:
    return [block.decode() for block in data.split(b"\n\n") if block]


def check_openai_shape(all_events: list[str], n: int) -> None:
    assert all(e.startswith("data: ") for e in all_events)
    datas = [e[len("data: ") :] for e in all_events]
    assert datas[-1] == "[DONE]"
    parsed = [json.loads(d) for d in datas[:-1]]
    assert parsed[0]["choices"][0]["delta"] == {"role": "assistant", "content": ""}
    deltas = parsed[1 : 1 + n]
    assert all(p["object"] == "chat.completion.chunk" for p in parsed)
    assert all(p["choices"][0]["delta"]["content"] for p in deltas)
    assert parsed[1 + n]["choices"][0]["finish_reason"] == "stop"
    assert parsed[2 + n]["choices"] == []
    assert parsed[2 + n]["usage"]["total_tokens"] > 0
    assert len(parsed) == n + 3


def test_one_shot_is_a_chat_completion_json(port: int) -> None:
    head, reads = request(port, "/v1/chat/completions", {"model": "m", "messages": []})
    assert head.startswith(b"HTTP/1.1 200")
    body = b"".join(d for _, d in reads).partition(b"\r\n\r\n")[2]
    parsed = json.loads(body)
    assert parsed["object"] == "chat.completion"
    assert parsed["model"] == "m"
    assert parsed["choices"][0]["message"]["content"]


def test_event_mode_writes_one_event_per_write(port: int) -> None:
    n = 40
    head, reads = request(port, f"/s/{n}/event/0/v1/chat/completions", {"stream": True})
    assert b"text/event-stream" in head
    writes = chunked_writes(reads)
    # role chunk, one write per content delta, then the tail (finish + usage + [DONE]).
    assert len(writes) == n + 2
    assert all(len(events(w)) == 1 for w in writes[:-1])
    check_openai_shape([e for w in writes for e in events(w)], n)


def test_paced_mode_events_arrive_in_separate_reads(port: int) -> None:
    n, delay_us = 5, 80_000
    start = time.monotonic()
    _, reads = request(port, f"/s/{n}/paced/{delay_us}/v1/chat/completions", {"stream": True})
    elapsed = time.monotonic() - start
    writes = chunked_writes(reads)
    assert len(writes) == n + 2
    assert all(len(events(w)) == 1 for w in writes[:-1])
    check_openai_shape([e for w in writes for e in events(w)], n)
    # Each content delta came in a read of its own: no read carries two of them.
    per_read = [data.count(b'"content":"tok') for _, data in reads]
    assert sum(per_read) == n
    assert max(per_read) == 1
    # The pacing is really there (a lower bound only: a loaded machine may be slower).
    assert elapsed >= n * delay_us / 1e6 * 0.9


def test_batched_mode_writes_the_whole_stream_at_once(port: int) -> None:
    n = 40
    _, reads = request(port, f"/s/{n}/batched/0/v1/chat/completions", {"stream": True})
    writes = chunked_writes(reads)
    assert len(writes) == 1
    check_openai_shape(events(writes[0]), n)


def test_unknown_mode_is_refused(port: int) -> None:
    head, _ = request(port, "/s/3/sometimes/0/v1/chat/completions", {"stream": True})
    assert head.startswith(b"HTTP/1.1 404")
