"""Tools for agentic adapter authors: subprocess support, output contract, error patterns.

Core's shared mechanics for ADR-0030 adapters. Vendor packages import from here; applications
normally need only `lionagi.service`.
"""

from ._base.chunk import CHUNK_TYPES as CHUNK_TYPES
from ._base.validation import first_error as validation_failure
from ._transport.agentic.batches import ChunkBatches as ChunkBatches
from ._transport.agentic.output import collect_call_result as collect_call_result
from ._transport.agentic.output import enforce_agentic_contract as enforce_agentic_contract
from ._transport.agentic.records import AgenticPayload as AgenticPayload
from ._transport.agentic.settings import CONFIG_HOME_ENV as CONFIG_HOME_ENV
from ._transport.agentic.settings import AgenticLaunch as AgenticLaunch
from ._transport.agentic.subprocess_cli import CliEventParser as CliEventParser
from ._transport.agentic.subprocess_cli import CliRequest as CliRequest
from ._transport.agentic.subprocess_cli import SubprocessCliEndpoint as SubprocessCliEndpoint
from ._transport.agentic.subprocess_cli import redact_chunk as redact_chunk
from ._transport.classify import DEFAULT_ERROR_PATTERNS as DEFAULT_ERROR_PATTERNS
from ._transport.classify import ProviderErrorPattern as ProviderErrorPattern
from ._transport.subprocess import PORTABLE_INHERIT_ENV as PORTABLE_INHERIT_ENV
from ._transport.subprocess import PROCESS_TERMINATE_GRACE as PROCESS_TERMINATE_GRACE
from ._transport.subprocess import BlockProjector as BlockProjector
from ._transport.subprocess import CliProbe as CliProbe
from ._transport.subprocess import ErrorClassifier as ErrorClassifier
from ._transport.subprocess import JsonEventStream as JsonEventStream
from ._transport.subprocess import JsonFramer as JsonFramer
from ._transport.subprocess import PromptMode as PromptMode
from ._transport.subprocess import SubprocessSpec as SubprocessSpec
from ._transport.subprocess import build_flag_args as build_flag_args
from ._transport.subprocess import contained_path as contained_path
from ._transport.subprocess import (
    contains_setsid_descendants as contains_setsid_descendants,
)
from ._transport.subprocess import discover_cli as discover_cli
from ._transport.subprocess import json_events as json_events
from ._transport.subprocess import json_events_from_process as json_events_from_process
from ._transport.subprocess import probe_cli as probe_cli
from ._transport.subprocess import projected_events as projected_events
from ._transport.subprocess import repair_tail as repair_tail
from ._transport.subprocess import require_executable as require_executable
from ._transport.subprocess import resolve_workspace as resolve_workspace
from ._transport.usage import TokenCounts as TokenCounts
from ._transport.usage import first_count as first_count
from ._transport.usage import sum_counts as sum_counts

__all__ = [
    "CHUNK_TYPES",
    "CONFIG_HOME_ENV",
    "AgenticLaunch",
    "AgenticPayload",
    "ChunkBatches",
    "CliEventParser",
    "CliProbe",
    "CliRequest",
    "DEFAULT_ERROR_PATTERNS",
    "ErrorClassifier",
    "BlockProjector",
    "JsonEventStream",
    "JsonFramer",
    "PORTABLE_INHERIT_ENV",
    "PROCESS_TERMINATE_GRACE",
    "PromptMode",
    "ProviderErrorPattern",
    "SubprocessCliEndpoint",
    "SubprocessSpec",
    "build_flag_args",
    "collect_call_result",
    "contained_path",
    "contains_setsid_descendants",
    "discover_cli",
    "enforce_agentic_contract",
    "TokenCounts",
    "first_count",
    "sum_counts",
    "json_events",
    "json_events_from_process",
    "projected_events",
    "probe_cli",
    "redact_chunk",
    "repair_tail",
    "require_executable",
    "resolve_workspace",
    "validation_failure",
]
