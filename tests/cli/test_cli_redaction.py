"""Credentials never reach the command line: ``providers`` (table and ``--json``), ``chat --json``.

Each case installs a throwaway provider distribution (a real ``dist-info`` on ``PYTHONPATH``) and
runs the installed console script in a subprocess, the way a user meets these failures. Every
credential is a unique marker; the test fails if any marker appears in stdout or stderr.
"""

from __future__ import annotations

import asyncio
import base64
import json
import os
import secrets as _random
import subprocess
import textwrap
import uuid
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import anyio
import pytest

from ._support import command

HANG_GUARD = 60.0  # seconds; a "did not hang" bound only


def _hex(n: int = 32) -> str:
    return _random.token_hex(n)[:n]


def credential_markers() -> dict[str, str]:
    """Real-world key formats, each unique to this run: ``label -> the text that must not leak``."""
    up = _hex(40).upper()
    basic = base64.b64encode(f"user:{_hex(12)}".encode()).decode()
    return {
        "openai project": f"sk-proj-{_hex(40)}",
        "anthropic": f"sk-ant-api03-{_hex(40)}",
        "google api key": f"AIzaSy{_hex(33)}",
        "google oauth": f"ya29.a0{_hex(40)}",
        "groq": f"gsk_{_hex(52)}",
        "hugging face": f"hf_{_hex(34)}",
        "aws access key id": f"AKIA{up[:16]}",
        "github classic": f"ghp_{_hex(36)}",
        "github fine-grained": f"github_pat_11{up[:20]}_{_hex(40)}",
        "gitlab": f"glpat-{_hex(20)}",
        "slack bot": f"xoxb-1234567890-{_hex(24)}",
        "stripe live": f"sk_live_{_hex(24)}",
        "replicate": f"r8_{_hex(37)}",
        "perplexity": f"pplx-{_hex(48)}",
        "xai": f"xai-{_hex(64)}",
        "nvidia": f"nvapi-{_hex(40)}",
        "npm": f"npm_{_hex(36)}",
        "jwt": f"eyJhbGciOiJIUzI1NiJ9.eyJzdWIi{_hex(24)}.{_hex(30)}",
        "url password": f"pw{_hex(20)}",
        "basic auth": basic,
        "bearer token": f"tok{_hex(24)}",
        "query key": f"qk{_hex(24)}",
    }


def leak_text(markers: dict[str, str]) -> str:
    """One error message carrying every marker in the context it usually appears in."""
    m = markers
    parts = [v for k, v in m.items() if k not in {"url password", "basic auth", "bearer token"}]
    parts.remove(m["query key"])
    return (
        "failed with "
        + " ".join(parts)
        + f" via https://admin:{m['url password']}@proxy.example.com/v1"
        + f" Authorization: Basic {m['basic auth']}"
        + f" Bearer {m['bearer token']}"
        + f" from https://api.example.com/v1/models?key={m['query key']}&alt=sse"
    )


def assert_no_marker(markers: dict[str, str], *texts: str) -> None:
    for text in texts:
        leaked = [label for label, value in markers.items() if value in text]
        assert not leaked, f"leaked {leaked}: {text}"


