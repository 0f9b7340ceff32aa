"""Every provider page says how to install, how to authenticate and shows an example."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

PAGES = sorted((Path(__file__).resolve().parents[2] / "docs" / "providers").glob("*.md"))
AUTH = re.compile(r"_API_KEY|API key|login|no auth|no key", re.I)


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.stem)
def test_provider_page_has_install_auth_and_example(page: Path):
    text = page.read_text(encoding="utf-8")
    assert "pip install" in text, "install line"
    assert AUTH.search(text), "how to authenticate"
    assert re.search(r"```python\n(?:.|\n)*?iModel\(", text), "a Python example with iModel"
