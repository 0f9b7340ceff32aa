"""The scripted provider: deterministic, keyless, in-process; registered like any vendor.

Core's own `lionagi.providers` entry point names this module, so it goes through the same
discovery and validation path as an installed vendor distribution. Like a vendor's, its row names
the endpoint class and request model by reference, and the public names load on first access:
the catalog build imports this package for every command, the endpoint only a scripted call.
"""

from typing import TYPE_CHECKING

from .._base.lazy_exports import lazy_exports
from .._catalog.specs import AgenticProgram, ProviderEndpointSpec
from .._transport.meta import EndpointType

if TYPE_CHECKING:
    from ._endpoint import ScriptedEndpoint, ScriptedRequest
    from ._script import Delay, Raise, ScriptStep, default_script

__all__ = ["Delay", "Raise", "ScriptStep", "ScriptedEndpoint", "ScriptedRequest", "default_script"]

__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "._endpoint": ("ScriptedEndpoint", "ScriptedRequest"),
        "._script": ("Delay", "Raise", "ScriptStep", "default_script"),
    },
)

PROVIDER_SPECS: tuple[ProviderEndpointSpec, ...] = (
    ProviderEndpointSpec(
        provider="scripted",
        endpoint="chat",
        endpoint_type=EndpointType.AGENTIC,
        endpoint_class=f"{__name__}._endpoint:ScriptedEndpoint",
        endpoint_aliases=("query_cli", "cli"),
        request_options=f"{__name__}._endpoint:ScriptedRequest",
        program=AgenticProgram(),  # in-process and keyless: nothing to install or probe
    ),
)
