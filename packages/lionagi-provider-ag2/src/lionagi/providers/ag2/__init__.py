"""AG2 as a lionagi-service provider: beta agent and group chat in-process, NLIP remote.

Provider ``ag2`` (alias ``autogen``), endpoints ``group_chat`` (``groupchat``, ``chat``),
``agent`` (``beta``, ``ask``) and ``nlip`` (``nlip_remote``, ``remote``); all stream-only.

Importing this module imports no AG2 code: each endpoint imports AG2 when it runs, and
building one whose AG2 modules are missing raises a configuration error naming the install
line (``lionagi-service providers`` shows it too). The rows name their classes by
reference, so this module's own classes load on first use. Pin and rationale: docs/providers/ag2.md.
"""

from typing import TYPE_CHECKING

from lionagi.service import EndpointType, ProviderEndpointSpec, lazy_exports

from ._static import AG2_REQUIREMENT, IN_PROCESS, INSTALL_LINE, NLIP_TIMEOUT, REMOTE

if TYPE_CHECKING:
    from ._agent import AG2AgentConfig, AG2AgentRequest, AG2BetaEndpoint
    from ._groupchat import AG2GroupChatEndpoint, AG2GroupChatRequest
    from ._nlip import AG2NlipEndpoint, AG2NlipRedirectError, AG2NlipRequest

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
    "AG2NlipRedirectError",
    "AG2NlipRequest",
]

__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "._agent": ("AG2AgentConfig", "AG2AgentRequest", "AG2BetaEndpoint"),
        "._groupchat": ("AG2GroupChatEndpoint", "AG2GroupChatRequest"),
        "._nlip": ("AG2NlipEndpoint", "AG2NlipRedirectError", "AG2NlipRequest"),
    },
)

_ALIASES = ("autogen",)

PROVIDER_SPECS: tuple[ProviderEndpointSpec, ...] = (
    ProviderEndpointSpec(
        provider="ag2",
        provider_aliases=_ALIASES,
        endpoint="group_chat",
        endpoint_aliases=("groupchat", "chat"),
        endpoint_type=EndpointType.AGENTIC,
        endpoint_class=f"{__name__}._groupchat:AG2GroupChatEndpoint",
        request_options=f"{__name__}._groupchat:AG2GroupChatRequest",
        program=IN_PROCESS,
    ),
    ProviderEndpointSpec(
        provider="ag2",
        provider_aliases=_ALIASES,
        endpoint="agent",
        endpoint_aliases=("beta", "ask"),
        endpoint_type=EndpointType.AGENTIC,
        endpoint_class=f"{__name__}._agent:AG2BetaEndpoint",
        request_options=f"{__name__}._agent:AG2AgentRequest",
        program=IN_PROCESS,
    ),
    ProviderEndpointSpec(
        provider="ag2",
        provider_aliases=_ALIASES,
        endpoint="nlip",
        endpoint_aliases=("nlip_remote", "remote"),
        endpoint_type=EndpointType.AGENTIC,
        endpoint_class=f"{__name__}._nlip:AG2NlipEndpoint",
        request_options=f"{__name__}._nlip:AG2NlipRequest",
        program=REMOTE,
        timeout=NLIP_TIMEOUT,
    ),
)
