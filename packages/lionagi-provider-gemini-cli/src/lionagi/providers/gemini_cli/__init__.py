"""Gemini CLI (``gemini``) as a lionagi-service agentic provider.

Provider ``gemini_code`` (aliases ``gemini-code``, ``gemini_cli``, ``gemini-cli``), endpoint
``query_cli`` (alias ``cli``): a headless ``gemini --output-format stream-json`` run with the
prompt on stdin, resumable through the typed ``resume`` field. Models ``gemini-cli``,
``gemini_cli``, ``gemini-code`` and ``gemini_code`` (legacy lionagi's bare spellings) are
``gemini_code/gemini-2.5-flash``; an effort suffix stays in the model name; the yolo and bypass
permission modes set ``yolo=True`` (``--approval-mode yolo``). The row names its classes by
reference and the names below load on first use.
"""

from typing import TYPE_CHECKING

from lionagi.service import EndpointType, ProviderEndpointSpec, ProviderModelPolicy, lazy_exports

from ._static import DEFAULT_MODEL, PROGRAM

if TYPE_CHECKING:
    from ._endpoint import GEMINI_CODE_CONFIG, HEADLESS_SETTINGS, GeminiCodeEndpoint
    from ._errors import (
        GEMINI_ERROR_PATTERNS,
        GEMINI_EXIT_PATTERNS,
        GeminiCancelledError,
        GeminiConfigError,
        GeminiInputError,
        GeminiQuotaExhaustedError,
        GeminiToolExecutionError,
        GeminiTurnLimitError,
        GeminiUntrustedWorkspaceError,
    )
    from ._events import IGNORED_EVENTS, LOOP_DETECTED_CODE, GeminiEventProjector
    from ._request import GeminiCodeRequest

__all__ = [
    "DEFAULT_MODEL",
    "GEMINI_CODE_CONFIG",
    "GEMINI_ERROR_PATTERNS",
    "GEMINI_EXIT_PATTERNS",
    "HEADLESS_SETTINGS",
    "IGNORED_EVENTS",
    "LOOP_DETECTED_CODE",
    "MODEL_POLICIES",
    "PROVIDER_SPECS",
    "GeminiCancelledError",
    "GeminiCodeEndpoint",
    "GeminiCodeRequest",
    "GeminiConfigError",
    "GeminiEventProjector",
    "GeminiInputError",
    "GeminiQuotaExhaustedError",
    "GeminiToolExecutionError",
    "GeminiTurnLimitError",
    "GeminiUntrustedWorkspaceError",
]

__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "._endpoint": ("GEMINI_CODE_CONFIG", "HEADLESS_SETTINGS", "GeminiCodeEndpoint"),
        "._errors": (
            "GEMINI_ERROR_PATTERNS",
            "GEMINI_EXIT_PATTERNS",
            "GeminiCancelledError",
            "GeminiConfigError",
            "GeminiInputError",
            "GeminiQuotaExhaustedError",
            "GeminiToolExecutionError",
            "GeminiTurnLimitError",
            "GeminiUntrustedWorkspaceError",
        ),
        "._events": ("IGNORED_EVENTS", "LOOP_DETECTED_CODE", "GeminiEventProjector"),
        "._request": ("GeminiCodeRequest",),
    },
)

PROVIDER_SPECS: tuple[ProviderEndpointSpec, ...] = (
    ProviderEndpointSpec(
        provider="gemini_code",
        provider_aliases=("gemini-code", "gemini_cli", "gemini-cli"),
        endpoint="query_cli",
        endpoint_aliases=("cli",),
        endpoint_type=EndpointType.AGENTIC,
        endpoint_class=f"{__name__}._endpoint:GeminiCodeEndpoint",
        program=PROGRAM,
        request_options=f"{__name__}._request:GeminiCodeRequest",
    ),
)

MODEL_POLICIES: tuple[ProviderModelPolicy, ...] = (
    ProviderModelPolicy(
        provider="gemini_code",
        provider_aliases=("gemini-code", "gemini_cli", "gemini-cli"),
        # Legacy lionagi's BACKENDS accepted every provider spelling as a bare model string
        # (ADR-0028 D5: the move keeps accepted public spellings), all meaning the default model.
        model_aliases={
            alias: f"gemini_code/{DEFAULT_MODEL}"
            for alias in ("gemini-cli", "gemini_cli", "gemini-code", "gemini_code")
        },
        effort_mode="model_name",
        yolo_kwargs={"yolo": True},
        bypass_kwargs={"yolo": True},
    ),
)
