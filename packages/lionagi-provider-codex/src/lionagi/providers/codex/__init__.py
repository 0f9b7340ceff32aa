"""OpenAI Codex CLI (``codex exec``) as a lionagi-service agentic provider.

Installed through the ``lionagi.providers`` entry point ``codex``; core discovers and validates
:data:`PROVIDER_SPECS` and :data:`MODEL_POLICIES` with every other provider. The row names its
classes by reference (imported on each endpoint's first use) and the classes below load lazily.
"""

from typing import TYPE_CHECKING

from lionagi.service import EndpointType, ProviderEndpointSpec, ProviderModelPolicy, lazy_exports

from ._static import DEFAULT_MODEL, PROGRAM, REASONING_EFFORTS

if TYPE_CHECKING:
    from ._endpoint import CodexCliEndpoint
    from ._events import CodexFastModeUnavailableError
    from ._request import CodexRequest

__all__ = [
    "DEFAULT_MODEL",
    "MODEL_POLICIES",
    "PROVIDER_SPECS",
    "CodexCliEndpoint",
    "CodexFastModeUnavailableError",
    "CodexRequest",
]

__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "._endpoint": ("CodexCliEndpoint",),
        "._events": ("CodexFastModeUnavailableError",),
        "._request": ("CodexRequest",),
    },
)

PROVIDER_SPECS: tuple[ProviderEndpointSpec, ...] = (
    ProviderEndpointSpec(
        provider="codex",
        provider_aliases=("openai-codex",),
        endpoint="query_cli",
        endpoint_aliases=("cli", "code"),
        endpoint_type=EndpointType.AGENTIC,
        endpoint_class=f"{__name__}._endpoint:CodexCliEndpoint",
        program=PROGRAM,
        request_options=f"{__name__}._request:CodexRequest",
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
        # `gpt-5.1-codex-max` is a model; `max` effort is the `reasoning_effort` field's.
        model_name_words=("max",),
        yolo_kwargs={"full_auto": True, "skip_git_repo_check": True},
        bypass_kwargs={"bypass_approvals": True, "skip_git_repo_check": True},
        fast_kwargs={"fast_mode": True},
    ),
)
