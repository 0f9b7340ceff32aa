"""HTTP status to typed error, with a bounded and redacted body excerpt.

Only the first ``ERROR_BODY_READ_LIMIT`` bytes of an error body are read: a misbehaving server
cannot make an error path buffer an unbounded body, and the excerpt stays small enough to log.
"""

from __future__ import annotations

import contextlib
import ipaddress
import json
import math
import re
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime

import httpx

from ..._base.errors import (
    ProviderClientError,
    ProviderConfigError,
    ProviderProtocolError,
    ProviderQuotaExhaustedError,
    ProviderRateLimitError,
    ProviderServerError,
    ProviderStatusCapabilityError,
    ProviderStatusContentFilterError,
    ProviderStatusContextError,
    ProviderStatusError,
    ProviderStatusUnsupportedModelError,
    ProviderUnauthorizedError,
)
from ..._base.secrets import REDACTED, bounded, redact
from ..classify import DEFAULT_ERROR_PATTERNS, capability_named
from .content_coding import decoded_body
from .problem import is_problem, problem_document, problem_summary

__all__ = [
    "BAD_JSON",
    "ERROR_BODY_READ_LIMIT",
    "EXCERPT_LIMIT",
    "HTTPErrorInfo",
    "describe_url",
    "error_info",
    "excerpt",
    "json_kind",
    "parse_retry_after",
    "parse_should_retry",
    "proxy_auth_error",
    "proxy_forbidden_error",
    "read_bounded",
    "socks_connect_error",
    "status_error",
]

ERROR_BODY_READ_LIMIT = 64 * 1024
EXCERPT_LIMIT = 2048
# HTTP delta-seconds are ASCII digits (RFC 9110 §10.2.3); `\d` also matches other scripts' digits.
_SECONDS = re.compile(r"[0-9]+(?:\.[0-9]+)?")
BAD_JSON = (ValueError, RecursionError)
"""What decoding provider JSON can raise: bad JSON, or nesting deeper than the interpreter
recurses (``[[[[...`` costs the server one byte per level, so any body or event can do it)."""
# The families a plain 4xx body decides, each with the rule the CLI and stream classification
# use (one compiled rule, so the three paths cannot drift apart). An over-long prompt is a 400 at
# every provider, and callers must tell it from other refused requests (trim the prompt vs. fix
# the request). A content-filter refusal is a 400 too (Azure OpenAI, OpenAI), and the rule only
# holds specific, cited evidence (Azure's ResponsibleAIPolicyViolation and "content management
# policy", OpenAI's safety-system text, Anthropic's "blocked by content filtering policy"), so a
# match names the refusal whichever vendor's endpoint read the body.
_CONTEXT = next(rule for rule in DEFAULT_ERROR_PATTERNS if rule.kind == "context")
_CONTENT_FILTER = next(rule for rule in DEFAULT_ERROR_PATTERNS if rule.kind == "content_filter")
# A spent quota or credit, read from a 4xx body with the rule the CLI and stream classification
# use: a 429 saying the balance is gone must not be retried as a rate limit is. The rule holds
# only wording that cannot mean "slow down" (a bare "exceeded your current quota" stays a rate
# limit: Google sends it for a per-minute limit), so a plain 429 keeps its retries.
_QUOTA_SPENT = next(rule for rule in DEFAULT_ERROR_PATTERNS if rule.kind == "quota_exhausted")
# A request for a capability the model lacks ("does not support tools", "... thinking", Gemini's
# "Function calling is not enabled for models/..."), read with the same rule: providers answer it
# with a plain 400 (OpenRouter a 404), and the caller's fix (another model, or the request without
# the tools) is one no other refused request has. The rule is a closed list of capabilities, so
# a refused parameter or value ("does not support parameter 'temperature'") stays a client error.
_CAPABILITY = next(rule for rule in DEFAULT_ERROR_PATTERNS if rule.kind == "capability")


def describe_url(url: httpx.URL, secrets: Iterable[str] = ()) -> str:
    """``scheme://host[:port]/path`` without userinfo or query (either may carry a secret).

    Each of ``secrets`` (at least 4 characters, as :func:`redact` takes them) found in the path
    is replaced: an endpoint's ``params`` values fill its path (``Endpoint._secrets``).
    """
    port = f":{url.port}" if url.port is not None else ""
    path = url.path
    for secret in secrets:
        if len(secret) >= 4 and secret in path:
            path = path.replace(secret, REDACTED)
    return f"{url.scheme}://{url.host}{port}{path}"


