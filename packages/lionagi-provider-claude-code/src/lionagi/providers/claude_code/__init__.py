"""Claude Code (``claude -p``) as a lionagi-service agentic provider.

Published through the ``lionagi.providers`` entry point ``claude_code``: one agentic endpoint
(``query_cli``, aliases ``cli`` and ``code``) and the provider's model policy (model aliases
``claude``, ``claude-code`` and ``claude_code`` -> ``claude_code/sonnet``, effort as the
``effort`` request field, ``yolo``/``bypass`` -> ``permission_mode="bypassPermissions"``). The
row names its classes by reference and the other names load on first use, so other providers'
commands never import this adapter.
"""

from typing import TYPE_CHECKING

from lionagi.service import EndpointType, ProviderEndpointSpec, ProviderModelPolicy, lazy_exports

from ._static import EFFORT_LEVELS, PROGRAM

if TYPE_CHECKING:
    from ._endpoint import CLAUDE_CODE_CONFIG, ClaudeCodeEndpoint
    from ._events import ClaudeEventMapper
    from ._request import ClaudeCodeRequest

__all__ = [
    "CLAUDE_CODE_CONFIG",
    "EFFORT_LEVELS",
    "MODEL_POLICIES",
    "PROVIDER_SPECS",
    "ClaudeCodeEndpoint",
    "ClaudeCodeRequest",
    "ClaudeEventMapper",
]

__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "._endpoint": ("CLAUDE_CODE_CONFIG", "ClaudeCodeEndpoint"),
        "._events": ("ClaudeEventMapper",),
        "._request": ("ClaudeCodeRequest",),
    },
)

PROVIDER_SPECS: tuple[ProviderEndpointSpec, ...] = (
    ProviderEndpointSpec(
        provider="claude_code",
        provider_aliases=("claude-code", "claude"),
        endpoint="query_cli",
        endpoint_aliases=("cli", "code"),
        endpoint_type=EndpointType.AGENTIC,
        endpoint_class=f"{__name__}._endpoint:ClaudeCodeEndpoint",
        program=PROGRAM,
        request_options=f"{__name__}._request:ClaudeCodeRequest",
    ),
)

_BYPASS = {"permission_mode": "bypassPermissions"}

MODEL_POLICIES: tuple[ProviderModelPolicy, ...] = (
    ProviderModelPolicy(
        provider="claude_code",
        provider_aliases=("claude-code", "claude"),
        # Legacy lionagi's BACKENDS accepted every provider spelling as a bare model string
        # (ADR-0028 D5: the move keeps accepted public spellings), all meaning sonnet.
        model_aliases={
            "claude": "claude_code/sonnet",
            "claude-code": "claude_code/sonnet",
            "claude_code": "claude_code/sonnet",
        },
        effort_mode="kwarg",
        effort_kwarg="effort",
        effort_levels=EFFORT_LEVELS,
        yolo_kwargs=_BYPASS,
        bypass_kwargs=_BYPASS,
    ),
)
