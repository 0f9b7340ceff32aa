"""The testing distribution's own tests: what ``pip install lionagi-service-testing`` provides.

They run in its exact environment (``scripts/test-packages``: testing, core, their runtime
dependencies and the ``dev`` group only) and in the workspace's shared one. The import check is
static as well as dynamic, so an import of a distribution testing does not declare (a provider
package, say) fails even where that distribution happens to be installed.
"""

from __future__ import annotations

import ast
import importlib
import importlib.metadata as metadata
import pkgutil
import re
import sys
from pathlib import Path

import httpx
import pytest

import lionagi.service_testing
from lionagi.service_testing.fake_server import FakeProviderServer

DIST = "lionagi-service-testing"
SRC = Path(__file__).resolve().parents[1] / "src" / "lionagi" / "service_testing"
# The public core modules this distribution is allowed to use (see its README).
CORE_PUBLIC = {
    "lionagi.service",
    "lionagi.service.agentic",
    "lionagi.service.http",
    "lionagi.service.lifecycle",
}


def _declared_distributions() -> set[str]:
    names = set()
    for requirement in metadata.requires(DIST) or []:
        if "extra ==" in requirement:
            continue
        names.add(re.split(r"[\s<>=!~;\[(]", requirement, maxsplit=1)[0].lower().replace("_", "-"))
    return names


def test_every_module_imports() -> None:
    prefix = lionagi.service_testing.__name__ + "."
    names = [info.name for info in pkgutil.walk_packages(lionagi.service_testing.__path__, prefix)]
    assert f"{prefix}pytest_plugin" in names
    for name in names:
        importlib.import_module(name)


def test_imports_only_declared_distributions_and_public_core() -> None:
    declared = _declared_distributions()
    assert "lionagi-service-core" in declared
    owners_of = metadata.packages_distributions()
    problems: dict[str, set[str]] = {}
    for path in sorted(SRC.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
            for name in names:
                top = name.split(".")[0]
                if top in sys.stdlib_module_names or name.startswith("lionagi.service_testing"):
                    continue
                if name.startswith("lionagi."):
                    if name not in CORE_PUBLIC:
                        problems.setdefault(name, set()).add(str(path.relative_to(SRC)))
                    continue
                owners = {d.lower().replace("_", "-") for d in owners_of.get(top, [])}
                if not owners & declared:
                    problems.setdefault(name, set()).add(str(path.relative_to(SRC)))
    assert not problems, f"undeclared or private imports: {problems}"


def test_pytest_plugin_is_registered_by_entry_point(pytestconfig: pytest.Config) -> None:
    points = metadata.entry_points(group="pytest11")
    assert "lionagi.service_testing.pytest_plugin" in {point.value for point in points}
    assert pytestconfig.pluginmanager.has_plugin("lionagi_service_testing")


def test_fake_server_answers_a_chat_completion() -> None:
    with FakeProviderServer.running_in_thread() as server:
        body = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}
        reply = httpx.post(server.base_url + "/v1/chat/completions", json=body, timeout=10)
        assert reply.status_code == 200
        assert reply.json()["choices"][0]["message"]["content"]
        assert server.requests[-1].path == "/v1/chat/completions"


def test_plugin_fixture_serves(fake_provider_server: FakeProviderServer, leak_check: None) -> None:
    assert fake_provider_server.base_url.startswith("http://127.0.0.1:")
