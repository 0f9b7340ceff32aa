"""The lowest versions core's and the testing package's metadata admit actually work.

A published ``Requires-Dist: pydantic>=2.7`` is a promise: an installer may pick 2.7.0 (an
application pinning an older pydantic, a resolver's ``--resolution lowest``), and the user then
gets whatever that version does. This builds the core, testing and openai wheels as a release
builds them, installs them into a fresh environment with every third-party requirement they
state held at its lower bound (``uv pip install --resolution lowest-direct``, the requirements
read back from the wheels' own ``METADATA``), and runs there what a user runs:

* the testing wheel's fake server starts and answers (its accept loop awaits
  ``anyio.wait_readable``, added in anyio 4.7);
* an openai chat call whose message content is a list of parts streams through SSE (the chat
  part union needs pydantic 2.13);
* an https server whose certificate is not trusted fails the call with
  ``ProviderConnectionError`` (httpcore before 1.0.6 lets the raw ``ssl`` error escape);
* a ``SharedAdmission`` on a real ``redis-server`` admits a call and closes (``aclose()``, added
  in redis-py 5.0.1); this part is reported as skipped when no ``redis-server`` is installed.
"""

from __future__ import annotations

import importlib.util
import json
import shutil
import subprocess
import venv
import zipfile
from pathlib import Path

import pytest
import trustme
from packaging.requirements import Requirement

from .conftest import ROOT, uv_command, uv_env

ENV = uv_env("OPENAI_API_KEY", "UV_NO_SOURCES")
BUILT = {
    "lionagi-service-core": "lionagi_service_core",
    "lionagi-service-testing": "lionagi_service_testing",
    "lionagi-provider-openai": "lionagi_provider_openai",
}

# Run inside the lowest-versions environment; prints one JSON object, one entry per check, each
# "ok" or what went wrong, so every lower bound is judged on its own.
CLIENT = r"""
import json, re, socket, ssl, subprocess, sys, threading
from pathlib import Path
import anyio

results = {}
cert, key, bin_dir = sys.argv[1], sys.argv[2], Path(sys.argv[3])
versions = {}
for name in ("anyio", "pydantic", "httpx", "httpcore", "httpx_sse", "redis"):
    try:
        from importlib.metadata import version
        versions[name] = version(name.replace("_", "-"))
    except Exception:
        versions[name] = None
results["versions"] = versions

from lionagi.service import EventStatus, ProviderConnectionError, iModel

server = subprocess.Popen(
    [str(bin_dir / "lionagi-service"), "fake-server", "--port", "0"],
    stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
)
url = re.search(r"http://127\.0\.0\.1:\d+", server.stdout.readline() or "")
PARTS = [{"role": "user", "content": [{"type": "text", "text": "hello"}]}]


async def chat(base_url, **extra):
    async with iModel(
        model="openai/gpt-4.1-mini", base_url=base_url, api_key="test-key",
        allow_local_network=True, **extra,
    ) as model:
        chunks = [c async for c in model.stream(messages=PARTS)]
        call = await model.invoke(messages=PARTS)
    return chunks, call


try:
    try:
        chunks, call = anyio.run(chat, url.group(0) + "/v1")
    except BaseException as exc:
        results["chat"] = f"{type(exc).__name__}: {exc}"[:300]
    else:
        text = "".join(c.content or "" for c in chunks if c.type == "text")
        good = text and chunks[-1].type == "result" and call.status is EventStatus.COMPLETED
        results["chat"] = "ok" if good else f"chunks {[c.type for c in chunks]}, {call.status}"
finally:
    server.terminate()
    _, err = server.communicate(timeout=15)
results["fake_server"] = "ok" if url and "Traceback" not in err else (err or "no URL")[-300:]

context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
context.load_cert_chain(cert, key)
listener = socket.create_server(("127.0.0.1", 0))
port = listener.getsockname()[1]


def serve_tls():
    while True:
        try:
            client, _ = listener.accept()
        except OSError:
            return
        try:
            context.wrap_socket(client, server_side=True).close()
        except (OSError, ssl.SSLError):
            client.close()


threading.Thread(target=serve_tls, daemon=True).start()
try:
    anyio.run(chat, f"https://127.0.0.1:{port}/v1")
except ProviderConnectionError as exc:  # a stream raises what failed it
    results["tls"] = "ok" if "CERTIFICATE_VERIFY_FAILED" in str(exc) else str(exc)[:300]
except BaseException as exc:
    results["tls"] = f"{type(exc).__name__}: {exc}"[:300]
else:
    results["tls"] = "an untrusted certificate was accepted"
listener.close()

from lionagi.service_testing.redis_server import RedisServer
import shutil, tempfile

binary = shutil.which("redis-server")
if binary is None:
    results["redis"] = "skipped: no redis-server"
else:
    from lionagi.service import SharedAdmission

    async def shared(url):
        backend = SharedAdmission(url=url, key="packaging-audit")
        async with iModel(
            model="scripted/demo", admission_backend=backend, limit_requests=5, interval=60
        ) as model:
            return await model.invoke(prompt="hi")

    with tempfile.TemporaryDirectory() as work, RedisServer(Path(binary), Path(work)) as redis:
        try:
            call = anyio.run(shared, redis.url)
        except BaseException as exc:
            results["redis"] = f"{type(exc).__name__}: {exc}"[:300]
        else:
            results["redis"] = "ok" if call.status is EventStatus.COMPLETED else str(call.status)
print(json.dumps(results))
"""


