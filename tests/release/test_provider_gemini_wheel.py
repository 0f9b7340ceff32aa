"""Release check for ``pip install lionagi-service-core lionagi-provider-gemini`` (issue 12).

Builds the core, testing and gemini wheels with ``uv build --no-sources`` (what a release does),
installs core + gemini into a fresh virtual environment outside the workspace, and checks what
that user gets: a catalog of exactly ``gemini`` and ``scripted``, and
``iModel(model="gemini/gemini-2.5-flash", base_url=<fake server>, allow_local_network=True)``
streaming and invoking. The fake server comes from the testing wheel, installed in a second
environment of its own and run as a process, so nothing from the workspace serves the test.
When the workspace holds ``lionagi-provider-openai`` too, its wheel is added to the first
environment and must appear in the catalog, then uninstalled and must disappear from it, the
``lionagi`` namespace and the remaining provider importable each time (issue 17, item 3).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import venv
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from .conftest import uv_command

ROOT = Path(__file__).resolve().parents[2]
ENV = {**os.environ, "UV_PYTHON_DOWNLOADS": "never"}
ENV.pop("GEMINI_API_KEY", None)
PACKAGES = {
    "core": ("lionagi-service-core", "lionagi_service_core"),
    "testing": ("lionagi-service-testing", "lionagi_service_testing"),
    "gemini": ("lionagi-provider-gemini", "lionagi_provider_gemini"),
    "openai": ("lionagi-provider-openai", "lionagi_provider_openai"),
}

# Run inside the core + gemini environment: stream, then invoke, through the default (chat)
# endpoint and the native one, then invoke the two native embeddings rows; prints one JSON line
# of what it saw.
CLIENT = """
import json, sys
import anyio
from lionagi.service import iModel

fake = sys.argv[1]
CONTENTS = [{"role": "user", "parts": [{"text": "hello"}]}]


async def main():
    seen = {}
    async with iModel(
        model="gemini/gemini-2.5-flash", base_url=fake + "/v1beta/openai",
        api_key="test-key", allow_local_network=True,
    ) as model:
        chunks = [c async for c in model.stream(messages=[{"role": "user", "content": "hi"}])]
        call = await model.invoke(messages=[{"role": "user", "content": "hi"}])
        seen["chat"] = {
            "endpoint": model.endpoint.config.endpoint,
            "types": [c.type for c in chunks],
            "text": "".join(c.content or "" for c in chunks if c.type == "text"),
            "invoked": call.execution.response["choices"][0]["message"]["content"],
            "status": str(call.execution.status),
        }
    async with iModel(
        model="gemini/gemini-2.5-flash", endpoint="generate", base_url=fake + "/v1beta",
        api_key="test-key", allow_local_network=True,
    ) as model:
        chunks = [c async for c in model.stream(contents=CONTENTS)]
        call = await model.invoke(contents=CONTENTS)
        parts = call.execution.response["candidates"][0]["content"]["parts"]
        seen["generate"] = {
            "types": [c.type for c in chunks],
            "text": "".join(c.content or "" for c in chunks if c.type == "text"),
            "invoked": "".join(p.get("text", "") for p in parts),
            "usage": chunks[-1].metadata.get("usage"),
        }
    CONTENT = {"parts": [{"text": "hello"}]}
    for endpoint, request in (
        ("native_embed", {"content": CONTENT}),
        ("native_batch_embed", {"requests": [{"content": CONTENT}, {"content": CONTENT}]}),
    ):
        async with iModel(
            model="gemini/gemini-embedding-001", endpoint=endpoint, base_url=fake + "/v1beta",
            api_key="test-key", allow_local_network=True,
        ) as model:
            call = await model.invoke(**request)
            seen[endpoint] = {
                "endpoint": model.endpoint.config.endpoint,
                "status": str(call.execution.status),
                "response": call.execution.response,
            }
    print(json.dumps(seen))


anyio.run(main)
"""


def _venv(path: Path, *wheels: Path) -> Path:
    venv.create(path, with_pip=False, symlinks=True)
    python = path / "bin" / "python"
    subprocess.run(
        [*uv_command(), "pip", "install", "--python", str(python), *map(str, wheels)],
        check=True, capture_output=True, timeout=300, env=ENV,
    )  # fmt: skip
    return python


def _wanted() -> list[str]:
    names = ["core", "testing", "gemini"]
    if (ROOT / "packages" / PACKAGES["openai"][0]).is_dir():
        names.append("openai")
    return names


@pytest.fixture(scope="module")
def wheels(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    out = tmp_path_factory.mktemp("dist")
    found: dict[str, Path] = {}
    for name in _wanted():
        package, stem = PACKAGES[name]
        subprocess.run(
            [*uv_command(), "build", "--package", package, "--no-sources", "--wheel",
             "-o", str(out)],
            cwd=ROOT, check=True, capture_output=True, timeout=180, env=ENV,
        )  # fmt: skip
        [found[name]] = out.glob(f"{stem}-*.whl")
    return found


@pytest.fixture(scope="module")
def user_env(wheels: dict[str, Path], tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``pip install lionagi-service-core lionagi-provider-gemini``, outside the workspace."""
    return _venv(tmp_path_factory.mktemp("user") / "env", wheels["core"], wheels["gemini"])


