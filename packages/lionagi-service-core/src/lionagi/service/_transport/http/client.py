"""The one seam between an endpoint and its HTTP client library.

Everything the endpoint needs from a client is ``build_request``, ``send(stream=True)`` and
``aclose``; :func:`new_client` is the only place that constructs one, so an alternative
httpx-compatible client can be measured by replacing this function (or overriding
``Endpoint._new_client``) without touching request, status or stream handling.
"""

from __future__ import annotations

import importlib
import os
import threading
from collections.abc import Callable
from enum import Enum
from functools import partial
from typing import TYPE_CHECKING, Any

import httpcore
import httpx

if TYPE_CHECKING:
    import ssl

from ..._base.errors import EndpointConfigurationError
from ..._base.secrets import redact
from ..config import FORBIDDEN_CLIENT_KWARGS as _FORBIDDEN_CLIENT_KWARGS
from ..config import EndpointConfig
from .content_coding import ACCEPT_ENCODING
from .logs import install_log_redaction
from .pinning import PinnedTransport
from .pool import SingleAssignmentHTTPProxy

__all__ = [
    "DEFAULT_LIMITS",
    "ClientState",
    "ProxyTransport",
    "StatelessClient",
    "default_ssl_context",
    "new_client",
]

# Concurrency is bounded by admission (ADR-0029), not by a hidden pool cap that would queue work
# outside the request deadline's view; keep-alive is generous so bursts reuse connections.
DEFAULT_LIMITS = httpx.Limits(
    max_connections=None, max_keepalive_connections=100, keepalive_expiry=30.0
)

# client_kwargs that choose TLS verification themselves; the shared default context stays out.
_TLS_KWARGS = frozenset({"verify", "cert", "trust_env"})
# client_kwargs httpx hands to the transport it builds; a PinnedTransport takes the same ones.
_TRANSPORT_KWARGS = ("verify", "cert", "trust_env", "http1", "http2", "limits")
_shared_tls: dict[tuple[bool, str | None, str | None], ssl.SSLContext] = {}
_shared_tls_lock = threading.Lock()


def default_ssl_context(http2: bool = False) -> ssl.SSLContext:
    """The default verifying TLS context of httpx, built once per process and shared.

    Building it loads the CA bundle, which costs tens of milliseconds per client; httpx
    documents passing one context as ``verify=`` to many clients. The key includes what
    ``httpx.create_ssl_context`` reads from the environment (``SSL_CERT_FILE``,
    ``SSL_CERT_DIR``) and the HTTP/2 flag, because httpcore sets the context's ALPN protocols
    from that flag before each handshake: clients sharing a context always set the same list.
    """
    key = (http2, os.environ.get("SSL_CERT_FILE") or None, os.environ.get("SSL_CERT_DIR") or None)
    ctx = _shared_tls.get(key)
    if ctx is None:
        with _shared_tls_lock:
            ctx = _shared_tls.get(key)
            if ctx is None:
                try:
                    ctx = _shared_tls[key] = httpx.create_ssl_context()
                except OSError as exc:  # ssl.SSLError too: a missing or unreadable CA file
                    field = "SSL_CERT_FILE" if key[1] else "SSL_CERT_DIR" if key[2] else "verify"
                    raise _tls_error(field, exc) from exc
    return ctx


def _tls_error(field: str, exc: OSError) -> EndpointConfigurationError:
    """A TLS file that could not be loaded, as the configuration error it is.

    Raised bare, the ``FileNotFoundError`` or ``ssl.SSLError`` ended a call with an untyped
    exception that named no setting (httpx loads the files when the client or its first https
    connection is built, not where they were configured).
    """
    reason = exc.strerror or str(exc) or type(exc).__name__
    return EndpointConfigurationError(
        field, f"could not load TLS certificates: {type(exc).__name__}: {reason[:200]}"
    )