def excerpt(body: bytes | str, secrets: Iterable[str] = (), limit: int = EXCERPT_LIMIT) -> str:
    """Decode, redact, then bound: redacting first so a cut can never expose part of a key."""
    text = body.decode("utf-8", "replace") if isinstance(body, bytes) else body
    return bounded(redact(text, secrets), limit)


async def read_bounded(response: httpx.Response, limit: int = ERROR_BODY_READ_LIMIT) -> bytes:
    """Read at most `limit` bytes of a streamed response body (the caller closes it).

    Decoded with a bound per step (`decoded_body`), so a compressed body cannot inflate far
    past `limit` before the count stops it.
    """
    parts: list[bytes] = []
    size = 0
    async for block in decoded_body(response):
        parts.append(block)
        size += len(block)
        if size >= limit:
            break
    return b"".join(parts)[:limit]


def _longest(seconds: float) -> float:
    """A wait written with more digits than a float holds is the longest wait, not ``inf``.

    ``float("9" * 400)`` is ``inf``, which the attempt loop ignores as invalid: the longer a
    server asked to wait, the sooner the call was retried. The largest float is longer than
    any policy's ``max_delay`` and any deadline, so such a call fails at once instead.
    """
    return sys.float_info.max if seconds == math.inf else seconds


def parse_retry_after(
    headers: Mapping[str, str] | httpx.Headers, *, now: datetime | None = None
) -> float | None:
    """Seconds to wait from ``Retry-After`` (delta-seconds or HTTP-date), else None.

    A date in the past gives 0.0; an unparsable or negative value gives None (ADR-0029 D4: an
    invalid Retry-After is ignored). ``retry-after-ms`` is used when ``Retry-After`` is absent.
    """
    value = headers.get("retry-after")
    if value is None:
        millis = headers.get("retry-after-ms")
        if millis is not None and _SECONDS.fullmatch(millis.strip()):
            return _longest(float(millis.strip()) / 1000.0)
        return None
    value = value.strip()
    if _SECONDS.fullmatch(value):
        return _longest(float(value))
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError, OverflowError):
        # OverflowError: a zone offset too large for the platform, e.g. ``+99999999999999999999``.
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    current = now or datetime.now(UTC)
    return max(0.0, (when - current).total_seconds())


def parse_should_retry(headers: Mapping[str, str] | httpx.Headers) -> bool | None:
    """The server's own retry verdict from ``x-should-retry``: True, False, or None (no verdict).

    OpenAI's and Anthropic's official SDKs obey this header over their status rules: ``false``
    means the same request fails the same way (do not retry even a 5xx or 429), ``true`` that
    a retry may succeed. Only ``true`` and ``false`` (any case, surrounding space ignored) are a
    verdict; any other value is ignored, as an invalid ``Retry-After`` is.
    """
    value = headers.get("x-should-retry")
    if value is None:
        return None
    return _SHOULD_RETRY.get(value.strip().lower())


_SHOULD_RETRY = {"true": True, "false": False}


@dataclass(frozen=True, slots=True)
class HTTPErrorInfo:
    """What `Endpoint.map_status_error` reads about one non-2xx response.

    `where` is `"METHOD scheme://host[:port]/path"` (no userinfo, no query); `body` the
    parsed JSON error body (None when the body is empty or not JSON; parsed from the first
    `ERROR_BODY_READ_LIMIT` bytes); `excerpt` the bounded, redacted body text to put in a
    message; `retry_after` the server's Retry-After in seconds, else None; `headers` the
    response headers, for vendor-specific retry hints.
    """

    status: int
    where: str
    body: object
    excerpt: str
    retry_after: float | None
    headers: httpx.Headers

    @property
    def error(self) -> Mapping[str, object]:
        """The `error` object of an `{"error": {...}}` body, else `{}`."""
        body = self.body
        if isinstance(body, dict):
            inner = body.get("error")
            if isinstance(inner, dict):
                return inner
        return {}

    @property
    def suffix(self) -> str:
        """`": <excerpt>"`, or `""` for an empty body: the tail generic messages use."""
        return f": {self.excerpt}" if self.excerpt else ""

    def unsupported_model(self, hint: str = "") -> ProviderStatusUnsupportedModelError:
        """The typed error for this response, read as "the provider does not serve the model".

        Each dialect or vendor hook decides from its own body that the refusal names the model;
        the wording of the error is one, here. `hint` (what fixes it, e.g. pulling the model)
        goes inside the parenthesis, before why it is not retried.
        """
        lead = f"{hint}; " if hint else ""
        return ProviderStatusUnsupportedModelError(
            f"{self.where} refused the request: the provider does not serve the requested model "
            f"(HTTP {self.status}; {lead}the same model is refused again, so it is not retried)"
            f"{self.suffix}",
            status=self.status,
            body_excerpt=self.excerpt,
        )


