"""The site's configuration: every page in the nav exists, every page is reachable, and the
docs toolchain stays out of the default (test) install."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def nav_pages() -> list[str]:
    text = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    nav = text[text.index("\nnav:") :]
    return re.findall(r"([\w./-]+\.md)\s*$", nav, re.M)


def test_every_nav_page_exists_and_every_page_is_in_the_nav():
    pages = nav_pages()
    assert not [p for p in pages if not (ROOT / "docs" / p).is_file()]
    on_disk = sorted(str(p.relative_to(ROOT / "docs")) for p in (ROOT / "docs").rglob("*.md"))
    assert not [p for p in on_disk if p not in pages], "a docs page is missing from mkdocs.yml nav"


def test_docs_group_is_not_installed_by_the_readme_test_command():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    groups = project["dependency-groups"]
    assert {"mkdocs-material", "mkdocstrings[python]"} <= {
        re.split(r"[<>=!~ ]", req)[0] for req in groups["docs"]
    }
    # uv installs only `dev` by default; naming `docs` here would put it in every test run.
    default = project.get("tool", {}).get("uv", {}).get("default-groups", ["dev"])
    assert "docs" not in default


def test_ci_builds_the_site_strictly():
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "--group docs mkdocs build --strict" in ci
