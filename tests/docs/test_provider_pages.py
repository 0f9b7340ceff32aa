"""Every provider page says how to install, how to authenticate and shows an example."""

from __future__ import annotations

import ast
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


def _literal_constructions(text: str) -> list[dict[str, object]]:
    """The keyword arguments of every ``iModel(...)`` call whose arguments are all literals."""
    calls = []
    for block in re.findall(r"```python\n(.*?)```", text, re.S):
        for node in ast.walk(ast.parse(block)):
            if not (isinstance(node, ast.Call) and getattr(node.func, "id", None) == "iModel"):
                continue
            if node.args:
                continue
            try:
                kwargs = {k.arg: ast.literal_eval(k.value) for k in node.keywords if k.arg}
            except ValueError:
                continue  # an argument names something the page defines (a base URL, a class)
            calls.append(kwargs)
    return calls


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.stem)
def test_every_literal_imodel_on_a_provider_page_resolves(
    page: Path, monkeypatch: pytest.MonkeyPatch
):
    # A page's example is what a newcomer pastes: `iModel(model="ollama/llama3.2")` must select
    # an endpoint, not fail with "name one" (it did, for ollama and NVIDIA NIM), and
    # `iModel(model="ag2/nlip")` named a model, not the nlip endpoint.
    from lionagi.service import iModel

    for name in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY", "NVIDIA_NIM_API_KEY"):
        monkeypatch.setenv(name, "doc-example-key-0000")
    for kwargs in _literal_constructions(page.read_text(encoding="utf-8")):
        model = iModel(**kwargs)  # type: ignore[arg-type]
        assert model.endpoint.config.provider, kwargs


def test_the_pages_examples_are_found():
    found = {p.stem: _literal_constructions(p.read_text(encoding="utf-8")) for p in PAGES}
    assert found["ollama"] == [{"model": "ollama/llama3.2"}]
    assert sum(len(calls) for calls in found.values()) >= 10, found
