"""The guides' Python examples run as written, with local stand-ins for the network.

``tests/structure/test_readme.py`` and ``test_quickstart.py`` run the README, quickstart and
hooks blocks; the provider guide's module and test classes run in ``test_provider_guide_http.py``.
This module runs the examples those leave out that need no program, account or internet:

- ``docs/fake-server.md``: every block. They use ``async with`` at the top level, as written
  inside an async function, so each runs inside one.
- ``docs/providers/*.md``: every block that builds an HTTP ``iModel``. Only the connection target
  changes: the row's base URL gets the fake provider server's host (its path is kept, since the
  server routes by suffix) and loopback is allowed; the keys are placeholders for the variables
  the page's own ``export NAME=...`` lines name. A block whose model is agentic (a CLI program or
  a remote agent) is skipped.
- ``docs/production.md``: the shared-admission block, against a throwaway ``redis-server``.
"""

from __future__ import annotations

import ast
import re
import textwrap
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest

import lionagi.service as service
from lionagi.service import AgenticEndpoint
from lionagi.service_testing import FakeProviderServer
from lionagi.service_testing.redis_server import RedisServer, require_redis_server

DOCS = Path(__file__).resolve().parents[2] / "docs"
FAKE_SERVER_PAGE = DOCS / "fake-server.md"
PRODUCTION_PAGE = DOCS / "production.md"
PROVIDER_PAGES = sorted((DOCS / "providers").glob("*.md"))
BLOCK = re.compile(r"```python\n(.*?)```", re.S)
EXPORT = re.compile(r"^export (\w+)=", re.M)


def python_blocks(page: Path) -> list[str]:
    return BLOCK.findall(page.read_text(encoding="utf-8"))


def as_function(code: str) -> str:
    """``code`` as the body of ``async def _example()``, for a block with top-level ``await``."""
    return f"async def _example():\n{textwrap.indent(code, '    ')}\n"


def has_top_level_await(code: str) -> bool:
    try:
        compile(code, "<docs example>", "exec")
    except SyntaxError:
        return True
    return False


def run_block(code: str) -> None:
    """Run a block as a script; one with top-level ``await`` runs as an async function's body."""
    namespace: dict[str, Any] = {"__name__": "__main__"}
    if not has_top_level_await(code):
        exec(compile(code, "<docs example>", "exec"), namespace)
        return
    exec(compile(as_function(code), "<docs example>", "exec"), namespace)
    anyio.run(namespace["_example"])


def calls_the_model(code: str) -> bool:
    """Whether the block calls ``stream`` or ``invoke`` (a call in a comment does not count)."""
    tree = ast.parse(as_function(code) if has_top_level_await(code) else code)
    return any(
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in ("stream", "invoke")
        for node in ast.walk(tree)
    )


class AgenticExample(Exception):
    """The block's model is agentic: it needs a CLI program or a remote agent."""


@contextmanager
def models_on(server: FakeProviderServer, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """``lionagi.service.iModel`` builds HTTP models pointed at ``server``, path kept."""
    base: Any = service.iModel

    class FakeServerModel(base):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            probe = base(*args, **kwargs)  # the row as the page selects it
            if isinstance(probe.endpoint, AgenticEndpoint):
                raise AgenticExample(type(probe.endpoint).__name__)
            path = httpx.URL(probe.endpoint.config.base_url).path.rstrip("/")
            kwargs.update(base_url=server.base_url + path, allow_local_network=True)
            super().__init__(*args, **kwargs)

    monkeypatch.setattr(service, "iModel", FakeServerModel)
    yield


def provider_examples() -> list[Any]:
    return [
        pytest.param(page, code, id=f"{page.stem}-{index}")
        for page in PROVIDER_PAGES
        for index, code in enumerate(python_blocks(page))
        if "iModel(" in code
    ]


def test_the_examples_are_found():
    assert len(python_blocks(FAKE_SERVER_PAGE)) >= 2
    examples = provider_examples()
    assert len(examples) >= 15, [p.id for p in examples]
    assert sum(calls_the_model(p.values[1]) for p in examples) >= 13
    assert any("SharedAdmission(" in code for code in python_blocks(PRODUCTION_PAGE))


@pytest.mark.parametrize("index", range(len(python_blocks(FAKE_SERVER_PAGE))))
def test_fake_server_page_example_runs(index: int):
    run_block(python_blocks(FAKE_SERVER_PAGE)[index])


@pytest.mark.parametrize(("page", "code"), provider_examples())
def test_provider_page_example_runs_against_the_fake_server(
    page: Path, code: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
):
    for name in EXPORT.findall(page.read_text(encoding="utf-8")):
        monkeypatch.setenv(name, "docs-example-key-0000")
    with FakeProviderServer.running_in_thread() as server, models_on(server, monkeypatch):
        try:
            run_block(code)
        except AgenticExample as agentic:
            pytest.skip(f"agentic model ({agentic}): needs its program or a remote agent")
        requests = list(server.requests)
    if calls_the_model(code):
        assert requests, "the example called its model but no request reached the server"
        assert capsys.readouterr().out.strip(), "the example printed nothing"


def test_production_shared_admission_example(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    import redis

    (code,) = [c for c in python_blocks(PRODUCTION_PAGE) if "SharedAdmission(" in c]
    documented = re.search(r'url="(redis://[^"]+)"', code)
    assert documented, "the block lost its Redis URL"
    monkeypatch.setenv("OPENAI_API_KEY", "docs-example-key-0000")
    with (
        RedisServer(require_redis_server(), tmp_path, password="password") as redis_server,
        FakeProviderServer.running_in_thread() as server,
        models_on(server, monkeypatch),
    ):
        local = code.replace(documented.group(1), redis_server.url)  # a local Redis instead
        namespace: dict[str, Any] = {"__name__": "__main__"}
        exec(compile(local, "<docs example>", "exec"), namespace)
        model = namespace["model"]

        async def call() -> Any:
            async with model:
                done = await model.invoke(messages=[{"role": "user", "content": "hi"}])
                return done.status

        assert anyio.run(call) == "completed"
        client = redis.Redis.from_url(redis_server.url)
        try:
            # The key name the page documents: lionagi:admission:{<key>}:rate.
            assert client.exists("lionagi:admission:{openai-prod}:rate")
        finally:
            client.close()
