"""Import direction inside core, and the vendor boundary, checked from the source text.

Layers point one way: _base <- _transport <- _catalog <- _lifecycle <- _facade <- cli.
Core never imports a vendor module; vendor packages never import each other.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CORE = ROOT / "packages" / "lionagi-service-core" / "src"
LAYERS = {
    "lionagi.service._base": 0,
    "lionagi.service._transport": 1,
    "lionagi.service._catalog": 2,
    "lionagi.service._lifecycle": 3,
    "lionagi.service._facade": 4,
    "lionagi.service.cli": 5,
}


def _module_name(path: Path, src: Path) -> str:
    parts = list(path.relative_to(src).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _imports(path: Path, src: Path) -> Iterator[tuple[int, str]]:
    module = _module_name(path, src)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    tree = ast.parse(path.read_text(), filename=str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            yield node.lineno, target
            for alias in node.names:
                yield node.lineno, f"{target}.{alias.name}"


def _layer(name: str) -> int | None:
    for prefix, layer in LAYERS.items():
        if name == prefix or name.startswith(prefix + "."):
            return layer
    if name == "lionagi.service" or name.startswith("lionagi.service."):
        return 6  # public package, scripted adapter, testing support
    return None


def test_core_layers_point_down() -> None:
    violations = []
    for path in sorted(CORE.rglob("*.py")):
        mod = _module_name(path, CORE)
        own = _layer(mod)
        if own is None or own >= 5:
            continue
        for lineno, target in _imports(path, CORE):
            other = _layer(target)
            if other is not None and other > own:
                violations.append(f"{path.relative_to(ROOT)}:{lineno} imports {target}")
    assert violations == []


def test_core_names_no_vendor_module() -> None:
    violations = [
        f"{path.relative_to(ROOT)}:{lineno} imports {target}"
        for path in sorted(CORE.rglob("*.py"))
        for lineno, target in _imports(path, CORE)
        if target.startswith("lionagi.providers")
    ]
    assert violations == []


def test_vendors_do_not_import_each_other() -> None:
    violations = []
    for pkg in sorted((ROOT / "packages").glob("lionagi-provider-*")):
        src = pkg / "src"
        own = {p.name for p in (src / "lionagi" / "providers").iterdir() if p.is_dir()}
        for path in sorted(src.rglob("*.py")):
            for lineno, target in _imports(path, src):
                parts = target.split(".")
                foreign = len(parts) > 2 and parts[2] not in own
                if parts[:2] == ["lionagi", "providers"] and foreign:
                    violations.append(f"{path.relative_to(ROOT)}:{lineno} imports {target}")
    assert violations == []
