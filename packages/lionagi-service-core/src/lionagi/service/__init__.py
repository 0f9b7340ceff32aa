"""lionagi.service: one model-facing ``iModel`` over HTTP APIs, agentic CLIs and agents.

The public surface is what this module re-exports; everything under ``_``-prefixed packages is
private and may move between releases.
"""

from ._base.chunk import ChunkType as ChunkType
from ._base.chunk import StreamChunk as StreamChunk
from ._base.diagnostics import CatalogDiagnosticCode as CatalogDiagnosticCode
from ._base.diagnostics import ProviderDiagnostic as ProviderDiagnostic
from ._base.errors import AdmissionClosed as AdmissionClosed
from ._base.errors import AdmissionConflict as AdmissionConflict
from ._base.errors import AdmissionError as AdmissionError
from ._base.errors import AgenticHandlerError as AgenticHandlerError
from ._base.errors import AgenticOperationUnsupported as AgenticOperationUnsupported
from ._base.errors import AgenticRequestValidationError as AgenticRequestValidationError
from ._base.errors import CatalogValidationError as CatalogValidationError
from ._base.errors import CircuitOpenError as CircuitOpenError
from ._base.errors import EndpointConfigurationError as EndpointConfigurationError
from ._base.errors import EndpointNotFound as EndpointNotFound
from ._base.errors import ProviderAuthError as ProviderAuthError
from ._base.errors import ProviderCatalogError as ProviderCatalogError
from ._base.errors import ProviderClientError as ProviderClientError
from ._base.errors import ProviderConnectionError as ProviderConnectionError
from ._base.errors import ProviderContextError as ProviderContextError
from ._base.errors import ProviderError as ProviderError
from ._base.errors import ProviderExecutableNotFound as ProviderExecutableNotFound
from ._base.errors import ProviderProcessError as ProviderProcessError
from ._base.errors import ProviderProtocolError as ProviderProtocolError
from ._base.errors import ProviderQuotaError as ProviderQuotaError
from ._base.errors import ProviderRateLimitError as ProviderRateLimitError
from ._base.errors import ProviderServerError as ProviderServerError
from ._base.errors import ProviderStatusError as ProviderStatusError
from ._base.errors import ProviderStreamError as ProviderStreamError
from ._base.errors import ProviderTransportError as ProviderTransportError
from ._base.errors import ProviderUnauthorizedError as ProviderUnauthorizedError
from ._base.errors import ProviderUnavailable as ProviderUnavailable
from ._base.errors import RequestDeadlineExceeded as RequestDeadlineExceeded
from ._base.errors import RequestExceedsTokenWindow as RequestExceedsTokenWindow
from ._base.errors import TokenEstimateUnavailable as TokenEstimateUnavailable
from ._base.errors import UnsafeURLError as UnsafeURLError
from ._base.events import Event as Event
from ._base.events import EventStatus as EventStatus
from ._base.events import Execution as Execution
from ._base.hooks import HookedEvent as HookedEvent
from ._base.hooks import HookPhase as HookPhase
from ._base.hooks import HookRegistry as HookRegistry
from ._transport.agentic import AgenticCapabilities as AgenticCapabilities
from ._transport.agentic import AgenticEndpoint as AgenticEndpoint
from ._transport.agentic import AgenticTransport as AgenticTransport
from ._transport.api_calling import APICalling as APICalling
from ._transport.config import EndpointConfig as EndpointConfig
from ._transport.endpoint import Endpoint as Endpoint
from ._transport.meta import EndpointMeta as EndpointMeta
from ._transport.meta import EndpointType as EndpointType

# -- transport exports (HTTP helper adds here) --

# -- agentic exports (agentic helper adds here) --

# -- catalog exports (catalog helper adds here) --

# -- lifecycle exports (lifecycle helper adds here) --

# -- facade exports --

__version__ = "0.1.0"
