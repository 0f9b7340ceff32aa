"""HTTP adapter-author surface: endpoints, dialects, projectors, error mapping, the SSRF guard.

Applications normally need only `lionagi.service`; this module is for provider
distributions and for tests that inject a resolver. A vendor endpoint subclasses
`Endpoint` (or `OpenAIChatEndpoint` /
`OpenAIEmbeddingsEndpoint` for the shared dialect) and declares its stream dialect as
`projector`; a vendor projector subclasses `ProjectorBase`; a vendor error vocabulary
overrides `Endpoint.map_status_error` (reading `HTTPErrorInfo`) and classifies its error
chunks' text with `Endpoint.error_patterns` (`ProviderErrorPattern` rows); a thin
OpenAI-compatible vendor declares its rows with `openai_compatible_specs`.

An adapter that sends its own HTTP request outside an `Endpoint` (a remote agent) checks the
URL with `SSRFGuard.approve` and sends through a client built on `PinnedTransport`
inside `pinned`, so it connects to exactly the addresses the guard checked.

A request field that holds a credential the provider forwards or redeems (an MCP server's
token or headers, a one-time credit token) is declared with `remember_request_secret` /
`remember_request_headers` as its pydantic after-validator, so a provider that echoes it in an
error is redacted like a configured key (docs/writing-a-provider.md, "Credentials in a request").

Importing this module installs the lookup through which a vendor's endpoint class built with no
config, `SomeEndpoint()`, resolves its own deferred row (`_catalog.class_binding`; the catalog
itself loads only when a lookup runs). The transport layer that defines `Endpoint` cannot import
the catalog, and every HTTP adapter imports this module before its classes exist.
"""

from ._base.secrets import remember_request_headers as remember_request_headers
from ._base.secrets import remember_request_secret as remember_request_secret
from ._base.suggest import did_you_mean as did_you_mean
from ._base.validation import first_error as validation_failure
from ._catalog import class_binding as _class_binding  # noqa: F401  (see the docstring)
from ._catalog.compatible_specs import openai_compatible_specs as openai_compatible_specs
from ._catalog.tool_choice import unoffered_tool_choice as unoffered_tool_choice
from ._transport.classify import ProviderErrorPattern as ProviderErrorPattern
from ._transport.http.client import ClientState as ClientState
from ._transport.http.client import StatelessClient as StatelessClient
from ._transport.http.endpoint import StreamFraming as StreamFraming
from ._transport.http.endpoint import url_origin as url_origin
from ._transport.http.framing import DONE as DONE
from ._transport.http.openai_dialect import OpenAIChatEndpoint as OpenAIChatEndpoint
from ._transport.http.openai_dialect import OpenAIEmbeddingsEndpoint as OpenAIEmbeddingsEndpoint
from ._transport.http.openai_dialect import openai_status_error as openai_status_error
from ._transport.http.pinning import PinnedTransport as PinnedTransport
from ._transport.http.pinning import pinned as pinned
from ._transport.http.projection import NO_CHUNKS as NO_CHUNKS
from ._transport.http.projection import ChatCompletionsProjector as ChatCompletionsProjector
from ._transport.http.projection import PendingToolCall as PendingToolCall
from ._transport.http.projection import ProjectorBase as ProjectorBase
from ._transport.http.projection import StreamProjector as StreamProjector
from ._transport.http.ssrf import Approval as Approval
from ._transport.http.ssrf import Resolver as Resolver
from ._transport.http.ssrf import SSRFGuard as SSRFGuard
from ._transport.http.ssrf import check_url_safe as check_url_safe
from ._transport.http.status import HTTPErrorInfo as HTTPErrorInfo
from ._transport.http.status import excerpt as excerpt
from ._transport.http.status import json_kind as json_kind
from ._transport.http.status import read_bounded as read_bounded
from ._transport.http.status import status_error as status_error
from ._transport.http.token_estimate import TOKEN_TEXT_KEYS as TOKEN_TEXT_KEYS
from ._transport.http.token_estimate import estimate_tokens as estimate_tokens
from ._transport.usage import TokenCounts as TokenCounts
from ._transport.usage import first_count as first_count
from ._transport.usage import sum_counts as sum_counts

__all__ = [
    "DONE",
    "NO_CHUNKS",
    "Approval",
    "ChatCompletionsProjector",
    "ClientState",
    "HTTPErrorInfo",
    "OpenAIChatEndpoint",
    "OpenAIEmbeddingsEndpoint",
    "PendingToolCall",
    "PinnedTransport",
    "ProjectorBase",
    "ProviderErrorPattern",
    "Resolver",
    "SSRFGuard",
    "StatelessClient",
    "StreamFraming",
    "StreamProjector",
    "TOKEN_TEXT_KEYS",
    "check_url_safe",
    "estimate_tokens",
    "excerpt",
    "TokenCounts",
    "did_you_mean",
    "first_count",
    "sum_counts",
    "json_kind",
    "openai_compatible_specs",
    "openai_status_error",
    "pinned",
    "read_bounded",
    "remember_request_headers",
    "remember_request_secret",
    "status_error",
    "unoffered_tool_choice",
    "url_origin",
    "validation_failure",
]
