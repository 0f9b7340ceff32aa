"""The API pages render every public name of ``lionagi.service`` and its adapter-author modules.

A name counts as documented when an API page (``docs/api.md`` or ``docs/api/*.md``) has a
mkdocstrings line ``::: <module>.<name>`` for it, or for the same object under the same name
in another of these modules (``ProviderErrorPattern`` is exported by both ``http`` and
``agentic`` and rendered once). Exception classes are not rendered: ``docs/errors.md`` has a
row for each instead (``test_errors_page.py`` checks the rows against the tree).
"""

from __future__ import annotations

import importlib
import inspect
import re
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
