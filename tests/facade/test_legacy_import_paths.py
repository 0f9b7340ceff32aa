"""The legacy import paths ADR-0028 keeps: `lionagi.service.providers` and
`lionagi.service.connections.match_endpoint` name the same objects `lionagi.service` exports."""

from __future__ import annotations

import importlib
import subprocess
import sys

import lionagi.service as service


def test_parse_model_spec_keeps_its_legacy_path() -> None:
    from lionagi.service.providers import EFFORT_LEVELS, ModelSpec, parse_model_spec

    assert parse_model_spec is service.parse_model_spec
    assert ModelSpec is service.ModelSpec
    assert EFFORT_LEVELS == service.EFFORT_LEVELS
    spec = parse_model_spec("openai/gpt-4.1")
    assert isinstance(spec, ModelSpec) and spec.model == "openai/gpt-4.1"


def test_match_endpoint_keeps_its_legacy_module() -> None:
    module = importlib.import_module("lionagi.service.connections.match_endpoint")
    assert module.match_endpoint is service.match_endpoint
    endpoint = module.match_endpoint("openai", "chat", api_key="sk-test-legacy-path")
    assert endpoint.config.provider == "openai"


def test_the_compatibility_modules_cost_nothing_at_import() -> None:
    """`import lionagi.service` loads neither (cold start): they exist only for old imports."""
    code = (
        "import sys, lionagi.service as s; "
        "print(sorted(m for m in sys.modules if m.startswith(('lionagi.service.providers', "
        "'lionagi.service.connections'))))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    assert done.stdout.strip() == "[]"
