"""The scripted provider: deterministic, keyless, in-process; registered like any vendor.

Core's own ``lionagi.providers`` entry point names this module, so it goes through the same
discovery and validation path as an installed vendor distribution.
"""

from ._endpoint import ScriptedEndpoint as ScriptedEndpoint
from ._endpoint import ScriptedRequest as ScriptedRequest
from ._script import Delay as Delay
from ._script import Raise as Raise
from ._script import ScriptStep as ScriptStep
from ._script import default_script as default_script

__all__ = ["Delay", "Raise", "ScriptStep", "ScriptedEndpoint", "ScriptedRequest", "default_script"]

# isort: split
from .._catalog.specs import ProviderEndpointSpec
from .._transport.meta import EndpointType

PROVIDER_SPECS: tuple[ProviderEndpointSpec, ...] = (
    ProviderEndpointSpec(
        provider="scripted",
        endpoint="chat",
        endpoint_type=EndpointType.AGENTIC,
        endpoint_class=ScriptedEndpoint,
        endpoint_aliases=("query_cli", "cli"),
        request_options=ScriptedRequest,
    ),
)
