"""The public surface of lionagi.service: explicit, importable, and covering every ADR name."""

from __future__ import annotations

import importlib
from types import ModuleType

import lionagi.service as service

# Names the ADRs (0027-0030) make public, by the stage that introduced them.
ADR_NAMES = {
    "foundation": [
        "StreamChunk", "EventStatus", "Event", "HookedEvent", "HookRegistry", "APICalling",
        "EndpointConfig", "Endpoint", "AgenticEndpoint", "EndpointConfigurationError",
    ],
    "catalog": [
        "EndpointType", "EndpointMeta", "ProviderEndpointSpec", "ProviderModuleSpec",
        "ProviderModelPolicy", "ModelSpec", "parse_model_spec", "CatalogSnapshot",
        "ProviderDiagnostic", "canonical_provider_key", "canonical_endpoint_key",
        "ProviderCatalogError", "CatalogValidationError", "ProviderUnavailable", "EndpointNotFound",
        "EndpointRegistry", "match_endpoint",
    ],
    "lifecycle": [
        "iModel", "iModelManager", "RequestBudget", "request_budget_from_timeout",
        "AdmissionConfig", "AdmissionController", "AdmissionLease", "AdmissionSnapshot",
        "AdmissionError", "AdmissionClosed", "AdmissionConflict", "TokenEstimateUnavailable",
        "RequestExceedsTokenWindow", "RequestDeadlineExceeded", "AttemptPolicy", "CircuitPolicy",
        "ProviderStreamError",
    ],
    "agentic": [
        "AgenticCapabilities", "AgenticCallResult", "AgenticResultMetadata",
        "AgenticHandlersMixin", "ProviderError", "ProviderQuotaError", "ProviderAuthError",
        "ProviderContextError", "ProviderTransportError", "ProviderExecutableNotFound",
        "ProviderProcessError", "ProviderProtocolError", "AgenticRequestValidationError",
        "AgenticHandlerError", "AgenticOperationUnsupported", "classify_provider_error",
    ],
    # Issue #10: deployment settings of agentic endpoints (binary, gateway, env, cwd, home).
    "agentic_settings": ["AgenticSettings"],
}  # fmt: skip


def test_all_lists_exactly_the_public_names() -> None:
    # Every listed name resolves (names load lazily on first access), and nothing public is
    # reachable that __all__ does not list.
    for name in service.__all__:
        assert getattr(service, name) is not None, name
    public = {
        name
        for name, value in vars(service).items()
        if not name.startswith("_") and not isinstance(value, ModuleType)
    }
    public -= {"annotations", "importlib", "TYPE_CHECKING", "Any"}
    assert public <= set(service.__all__)
    assert len(service.__all__) == len(set(service.__all__))
    # dir() (what completion offers) shows the same public names, not the module's own imports.
    shown = {name for name in dir(service) if not name.startswith("_")}
    loaded = {n for n, v in vars(service).items() if isinstance(v, ModuleType)} - {"importlib"}
    assert shown - loaded == set(service.__all__)


def test_every_adr_name_is_exported() -> None:
    missing = [n for names in ADR_NAMES.values() for n in names if n not in service.__all__]
    assert missing == []


def test_exported_names_come_from_core_modules() -> None:
    for name in service.__all__:
        obj = getattr(service, name)
        module = getattr(obj, "__module__", None)
        if module is not None and isinstance(obj, type):
            assert module.startswith("lionagi.service."), f"{name} comes from {module}"
            importlib.import_module(module)


