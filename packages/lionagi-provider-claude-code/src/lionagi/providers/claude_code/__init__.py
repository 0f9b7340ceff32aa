"""Claude Code (``claude -p``) as a lionagi-service agentic provider.

Published through the ``lionagi.providers`` entry point ``claude_code``: one agentic endpoint
(``query_cli``, aliases ``cli`` and ``code``) and the provider's model policy (model alias
``claude`` -> ``claude_code/sonnet``, effort as the ``effort`` request field, ``yolo``/``bypass``
-> ``permission_mode="bypassPermissions"``).
"""

from ._endpoint import CLAUDE_CODE_CONFIG as CLAUDE_CODE_CONFIG
from ._endpoint import ClaudeCodeEndpoint as ClaudeCodeEndpoint
from ._events import ClaudeEventMapper as ClaudeEventMapper
from ._request import EFFORT_LEVELS as EFFORT_LEVELS
from ._request import ClaudeCodeRequest as ClaudeCodeRequest

__all__ = [
    "CLAUDE_CODE_CONFIG",
    "EFFORT_LEVELS",
    "MODEL_POLICIES",
    "PROVIDER_SPECS",
    "ClaudeCodeEndpoint",
    "ClaudeCodeRequest",
    "ClaudeEventMapper",
]

# isort: split
from lionagi.service import EndpointType, ProviderEndpointSpec, ProviderModelPolicy

PROVIDER_SPECS: tuple[ProviderEndpointSpec, ...] = (
    ProviderEndpointSpec(
        provider="claude_code",
        provider_aliases=("claude-code", "claude"),
        endpoint="query_cli",
        endpoint_aliases=("cli", "code"),
        endpoint_type=EndpointType.AGENTIC,
        endpoint_class=ClaudeCodeEndpoint,
        request_options=ClaudeCodeRequest,
    ),
)

_BYPASS = {"permission_mode": "bypassPermissions"}

MODEL_POLICIES: tuple[ProviderModelPolicy, ...] = (
    ProviderModelPolicy(
        provider="claude_code",
        provider_aliases=("claude-code", "claude"),
        model_aliases={"claude": "claude_code/sonnet"},
        effort_mode="kwarg",
        effort_kwarg="effort",
        effort_levels=EFFORT_LEVELS,
        yolo_kwargs=_BYPASS,
        bypass_kwargs=_BYPASS,
    ),
)
