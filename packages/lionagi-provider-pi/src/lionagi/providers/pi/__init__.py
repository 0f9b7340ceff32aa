"""The pi coding agent CLI (``@mariozechner/pi-coding-agent``) as a lionagi-service provider.

Provider ``pi`` (aliases ``pi-code``, ``pi_code``), endpoint ``query_cli`` (``cli``, ``code``):
a subprocess adapter, resumable through the typed ``resume`` field (``--session <id>``), with
tool events and usage. Effort is pi's ``--thinking`` level
(``pi/<model>-high``); pi asks no permissions, so there are no yolo/bypass modes.
"""

from ._endpoint import PiCliEndpoint as PiCliEndpoint
from ._request import DEFAULT_MODEL as DEFAULT_MODEL
from ._request import THINKING_LEVELS as THINKING_LEVELS
from ._request import PiRequest as PiRequest

__all__ = ["DEFAULT_MODEL", "MODEL_POLICIES", "PROVIDER_SPECS", "PiCliEndpoint", "PiRequest"]

# isort: split
from lionagi.service import EndpointType, ProviderEndpointSpec, ProviderModelPolicy

PROVIDER_SPECS: tuple[ProviderEndpointSpec, ...] = (
    ProviderEndpointSpec(
        provider="pi",
        provider_aliases=("pi-code", "pi_code"),
        endpoint="query_cli",
        endpoint_aliases=("cli", "code"),
        endpoint_type=EndpointType.AGENTIC,
        endpoint_class=PiCliEndpoint,
        request_options=PiRequest,
    ),
)

MODEL_POLICIES: tuple[ProviderModelPolicy, ...] = (
    ProviderModelPolicy(
        provider="pi",
        provider_aliases=("pi-code", "pi_code"),
        model_aliases={"pi": f"pi/{DEFAULT_MODEL}"},
        effort_mode="kwarg",
        effort_kwarg="thinking",
        # pi's --thinking levels; "none" is sent as "off". max/ultra have no pi spelling.
        effort_levels=("none", "minimal", "low", "medium", "high", "xhigh"),
    ),
)
