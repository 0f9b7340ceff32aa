"""Conformance kits for adapters: agentic (ADR-0030 D6) and HTTP, for third-party providers.

Subclass a base class in a test module, implement its hooks, and pytest runs every case against
your adapter; capability flags switch cases on and off, and every case's docstring ends with a
"Troubleshooting" paragraph. See ``docs/conformance.md``.

- :class:`AgenticEndpointConformance`: any transport; implement ``make_endpoint(scenario)`` and
  ``valid_request()``.
- :class:`SubprocessAgenticConformance`: CLI adapters; implement ``make_cli_endpoint(argv_prefix,
  terminate_grace=...)``, ``cli_events(scenario)`` and ``valid_request()``.
- :class:`SubprocessCliConformance`: the same for an adapter on core's ``SubprocessCliEndpoint``;
  set ``cli_endpoint_type`` (and ``resume_flag``), implement ``cli_events(scenario)``.
- :class:`HTTPChatConformance`, :class:`HTTPEmbeddingsConformance`, :class:`HTTPJSONConformance`:
  HTTP adapters run against the fake provider server; set ``dialect`` and capability flags,
  implement ``make_endpoint(base_url, api_key)`` and ``valid_request()``. Cases are synchronous
  tests (each runs its own event loop), so they need no async pytest plugin.
- :class:`CatalogRow`: a mixin building ``make_endpoint``/``valid_request`` from an installed
  catalog row (``provider``, ``endpoint``); :func:`catalog_row_endpoint` is its endpoint builder,
  which gives the key only to a row that authenticates.
- :func:`registered_agentic_endpoints` / :func:`assert_static_conformance`: declarations of every
  agentic endpoint in the installed catalog.

Every case is a synchronous test running its own event loop (:func:`sync_case`), so the kit
works under anyio's pytest plugin, pytest-asyncio (strict or auto) or no async plugin.

This module imports pytest; ``import lionagi.service`` never imports it.
"""

from ._agentic import AgenticEndpointConformance as AgenticEndpointConformance
from ._agentic import WorkProbe as WorkProbe
from ._catalog_row import CatalogRow as CatalogRow
from ._catalog_row import catalog_row_endpoint as catalog_row_endpoint
from ._cli import SubprocessCliConformance as SubprocessCliConformance
from ._http import HTTPCase as HTTPCase
from ._http import StreamOutcome as StreamOutcome
from ._http_base import HTTPConformanceBase as HTTPConformanceBase
from ._http_cases_chat import HTTPChatConformance as HTTPChatConformance
from ._http_cases_data import HTTPEmbeddingsConformance as HTTPEmbeddingsConformance
from ._http_cases_data import HTTPJSONConformance as HTTPJSONConformance
from ._http_dialects import response_text as response_text
from ._leaks import LeakCheck as LeakCheck
from ._leaks import ResourceCounts as ResourceCounts
from ._leaks import alive as alive
from ._leaks import child_pids as child_pids
from ._leaks import descendant_pids as descendant_pids
from ._leaks import model_leaks as model_leaks
from ._leaks import open_fd_count as open_fd_count
from ._leaks import pool_connections as pool_connections
from ._leaks import resource_counts as resource_counts
from ._leaks import tagged_pids as tagged_pids
from ._scenario import VENDOR_GRAMMAR_SCENARIOS as VENDOR_GRAMMAR_SCENARIOS
from ._scenario import Scenario as Scenario
from ._scenario import output_problems as output_problems
from ._scenario import scenario_applies as scenario_applies
from ._static import RegisteredAgenticEndpoint as RegisteredAgenticEndpoint
from ._static import assert_static_conformance as assert_static_conformance
from ._static import registered_agentic_endpoints as registered_agentic_endpoints
from ._static import static_conformance_problems as static_conformance_problems
from ._subprocess import CONFORMANCE_SECRET as CONFORMANCE_SECRET
from ._subprocess import HOSTILE_PROMPT as HOSTILE_PROMPT
from ._subprocess import SubprocessAgenticConformance as SubprocessAgenticConformance
from ._subprocess import record_argv as record_argv
from ._subprocess import replay_argv as replay_argv
from ._sync import sync_case as sync_case

__all__ = [
    "CONFORMANCE_SECRET",
    "HOSTILE_PROMPT",
    "VENDOR_GRAMMAR_SCENARIOS",
    "AgenticEndpointConformance",
    "CatalogRow",
    "catalog_row_endpoint",
    "HTTPCase",
    "HTTPChatConformance",
    "HTTPConformanceBase",
    "HTTPEmbeddingsConformance",
    "HTTPJSONConformance",
    "LeakCheck",
    "ResourceCounts",
    "RegisteredAgenticEndpoint",
    "Scenario",
    "StreamOutcome",
    "SubprocessAgenticConformance",
    "SubprocessCliConformance",
    "WorkProbe",
    "alive",
    "assert_static_conformance",
    "child_pids",
    "descendant_pids",
    "model_leaks",
    "open_fd_count",
    "pool_connections",
    "resource_counts",
    "output_problems",
    "record_argv",
    "registered_agentic_endpoints",
    "replay_argv",
    "response_text",
    "scenario_applies",
    "static_conformance_problems",
    "sync_case",
    "tagged_pids",
]
