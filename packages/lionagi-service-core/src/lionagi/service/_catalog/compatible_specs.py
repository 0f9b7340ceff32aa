"""Catalog rows for a thin OpenAI-compatible vendor, declared once instead of per vendor.

A thin vendor (a service that speaks the chat-completions dialect at its own base URL) differs
from the next only in data: provider key and aliases, base URL, API-key variable, request-model
additions and defaults. :func:`openai_compatible_specs` turns that data into the
:class:`ProviderEndpointSpec` rows, so vendor modules hold no repeated code.

The endpoint classes are the vendor's own two-line subclasses, passed in: the catalog requires
each ``endpoint_class`` to appear once in the whole catalog, and a class the vendor module
defines has a stable ``module:qualname`` that ``iModel.to_dict``/``from_dict`` and pickling can
find again. Generating classes here would give them no importable home.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from .._base.errors import EndpointConfigurationError
from .._transport.http.openai_dialect import OpenAIChatEndpoint, OpenAIEmbeddingsEndpoint
from .._transport.meta import EndpointType
from .specs import ProviderEndpointSpec, RequestOptionsFactory

if TYPE_CHECKING:
    from pydantic import BaseModel

__all__ = ["openai_compatible_specs"]

# The dialect's request models, named by reference for a row whose class is a reference too:
# building two pydantic models costs milliseconds, and every vendor module calls this at catalog
# build, before any provider is used. A row with a class object gets the classes themselves, so
# it stays an eager row, validated at build.
_CHAT_REQUEST = "OpenAIChatCompletionsRequest"
_EMBEDDINGS_REQUEST = "OpenAIEmbeddingsRequest"
_REQUESTS_MODULE = f"{__package__}.openai_request"


def _default_request(endpoint_class: object, name: str) -> type[BaseModel] | str:
    if isinstance(endpoint_class, str):
        return f"{_REQUESTS_MODULE}:{name}"
    from . import openai_request

    model: type[BaseModel] = getattr(openai_request, name)
    return model


def openai_compatible_specs(
    *,
    provider: str,
    base_url: str,
    api_key_env: str | None,
    chat_class: type[OpenAIChatEndpoint] | str,
    provider_aliases: tuple[str, ...] = (),
    chat_request: type[BaseModel] | RequestOptionsFactory | str | None = None,
    chat_endpoint: str = "chat/completions",
    chat_aliases: tuple[str, ...] = ("chat",),
    chat_defaults: Mapping[str, Any] | None = None,
    embeddings_class: type[OpenAIEmbeddingsEndpoint] | str | None = None,
    embeddings_request: type[BaseModel] | RequestOptionsFactory | str | None = None,
    embeddings_endpoint: str = "embeddings",
    embeddings_aliases: tuple[str, ...] = ("embed",),
    embeddings_defaults: Mapping[str, Any] | None = None,
) -> tuple[ProviderEndpointSpec, ...]:
    """The chat row (and, with `embeddings_class`, the embeddings row) of a thin vendor.

    Args:
        provider: the provider key (`"groq"`).
        provider_aliases: extra spellings of the key, given on every row.
        base_url: the vendor's API root (`"https://api.groq.com/openai/v1"`).
        api_key_env: the environment variable holding the key (None: no key, e.g. a local
            server).
        chat_class: the vendor's own `OpenAIChatEndpoint` subclass (one per vendor), or
            its `"module:Name"` reference: a deferred row, imported on the provider's first
            use and checked then (`deferred`), which keeps the vendor's models out of
            commands that do not use it.
        chat_request: the request model, usually a subclass of
            `OpenAIChatCompletionsRequest` adding the vendor's parameters (or a factory,
            or a `"module:Name"` reference). None (the default):
            `OpenAIChatCompletionsRequest`, by reference when `chat_class` is one.
        chat_endpoint: the chat row's path and endpoint key.
        chat_aliases: the chat row's alias keys.
        chat_defaults: the chat row's payload defaults.
        embeddings_class: the vendor's `OpenAIEmbeddingsEndpoint` subclass (or its
            reference); None (the default) declares no embeddings row.
        embeddings_request: the embeddings row's request model (or factory, or reference);
            None: `OpenAIEmbeddingsRequest`, by reference when the class is one.
        embeddings_endpoint: the embeddings row's path and endpoint key.
        embeddings_aliases: the embeddings row's alias keys.
        embeddings_defaults: the embeddings row's payload defaults.

    Raises:
        EndpointConfigurationError: a class argument is not a subclass of the dialect's
            endpoint (`field` names the argument); a reference is checked on first use.
    """
    if not isinstance(chat_class, str) and not (
        isinstance(chat_class, type) and issubclass(chat_class, OpenAIChatEndpoint)
    ):
        raise EndpointConfigurationError(
            "chat_class", "must be a subclass of OpenAIChatEndpoint defined by the vendor module"
        )
    common: dict[str, Any] = {
        "provider": provider,
        "endpoint_type": EndpointType.API,
        "provider_aliases": tuple(provider_aliases),
        "base_url": base_url,
        "auth_type": "bearer",
        "api_key_env": api_key_env,
    }
    rows = [
        ProviderEndpointSpec(
            endpoint=chat_endpoint,
            endpoint_class=chat_class,
            endpoint_aliases=tuple(chat_aliases),
            request_options=(
                _default_request(chat_class, _CHAT_REQUEST)
                if chat_request is None
                else chat_request
            ),
            request_defaults=dict(chat_defaults or {}),
            **common,
        )
    ]
    if embeddings_class is not None:
        if not isinstance(embeddings_class, str) and not (
            isinstance(embeddings_class, type)
            and issubclass(embeddings_class, OpenAIEmbeddingsEndpoint)
        ):
            raise EndpointConfigurationError(
                "embeddings_class",
                "must be a subclass of OpenAIEmbeddingsEndpoint defined by the vendor module",
            )
        rows.append(
            ProviderEndpointSpec(
                endpoint=embeddings_endpoint,
                endpoint_class=embeddings_class,
                endpoint_aliases=tuple(embeddings_aliases),
                request_options=(
                    _default_request(embeddings_class, _EMBEDDINGS_REQUEST)
                    if embeddings_request is None
                    else embeddings_request
                ),
                request_defaults=dict(embeddings_defaults or {}),
                **common,
            )
        )
    return tuple(rows)
