"""The testing distribution from wheels: core alone carries no test support; core + testing give
a provider author's plain ``pytest`` run the fixtures and the conformance kit, under anyio's plugin
only and under pytest-asyncio only.

Everything is installed from wheels built with ``uv build --no-sources`` into fresh virtual
environments outside the workspace, so an undeclared dependency or a module the wheel forgot
fails here and not on a user's machine.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import venv
import zipfile
from pathlib import Path

import pytest

from .conftest import uv_command

ROOT = Path(__file__).resolve().parents[2]
ENV = {**os.environ, "UV_PYTHON_DOWNLOADS": "never"}

# A provider author's test module using the plugin's fixtures against a real loopback server; the
# sample adapter's kit run is the workspace's own reference-adapter conformance module, copied.
KIT_TESTS = ROOT / "tests" / "conformance" / "test_reference_cli.py"
SAMPLE_TESTS = """
import json

import httpx



def test_fixture_server_answers_chat(fake_provider_server, leak_check):
    url = fake_provider_server.base_url + "/v1/chat/completions"
    body = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}
    reply = httpx.post(url, json=body, timeout=10)
    assert reply.status_code == 200
    assert reply.json()["choices"][0]["message"]["content"]
    assert fake_provider_server.requests[-1].path == "/v1/chat/completions"


def test_session_server_is_shared(fake_provider_server_session):
    assert fake_provider_server_session.base_url.startswith("http://127.0.0.1:")


ASYNC_TEST

"""

ASYNC_TESTS = {
    "anyio": """
import pytest


@pytest.mark.anyio
async def test_async_test_uses_the_sync_fixture(fake_provider_server):
    async with httpx.AsyncClient(base_url=fake_provider_server.base_url) as client:
        reply = await client.post("/v1/embeddings", json={"model": "m", "input": "x"})
    assert reply.status_code == 200
""",
    "asyncio": """
import pytest


@pytest.mark.asyncio
async def test_async_test_uses_the_sync_fixture(fake_provider_server):
    async with httpx.AsyncClient(base_url=fake_provider_server.base_url) as client:
        reply = await client.post("/v1/embeddings", json={"model": "m", "input": "x"})
    assert reply.status_code == 200
""",
}


def _venv(path: Path, *requirements: str) -> Path:
    venv.create(path, with_pip=False, symlinks=True)
    python = path / "bin" / "python"
    subprocess.run(
        [*uv_command(), "pip", "install", "--python", str(python), *requirements],
        check=True, capture_output=True, timeout=300, env=ENV,
    )  # fmt: skip
    return python


@pytest.fixture(scope="module")
def wheels(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    out = tmp_path_factory.mktemp("dist")
    for package in ("lionagi-service-core", "lionagi-service-testing"):
        subprocess.run(
            [*uv_command(), "build", "--package", package, "--no-sources", "--wheel",
             "-o", str(out)],
            cwd=ROOT, check=True, capture_output=True, timeout=120,
        )  # fmt: skip
    found = {
        "core": list(out.glob("lionagi_service_core-*.whl")),
        "testing": list(out.glob("lionagi_service_testing-*.whl")),
    }
    assert all(len(v) == 1 for v in found.values()), found
    return {k: v[0] for k, v in found.items()}


def test_core_wheel_ships_no_test_support(wheels: dict[str, Path], tmp_path: Path) -> None:
    names = zipfile.ZipFile(wheels["core"]).namelist()
    assert not [n for n in names if "testing" in n or "fake" in n], names
    python = _venv(tmp_path / "core-only", str(wheels["core"]))
    probe = "import importlib.util as u; print(u.find_spec('lionagi.service_testing'))"
    done = subprocess.run([str(python), "-c", probe], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "None"
    server = subprocess.run(
        [str(python.parent / "lionagi-service"), "fake-server", "--port", "0"],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert server.returncode == 2
    assert "pip install lionagi-service-testing" in server.stderr
    # So core's PyPI page (the wheel's long description) must not offer the fake server as
    # core's own: wherever it names it, it names the distribution that brings it.
    with zipfile.ZipFile(wheels["core"]) as archive:
        [meta] = [n for n in names if n.endswith(".dist-info/METADATA")]
        description = archive.read(meta).decode().split("\n\n", 1)[1]
    paragraphs = [p for p in description.split("\n\n") if "fake-server" in p or "fake prov" in p]
    assert all("lionagi-service-testing" in p for p in paragraphs), paragraphs


def test_testing_wheel_ships_no_namespace_init(wheels: dict[str, Path]) -> None:
    names = zipfile.ZipFile(wheels["testing"]).namelist()
    assert "lionagi/__init__.py" not in names
    assert "lionagi/service/__init__.py" not in names
    assert "lionagi/service_testing/py.typed" in names


@pytest.mark.parametrize(
    ("plugin", "flags", "extra"),
    [
        ("anyio", ["-p", "no:asyncio"], []),
        (
            "asyncio",
            [
                "-p",
                "no:anyio",
                "-o",
                "asyncio_mode=strict",
                "-o",
                "asyncio_default_fixture_loop_scope=function",
            ],
            ["pytest-asyncio>=0.23"],
        ),
    ],
)
def test_fixtures_and_kit_work_under_one_async_plugin(
    wheels: dict[str, Path], tmp_path: Path, plugin: str, flags: list[str], extra: list[str]
) -> None:
    python = _venv(tmp_path / "env", str(wheels["core"]), str(wheels["testing"]), *extra)
    project = tmp_path / "acme"
    project.mkdir()
    (project / "test_acme.py").write_text(
        SAMPLE_TESTS.replace("ASYNC_TEST", ASYNC_TESTS[plugin]), encoding="utf-8"
    )
    shutil.copy(KIT_TESTS, project / "test_acme_conformance.py")
    (project / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    done = subprocess.run(
        [str(python), "-m", "pytest", "-q", "-p", "no:cacheprovider", *flags, str(project)],
        capture_output=True, text=True, timeout=600, cwd=project,
        env={k: v for k, v in os.environ.items() if not k.startswith("PYTEST")},
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert " passed" in done.stdout and "error" not in done.stdout.splitlines()[-1]
