"""docs/errors.md is the exception tree of ``lionagi.service``, class for class."""

from __future__ import annotations

import inspect
import re
from pathlib import Path

import lionagi.service as service

PAGE = Path(__file__).resolve().parents[2] / "docs" / "errors.md"


def public_exceptions() -> dict[str, type[BaseException]]:
    return {
        name: obj
        for name in service.__all__
        if inspect.isclass(obj := getattr(service, name)) and issubclass(obj, BaseException)
    }


def public_bases(cls: type) -> list[type]:
    """``cls``'s bases a user can name: a private mixin (``_NamesField``) is no part of the tree."""
    return [base for base in cls.__bases__ if not base.__name__.startswith("_")]


def expected_tree() -> list[str]:
    """Each class under its first parent, its other parents named, builtins as roots."""
    classes = public_exceptions()
    children: dict[str, list[str]] = {}
    for name, cls in classes.items():
        children.setdefault(public_bases(cls)[0].__name__, []).append(name)
    lines: list[str] = []

    def show(name: str, depth: int) -> None:
        others = [b.__name__ for b in public_bases(classes[name])[1:]]
        extra = f"  (also {', '.join(others)})" if others else ""
        lines.append("    " * depth + name + extra)
        for child in sorted(children.get(name, [])):
            show(child, depth + 1)

    roots = sorted({public_bases(c)[0].__name__ for c in classes.values()} - set(classes))
    for root in roots:
        lines.append(root)
        for name in sorted(children[root]):
            show(name, 1)
    return lines


def test_the_page_tree_is_the_exception_tree():
    text = PAGE.read_text(encoding="utf-8")
    match = re.search(r"## The tree.*?```text\n(?P<tree>.*?)```", text, re.S)
    assert match, "docs/errors.md lost its tree block"
    assert match.group("tree").splitlines() == expected_tree()


def test_every_public_exception_has_a_row():
    text = PAGE.read_text(encoding="utf-8")
    missing = [name for name in public_exceptions() if f"| `{name}` |" not in text]
    assert not missing, f"docs/errors.md has no row for {missing}"