def error_info(
    response: httpx.Response, body: bytes, *, secrets: Iterable[str] = ()
) -> HTTPErrorInfo:
    """The :class:`HTTPErrorInfo` of a non-2xx ``response`` whose (bounded) body is ``body``."""
    secrets = tuple(secrets)
    parsed: object = None
    if body.strip():
        try:
            parsed = json.loads(body.decode("utf-8", "replace"))
        except BAD_JSON:
            parsed = None
    return HTTPErrorInfo(
        status=response.status_code,
        where=f"{response.request.method} {describe_url(response.request.url, secrets)}",
        body=parsed,
        excerpt=excerpt(body, secrets),
        retry_after=parse_retry_after(response.headers),
        headers=response.headers,
    )


def proxy_auth_error(
    where: str, *, proxy: str | None = "", body_excerpt: str = "", socks_reply: str = ""
) -> ProviderUnauthorizedError:
    """The typed error for a proxy refusing the request for want of valid credentials.

    An HTTP proxy's 407 Proxy Authentication Required (httpx's ``ProxyError`` for a refused
    CONNECT, or the response to a forwarded plain-http request), or a SOCKS5 proxy's refusal of
    the authentication it was offered (``socks_reply``: httpcore's reason, e.g. ``Invalid
    username/password``). Retrying sends the same credentials and is refused the same way, and
    the refusal says nothing about the provider's health, so it is the credentials family
    (:class:`ProviderUnauthorizedError`): never retried, neutral for the circuit.

    ``status`` is 407 for both: the class needs an HTTP status, and 407 is the one meaning
    "the proxy wants valid credentials", so ``status == 407`` tells every proxy refusal from a
    refused API key whatever the proxy's protocol; a SOCKS message says no HTTP status was sent.

    ``proxy`` is the configured proxy's ``scheme://host:port`` (never its userinfo), ``""``
    when ``client_kwargs.proxy`` is set but cannot be named, None when no proxy is configured:
    then the 407 came from a proxy the configuration does not know of, and the message says so
    instead of sending the caller to a setting they never used.
    """
    suffix = f": {body_excerpt}" if body_excerpt else ""
    if socks_reply:
        named = f" {proxy}" if proxy else ""
        return ProviderUnauthorizedError(
            f"{where}: the SOCKS proxy{named} (client_kwargs.proxy) refused the authentication "
            f"it was offered ({socks_reply}): the user and password are missing or wrong, or "
            "the proxy does not take username/password authentication; set them in "
            "client_kwargs.proxy (socks5://user:password@host:port). Not retried: the same "
            "credentials are refused again (status 407 marks a proxy's refused credentials; a "
            "SOCKS proxy sends no HTTP status)",
            status=407,
            body_excerpt=body_excerpt,
        )
    if proxy is None:
        return ProviderUnauthorizedError(
            f"{where} answered HTTP 407 Proxy Authentication Required, but no proxy is "
            "configured (client_kwargs.proxy is not set): a proxy on the network path (an "
            "intercepting proxy, or one the HTTP client took from the environment) or the "
            "server itself wants credentials; route through that proxy with its user and "
            "password in client_kwargs.proxy (http://user:password@host:port), or ask whoever "
            f"runs it. Not retried: the same request is refused again{suffix}",
            status=407,
            body_excerpt=body_excerpt,
        )
    via = (
        f"the proxy {proxy} (client_kwargs.proxy)" if proxy else "the proxy in client_kwargs.proxy"
    )
    return ProviderUnauthorizedError(
        f"{where}: {via} refused the request with HTTP 407 Proxy Authentication Required: its "
        "credentials are missing or wrong; set the proxy's user and password in "
        "client_kwargs.proxy (http://user:password@host:port). Not retried: the same "
        f"credentials are refused again{suffix}",
        status=407,
        body_excerpt=body_excerpt,
    )


