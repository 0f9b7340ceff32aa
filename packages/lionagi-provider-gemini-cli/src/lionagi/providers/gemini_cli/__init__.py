"""Gemini CLI (``gemini``) as a lionagi-service agentic provider.

Provider ``gemini_code`` (aliases ``gemini-code``, ``gemini_cli``, ``gemini-cli``), endpoint
``query_cli`` (alias ``cli``): a headless ``gemini --output-format stream-json`` run with the
prompt on stdin, resumable through the typed ``resume`` field. Model ``gemini-cli`` is
``gemini_code/gemini-2.5-flash``; an effort suffix stays in the model name; the yolo and bypass
permission modes set ``yolo=True`` (``--approval-mode yolo``).
"""

from ._endpoint import GEMINI_CODE_CONFIG as GEMINI_CODE_CONFIG
from ._endpoint import HEADLESS_SETTINGS as HEADLESS_SETTINGS
from ._endpoint import GeminiCodeEndpoint as GeminiCodeEndpoint
from ._errors import GEMINI_ERROR_PATTERNS as GEMINI_ERROR_PATTERNS
from ._errors import GEMINI_EXIT_PATTERNS as GEMINI_EXIT_PATTERNS
from ._errors import GeminiCancelledError as GeminiCancelledError
from ._errors import GeminiConfigError as GeminiConfigError
from ._errors import GeminiInputError as GeminiInputError
from ._errors import GeminiToolExecutionError as GeminiToolExecutionError
from ._errors import GeminiTurnLimitError as GeminiTurnLimitError
from ._errors import GeminiUntrustedWorkspaceError as GeminiUntrustedWorkspaceError
from ._events import IGNORED_EVENTS as IGNORED_EVENTS
from ._events import GeminiEventProjector as GeminiEventProjector
from ._request import DEFAULT_MODEL as DEFAULT_MODEL
from ._request import GeminiCodeRequest as GeminiCodeRequest

# isort: split
from lionagi.service import EndpointType, ProviderEndpointSpec, ProviderModelPolicy

__all__ = [
    "DEFAULT_MODEL",
    "GEMINI_CODE_CONFIG",
    "GEMINI_ERROR_PATTERNS",
    "GEMINI_EXIT_PATTERNS",
    "HEADLESS_SETTINGS",
    "IGNORED_EVENTS",
    "MODEL_POLICIES",
    "PROVIDER_SPECS",
    "GeminiCancelledError",
    "GeminiCodeEndpoint",
    "GeminiCodeRequest",
    "GeminiConfigError",
    "GeminiEventProjector",
    "GeminiInputError",
    "GeminiToolExecutionError",
    "GeminiTurnLimitError",
    "GeminiUntrustedWorkspaceError",
]

PROVIDER_SPECS: tuple[ProviderEndpointSpec, ...] = (
    ProviderEndpointSpec(
        provider="gemini_code",
        provider_aliases=("gemini-code", "gemini_cli", "gemini-cli"),
        endpoint="query_cli",
        endpoint_aliases=("cli",),
        endpoint_type=EndpointType.AGENTIC,
        endpoint_class=GeminiCodeEndpoint,
        request_options=GeminiCodeRequest,
    ),
)

MODEL_POLICIES: tuple[ProviderModelPolicy, ...] = (
    ProviderModelPolicy(
        provider="gemini_code",
        provider_aliases=("gemini-code", "gemini_cli", "gemini-cli"),
        model_aliases={"gemini-cli": f"gemini_code/{DEFAULT_MODEL}"},
        effort_mode="model_name",
        yolo_kwargs={"yolo": True},
        bypass_kwargs={"yolo": True},
    ),
)
