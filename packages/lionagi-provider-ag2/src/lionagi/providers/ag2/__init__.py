"""AG2 as a lionagi-service provider: beta agent and group chat in-process, NLIP remote.

Provider ``ag2`` (alias ``autogen``), endpoints ``group_chat`` (``groupchat``, ``chat``),
``agent`` (``beta``, ``ask``) and ``nlip`` (``nlip_remote``, ``remote``); all stream-only.

Importing this module imports no AG2 code: each endpoint imports AG2 when it runs, and
building one whose AG2 modules are missing raises a configuration error naming the install
line (``lionagi-service providers`` shows it too). Pin and rationale: docs/providers/ag2.md.
"""

from ._agent import AG2AgentConfig as AG2AgentConfig
from ._agent import AG2AgentRequest as AG2AgentRequest
from ._agent import AG2BetaEndpoint as AG2BetaEndpoint
from ._deps import AG2_REQUIREMENT as AG2_REQUIREMENT
from ._deps import INSTALL_LINE as INSTALL_LINE
from ._groupchat import AG2GroupChatEndpoint as AG2GroupChatEndpoint
from ._groupchat import AG2GroupChatRequest as AG2GroupChatRequest
from ._nlip import AG2NlipEndpoint as AG2NlipEndpoint
from ._nlip import AG2NlipRequest as AG2NlipRequest

__all__ = [
    "AG2_REQUIREMENT",
    "INSTALL_LINE",
    "PROVIDER_SPECS",
    "AG2AgentConfig",
    "AG2AgentRequest",
    "AG2BetaEndpoint",
    "AG2GroupChatEndpoint",
    "AG2GroupChatRequest",
    "AG2NlipEndpoint",
    "AG2NlipRequest",
]

# isort: split
from lionagi.service import EndpointType, ProviderEndpointSpec

_ALIASES = ("autogen",)

PROVIDER_SPECS: tuple[ProviderEndpointSpec, ...] = (
    ProviderEndpointSpec(
        provider="ag2",
        provider_aliases=_ALIASES,
        endpoint="group_chat",
        endpoint_aliases=("groupchat", "chat"),
        endpoint_type=EndpointType.AGENTIC,
        endpoint_class=AG2GroupChatEndpoint,
        request_options=AG2GroupChatRequest,
    ),
    ProviderEndpointSpec(
        provider="ag2",
        provider_aliases=_ALIASES,
        endpoint="agent",
        endpoint_aliases=("beta", "ask"),
        endpoint_type=EndpointType.AGENTIC,
        endpoint_class=AG2BetaEndpoint,
        request_options=AG2AgentRequest,
    ),
    ProviderEndpointSpec(
        provider="ag2",
        provider_aliases=_ALIASES,
        endpoint="nlip",
        endpoint_aliases=("nlip_remote", "remote"),
        endpoint_type=EndpointType.AGENTIC,
        endpoint_class=AG2NlipEndpoint,
        request_options=AG2NlipRequest,
    ),
)
