"""``iModel(model=..., request_defaults=...)``: one request field set two ways is an error.

Before, ``request_defaults`` silently replaced what ``model=`` (its name, its effort suffix) and
``yolo=`` / ``bypass=`` / ``fast=`` had set: ``iModel(model="codex", yolo=True,
request_defaults={"full_auto": False})`` ran without the mode asked for, and
``iModel(model="codex/gpt-5", request_defaults={"model": "o3"})`` sent ``o3``. A mode is never
silently downgraded (docs/concepts.md), and a conflict between two spellings of one field is the
same error ``parse_model_spec`` already gives for two modes that disagree.
"""

from __future__ import annotations

from typing import Any

import pytest

from lionagi.service import EndpointConfigurationError, ProviderCatalog, iModel

from .conftest import Dists

SECRET = "ZZdefaultsecretQQ91"
CODE = """
PROVIDER_SPECS = (agentic("code", "query_cli", request_options=CliRequest),)
MODEL_POLICIES = (
    ProviderModelPolicy(
        provider="code",
        model_aliases={"coder": "code/big"},
        effort_mode="kwarg",
        effort_kwarg="reasoning_effort",
        yolo_kwargs={"full_auto": True},
        bypass_kwargs={"bypass_approvals": True},
        fast_kwargs={"fast_mode": True},
    ),
)
"""


@pytest.fixture
def catalog(dists: Dists, default_catalog: ProviderCatalog) -> ProviderCatalog:
    dists.provider("code", CODE)
    return default_catalog


@pytest.mark.parametrize(
    ("kwargs", "defaults", "field"),
    [
        ({"model": "code/big"}, {"model": SECRET}, "model"),
        ({"model": "coder"}, {"model": SECRET}, "model"),
        ({"provider": "code", "model": "big"}, {"model": SECRET}, "model"),
        ({"model": "code/big-high"}, {"reasoning_effort": "low"}, "reasoning_effort"),
        ({"model": "coder", "yolo": True}, {"full_auto": False}, "full_auto"),
        ({"model": "coder", "bypass": True}, {"bypass_approvals": False}, "bypass_approvals"),
        ({"model": "coder", "fast": True}, {"fast_mode": False}, "fast_mode"),
    ],
)
def test_request_default_contradicting_model_or_mode_is_refused(
    catalog: ProviderCatalog, kwargs: dict[str, Any], defaults: dict[str, Any], field: str
) -> None:
    with pytest.raises(EndpointConfigurationError) as info:
        iModel(**kwargs, request_defaults=defaults)
    assert info.value.field == f"request_defaults.{field}"
    assert SECRET not in str(info.value)  # the caller's value is never echoed


def test_agreeing_and_unrelated_defaults_still_merge(catalog: ProviderCatalog) -> None:
    model = iModel(
        model="code/big-high",
        yolo=True,
        request_defaults={"model": "big", "reasoning_effort": "high", "prompt": "p"},
    )
    assert model.endpoint.config.request_defaults == {
        "model": "big",
        "reasoning_effort": "high",
        "full_auto": True,
        "prompt": "p",
    }


def test_defaults_alone_still_set_the_model(catalog: ProviderCatalog) -> None:
    model = iModel(provider="code", request_defaults={"model": "small"})
    assert model.model_name == "small"
