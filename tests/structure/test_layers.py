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


def test_vendor_packages_use_only_core_public_modules() -> None:
    """A vendor package (its code and its tests) reaches core through public modules only.

    Each vendor is released on its own against a range of core versions: a private module
    (`lionagi.service._lifecycle...`) may move in any core release, so an import of one breaks
    the vendor, or its test run, without a change to the vendor.
    """
    violations = []
    for pkg in sorted((ROOT / "packages").glob("lionagi-provider-*")):
        for root in (pkg / "src", pkg / "tests"):
            for path in sorted(root.rglob("*.py")):
                for lineno, target in _imports(path, root):
                    parts = target.split(".")
                    if parts[:2] == ["lionagi", "service"] and any(
                        part.startswith("_") and not part.startswith("__") for part in parts[2:]
                    ):
                        violations.append(f"{path.relative_to(ROOT)}:{lineno} imports {target}")
    assert violations == []


# Rooms inside the transport layer: HTTP, the agentic boundary and subprocess mechanics. The
# agentic boundary builds on the HTTP endpoint (AgenticEndpoint subclasses Endpoint) and on
# subprocess support; neither of those knows the agentic boundary exists.
TRANSPORT = "lionagi.service._transport"
ROOMS_MAY_NOT_IMPORT = {
    f"{TRANSPORT}.http": (f"{TRANSPORT}.agentic", f"{TRANSPORT}.subprocess"),
    f"{TRANSPORT}.subprocess": (f"{TRANSPORT}.agentic", f"{TRANSPORT}.http"),
}


def _within(name: str, prefix: str) -> bool:
    return name == prefix or name.startswith(prefix + ".")


def test_transport_rooms_point_one_way() -> None:
    violations = []
    for path in sorted(CORE.rglob("*.py")):
        mod = _module_name(path, CORE)
        for room, forbidden in ROOMS_MAY_NOT_IMPORT.items():
            if not _within(mod, room):
                continue
            for lineno, target in _imports(path, CORE):
                if any(_within(target, other) for other in forbidden):
                    violations.append(f"{path.relative_to(ROOT)}:{lineno} imports {target}")
    assert violations == []


def _module_graph() -> dict[str, set[str]]:
    modules = {_module_name(p, CORE): p for p in CORE.rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for mod, path in modules.items():
        edges = graph.setdefault(mod, set())
        for _, target in _imports(path, CORE):
            while target and target not in modules:
                target = target.rpartition(".")[0]
            if target and target != mod and not mod.startswith(target + "."):
                edges.add(target)
    return graph


def test_core_modules_import_no_cycle() -> None:
    # Every import counts, including TYPE_CHECKING-only and function-local ones: a cycle hidden
    # behind either is still two modules that cannot be understood one without the other. The
    # public package's lazy namespace (lionagi.service) is the one root allowed to name them all.
    graph = _module_graph()
    graph.pop("lionagi.service", None)
    for edges in graph.values():
        edges.discard("lionagi.service")
    seen: dict[str, int] = {}
    cycles: list[list[str]] = []

    def visit(node: str, stack: list[str]) -> None:
        seen[node] = 1
        for nxt in sorted(graph.get(node, ())):
            if seen.get(nxt) == 1:
                cycles.append([*stack[stack.index(nxt) :], nxt])
            elif nxt not in seen:
                visit(nxt, [*stack, nxt])
        seen[node] = 2

    for start in sorted(graph):
        if start not in seen:
            visit(start, [start])
    assert cycles == []
