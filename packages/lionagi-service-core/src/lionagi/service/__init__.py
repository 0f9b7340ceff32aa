"""lionagi.service: one model-facing `iModel` over HTTP APIs, agentic CLIs and agents.

The public surface is what this module re-exports; everything under `_`-prefixed packages is
private and may move between releases.
"""

# lionagi-service-core owns this file: the start-up guard (`_lionagi_service_guard`) looks for
# these words to tell it from the published `lionagi`'s own lionagi/service/__init__.py.

# Names load on first use (PEP 562): `import lionagi.service` stays cheap, and a program that
# only needs, say, the error classes never builds the HTTP or agentic machinery.

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

# Imported for its side effect, first: the co-installation guard (_base.installation) runs
# before any name is served, so an environment shared with the published `lionagi` fails here.
from . import _base as _base

if TYPE_CHECKING:
    from ._base.chunk import ChunkType as ChunkType
    from ._base.chunk import StreamChunk as StreamChunk
    from ._base.diagnostics import CatalogDiagnosticCode as CatalogDiagnosticCode
    from ._base.diagnostics import ProviderDiagnostic as ProviderDiagnostic
    from ._base.errors import AdmissionBackendUnavailable as AdmissionBackendUnavailable
    from ._base.errors import AdmissionClosed as AdmissionClosed
    from ._base.errors import AdmissionConfigError as AdmissionConfigError
    from ._base.errors import AdmissionConflict as AdmissionConflict
    from ._base.errors import AdmissionError as AdmissionError
    from ._base.errors import AgenticHandlerError as AgenticHandlerError
    from ._base.errors import AgenticOperationUnsupported as AgenticOperationUnsupported
    from ._base.errors import AgenticRequestValidationError as AgenticRequestValidationError
    from ._base.errors import CatalogValidationError as CatalogValidationError
    from ._base.errors import CircuitOpenError as CircuitOpenError
    from ._base.errors import EndpointConfigurationError as EndpointConfigurationError
    from ._base.errors import EndpointNotFound as EndpointNotFound
    from ._base.errors import EventLoopMismatchError as EventLoopMismatchError
    from ._base.errors import EventLoopUnsupportedError as EventLoopUnsupportedError
    from ._base.errors import InstallationConflictError as InstallationConflictError
    from ._base.errors import ProviderAuthError as ProviderAuthError
    from ._base.errors import ProviderBudgetLimitError as ProviderBudgetLimitError
    from ._base.errors import ProviderCapabilityError as ProviderCapabilityError
    from ._base.errors import ProviderCapacityError as ProviderCapacityError
    from ._base.errors import ProviderCatalogError as ProviderCatalogError
    from ._base.errors import ProviderClientError as ProviderClientError
    from ._base.errors import ProviderConfigError as ProviderConfigError
    from ._base.errors import ProviderConnectionError as ProviderConnectionError
    from ._base.errors import ProviderContentFilterError as ProviderContentFilterError
    from ._base.errors import ProviderContextError as ProviderContextError
    from ._base.errors import ProviderDisconnectError as ProviderDisconnectError
    from ._base.errors import ProviderError as ProviderError
    from ._base.errors import ProviderExecutableNotFound as ProviderExecutableNotFound
    from ._base.errors import ProviderInvalidRequestError as ProviderInvalidRequestError
    from ._base.errors import ProviderPermissionError as ProviderPermissionError
    from ._base.errors import ProviderProcessError as ProviderProcessError
    from ._base.errors import ProviderProtocolError as ProviderProtocolError
    from ._base.errors import ProviderQuotaError as ProviderQuotaError
    from ._base.errors import ProviderQuotaExhaustedError as ProviderQuotaExhaustedError
    from ._base.errors import ProviderQuotaSpentError as ProviderQuotaSpentError
    from ._base.errors import ProviderRateLimitError as ProviderRateLimitError
    from ._base.errors import ProviderRunLimitError as ProviderRunLimitError
    from ._base.errors import ProviderServerError as ProviderServerError
    from ._base.errors import ProviderServerFaultError as ProviderServerFaultError
    from ._base.errors import ProviderStatusCapabilityError as ProviderStatusCapabilityError
    from ._base.errors import ProviderStatusCapacityError as ProviderStatusCapacityError
    from ._base.errors import (
        ProviderStatusContentFilterError as ProviderStatusContentFilterError,
    )
    from ._base.errors import ProviderStatusContextError as ProviderStatusContextError
    from ._base.errors import ProviderStatusError as ProviderStatusError
    from ._base.errors import (
        ProviderStatusUnsupportedModelError as ProviderStatusUnsupportedModelError,
    )
    from ._base.errors import ProviderStreamAuthError as ProviderStreamAuthError
    from ._base.errors import (
        ProviderStreamBudgetLimitError as ProviderStreamBudgetLimitError,
    )
    from ._base.errors import ProviderStreamCapabilityError as ProviderStreamCapabilityError
    from ._base.errors import ProviderStreamCapacityError as ProviderStreamCapacityError
    from ._base.errors import ProviderStreamConfigError as ProviderStreamConfigError
    from ._base.errors import ProviderStreamConnectionError as ProviderStreamConnectionError
    from ._base.errors import (
        ProviderStreamContentFilterError as ProviderStreamContentFilterError,
    )
    from ._base.errors import ProviderStreamContextError as ProviderStreamContextError
    from ._base.errors import ProviderStreamDisconnectError as ProviderStreamDisconnectError
    from ._base.errors import ProviderStreamError as ProviderStreamError
    from ._base.errors import (
        ProviderStreamInvalidRequestError as ProviderStreamInvalidRequestError,
    )
    from ._base.errors import ProviderStreamPermissionError as ProviderStreamPermissionError
    from ._base.errors import ProviderStreamProtocolError as ProviderStreamProtocolError
    from ._base.errors import ProviderStreamQuotaError as ProviderStreamQuotaError
    from ._base.errors import (
        ProviderStreamQuotaExhaustedError as ProviderStreamQuotaExhaustedError,
    )
    from ._base.errors import ProviderStreamServerError as ProviderStreamServerError
    from ._base.errors import ProviderStreamTurnLimitError as ProviderStreamTurnLimitError
    from ._base.errors import (
        ProviderStreamUnsupportedModelError as ProviderStreamUnsupportedModelError,
    )
    from ._base.errors import ProviderTransportError as ProviderTransportError
    from ._base.errors import ProviderTurnLimitError as ProviderTurnLimitError
    from ._base.errors import ProviderUnauthorizedError as ProviderUnauthorizedError
    from ._base.errors import ProviderUnavailable as ProviderUnavailable
    from ._base.errors import ProviderUnsupportedModelError as ProviderUnsupportedModelError
    from ._base.errors import RequestDeadlineExceeded as RequestDeadlineExceeded
    from ._base.errors import RequestExceedsTokenWindow as RequestExceedsTokenWindow
    from ._base.errors import StreamClosed as StreamClosed
    from ._base.errors import TokenEstimateUnavailable as TokenEstimateUnavailable
    from ._base.errors import UnsafeURLError as UnsafeURLError
    from ._base.events import Event as Event
    from ._base.events import EventStatus as EventStatus
    from ._base.events import Execution as Execution
    from ._base.hooks import HookedEvent as HookedEvent
    from ._base.hooks import HookPhase as HookPhase
    from ._base.hooks import HookRegistry as HookRegistry
    from ._base.lazy_exports import lazy_exports as lazy_exports
    from ._catalog.discovery import ENTRY_POINT_GROUP as ENTRY_POINT_GROUP
    from ._catalog.discovery import InventorySource as InventorySource
    from ._catalog.discovery import entry_point_inventory as entry_point_inventory
    from ._catalog.keys import canonical_endpoint_key as canonical_endpoint_key
    from ._catalog.keys import canonical_provider_key as canonical_provider_key
    from ._catalog.lazy_shapes import lazy_chat_shapes as lazy_chat_shapes
    from ._catalog.openai_chat_types import openai_chat_shapes as openai_chat_shapes
    from ._catalog.openai_request import (
        OpenAIChatCompletionsRequest as OpenAIChatCompletionsRequest,
    )
    from ._catalog.openai_request import OpenAIEmbeddingsRequest as OpenAIEmbeddingsRequest
    from ._catalog.policy import EFFORT_LEVELS as EFFORT_LEVELS
    from ._catalog.policy import EffortMode as EffortMode
    from ._catalog.policy import ModelSpec as ModelSpec
    from ._catalog.policy import ProviderModelPolicy as ProviderModelPolicy
    from ._catalog.projection import CatalogReport as CatalogReport
    from ._catalog.projection import EndpointCatalogItem as EndpointCatalogItem
    from ._catalog.projection import ProviderCatalogItem as ProviderCatalogItem
    from ._catalog.registry import EndpointRegistry as EndpointRegistry
    from ._catalog.registry import ProviderCatalog as ProviderCatalog
    from ._catalog.registry import match_endpoint as match_endpoint
    from ._catalog.registry import parse_model_spec as parse_model_spec
    from ._catalog.snapshot import CatalogSnapshot as CatalogSnapshot
    from ._catalog.specs import AgenticProgram as AgenticProgram
    from ._catalog.specs import ProviderEndpointSpec as ProviderEndpointSpec
    from ._catalog.specs import ProviderModuleSpec as ProviderModuleSpec
    from ._catalog.specs import RequestOptionsFactory as RequestOptionsFactory
    from ._facade.imodel import iModel as iModel
    from ._facade.manager import ModelNameConflict as ModelNameConflict
    from ._facade.manager import ShutdownOutcome as ShutdownOutcome
    from ._facade.manager import iModelManager as iModelManager
    from ._lifecycle.admission import AdmissionController as AdmissionController
    from ._lifecycle.admission import AdmissionSnapshot as AdmissionSnapshot
    from ._lifecycle.budget import RequestBudget as RequestBudget
    from ._lifecycle.budget import request_budget_from_timeout as request_budget_from_timeout
    from ._lifecycle.config import AdmissionConfig as AdmissionConfig
    from ._lifecycle.lease import AdmissionLease as AdmissionLease
    from ._lifecycle.policy import AttemptPolicy as AttemptPolicy
    from ._lifecycle.policy import CircuitPolicy as CircuitPolicy
    from ._lifecycle.shared_config import SharedAdmission as SharedAdmission
    from ._lifecycle.supervisor import HookTimeout as HookTimeout
    from ._transport.agentic.endpoint import AgenticEndpoint as AgenticEndpoint
    from ._transport.agentic.handlers import AgenticHandlersMixin as AgenticHandlersMixin
    from ._transport.agentic.records import AgenticCallResult as AgenticCallResult
    from ._transport.agentic.records import AgenticCapabilities as AgenticCapabilities
    from ._transport.agentic.records import AgenticResultMetadata as AgenticResultMetadata
    from ._transport.agentic.records import AgenticTransport as AgenticTransport
    from ._transport.agentic.settings import AgenticSettings as AgenticSettings
    from ._transport.api_calling import APICalling as APICalling
    from ._transport.classify import classify_provider_error as classify_provider_error
    from ._transport.classify import classify_stream_error as classify_stream_error
    from ._transport.config import EndpointConfig as EndpointConfig
    from ._transport.http.endpoint import Endpoint as Endpoint
    from ._transport.meta import EndpointMeta as EndpointMeta
    from ._transport.meta import EndpointType as EndpointType

