"""OpenAI Codex CLI (``codex exec``) as a lionagi-service agentic provider.

Installed through the ``lionagi.providers`` entry point ``codex``; core discovers and validates
:data:`PROVIDER_SPECS` and :data:`MODEL_POLICIES` with every other provider.
"""

from lionagi.service import EndpointType, ProviderEndpointSpec, ProviderModelPolicy

from ._endpoint import CodexCliEndpoint as CodexCliEndpoint
from ._request import DEFAULT_MODEL as DEFAULT_MODEL
from ._request import REASONING_EFFORTS
from ._request import CodexRequest as CodexRequest

__all__ = ["DEFAULT_MODEL", "MODEL_POLICIES", "PROVIDER_SPECS", "CodexCliEndpoint", "CodexRequest"]

PROVIDER_SPECS: tuple[ProviderEndpointSpec, ...] = (
    ProviderEndpointSpec(
        provider="codex",
        provider_aliases=("openai-codex",),
        endpoint="query_cli",
        endpoint_aliases=("cli", "code"),
        endpoint_type=EndpointType.AGENTIC,
        endpoint_class=CodexCliEndpoint,
        request_options=CodexRequest,
    ),
)

MODEL_POLICIES: tuple[ProviderModelPolicy, ...] = (
    ProviderModelPolicy(
        provider="codex",
        provider_aliases=("openai-codex",),
        model_aliases={"codex": f"codex/{DEFAULT_MODEL}"},
        effort_mode="kwarg",
        effort_kwarg="reasoning_effort",
        effort_levels=REASONING_EFFORTS,
        yolo_kwargs={"full_auto": True, "skip_git_repo_check": True},
        bypass_kwargs={"bypass_approvals": True, "skip_git_repo_check": True},
        fast_kwargs={"fast_mode": True},
    ),
)