@pytest.fixture(scope="module")
def fake_url(wheels: dict[str, Path], tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The testing wheel's fake server, run from an environment of its own."""
    python = _venv(tmp_path_factory.mktemp("fake") / "env", wheels["core"], wheels["testing"])
    server = subprocess.Popen(
        [str(python.parent / "lionagi-service"), "fake-server", "--port", "0"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=ENV,
    )  # fmt: skip
    try:
        assert server.stdout is not None
        line = server.stdout.readline()
        match = re.search(r"http://127\.0\.0\.1:\d+", line)
        assert match, f"no URL in the fake server's first line: {line!r}"
        yield match.group(0)
    finally:
        server.terminate()
        try:
            server.wait(timeout=15)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait(timeout=15)
        for stream in (server.stdout, server.stderr):
            if stream is not None:
                stream.close()


def test_gemini_wheel_is_a_namespace_portion_with_its_entry_point(
    wheels: dict[str, Path],
) -> None:
    archive = zipfile.ZipFile(wheels["gemini"])
    names = archive.namelist()
    assert "lionagi/__init__.py" not in names
    assert "lionagi/providers/__init__.py" not in names
    assert "lionagi/providers/gemini/__init__.py" in names
    assert "lionagi/providers/gemini/py.typed" in names
    [entry_points] = [n for n in names if n.endswith(".dist-info/entry_points.txt")]
    text = archive.read(entry_points).decode()
    assert "[lionagi.providers]" in text
    assert "gemini = lionagi.providers.gemini" in text
    [metadata] = [n for n in names if n.endswith(".dist-info/METADATA")]
    meta = archive.read(metadata).decode()
    requires = [line.split(":", 1)[1].strip() for line in meta.splitlines() if
                line.startswith("Requires-Dist:")]  # fmt: skip
    # One runtime dependency; the vendor SDKs are test-only (the dev group, not the wheel).
    assert [r.replace(" ", "") for r in requires] == ["lionagi-service-core>=0.1,<0.2"]


def test_providers_json_lists_exactly_gemini_and_scripted(user_env: Path) -> None:
    done = subprocess.run(
        [str(user_env.parent / "lionagi-service"), "providers", "--json"],
        capture_output=True, text=True, timeout=60, cwd=user_env.parent, env=ENV,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    catalog = json.loads(done.stdout)
    assert catalog["valid"] is True
    assert sorted(p["provider"] for p in catalog["providers"]) == ["gemini", "scripted"]
    [gemini] = [p for p in catalog["providers"] if p["provider"] == "gemini"]
    assert gemini["distribution"] == "lionagi-provider-gemini"
    assert [e["endpoint"] for e in gemini["endpoints"]] == [  # the report sorts them
        "batch_embed_contents",
        "chat/completions",
        "embed_content",
        "embeddings",
        "generate_content",
    ]


def test_imodel_streams_and_invokes_from_the_installed_wheels(
    user_env: Path, fake_url: str
) -> None:
    done = subprocess.run(
        [str(user_env), "-c", CLIENT, fake_url],
        capture_output=True, text=True, timeout=120, cwd=user_env.parent, env=ENV,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    chat, native = seen["chat"], seen["generate"]
    assert chat["endpoint"] == "chat/completions"
    assert chat["types"][-1] == "result"
    assert chat["text"]
    assert chat["invoked"] == chat["text"]
    assert native["types"][-1] == "result"
    assert native["text"]
    assert native["invoked"] == native["text"]
    assert native["usage"]["promptTokenCount"]
    single, batch = seen["native_embed"], seen["native_batch_embed"]
    assert (single["endpoint"], batch["endpoint"]) == ("embed_content", "batch_embed_contents")
    assert single["status"] == batch["status"] == "completed"
    vector = single["response"]["embedding"]["values"]
    assert vector
    # One embedding per entry; the same text embeds the same on either method.
    assert batch["response"]["embeddings"] == [{"values": vector}, {"values": vector}]


def _catalog(user_env: Path, cwd: Path) -> list[str]:
    done = subprocess.run(
        [str(user_env.parent / "lionagi-service"), "providers", "--json"],
        capture_output=True, text=True, timeout=60, cwd=cwd, env=ENV,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["valid"] is True
    return sorted(p["provider"] for p in report["providers"])


def _namespace_imports(user_env: Path, cwd: Path) -> None:
    # `lionagi` and `lionagi.providers` stay PEP 420 namespaces whatever is added or removed.
    code = (
        "import lionagi, lionagi.providers, lionagi.service, lionagi.providers.gemini; "
        "assert getattr(lionagi, '__file__', None) is None; "
        "assert getattr(lionagi.providers, '__file__', None) is None; "
        "from lionagi.service import iModel; print(iModel.__module__)"
    )
    done = subprocess.run(
        [str(user_env), "-c", code], capture_output=True, text=True, timeout=60, cwd=cwd, env=ENV,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "lionagi.service._facade.imodel"


def test_adding_then_removing_the_openai_wheel(
    wheels: dict[str, Path], user_env: Path, tmp_path: Path
) -> None:
    if "openai" not in wheels:
        pytest.skip("lionagi-provider-openai is not in this workspace yet")
    assert _catalog(user_env, tmp_path) == ["gemini", "scripted"]
    subprocess.run(
        [*uv_command(), "pip", "install", "--python", str(user_env), str(wheels["openai"])],
        check=True, capture_output=True, timeout=300, env=ENV,
    )  # fmt: skip
    assert _catalog(user_env, tmp_path) == ["gemini", "openai", "scripted"]
    _namespace_imports(user_env, tmp_path)
    # Removing a provider removes its rows and leaves the namespace and the others working.
    subprocess.run(
        [*uv_command(), "pip", "uninstall", "--python", str(user_env), "lionagi-provider-openai"],
        check=True, capture_output=True, timeout=120, env=ENV,
    )  # fmt: skip
    assert _catalog(user_env, tmp_path) == ["gemini", "scripted"]
    _namespace_imports(user_env, tmp_path)
    site = user_env.parent.parent / "lib"
    assert not list(site.glob("python*/site-packages/lionagi/providers/openai/*.py"))
