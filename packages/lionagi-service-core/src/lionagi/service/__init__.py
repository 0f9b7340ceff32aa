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
# isort: split

# -- agentic exports (agentic helper adds here) --
# isort: split

# isort: split
from ._base.errors import ProviderCapacityError as ProviderCapacityError
from ._base.errors import ProviderDisconnectError as ProviderDisconnectError
from ._base.errors import ProviderPermissionError as ProviderPermissionError
from ._base.errors import ProviderUnsupportedModelError as ProviderUnsupportedModelError
from ._transport.agentic_types import AgenticCallResult as AgenticCallResult
from ._transport.agentic_types import AgenticResultMetadata as AgenticResultMetadata
from ._transport.classify import classify_provider_error as classify_provider_error
from ._transport.handlers import AgenticHandlersMixin as AgenticHandlersMixin

# -- catalog exports (catalog helper adds here) --
# isort: split
from ._catalog.discovery import ENTRY_POINT_GROUP as ENTRY_POINT_GROUP
from ._catalog.discovery import InventorySource as InventorySource
from ._catalog.discovery import entry_point_inventory as entry_point_inventory
from ._catalog.keys import canonical_endpoint_key as canonical_endpoint_key
from ._catalog.keys import canonical_provider_key as canonical_provider_key
from ._catalog.openai_request import OpenAIChatCompletionsRequest as OpenAIChatCompletionsRequest
from ._catalog.policy import EFFORT_LEVELS as EFFORT_LEVELS
from ._catalog.policy import EffortMode as EffortMode
from ._catalog.policy import ModelSpec as ModelSpec
from ._catalog.policy import ProviderModelPolicy as ProviderModelPolicy
from ._catalog.projection import EndpointCatalogItem as EndpointCatalogItem
from ._catalog.projection import ProviderCatalogItem as ProviderCatalogItem
from ._catalog.registry import EndpointRegistry as EndpointRegistry
from ._catalog.registry import ProviderCatalog as ProviderCatalog
from ._catalog.registry import match_endpoint as match_endpoint
from ._catalog.registry import parse_model_spec as parse_model_spec
from ._catalog.snapshot import CatalogSnapshot as CatalogSnapshot
from ._catalog.specs import ProviderEndpointSpec as ProviderEndpointSpec
from ._catalog.specs import ProviderModuleSpec as ProviderModuleSpec
from ._catalog.specs import RequestOptionsFactory as RequestOptionsFactory

# -- lifecycle exports (lifecycle helper adds here) --
# isort: split
from ._base.errors import AdmissionConfigError as AdmissionConfigError
from ._lifecycle.admission import AdmissionController as AdmissionController
from ._lifecycle.admission import AdmissionSnapshot as AdmissionSnapshot
from ._lifecycle.budget import RequestBudget as RequestBudget
from ._lifecycle.budget import request_budget_from_timeout as request_budget_from_timeout
from ._lifecycle.config import AdmissionConfig as AdmissionConfig
from ._lifecycle.lease import AdmissionLease as AdmissionLease
from ._lifecycle.policy import AttemptPolicy as AttemptPolicy
from ._lifecycle.policy import CircuitPolicy as CircuitPolicy

# -- facade exports --
# isort: split
from ._facade.imodel import iModel as iModel
from ._facade.manager import ModelNameConflict as ModelNameConflict
from ._facade.manager import ShutdownOutcome as ShutdownOutcome
from ._facade.manager import iModelManager as iModelManager
from ._lifecycle.supervisor import HookTimeout as HookTimeout

__version__ = "0.1.0"

__all__ = [
    "APICalling",
    "AdmissionClosed",
    "AdmissionConfig",
    "AdmissionConfigError",
    "AdmissionConflict",
    "AdmissionController",
    "AdmissionError",
    "AdmissionLease",
    "AdmissionSnapshot",
    "AgenticCallResult",
    "AgenticCapabilities",
    "AgenticEndpoint",
    "AgenticHandlerError",
    "AgenticHandlersMixin",
    "AgenticOperationUnsupported",
    "AgenticRequestValidationError",
    "AgenticResultMetadata",
    "AgenticTransport",
    "AttemptPolicy",
    "CatalogDiagnosticCode",
    "CatalogSnapshot",
    "CatalogValidationError",
    "ChunkType",
    "CircuitOpenError",
    "CircuitPolicy",
    "EFFORT_LEVELS",
    "ENTRY_POINT_GROUP",
    "EffortMode",
    "Endpoint",
    "EndpointCatalogItem",
    "EndpointConfig",
    "EndpointConfigurationError",
    "EndpointMeta",
    "EndpointNotFound",
    "EndpointRegistry",
    "EndpointType",
    "Event",
    "EventStatus",
    "Execution",
    "HookPhase",
    "HookRegistry",
    "HookTimeout",
    "HookedEvent",
    "InventorySource",
    "ModelNameConflict",
    "ModelSpec",
    "OpenAIChatCompletionsRequest",
    "ProviderAuthError",
    "ProviderCapacityError",
    "ProviderCatalog",
    "ProviderCatalogError",
    "ProviderCatalogItem",
    "ProviderClientError",
    "ProviderConnectionError",
    "ProviderContextError",
    "ProviderDiagnostic",
    "ProviderDisconnectError",
    "ProviderEndpointSpec",
    "ProviderError",
    "ProviderExecutableNotFound",
    "ProviderModelPolicy",
    "ProviderModuleSpec",
    "ProviderPermissionError",
    "ProviderProcessError",
    "ProviderProtocolError",
    "ProviderQuotaError",
    "ProviderRateLimitError",
    "ProviderServerError",
    "ProviderStatusError",
    "ProviderStreamError",
    "ProviderTransportError",
    "ProviderUnauthorizedError",
    "ProviderUnavailable",
    "ProviderUnsupportedModelError",
    "RequestBudget",
    "RequestDeadlineExceeded",
    "RequestExceedsTokenWindow",
    "RequestOptionsFactory",
    "ShutdownOutcome",
    "StreamChunk",
    "TokenEstimateUnavailable",
    "UnsafeURLError",
    "canonical_endpoint_key",
    "canonical_provider_key",
    "classify_provider_error",
    "entry_point_inventory",
    "iModel",
    "iModelManager",
    "match_endpoint",
    "parse_model_spec",
    "request_budget_from_timeout",
]