def _require_optional(module: str, field: str, extra: str, feature: str) -> None:
    """Refuse ``field`` when httpx's optional ``module`` for ``feature`` cannot be imported.

    httpx checks the same import when the client or the proxy's transport is built and raises a
    bare ``ImportError`` that names no setting; checked here first, the caller learns which of
    its ``client_kwargs`` needs the package and how to install it (``httpx[extra]``).
    """
    try:
        importlib.import_module(module)
    except ImportError as exc:
        raise EndpointConfigurationError(
            field,
            f"{feature} needs the optional package {module!r}, which could not be imported "
            f"({type(exc).__name__}: {exc}); install it: pip install 'httpx[{extra}]'",
        ) from exc


class _NoCookies(httpx.Cookies):
    """Cookies that stay empty: a provider's ``Set-Cookie`` is not replayed on later requests."""

    def extract_cookies(self, response: httpx.Response) -> None:
        """Ignore the response's cookies (see :class:`StatelessClient`)."""


class StatelessClient(httpx.AsyncClient):
    """httpx's client with no cookie jar carried from one request to the next.

    An endpoint's pooled client serves every caller of its `iModel`; a cookie one response
    sets would otherwise ride along on everybody's later requests, and extracting cookies from
    every response is the most expensive client step on a keep-alive call. Pass
    `client_kwargs={"cookies": ...}` to get httpx's stateful jar instead.
    """

    def __init__(self, **kwargs: Any) -> None:
        self._no_cookies = _NoCookies()
        super().__init__(**kwargs)

    @property
    def cookies(self) -> httpx.Cookies:
        """Always empty."""
        return self._no_cookies

    @cookies.setter
    def cookies(self, cookies: Any) -> None:
        raise AttributeError("this client keeps no cookies; set client_kwargs['cookies'] instead")


class ClientState(Enum):
    """Lifecycle of the endpoint's client: created lazily, closed once, never reopened."""

    UNOPENED = "unopened"
    OPENED = "opened"
    CLOSED = "closed"


def _pinned_transport(
    kwargs: dict[str, Any], tls: Callable[[], ssl.SSLContext] | None = None
) -> PinnedTransport:
    """The transport httpx would build from ``kwargs``, connecting only to approved addresses.

    httpx ignores its TLS, HTTP-version and limits arguments for the main transport once a
    transport is given, so they are passed here (and to an explicit proxy's
    :class:`ProxyTransport`).

    Proxy environment variables (``HTTP_PROXY``, ``HTTPS_PROXY``, ``ALL_PROXY``, ``NO_PROXY``)
    are never used: httpx reads them only for a client built without a transport, and this
    one always has one. That is deliberate: a proxy resolves the target itself, outside the
    guard's pin, so routing through one is an explicit per-endpoint choice
    (``client_kwargs={"proxy": ...}``), never an ambient one.
    """
    return PinnedTransport(
        **{key: kwargs[key] for key in _TRANSPORT_KWARGS if key in kwargs},
        tls=tls,
    )