__version__ = "0.1.0"

_LAZY: dict[str, str] = {
    "APICalling": "._transport.api_calling",
    "AdmissionBackendUnavailable": "._base.errors",
    "AdmissionClosed": "._base.errors",
    "AdmissionConfig": "._lifecycle.config",
    "AdmissionConfigError": "._base.errors",
    "AdmissionConflict": "._base.errors",
    "AdmissionController": "._lifecycle.admission",
    "AdmissionError": "._base.errors",
    "AdmissionLease": "._lifecycle.lease",
    "AdmissionSnapshot": "._lifecycle.admission",
    "AgenticCallResult": "._transport.agentic.records",
    "AgenticCapabilities": "._transport.agentic.records",
    "AgenticProgram": "._catalog.specs",
    "AgenticEndpoint": "._transport.agentic.endpoint",
    "AgenticHandlerError": "._base.errors",
    "AgenticHandlersMixin": "._transport.agentic.handlers",
    "AgenticOperationUnsupported": "._base.errors",
    "AgenticRequestValidationError": "._base.errors",
    "AgenticResultMetadata": "._transport.agentic.records",
    "AgenticSettings": "._transport.agentic.settings",
    "AgenticTransport": "._transport.agentic.records",
    "AttemptPolicy": "._lifecycle.policy",
    "CatalogDiagnosticCode": "._base.diagnostics",
    "CatalogReport": "._catalog.projection",
    "CatalogSnapshot": "._catalog.snapshot",
    "CatalogValidationError": "._base.errors",
    "ChunkType": "._base.chunk",
    "CircuitOpenError": "._base.errors",
    "CircuitPolicy": "._lifecycle.policy",
    "EFFORT_LEVELS": "._catalog.policy",
    "ENTRY_POINT_GROUP": "._catalog.discovery",
    "EffortMode": "._catalog.policy",
    "Endpoint": "._transport.http.endpoint",
    "EndpointCatalogItem": "._catalog.projection",
    "EndpointConfig": "._transport.config",
    "EndpointConfigurationError": "._base.errors",
    "EndpointMeta": "._transport.meta",
    "EndpointNotFound": "._base.errors",
    "EndpointRegistry": "._catalog.registry",
    "EndpointType": "._transport.meta",
    "EventLoopMismatchError": "._base.errors",
    "EventLoopUnsupportedError": "._base.errors",
    "Event": "._base.events",
    "EventStatus": "._base.events",
    "Execution": "._base.events",
    "HookPhase": "._base.hooks",
    "HookRegistry": "._base.hooks",
    "HookTimeout": "._lifecycle.supervisor",
    "HookedEvent": "._base.hooks",
    "InstallationConflictError": "._base.errors",
    "InventorySource": "._catalog.discovery",
    "ModelNameConflict": "._facade.manager",
    "ModelSpec": "._catalog.policy",
    "OpenAIChatCompletionsRequest": "._catalog.openai_request",
    "OpenAIEmbeddingsRequest": "._catalog.openai_request",
    "openai_chat_shapes": "._catalog.openai_chat_types",
    "lazy_chat_shapes": "._catalog.lazy_shapes",
    "ProviderAuthError": "._base.errors",
    "ProviderBudgetLimitError": "._base.errors",
    "ProviderCapabilityError": "._base.errors",
    "ProviderCapacityError": "._base.errors",
    "ProviderCatalog": "._catalog.registry",
    "ProviderCatalogError": "._base.errors",
    "ProviderCatalogItem": "._catalog.projection",
    "ProviderClientError": "._base.errors",
    "ProviderConfigError": "._base.errors",
    "ProviderConnectionError": "._base.errors",
    "ProviderContentFilterError": "._base.errors",
    "ProviderContextError": "._base.errors",
    "ProviderStatusContextError": "._base.errors",
    "ProviderStatusContentFilterError": "._base.errors",
    "ProviderStatusUnsupportedModelError": "._base.errors",
    "ProviderDiagnostic": "._base.diagnostics",
    "ProviderDisconnectError": "._base.errors",
    "ProviderEndpointSpec": "._catalog.specs",
    "ProviderError": "._base.errors",
    "ProviderExecutableNotFound": "._base.errors",
    "ProviderInvalidRequestError": "._base.errors",
    "ProviderModelPolicy": "._catalog.policy",
    "lazy_exports": "._base.lazy_exports",
    "ProviderModuleSpec": "._catalog.specs",
    "ProviderPermissionError": "._base.errors",
    "ProviderProcessError": "._base.errors",
    "ProviderProtocolError": "._base.errors",
    "ProviderQuotaError": "._base.errors",
    "ProviderQuotaExhaustedError": "._base.errors",
    "ProviderQuotaSpentError": "._base.errors",
    "ProviderRateLimitError": "._base.errors",
    "ProviderRunLimitError": "._base.errors",
    "ProviderServerError": "._base.errors",
    "ProviderServerFaultError": "._base.errors",
    "ProviderStatusCapabilityError": "._base.errors",
    "ProviderStatusCapacityError": "._base.errors",
    "ProviderStatusError": "._base.errors",
    "ProviderStreamAuthError": "._base.errors",
    "ProviderStreamBudgetLimitError": "._base.errors",
    "ProviderStreamCapabilityError": "._base.errors",
    "ProviderStreamCapacityError": "._base.errors",
    "ProviderStreamConfigError": "._base.errors",
    "ProviderStreamConnectionError": "._base.errors",
    "ProviderStreamContentFilterError": "._base.errors",
    "ProviderStreamContextError": "._base.errors",
    "ProviderStreamDisconnectError": "._base.errors",
    "ProviderStreamError": "._base.errors",
    "ProviderStreamInvalidRequestError": "._base.errors",
    "ProviderStreamPermissionError": "._base.errors",
    "ProviderStreamProtocolError": "._base.errors",
    "ProviderStreamQuotaError": "._base.errors",
    "ProviderStreamQuotaExhaustedError": "._base.errors",
    "ProviderStreamServerError": "._base.errors",
    "ProviderStreamTurnLimitError": "._base.errors",
    "ProviderStreamUnsupportedModelError": "._base.errors",
    "ProviderTransportError": "._base.errors",
    "ProviderTurnLimitError": "._base.errors",
    "ProviderUnauthorizedError": "._base.errors",
    "ProviderUnavailable": "._base.errors",
    "ProviderUnsupportedModelError": "._base.errors",
    "RequestBudget": "._lifecycle.budget",
    "RequestDeadlineExceeded": "._base.errors",
    "RequestExceedsTokenWindow": "._base.errors",
    "RequestOptionsFactory": "._catalog.specs",
    "SharedAdmission": "._lifecycle.shared_config",
    "ShutdownOutcome": "._facade.manager",
    "StreamChunk": "._base.chunk",
    "StreamClosed": "._base.errors",
    "TokenEstimateUnavailable": "._base.errors",
    "UnsafeURLError": "._base.errors",
    "canonical_endpoint_key": "._catalog.keys",
    "canonical_provider_key": "._catalog.keys",
    "classify_provider_error": "._transport.classify",
    "classify_stream_error": "._transport.classify",
    "entry_point_inventory": "._catalog.discovery",
    "iModel": "._facade.imodel",
    "iModelManager": "._facade.manager",
    "match_endpoint": "._catalog.registry",
    "parse_model_spec": "._catalog.registry",
    "request_budget_from_timeout": "._lifecycle.budget",
}

__all__ = sorted(_LAZY)


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value  # later lookups skip this function
    return value


# This module's own imports are not part of its surface (``dir()`` drives completion).
_IMPORTS = frozenset({"Any", "TYPE_CHECKING", "annotations", "importlib"})


def __dir__() -> list[str]:
    return sorted((set(globals()) - _IMPORTS) | set(_LAZY))
