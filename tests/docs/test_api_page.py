"""The API pages render every public name of ``lionagi.service`` and its adapter-author modules.

A name counts as documented when an API page (``docs/api.md`` or ``docs/api/*.md``) has a
mkdocstrings line ``::: <module>.<name>`` for it, or for the same object under the same name
in another of these modules (``ProviderErrorPattern`` is exported by both ``http`` and
``agentic`` and rendered once). Exception classes are not rendered: ``docs/errors.md`` has a
row for each instead (``test_errors_page.py`` checks the rows against the tree).

The docstrings those blocks render (each object's and its public members', read from the source
as griffe reads them) are Markdown: no Sphinx roles and no reST double-backtick literals.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import inspect
import re
from collections.abc import Iterator
from pathlib import Path

DOCS = Path(__file__).resolve().parents[2] / "docs"
API_PAGES = (DOCS / "api.md", *sorted((DOCS / "api").glob("*.md")))
ERRORS_PAGE = DOCS / "errors.md"

MODULES = (
    "lionagi.service",
    "lionagi.service.http",
    "lionagi.service.agentic",
    "lionagi.service.lifecycle",
)

# Names mkdocstrings cannot render under `mkdocs build --strict` (griffe warns about their
# docstrings, and strict mode fails the build), each mapped to the page that describes it in
# prose instead, with the reason beside it. Empty today: fix such a docstring in the source
# rather than adding an entry.
NOT_RENDERED: dict[str, str] = {}

BLOCK = re.compile(r"^::: ([\w.]+)\s*$", re.M)


def public_names() -> dict[str, object]:
    """``{"<module>.<name>": object}`` for every name in the four modules' ``__all__``."""
    names: dict[str, object] = {}
    for module_name in MODULES:
        module = importlib.import_module(module_name)
        for name in module.__all__:
            names[f"{module_name}.{name}"] = getattr(module, name)
    return names


def is_exception(obj: object) -> bool:
    return inspect.isclass(obj) and issubclass(obj, BaseException)


def rendered_paths() -> list[str]:
    return [m for page in API_PAGES for m in BLOCK.findall(page.read_text(encoding="utf-8"))]


def test_every_public_name_is_rendered_or_in_the_error_reference():
    public = public_names()
    rendered = set(rendered_paths())
    # (name, object) pairs already on a page, so a re-export of the same object counts.
    shown = [(path.rsplit(".", 1)[1], public[path]) for path in rendered if path in public]
    errors = ERRORS_PAGE.read_text(encoding="utf-8")
    missing: list[str] = []
    for path, obj in public.items():
        name = path.rsplit(".", 1)[1]
        if is_exception(obj):
            if f"| `{name}` |" not in errors:
                missing.append(f"{path} (exception: no row in docs/errors.md)")
        elif path in NOT_RENDERED:
            continue
        elif path not in rendered and not any(n == name and o is obj for n, o in shown):
            missing.append(path)
    assert not missing, f"on no API page (add a `::: <module>.<name>` block): {missing}"


def test_every_block_names_a_public_non_exception_once():
    public = public_names()
    paths = rendered_paths()
    assert not [p for p in paths if p not in public], "a `:::` block names no public name"
    assert not [p for p in paths if is_exception(public[p])], "link exceptions to errors.md"
    assert len(paths) == len(set(paths)), "a name is rendered twice"


def test_names_that_cannot_be_rendered_are_described_in_prose():
    public = public_names()
    rendered = set(rendered_paths())
    for path, page in NOT_RENDERED.items():
        assert path in public, f"{path} is no longer public: drop it from NOT_RENDERED"
        assert path not in rendered, f"{path} is rendered now: drop it from NOT_RENDERED"
        text = (DOCS / "api" / page).read_text(encoding="utf-8")
        assert f"`{path}`" in text, f"docs/api/{page} does not describe {path}"


def test_the_index_links_every_api_page_and_the_error_reference():
    index = (DOCS / "api.md").read_text(encoding="utf-8")
    assert "](errors.md)" in index
    for page in API_PAGES[1:]:
        assert f"](api/{page.name})" in index, f"docs/api.md does not link api/{page.name}"


# mkdocstrings renders docstrings as Markdown (`docstring_style: google`): a Sphinx role such
# as :class:`Foo` or a reST ``literal`` shows up on the page as written. A rendered docstring
# names an object as a code span, `Foo` or `Foo.bar`, instead.
SPHINX_ROLE = re.compile(r":(?:class|meth|func|attr|mod|exc|data|obj|ref):`")
REST_LITERAL = re.compile(r"(?<!`)``(?!`)")


