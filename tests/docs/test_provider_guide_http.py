"""The HTTP conformance examples of the provider guide pass against the guide's own module.

docs/writing-a-provider.md shows a thin OpenAI-compatible vendor module and the test class for
it; docs/conformance.md shows the same test class with one more flag. Both classes are taken
from the pages as written, the module is made visible to the catalog path-wise (a hand-written
``.dist-info`` with the ``lionagi.providers`` entry point, as the guide describes), and the
classes run in a fresh pytest process with no async plugin.
"""

from __future__ import annotations

import re
from pathlib import Path

from ._path_install import run_tests, write_dist_info

DOCS = Path(__file__).resolve().parents[2] / "docs"
GUIDE = DOCS / "writing-a-provider.md"
CONFORMANCE = DOCS / "conformance.md"


def marked_block(page: Path, marker: str) -> str:
    """The python block between ``<!-- marker:begin -->`` and ``<!-- marker:end -->``."""
    pattern = re.compile(
        rf"<!-- {marker}:begin -->\s*```python\n(?P<code>.*?)```\s*<!-- {marker}:end -->", re.S
    )
    match = pattern.search(page.read_text(encoding="utf-8"))
    assert match, f"docs/{page.name} lost its {marker} block"
    return match.group("code")


def install_acme_path_wise(root: Path) -> list[Path]:
    """Write the guide's module and a ``.dist-info`` for it; the directories to import from."""
    src = root / "src"
    package = src / "lionagi" / "providers" / "acme"  # no __init__.py above it: a namespace
    package.mkdir(parents=True)
    (package / "__init__.py").write_text(marked_block(GUIDE, "guide-acme-module"), "utf-8")
    site = root / "site"
    write_dist_info(site, "lionagi-provider-acme", "0.1.0", {"acme": "lionagi.providers.acme"})
    return [src, site]


def test_the_documented_http_kit_classes_pass_against_the_guides_module(tmp_path):
    paths = install_acme_path_wise(tmp_path)
    tests = tmp_path / "tests"
    tests.mkdir()
    (tests / "test_guide_http.py").write_text(marked_block(GUIDE, "guide-http-kit"), "utf-8")
    (tests / "test_conformance_page_http.py").write_text(
        marked_block(CONFORMANCE, "conformance-http-kit"), "utf-8"
    )
    done = run_tests(tmp_path, paths)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    summary = done.stdout.strip().splitlines()[-1]
    assert "failed" not in summary and "error" not in summary, summary
    counted = re.search(r"(\d+) passed", summary)
    assert counted, summary
    passed = int(counted.group(1))
    assert passed >= 40, summary  # both classes ran their cases, not just a collection