class ProxyTransport(httpx.AsyncHTTPTransport):
    """httpx's transport for an explicit ``proxy=``, over :class:`SingleAssignmentHTTPProxy`.

    Given ``proxy=``, httpx builds that proxy's transport itself, over httpcore's own proxy
    pool, so the endpoint's assignment pass did not apply to proxied requests; in particular
    an idle connection to the proxy holding bytes past its last response (a proxy, or the
    server behind it, writing more than its ``Content-Length``) was handed to the next request,
    which read them as its answer. This builds httpx's transport without a proxy and replaces
    its ``_pool`` (the private name :class:`PinnedTransport` replaces too) with a
    :class:`SingleAssignmentHTTPProxy` made from the settings httpx reads from its public
    ``httpx.Proxy``: the URL, credentials, headers and the proxy's own TLS context.

    A SOCKS proxy (``socks5://``, ``socks5h://``, which needs the optional ``socksio``) gets
    httpcore's SOCKS pool as httpx builds it, without that pass or the leftover-bytes check,
    but whose connections close their socket to the proxy when the SOCKS handshake fails or is
    cancelled (:class:`~.socks.ClosingSOCKSProxy`; httpcore leaves that to the garbage collector).
    """

    def __init__(
        self,
        proxy: httpx.Proxy,
        *,
        verify: Any = True,
        cert: Any = None,
        trust_env: bool = True,
        http1: bool = True,
        http2: bool = False,
        limits: httpx.Limits = DEFAULT_LIMITS,
    ) -> None:
        """The transport to ``proxy``, with httpx's TLS, HTTP-version and limits arguments.

        Raises:
            RuntimeError: httpx's transport no longer keeps its pool in ``_pool``, or httpcore's
                SOCKS pool no longer has the names :mod:`.socks` reads.
            EndpointConfigurationError: a SOCKS proxy without the optional ``socksio``
                (``field`` ``client_kwargs.proxy``).
        """
        url = proxy.url
        socks = url.scheme in ("socks5", "socks5h")  # httpx.Proxy accepts these and http(s)
        if socks:
            _require_optional("socksio", "client_kwargs.proxy", "socks", "a SOCKS proxy")
        ssl_context = httpx.create_ssl_context(verify=verify, cert=cert, trust_env=trust_env)
        super().__init__(verify=ssl_context, http1=http1, http2=http2, limits=limits)
        if not isinstance(getattr(self, "_pool", None), httpcore.AsyncConnectionPool):
            raise RuntimeError(
                "httpx.AsyncHTTPTransport no longer keeps its httpcore pool in `_pool`; "
                "the proxy transport needs updating for this httpx version"
            )
        proxy_url = httpcore.URL(
            scheme=url.raw_scheme, host=url.raw_host, port=url.port, target=url.raw_path
        )
        if socks:
            # Imported here: httpcore's SOCKS module imports socksio, an optional package.
            from .socks import ClosingSOCKSProxy

            self._pool = ClosingSOCKSProxy(  # the arguments httpx gives httpcore's SOCKS pool
                proxy_url=proxy_url,
                proxy_auth=proxy.raw_auth,
                ssl_context=ssl_context,
                max_connections=limits.max_connections,
                max_keepalive_connections=limits.max_keepalive_connections,
                keepalive_expiry=limits.keepalive_expiry,
                http1=http1,
                http2=http2,
            )
            return
        self._pool = SingleAssignmentHTTPProxy(
            proxy_url=proxy_url,
            proxy_auth=proxy.raw_auth,
            proxy_headers=proxy.headers.raw,
            ssl_context=ssl_context,
            proxy_ssl_context=proxy.ssl_context,
            max_connections=limits.max_connections,
            max_keepalive_connections=limits.max_keepalive_connections,
            keepalive_expiry=limits.keepalive_expiry,
            http1=http1,
            http2=http2,
        )


def _proxy_mount(kwargs: dict[str, Any]) -> None:
    """Replace ``kwargs["proxy"]`` by the mount httpx would make of it, over our pool.

    httpx routes every URL (``all://``) through an explicit proxy's transport; the same
    ``mounts`` entry with a :class:`ProxyTransport` keeps that routing. ``proxy=None`` is
    no proxy, as for httpx.
    """
    proxy = kwargs.pop("proxy")
    if proxy is None:
        return
    if isinstance(proxy, str | httpx.URL):
        try:
            proxy = httpx.Proxy(url=proxy)
        except (ValueError, httpx.InvalidURL) as exc:
            # httpx's bare ValueError ("Unknown scheme for proxy URL ...") or InvalidURL named
            # no setting; a scheme-less "127.0.0.1:3128" is the usual case. Only the scheme is
            # quoted: the URL may carry a password.
            scheme = httpx.URL(proxy).scheme if isinstance(exc, ValueError) else None
            if scheme is None:
                reason = f"is not a valid URL ({exc})"
            else:
                reason = f"has scheme {scheme!r}" if scheme else "has no scheme"
            raise EndpointConfigurationError(
                "client_kwargs.proxy",
                f"{redact(reason)}: give an http://, https://, socks5:// or socks5h:// proxy URL",
            ) from None
    if not isinstance(proxy, httpx.Proxy):
        raise EndpointConfigurationError(
            "client_kwargs.proxy",
            f"is {type(proxy).__name__}: give a proxy URL (str or httpx.URL) or an httpx.Proxy",
        )
    options = {key: kwargs[key] for key in _TRANSPORT_KWARGS if key in kwargs}
    kwargs["mounts"] = {"all://": ProxyTransport(proxy, **options)}


