"""One "did you mean" search for every refusal of a misspelled name (`_base/suggest.py`).

iModel's argument check and the endpoint configuration's unknown-field check called ``difflib``
themselves; each now asks the shared helper, with its own closeness bar: iModel's arguments
keep the high 0.8 bar (any unknown key is compared with every argument, and a wrong suggestion
is worse than none), the configuration keeps ``difflib``'s 0.6 over its closed field list.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from lionagi.service import EndpointConfigurationError, iModel
from lionagi.service._base.suggest import close_names, closest, did_you_mean

SRC = Path(__file__).resolve().parents[1] / "src" / "lionagi" / "service"


def test_the_closeness_bar_is_the_callers() -> None:
    # 'admin' is 0.71 alike 'admission': suggested at difflib's bar, not at iModel's.
    assert did_you_mean("admin", ["admission", "model"]) == "; did you mean 'admission'?"
    assert did_you_mean("admin", ["admission"], cutoff=0.8) == ""
    assert closest("admin", ["admission"]) == "admission"
    assert closest("admin", ["admission"], cutoff=0.8) is None
    assert close_names("clok", ["clock", "clocks", "lock"], n=3) == ["clock", "clocks", "lock"]


@pytest.mark.parametrize("word", [None, 7, b"model"])
def test_a_word_that_is_no_string_gets_no_suggestion(word: object) -> None:
    assert closest(word, ["model"]) is None
    assert close_names(word, ["model"]) == []
    assert did_you_mean(word, ["model"]) == ""


def test_only_the_helper_imports_difflib() -> None:
    # A new suggestion goes through the helper, so it reads like (and picks like) the others.
    importers = set()
    for path in SRC.rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            if "difflib" in names:
                importers.add(path.relative_to(SRC).as_posix())
    assert importers == {"_base/suggest.py"}


def test_an_imodel_argument_is_suggested_only_when_close() -> None:
    with pytest.raises(EndpointConfigurationError) as close:
        iModel(model="scripted/demo", concurency_limit=2)
    assert close.value.field == "concurency_limit"
    assert "is not an iModel argument (did you mean 'concurrency_limit'?)" in str(close.value)
    # 'admin' is not 'admission': below iModel's bar it is left to the configuration's check.
    with pytest.raises(EndpointConfigurationError) as far:
        iModel(model="scripted/demo", admin=True)
    assert far.value.field == "admin"
    assert "unknown endpoint configuration field;" in str(far.value)
    assert "did you mean" not in str(far.value)


def test_the_configuration_suggests_its_field_then_a_request_field() -> None:
    with pytest.raises(EndpointConfigurationError) as config:
        iModel(model="scripted/demo", timout=5.0)
    assert "unknown endpoint configuration field (did you mean 'timeout'?);" in str(config.value)
    with pytest.raises(EndpointConfigurationError) as request:
        iModel(model="scripted/demo", promt="hi")
    assert request.value.field == "promt"
    assert "(did you mean the request field 'prompt'? request_defaults={'prompt': ...})" in str(
        request.value
    )