def _uv_available() -> bool:
    return shutil.which("uv") is not None or importlib.util.find_spec("uv") is not None


def _floor_requirements(wheel: Path, extras: set[str]) -> list[str]:
    """The wheel's third-party ``Requires-Dist`` entries (with ``extras``), markers dropped."""
    with zipfile.ZipFile(wheel) as archive:
        [metadata] = [n for n in archive.namelist() if n.endswith(".dist-info/METADATA")]
        text = archive.read(metadata).decode()
    found = []
    for line in text.splitlines():
        if not line.startswith("Requires-Dist:"):
            continue
        requirement = Requirement(line.split(":", 1)[1].strip())
        marker = requirement.marker
        if marker is not None and not any(marker.evaluate({"extra": e}) for e in extras):
            continue
        if requirement.name.startswith("lionagi"):
            continue
        requirement.marker = None
        found.append(str(requirement))
    return found


@pytest.fixture(scope="module")
def lowest(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh environment: the three wheels, every stated third-party floor held at its floor."""
    if not _uv_available():
        pytest.skip("uv is not installed")
    out = tmp_path_factory.mktemp("dist")
    wheels = {}
    for name, stem in BUILT.items():
        subprocess.run(
            [*uv_command(), "build", "--package", name, "--no-sources", "--wheel", "-o", str(out)],
            cwd=ROOT, check=True, capture_output=True, timeout=120, env=ENV,
        )  # fmt: skip
        [wheels[name]] = out.glob(f"{stem}-*.whl")
    floors = [
        *_floor_requirements(wheels["lionagi-service-core"], {"redis"}),
        *_floor_requirements(wheels["lionagi-service-testing"], set()),
    ]
    env = tmp_path_factory.mktemp("lowest") / "env"
    venv.create(env, with_pip=False, symlinks=True)
    python = env / "bin" / "python"
    # lowest-direct: only what is named here (our wheels and their stated requirements) is held
    # at its floor; what those libraries need in turn resolves as usual.
    done = subprocess.run(
        [*uv_command(), "pip", "install", "--python", str(python), "--resolution",
         "lowest-direct", "--find-links", str(out), *map(str, wheels.values()), *floors],
        capture_output=True, text=True, timeout=300, env=ENV,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return python


def test_the_stated_lower_bounds_work_for_a_user(lowest: Path, tmp_path: Path) -> None:
    ca = trustme.CA()  # not trusted by the client: the handshake must fail, and fail typed
    served = ca.issue_cert("127.0.0.1")
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    served.cert_chain_pems[0].write_to_path(str(cert))
    served.private_key_pem.write_to_path(str(key))
    done = subprocess.run(
        [str(lowest), "-c", CLIENT, str(cert), str(key), str(lowest.parent)],
        capture_output=True, text=True, timeout=120, cwd=tmp_path, env=ENV,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    results = json.loads(done.stdout.strip().splitlines()[-1])
    versions = results.pop("versions")
    assert results.pop("redis") in {"ok", "skipped: no redis-server"}, (versions, results)
    assert results == {"fake_server": "ok", "chat": "ok", "tls": "ok"}, versions