def new_client(
    config: EndpointConfig, transport: httpx.AsyncBaseTransport | None = None
) -> httpx.AsyncClient:
    """A pooled client for ``config``: no redirects, no cookie jar, ``client_kwargs`` applied.

    Without an injected ``transport`` the client's transport is a :class:`PinnedTransport`:
    it connects only to the addresses the SSRF guard approved for the request being sent.
    Unless ``client_kwargs`` chooses TLS itself (or names a proxy), that transport's pool
    builds the shared default TLS context (:func:`default_ssl_context`) on its first https
    connection, not here.

    The first call also installs the redacting filter on httpx's and httpcore's loggers
    (:mod:`.logs`), so their request and header lines never print a credential.

    Raises:
        EndpointConfigurationError: a ``client_kwargs`` key is forbidden or not understood, or
            needs an optional package that is not installed (``http2`` needs ``h2``, a
            ``socks5://`` proxy ``socksio``; ``field`` names the key).
    """
    install_log_redaction()
    kwargs: dict[str, Any] = {"limits": DEFAULT_LIMITS, "timeout": config.timeout}
    for key, value in config.client_kwargs.items():
        if key in _FORBIDDEN_CLIENT_KWARGS and not (key == "follow_redirects" and not value):
            raise EndpointConfigurationError(f"client_kwargs.{key}", _FORBIDDEN_CLIENT_KWARGS[key])
        kwargs[key] = value
    kwargs["follow_redirects"] = False
    tls: Callable[[], ssl.SSLContext] | None = None
    if not _TLS_KWARGS.intersection(kwargs):
        if transport is None and "proxy" not in kwargs:
            # The pinned pool builds it on its first https connection: a client that only
            # speaks plain HTTP (a local server) never loads the CA bundle.
            tls = partial(default_ssl_context, bool(kwargs.get("http2")))
        else:  # an injected transport or a proxy's transport takes httpx's verify= as usual
            kwargs["verify"] = default_ssl_context(bool(kwargs.get("http2")))
    if kwargs.get("http2"):  # httpx's own test: any true value asks for HTTP/2
        _require_optional("h2", "client_kwargs.http2", "http2", "HTTP/2 (http2=True)")
    client_type = httpx.AsyncClient if "cookies" in kwargs else StatelessClient
    try:
        if "proxy" in kwargs:
            _proxy_mount(kwargs)
        kwargs["transport"] = transport if transport is not None else _pinned_transport(kwargs, tls)
        client = client_type(**kwargs)
    except TypeError as exc:
        raise EndpointConfigurationError("client_kwargs", str(exc)) from None
    except ImportError as exc:
        # Another optional package httpx asks for while building (the two it asks for today
        # are checked above, naming their setting): still the configuration's error, typed.
        raise EndpointConfigurationError(
            "client_kwargs", f"an optional package httpx needs is missing: {exc}"
        ) from exc
    except OSError as exc:  # a CA bundle or client certificate file httpx could not load
        named = [key for key in ("verify", "cert") if isinstance(kwargs.get(key), (str, tuple))]
        field = f"client_kwargs.{named[0]}" if len(named) == 1 else "client_kwargs"
        raise _tls_error(field, exc) from exc
    if "accept-encoding" not in httpx.Headers(kwargs.get("headers")):
        # Only what the endpoint decodes with a bound (``content_coding``), whatever optional
        # decoders httpx found installed; a caller's own header is kept.
        client.headers["Accept-Encoding"] = ACCEPT_ENCODING
    return client