def _target(url: httpx.URL) -> str:
    """``host:port`` a proxy is asked to connect to (the scheme's default port made explicit)."""
    default = {"http": 80, "https": 443}.get(url.scheme)
    port = url.port if url.port is not None else default
    host = f"[{url.host}]" if ":" in url.host else url.host
    return f"{host}:{port}" if port is not None else host


def proxy_forbidden_error(
    where: str, *, proxy: str | None, url: httpx.URL
) -> ProviderUnauthorizedError:
    """The typed error for an HTTP proxy answering the tunnel's CONNECT with 403 Forbidden.

    The proxy's access rules refuse this destination (for this client address or proxy user):
    every retry is refused the same way and none says anything about the provider's health, so
    it is the access family, :class:`ProviderUnauthorizedError` with ``status`` 403, never
    retried and neutral for the circuit, as a SOCKS proxy's "not allowed by ruleset" is. Only
    the CONNECT's answer: a forward proxy's 403 to a plain-http request is the response itself,
    typed by :func:`status_error` like any 403. ``proxy`` is the proxy's ``scheme://host:port``
    (never its userinfo; ``""`` or None when it cannot be named), ``url`` the request's target.
    """
    target = _target(url)
    via = (
        f"the proxy {proxy} (client_kwargs.proxy)" if proxy else "the proxy in client_kwargs.proxy"
    )
    return ProviderUnauthorizedError(
        f"{where}: {via} refused to open a tunnel to {target} (HTTP 403 Forbidden to CONNECT): "
        "its rules do not allow this destination for this client or proxy user; ask whoever "
        f"runs the proxy to allow {target}, or set client_kwargs.proxy to a proxy that may reach "
        "it. Not retried: the proxy answers every attempt the same way, which says nothing about "
        "the provider's health",
        status=403,
    )


def socks_connect_error(
    where: str, *, proxy: str | None, url: httpx.URL, reply: str
) -> ProviderUnauthorizedError | ProviderConfigError:
    """The typed error for a SOCKS5 proxy's CONNECT failure that repeats for this configuration.

    ``reply`` is httpcore's wording of the proxy's reply code (RFC 1928 §6): ``Connection not
    allowed by ruleset`` (X'02'), ``Command not supported`` (X'07') or ``Address type not
    supported`` (X'08'). The other failure replies (a general failure, an unreachable network
    or host, a refused connection, an expired TTL) are the target's state or a passing fault
    and stay retried connection errors; these three are the proxy's settings, so every retry
    is answered the same way and none says anything about the provider's health.

    X'02' is the proxy's policy refusing this destination (for this client address or proxy
    user): the access family an HTTP proxy's ``403 Forbidden`` answer gets,
    :class:`ProviderUnauthorizedError` with ``status`` 403 (as a refused SOCKS authentication
    gets 407), never retried and neutral for the circuit whatever the attempt policy retries.
    X'07' and X'08' say the proxy cannot carry what this configuration asks of it (a TCP
    relay, or the target's kind of address: httpx sends a host name for the proxy to resolve
    under ``socks5://`` and ``socks5h://`` alike): :class:`ProviderConfigError`, the
    deployment's to fix, likewise never retried and neutral.

    ``url`` is the request's target: the message names its ``host:port`` (what the proxy was
    asked to connect to), ``proxy`` the proxy's ``scheme://host:port`` (never its userinfo;
    ``""`` or None when it cannot be named), ``where`` the redacted request URL.

    Raises:
        ValueError: ``reply`` is none of the three (the caller matched another reply).
    """
    version: int = 0  # a host name, unless it parses as an IP address
    with contextlib.suppress(ValueError):
        version = ipaddress.ip_address(url.host).version
    kind = {4: "IPv4 address", 6: "IPv6 address"}.get(version, "host name")
    target = _target(url)
    via = (
        f"the SOCKS proxy {proxy} (client_kwargs.proxy)"
        if proxy
        else "the SOCKS proxy in client_kwargs.proxy"
    )
    not_retried = (
        "Not retried: the proxy answers every attempt the same way, which says nothing about "
        "the provider's health"
    )
    if reply == "Connection not allowed by ruleset":
        return ProviderUnauthorizedError(
            f"{where}: {via} refused to connect to {target}: its rules do not allow this "
            "destination for this client or proxy user (SOCKS5 reply X'02', Connection not "
            f"allowed by ruleset); ask whoever runs the proxy to allow {target}, or set "
            f"client_kwargs.proxy to a proxy that may reach it. {not_retried} (status 403 "
            "marks a proxy's refusal of the destination, as an HTTP proxy's Forbidden does; a "
            "SOCKS proxy sends no HTTP status)",
            status=403,
        )
    if reply == "Address type not supported":
        if version:
            fix = (
                f"set client_kwargs.proxy to a proxy that takes {kind}es, or base_url to the "
                "target's host name"
            )
        else:
            fix = (
                "the client sends the target's host name for the proxy to resolve, under "
                "socks5:// and socks5h:// alike; set client_kwargs.proxy to a proxy that "
                "resolves host names"
            )
        return ProviderConfigError(
            f"{where}: {via} cannot connect to {target}: it takes no {kind} (SOCKS5 reply "
            f"X'08', Address type not supported); {fix}. {not_retried}"
        )
    if reply == "Command not supported":
        return ProviderConfigError(
            f"{where}: {via} cannot connect to {target}: it does not relay TCP connections "
            "(SOCKS5 reply X'07', Command not supported: the CONNECT command); set "
            f"client_kwargs.proxy to a SOCKS5 proxy that does. {not_retried}"
        )
    raise ValueError(f"not a SOCKS5 reply that repeats for the configuration: {reply!r}")


