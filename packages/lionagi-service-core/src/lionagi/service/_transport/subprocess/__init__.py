"""Shared subprocess support for agentic CLI adapters (ADR-0030 D4).

Mechanics every CLI adapter needs and none should re-implement: argv-only launch in a new
process group with a minimal environment, incremental JSON framing of stdout, bounded stderr
capture, classified non-zero exits, deterministic teardown of every descendant (process group,
plus a per-call cgroup on Linux that also reaches ``setsid()`` tool shells), workspace containment,
executable discovery and version probing. Command grammar and event meaning stay in the vendor
packages.
"""

from .capture import StderrCapture as StderrCapture
from .discover import CliProbe as CliProbe
from .discover import discover_cli as discover_cli
from .discover import probe_cli as probe_cli
from .discover import require_executable as require_executable
from .discover import resolve_executable as resolve_executable
from .flags import build_flag_args as build_flag_args
from .framing import JsonFramer as JsonFramer
from .framing import PlainLine as PlainLine
from .framing import TailRepair as TailRepair
from .framing import repair_tail as repair_tail
from .process import BlockProjector as BlockProjector
from .process import JsonEventStream as JsonEventStream
from .process import json_events as json_events
from .process import json_events_from_process as json_events_from_process
from .process import projected_events as projected_events
from .process import redact_error as redact_error
from .process import terminate_process_group as terminate_process_group
from .spec import PORTABLE_INHERIT_ENV as PORTABLE_INHERIT_ENV
from .spec import PROCESS_TERMINATE_GRACE as PROCESS_TERMINATE_GRACE
from .spec import REAP_TIMEOUT as REAP_TIMEOUT
from .spec import STDERR_CAPTURE_LIMIT as STDERR_CAPTURE_LIMIT
from .spec import STDERR_DRAIN_TIMEOUT as STDERR_DRAIN_TIMEOUT
from .spec import STDOUT_BUFFER_LIMIT as STDOUT_BUFFER_LIMIT
from .spec import ErrorClassifier as ErrorClassifier
from .spec import PromptMode as PromptMode
from .spec import StdinMode as StdinMode
from .spec import SubprocessSpec as SubprocessSpec
from .tree import contains_setsid_descendants as contains_setsid_descendants
from .workspace import contained_path as contained_path
from .workspace import resolve_repo as resolve_repo
from .workspace import resolve_within as resolve_within
from .workspace import resolve_workspace as resolve_workspace

__all__ = [
    "PORTABLE_INHERIT_ENV",
    "PROCESS_TERMINATE_GRACE",
    "REAP_TIMEOUT",
    "STDERR_CAPTURE_LIMIT",
    "STDERR_DRAIN_TIMEOUT",
    "STDOUT_BUFFER_LIMIT",
    "BlockProjector",
    "CliProbe",
    "ErrorClassifier",
    "JsonEventStream",
    "JsonFramer",
    "PlainLine",
    "PromptMode",
    "StderrCapture",
    "StdinMode",
    "SubprocessSpec",
    "TailRepair",
    "build_flag_args",
    "contained_path",
    "contains_setsid_descendants",
    "discover_cli",
    "json_events",
    "json_events_from_process",
    "projected_events",
    "probe_cli",
    "redact_error",
    "repair_tail",
    "require_executable",
    "resolve_executable",
    "resolve_repo",
    "resolve_within",
    "resolve_workspace",
    "terminate_process_group",
]
