"""The pi coding agent CLI (``@mariozechner/pi-coding-agent``) as a lionagi-service provider.

Provider ``pi`` (aliases ``pi-code``, ``pi_code``), endpoint ``query_cli`` (``cli``, ``code``):
a subprocess adapter, resumable through the typed ``resume`` field (``--session <id>``), with
tool events and usage. Effort is pi's ``--thinking`` level
(``pi/<model>-high``); pi asks no permissions, so there are no yolo/bypass modes. The row names
its classes by reference and the classes below load on first use.
"""

from typing import TYPE_CHECKING

from lionagi.service import EndpointType, ProviderEndpointSpec, ProviderModelPolicy, lazy_exports

from ._static import DEFAULT_MODEL, PROGRAM, THINKING_LEVELS

if TYPE_CHECKING:
    from ._endpoint import PiCliEndpoint
    from ._request import PiRequest

__all__ = [
    "DEFAULT_MODEL",
    "MODEL_POLICIES",
    "PROVIDER_SPECS",
    "THINKING_LEVELS",
    "PiCliEndpoint",
    "PiRequest",
]

__getattr__, __dir__ = lazy_exports(
    __name__, {"._endpoint": ("PiCliEndpoint",), "._request": ("PiRequest",)}
)

PROVIDER_SPECS: tuple[ProviderEndpointSpec, ...] = (
    ProviderEndpointSpec(
        provider="pi",
        provider_aliases=("pi-code", "pi_code"),
        endpoint="query_cli",
        endpoint_aliases=("cli", "code"),
        endpoint_type=EndpointType.AGENTIC,
        endpoint_class=f"{__name__}._endpoint:PiCliEndpoint",
        program=PROGRAM,
        request_options=f"{__name__}._request:PiRequest",
    ),
)

MODEL_POLICIES: tuple[ProviderModelPolicy, ...] = (
    ProviderModelPolicy(
        provider="pi",
        provider_aliases=("pi-code", "pi_code"),
        # Bare model strings legacy lionagi accepted for pi's default model (its BACKENDS).
        model_aliases={
            "pi": f"pi/{DEFAULT_MODEL}",
            "pi-code": f"pi/{DEFAULT_MODEL}",
            "pi_code": f"pi/{DEFAULT_MODEL}",
        },
        effort_mode="kwarg",
        effort_kwarg="thinking",
        # pi's --thinking levels; "none" is sent as "off". max/ultra have no pi spelling.
        effort_levels=("none", "minimal", "low", "medium", "high", "xhigh"),
    ),
)