def status_error(
    response: httpx.Response,
    body: bytes,
    *,
    secrets: Iterable[str] = (),
    unauthorized_hint: str = "check the API key",
    proxy: str | None = None,
) -> ProviderStatusError | ProviderProtocolError:
    """The typed error for a non-2xx `response` whose (bounded) body is `body`.

    The mapping core's endpoints use (401/403 refused credentials, 407 a proxy's refused
    credentials, 429 rate limit with `retry_after`, a 402 or a 4xx body saying the quota or
    credit is spent, 5xx server errors, context-length and content-filter codes, a 4xx body
    saying the model does not support what the request asks), for an
    adapter that sends its own request outside `Endpoint` (a remote agent). The message
    names the method and URL (credentials and query values redacted) and a bounded, redacted
    excerpt of the body (of an `application/problem+json` body, its `title: detail`); `secrets`
    are redacted too. `unauthorized_hint` is the advice a
    401/403 message gives: an adapter that sends no API key says what the caller can do instead.
    `proxy` is what a 407 names (see `proxy_auth_error`): the `scheme://host:port` of the
    proxy the request went through, `""` for a configured proxy that cannot be named, None
    (the default) when the request was sent through no configured proxy.
    """
    secrets = tuple(secrets)
    status = response.status_code
    where = f"{response.request.method} {describe_url(response.request.url, secrets)}"
    text = excerpt(body, secrets)
    suffix = f": {_problem_words(response, body, secrets) or text}" if text else ""
    if 300 <= status < 400:
        raw_location = response.headers.get("location")
        if raw_location is None:
            # 304 Not Modified (or a 3xx without a target): nothing to follow, and no answer.
            return ProviderClientError(
                f"{where} answered HTTP {status} with no Location and no answer (a cache "
                f"validator sent by a client header, or a proxy in the way){suffix}",
                status=status,
                body_excerpt=text,
            )
        location = excerpt(raw_location, secrets, 300)
        return ProviderClientError(
            f"{where} answered HTTP {status} redirecting to {location}; redirects are not "
            "followed (each hop would need its own SSRF check): set base_url to the final URL",
            status=status,
            body_excerpt=text,
        )
    if status == 407:
        # Only a proxy sends it (RFC 9110 §15.5.8): a forward proxy's answer to a plain-http
        # request, through the configured proxy (`proxy`) or one the caller did not configure.
        return proxy_auth_error(where, proxy=proxy, body_excerpt=text)
    if (
        400 <= status < 500
        and status not in (401, 403)
        and (status == 402 or _QUOTA_SPENT.search(text, None))
    ):
        # HTTP 402 Payment Required reads as a spent balance here as in the OpenAI dialect's
        # hook and the stream statuses (classify.STREAM_STATUS_FAMILIES). Before the 429
        # branch: a 429 saying the quota or credit is used up is billing, and retrying it only
        # spent the attempts (and counted against the circuit). 401/403 keep their auth meaning.
        return ProviderQuotaExhaustedError(
            f"{where}: the account's quota or credit is used up (HTTP {status}; billing, "
            f"not a rate limit, so it is not retried){suffix}",
            status=status,
            body_excerpt=text,
            retry_after=parse_retry_after(response.headers),
        )
    if status == 429:
        retry_after = parse_retry_after(response.headers)
        hint = f" (retry after {retry_after:g}s)" if retry_after is not None else ""
        return ProviderRateLimitError(
            f"{where} is rate limited: HTTP 429{hint}{suffix}",
            body_excerpt=text,
            retry_after=retry_after,
        )
    if status in (401, 403):
        # One class for both (the error tables type a 403 as auth), but not one sentence: a 403
        # accepted the key and refused what it asked for (a model, a project, a region), so
        # "refused the credentials" would send the caller to rotate a key that works.
        refused = (
            "refused the credentials (HTTP 401)"
            if status == 401
            else "refused the request for these credentials (HTTP 403: the key may lack access "
            "to this model, project or region)"
        )
        return ProviderUnauthorizedError(
            f"{where} {refused}; {unauthorized_hint}{suffix}", status=status, body_excerpt=text
        )
    if 400 <= status < 500 and _CONTEXT.search(text, None):
        return ProviderStatusContextError(
            f"{where} refused the request: HTTP {status}, the prompt exceeds the model's "
            f"context window{suffix}",
            status=status,
            body_excerpt=text,
        )
    if 400 <= status < 500 and _CONTENT_FILTER.search(text, None):
        # After 401/403: body text does not outweigh what the status itself says (an endpoint
        # whose vendor answers a refusal with a 403 maps its code in its own hook, as the
        # OpenAI dialect does), and a 429 was typed above, so it is still retried.
        return ProviderStatusContentFilterError(
            f"{where} refused the request: HTTP {status}, the provider's content filter "
            f"blocked it{suffix}",
            status=status,
            body_excerpt=text,
        )
    if 400 <= status < 500 and _CAPABILITY.search(text, None):
        # After every narrower family (a spent quota, a rate limit, refused credentials, an
        # over-long prompt, a content-filter refusal): the text says what the request asked for,
        # those say what stands in the way whatever it asked. A vendor hook that read the body
        # first (an unknown model) has already decided.
        capability = capability_named(text)
        asked = f" ({capability})" if capability else ""
        return ProviderStatusCapabilityError(
            f"{where} refused the request: HTTP {status}, the model does not support what the "
            f"request asks{asked}; use a model that does, or leave it out of the request (the "
            f"same request is refused again, so it is not retried){suffix}",
            status=status,
            body_excerpt=text,
            capability=capability,
        )
    if 400 <= status < 500:
        return ProviderClientError(
            f"{where} rejected the request: HTTP {status}{suffix}", status=status, body_excerpt=text
        )
    if 500 <= status < 600:
        retry_after = parse_retry_after(response.headers)
        hint = f" (retry after {retry_after:g}s)" if retry_after is not None else ""
        return ProviderServerError(
            f"{where} failed: HTTP {status}{hint}{suffix}",
            status=status,
            body_excerpt=text,
            retry_after=retry_after,
        )
    return ProviderProtocolError(f"{where} answered an unexpected HTTP status {status}{suffix}")


def _problem_words(response: httpx.Response, body: bytes, secrets: tuple[str, ...]) -> str:
    """`title: detail` of an `application/problem+json` body, redacted; else `""`.

    What a message says for an RFC 9457 problem report: its JSON (`type` URI, `instance`,
    extension members) stays in `body_excerpt`, where the status families are read from too.
    """
    if not is_problem(response.headers.get("content-type")):
        return ""
    document = problem_document(body)
    summary = problem_summary(document) if document is not None else ""
    return excerpt(summary, secrets) if summary else ""


def json_kind(value: object) -> str:
    """The JSON type of a decoded value (`"object"`, `"array"`, ...), never its text.

    For messages about a body of the wrong shape: the body may hold anything, a secret or a
    prompt included, so a message names what it is, not what it says.
    """
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"