class Dist:
    """A provider distribution written into a directory that the subprocess puts on sys.path."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.prefix = f"lredact_{uuid.uuid4().hex[:10]}"
        (root / self.prefix).mkdir()
        (root / self.prefix / "__init__.py").write_text("")

    def provider(self, key: str, body: str) -> None:
        module = f"{self.prefix}.{key}"
        (self.root / self.prefix / f"{key}.py").write_text(textwrap.dedent(body))
        info = self.root / f"{self.prefix}_{key}-0.1.dist-info"
        info.mkdir()
        (info / "METADATA").write_text(
            f"Metadata-Version: 2.1\nName: {self.prefix}-{key}\nVersion: 0.1\n"
        )
        (info / "entry_points.txt").write_text(f"[lionagi.providers]\n{key} = {module}\n")

    def env(self, **extra: str) -> dict[str, str]:
        env = dict(os.environ)
        env.update({"NO_COLOR": "1", "TERM": "dumb", "COLUMNS": "400", "PYTHONUNBUFFERED": "1"})
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(self.root), env.get("PYTHONPATH")]))
        env.update(extra)
        return env


def run(dist: Dist, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*command(), *args],
        capture_output=True,
        text=True,
        timeout=HANG_GUARD,
        env=dist.env(**env),
        check=False,
    )


@pytest.fixture
def dist(tmp_path: Path) -> Dist:
    return Dist(tmp_path)


# -- item 10: diagnostics -------------------------------------------------------------------------


def test_import_error_with_credentials_is_redacted_in_every_command(dist):
    markers = credential_markers()
    assert len(markers) >= 15
    dist.provider("brokenimport", f"raise ImportError({leak_text(markers)!r})\n")

    table = run(dist, "providers")
    as_json = run(dist, "providers", "--json")
    chat = run(dist, "chat", "brokenimport/m", "hi")
    chat_json = run(dist, "chat", "--json", "brokenimport/m", "hi")

    document = json.loads(as_json.stdout)
    broken = [p for p in document["providers"] if p["provider"] == "brokenimport"]
    assert broken and broken[0]["availability"] != "available"
    assert "ImportError" in as_json.stdout and "[REDACTED]" in as_json.stdout
    assert chat.returncode == 2 and "ProviderUnavailable" in chat.stderr
    assert "ProviderUnavailable" in chat_json.stdout
    for done in (table, as_json, chat, chat_json):
        assert_no_marker(markers, done.stdout, done.stderr)


def test_failing_request_options_factory_is_redacted_in_an_unrelated_chat(dist):
    markers = credential_markers()
    dist.provider(
        "badfactory",
        f"""
        from lionagi.service import Endpoint, EndpointType, ProviderEndpointSpec

        class BadFactoryChat(Endpoint):
            pass

        def options():
            raise RuntimeError({leak_text(markers)!r})

        PROVIDER_SPECS = (
            ProviderEndpointSpec(
                provider="badfactory",
                endpoint="chat",
                endpoint_type=EndpointType.API,
                endpoint_class=BadFactoryChat,
                base_url="https://api.example.test/v1",
                request_options=options,
            ),
        )
        """,
    )
    as_json = run(dist, "providers", "--json")
    table = run(dist, "providers")
    unrelated = run(dist, "chat", "scripted/demo", "hi")
    unrelated_json = run(dist, "chat", "--json", "scripted/demo", "hi")

    assert json.loads(as_json.stdout)["valid"] is False
    assert "request_options factory failed" in as_json.stdout
    assert unrelated.returncode == 5 and "CatalogValidationError" in unrelated.stderr
    for done in (as_json, table, unrelated, unrelated_json):
        assert_no_marker(markers, done.stdout, done.stderr)


def test_values_of_credential_environment_variables_are_redacted(dist):
    # Opaque values no shape matches: only the environment rule can hide them.
    token, password = f"opaque{_hex(20)}", f"plain{_hex(12)}"
    dist.provider(
        "envleak",
        """
        import os
        raise ImportError(
            "bad config " + os.environ["ACME_SERVICE_TOKEN"] + " " + os.environ["DB_PASSWORD"]
        )
        """,
    )
    env = {"ACME_SERVICE_TOKEN": token, "DB_PASSWORD": password}
    for args in (("providers",), ("providers", "--json"), ("chat", "--json", "envleak/m", "hi")):
        done = run(dist, *args, **env)
        assert "bad config" in done.stdout + done.stderr
        assert_no_marker({"token": token, "password": password}, done.stdout, done.stderr)


# -- item 8: provider-originated strings in chat --json -------------------------------------------


LEAKY_PROVIDER = """
from lionagi.service import EndpointType, ProviderEndpointSpec
from lionagi.service.http import OpenAIChatEndpoint

class LeakyChat(OpenAIChatEndpoint):

    def __init__(self, config=None, **kw):
        super().__init__(config, allow_local_network=True, **kw)

PROVIDER_SPECS = (
    ProviderEndpointSpec(
        provider="leaky",
        endpoint="chat/completions",
        endpoint_type=EndpointType.API,
        endpoint_class=LeakyChat,
        base_url="https://api.example.test/v1",
        api_key_env="LEAKY_PROVIDER_CREDENTIAL",
    ),
)
"""


@pytest.fixture
async def one_reply_server() -> AsyncIterator[Callable[[bytes], str]]:
    """A loopback HTTP server answering every request with the bytes it was given."""
    servers: list[asyncio.Server] = []

    async def start(reply: bytes) -> str:
        async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            head = await reader.readuntil(b"\r\n\r\n")
            length = 0
            for line in head.decode("latin-1").split("\r\n"):
                name, _, value = line.partition(":")
                if name.strip().lower() == "content-length":
                    length = int(value)
            await reader.readexactly(length)
            writer.write(reply)
            await writer.drain()
            writer.close()

        server = await asyncio.start_server(handle, "127.0.0.1", 0)
        servers.append(server)
        return f"http://127.0.0.1:{server.sockets[0].getsockname()[1]}/v1"

    yield start  # type: ignore[misc]
    for server in servers:
        server.close()
        await server.wait_closed()


def _http(content_type: str, body: bytes) -> bytes:
    head = (
        "HTTP/1.1 200 OK\r\n"
        f"Content-Type: {content_type}\r\n"
        f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n"
    )
    return head.encode("latin-1") + body


async def _chat_json(dist: Dist, base_url: str, key: str) -> subprocess.CompletedProcess[bytes]:
    args = [*command(), "chat", "--json", "leaky/m", "hi", "--base-url", base_url]
    with anyio.fail_after(HANG_GUARD):
        return await anyio.run_process(
            args, env=dist.env(LEAKY_PROVIDER_CREDENTIAL=key), check=False
        )


async def test_error_event_code_and_echoed_content_type_never_reach_chat_json(
    dist, one_reply_server
):
    key = f"opaque{_hex(24)}"
    dist.provider("leaky", LEAKY_PROVIDER)
    event = {"error": {"message": "request refused", "code": key, "type": f"bad {key}"}}
    sse = f"data: {json.dumps(event)}\n\n".encode()
    error_url = await one_reply_server(_http("text/event-stream", sse))
    echo_url = await one_reply_server(_http(f"text/x-{key}", b"{}"))

    errored = await _chat_json(dist, error_url, key)
    echoed = await _chat_json(dist, echo_url, key)

    out = errored.stdout.decode()
    lines = [json.loads(line) for line in out.splitlines()]
    assert errored.returncode == 1, errored.stderr
    assert lines[0]["type"] == "error" and "code" in lines[0]["metadata"]
    assert echoed.returncode == 1
    assert "ProviderProtocolError" in echoed.stdout.decode()
    for done in (errored, echoed):
        assert key not in done.stdout.decode() + done.stderr.decode()