def test_importing_the_package_loads_nothing_heavy() -> None:
    # Names load on first use; rich is for the command line only; pytest never loads.
    import subprocess
    import sys

    code = (
        "import sys, lionagi.service; "
        "print(','.join(m for m in ('rich', 'pytest', 'httpx', 'pydantic') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_adapter_author_modules_are_separate_and_complete() -> None:
    # Tools for adapter authors live in their own public modules, keeping the top level small.
    for name in ("agentic", "http", "lifecycle", "telemetry"):
        module = importlib.import_module(f"lionagi.service.{name}")
        assert module.__all__, name
        for export in module.__all__:
            assert hasattr(module, export), f"{name}.{export}"
            assert export not in service.__all__, f"{export} is exported twice"


# Names added after the ADRs, pinned so they do not silently disappear.
POST_ADR_NAMES = [
    "ProviderStreamQuotaError", "ProviderStreamAuthError", "ProviderStreamContextError",
    "ProviderStreamCapacityError", "ProviderStreamUnsupportedModelError",
    "ProviderStreamPermissionError", "ProviderStreamDisconnectError", "classify_stream_error",
    "ProviderStreamQuotaExhaustedError", "ProviderStreamInvalidRequestError",
    "ProviderStreamConfigError", "ProviderStreamTurnLimitError", "ProviderQuotaSpentError",
    "ProviderCapabilityError", "ProviderStatusCapabilityError", "ProviderStreamCapabilityError",
    "ProviderStreamConnectionError", "ProviderStreamProtocolError", "ProviderRunLimitError",
    "ProviderBudgetLimitError", "ProviderStreamBudgetLimitError",
]  # fmt: skip


def test_post_adr_names_are_exported_from_the_errors_module() -> None:
    missing = [n for n in POST_ADR_NAMES if n not in service.__all__]
    assert missing == []
    for name in POST_ADR_NAMES:
        obj = getattr(service, name)
        if isinstance(obj, type):
            assert obj.__module__ == "lionagi.service._base.errors", name
            assert issubclass(obj, service.ProviderError), name
            if name.startswith("ProviderStream"):
                assert issubclass(obj, service.ProviderStreamError), name


# What a vendor HTTP distribution builds on (issue 12): pinned so it does not silently shrink.
HTTP_ADAPTER_NAMES = [
    "ProjectorBase", "StreamProjector", "ChatCompletionsProjector", "PendingToolCall", "NO_CHUNKS",
    "DONE", "StreamFraming", "HTTPErrorInfo", "OpenAIChatEndpoint", "OpenAIEmbeddingsEndpoint",
    "openai_status_error", "openai_compatible_specs", "excerpt",
    # SSRF: the guard and the connection pin, for adapters that send their own request (NLIP)
    "SSRFGuard", "Approval", "PinnedTransport", "pinned",
    # the row type of Endpoint.error_patterns, an HTTP endpoint's own classification rules
    "ProviderErrorPattern",
]  # fmt: skip


def test_http_adapter_module_exports_what_vendor_packages_build_on() -> None:
    http = importlib.import_module("lionagi.service.http")
    missing = [n for n in HTTP_ADAPTER_NAMES if n not in http.__all__]
    assert missing == []
    for name in ("OpenAIEmbeddingsRequest", "ProviderQuotaExhaustedError",
                 "ProviderStatusContextError", "ProviderStatusCapacityError",
                 "ProviderStatusContentFilterError",
                 "ProviderStatusUnsupportedModelError",
                 "ProviderStatusCapabilityError"):  # fmt: skip
        assert name in service.__all__, name


def test_no_dialect_is_guessed_from_a_path_or_the_first_event() -> None:
    # Dialects are declared by endpoint classes (Endpoint.projector); the guessing is gone.
    from lionagi.service import Endpoint
    from lionagi.service._transport.http import projection

    for gone in ("AutoProjector", "format_for_path", "make_projector", "StreamFormat"):
        assert not hasattr(projection, gone), gone
        assert not hasattr(importlib.import_module("lionagi.service.http"), gone), gone
    assert Endpoint.projector is None
    assert not hasattr(Endpoint, "stream_format")


def test_type_checkers_see_every_exported_name() -> None:
    """The names load lazily; the TYPE_CHECKING imports are what mypy, IDEs and griffe read."""
    import ast
    from pathlib import Path

    assert service.__file__ is not None
    tree = ast.parse(Path(service.__file__).read_text(encoding="utf-8"))
    seen: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.If) and getattr(node.test, "id", None) == "TYPE_CHECKING":
            for stmt in ast.walk(node):
                if isinstance(stmt, ast.ImportFrom):
                    seen.update(alias.asname or alias.name for alias in stmt.names)
    assert sorted(set(service.__all__) - seen) == []