def _module_tree(module_name: str) -> tuple[str, ast.Module]:
    """The package relative imports in ``module_name`` resolve against, and its syntax tree."""
    module = importlib.import_module(module_name)
    source = Path(inspect.getfile(module)).read_text(encoding="utf-8")
    package = module.__name__ if hasattr(module, "__path__") else module.__package__
    return package or "", ast.parse(source)


def _statements(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """``body`` with the statements under ``if``/``try`` inlined, as griffe visits them."""
    for node in body:
        if isinstance(node, ast.If):
            yield from _statements(node.body)
            yield from _statements(node.orelse)
        elif isinstance(node, ast.Try):
            yield from _statements([*node.body, *node.orelse, *node.finalbody])
        else:
            yield node


def _bound_names(node: ast.stmt) -> list[str]:
    if isinstance(node, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
        return [node.name]
    targets = node.targets if isinstance(node, ast.Assign) else [getattr(node, "target", None)]
    return [t.id for t in targets if isinstance(t, ast.Name)]


def _definition(module_name: str, name: str) -> tuple[ast.stmt, str | None]:
    """Where ``name`` of ``module_name`` is defined, following ``from x import y as name``.

    Returns the defining statement and the attribute docstring after it (a string statement
    right after an assignment, which mkdocstrings renders as the name's docstring).
    """
    package, tree = _module_tree(module_name)
    body = list(_statements(tree.body))
    for index, node in enumerate(body):
        if isinstance(node, ast.ImportFrom):
            for alias in node.names:
                if (alias.asname or alias.name) == name:
                    source = "." * node.level + (node.module or "")
                    return _definition(importlib.util.resolve_name(source, package), alias.name)
        elif name in _bound_names(node):
            following = body[index + 1] if index + 1 < len(body) else None
            return node, _string(following)
    raise AssertionError(f"{module_name}.{name}: no definition found")


def _string(node: ast.stmt | None) -> str | None:
    if (
        isinstance(node, ast.Expr)
        and isinstance(node.value, ast.Constant)
        and isinstance(node.value.value, str)
    ):
        return node.value.value
    return None


def _is_rendered_member(name: str) -> bool:
    """mkdocstrings' default member filter: no ``_private`` names, dunders allowed."""
    return not name.startswith("_") or (name.startswith("__") and name.endswith("__"))


def _docstrings(path: str, node: ast.stmt) -> Iterator[tuple[str, str]]:
    """``(path, docstring)`` for a class or function and the members rendered with it."""
    if not isinstance(node, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
        return
    doc = ast.get_docstring(node, clean=False)
    if doc:
        yield path, doc
    if not isinstance(node, ast.ClassDef):
        return
    body = list(_statements(node.body))
    for index, member in enumerate(body):
        for name in _bound_names(member):
            if not _is_rendered_member(name):
                continue
            if isinstance(member, (ast.Assign, ast.AnnAssign)):
                following = body[index + 1] if index + 1 < len(body) else None
                attribute_doc = _string(following)
                if attribute_doc:
                    yield f"{path}.{name}", attribute_doc
            else:
                yield from _docstrings(f"{path}.{name}", member)


def rendered_docstrings() -> list[tuple[str, str]]:
    """Every docstring an API page renders: each ``:::`` object's and its public members'."""
    found: list[tuple[str, str]] = []
    for path in rendered_paths():
        module_name, name = path.rsplit(".", 1)
        node, attribute_doc = _definition(module_name, name)
        if attribute_doc:
            found.append((path, attribute_doc))
        found.extend(_docstrings(path, node))
    return found


def test_rendered_docstrings_are_found():
    docs = dict(rendered_docstrings())
    # A class, one of its methods, a class attribute's docstring and a module constant's
    # (both written as a string after the assignment), found as griffe finds them.
    assert "lionagi.service.iModel" in docs
    assert "lionagi.service.Endpoint.stream" in docs
    assert "lionagi.service.agentic.CliRequest.prompt" in docs
    assert "lionagi.service.http.DONE" in docs
    assert len(docs) > 300


def test_rendered_docstrings_are_markdown_not_rest():
    bad = [
        f"{path}: {line.strip()}"
        for path, doc in rendered_docstrings()
        for line in doc.splitlines()
        if SPHINX_ROLE.search(line) or REST_LITERAL.search(line)
    ]
    assert not bad, (
        "a docstring on an API page uses a Sphinx role or a reST ``literal``; mkdocstrings "
        "renders Markdown, so write `Name` instead:\n" + "\n".join(bad)
    )
