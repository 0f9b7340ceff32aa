"""Core's own tests: what ``pip install lionagi-service-core`` alone must provide.

They run in core's exact environment (``scripts/test-packages``: core, its runtime dependencies
and its ``dev`` group, nothing else) and in the workspace's shared one; nothing here may assume
a sibling distribution is absent or present. The import check is static as well as dynamic, so
an undeclared import fails even in the shared environment where the module happens to exist.
"""

from __future__ import annotations

import ast
import importlib
import importlib.metadata as metadata
import json
import pkgutil
import re
import subprocess
import sys
from pathlib import Path

import anyio

import lionagi.service
from lionagi.service import iModel

DIST = "lionagi-service-core"
SRC = Path(__file__).resolve().parents[1] / "src" / "lionagi" / "service"


def _modules() -> list[str]:
    found = [lionagi.service.__name__]
    for info in pkgutil.walk_packages(lionagi.service.__path__, prefix="lionagi.service."):
        found.append(info.name)
    return sorted(found)


def _declared_distributions() -> set[str]:
    names = set()
    # An optional extra's library counts: the modules that import it are loaded only when the
    # user opts in (redis admission, telemetry), which their own tests check.
    for requirement in metadata.requires(DIST) or []:
        names.add(re.split(r"[\s<>=!~;\[(]", requirement, maxsplit=1)[0].lower().replace("_", "-"))
    return names


def test_every_module_imports() -> None:
    modules = _modules()
    assert "lionagi.service.cli" in modules
    assert "lionagi.service.scripted" in modules
    for name in modules:
        importlib.import_module(name)


def test_lionagi_stays_a_namespace_package() -> None:
    import lionagi

    assert getattr(lionagi, "__file__", None) is None
    assert not (SRC.parent / "__init__.py").exists()


def test_core_imports_only_what_it_declares() -> None:
    """Every top-level import in core's source is stdlib, ``lionagi.service`` or declared."""
    declared = _declared_distributions()
    providers = metadata.packages_distributions()
    undeclared: dict[str, set[str]] = {}
    for path in sorted(SRC.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                roots = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                roots = [node.module]
            else:
                continue
            for name in roots:
                top = name.split(".")[0]
                if top in sys.stdlib_module_names or name.startswith("lionagi.service"):
                    continue
                owners = {d.lower().replace("_", "-") for d in providers.get(top, [])}
                if not owners & declared:
                    undeclared.setdefault(name, set()).add(str(path.relative_to(SRC)))
    assert not undeclared, f"imports of undeclared distributions: {undeclared}"


def test_version_matches_the_distribution() -> None:
    assert re.fullmatch(r"\d+\.\d+\.\d+.*", metadata.version(DIST))


def test_scripted_provider_streams_and_invokes() -> None:
    async def main() -> tuple[list[str], str]:
        async with iModel(model="scripted/demo") as model:
            kinds = [chunk.type async for chunk in model.stream(prompt="hello")]
            call = await model.invoke(prompt="hello")
            return kinds, str(call.status)

    kinds, status = anyio.run(main)
    assert kinds[-1] == "result"
    assert "text" in kinds
    assert "completed" in status.lower()


def test_command_line_lists_the_scripted_provider(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-c", "import sys; from lionagi.service.cli import main; "
         "sys.exit(main(['providers', '--json']))"],
        capture_output=True, text=True, timeout=60, cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["valid"] is True
    scripted = [row for row in report["providers"] if row["provider"] == "scripted"]
    assert [row["distribution"] for row in scripted] == [DIST]
