"""Keep secrets out of text that leaves the library (errors, logs, diagnostics, the command line).

:func:`redact` removes three kinds of secret from a string:

1. **Known values**: the secrets a caller passes (the headers a request sent among them,
   :func:`request_header_secrets`), every value the process configured as a
   credential (:func:`remember_secret`: API keys, credential header values (:func:`header_secrets`),
   URL userinfo and query values), and the values of credential-looking environment variables
   (:data:`CREDENTIAL_ENV_NAME`, values of at least :data:`MIN_ENV_SECRET` characters), and the
   credentials requests carried in their bodies (:func:`remember_request_secret`,
   :func:`remember_request_headers`: an MCP server's token, a fallback credit token; in body
   values no validator reads, ``extra_body`` or a field typed as an open mapping, the values of
   credential-named keys and name/value pairs, :func:`remember_body_credentials`). An echo cut
   short is caught too: any run of at least :data:`FRAGMENT` leading characters of a known
   value of at least :data:`MIN_FRAGMENTED` characters (a server that quotes "the first 64
   characters of the key you sent" still leaks most of it).
2. **Shapes**: one compiled pattern of widely used key formats (see :func:`shapes`), URL userinfo,
   URL query values, ``Authorization``-style scheme values and ``name=value`` / ``name: value``
   pairs whose name says credential.

It runs on error paths only (error chunks, exceptions, diagnostics, library-originated log lines),
never per chunk of a healthy stream.
"""

from __future__ import annotations

import functools
import os
import re
import threading
from collections.abc import Iterable, Mapping
from typing import Any, Protocol, TypeVar

__all__ = [
    "CREDENTIAL_ENV_NAME",
    "FRAGMENT",
    "HARMLESS_HEADERS",
    "HIDDEN_ENV_NAME",
    "HARMLESS_QUERY",
    "MIN_ENV_SECRET",
    "MIN_FRAGMENTED",
    "REDACTED",
    "REQUEST_SECRET_LIMIT",
    "bounded",
    "header_secrets",
    "is_credential_header",
    "is_env_name",
    "is_harmless_header",
    "redact",
    "redact_headers",
    "redact_url",
    "redact_value",
    "remember_body_credentials",
    "remember_request_headers",
    "remember_request_secret",
    "remember_secret",
    "request_header_secrets",
    "shapes",
    "shown_env_name",
]

REDACTED = "[REDACTED]"

# Key formats, one alternative each; widely published prefixes with their usual body lengths.
_KEY_FORMATS = (
    r"sk-(?:ant-|proj-|or-|svcacct-)?[A-Za-z0-9_\-]{8,}",  # OpenAI / Anthropic / OpenRouter style
    r"[sr]k_(?:live|test)_[A-Za-z0-9]{10,}",  # Stripe-style live/test keys
    r"AIza[0-9A-Za-z_\-]{20,}",  # Google API key
    r"ya29\.[0-9A-Za-z_\-]{20,}",  # Google OAuth access token
    r"gsk_[A-Za-z0-9]{16,}",  # Groq
    r"hf_[A-Za-z0-9]{16,}",  # Hugging Face
    r"(?:AKIA|ASIA|AGPA|AIDA|AROA)[0-9A-Z]{16}",  # AWS access key ids
    r"gh[pousr]_[A-Za-z0-9]{20,}",  # GitHub tokens
    r"github_pat_[A-Za-z0-9_]{20,}",  # GitHub fine-grained token
    r"glpat-[A-Za-z0-9_\-]{16,}",  # GitLab personal token
    r"xox[abposr]-[A-Za-z0-9\-]{10,}",  # Slack
    r"r8_[A-Za-z0-9]{20,}",  # Replicate
    r"pplx-[A-Za-z0-9]{20,}",  # Perplexity
    r"xai-[A-Za-z0-9]{20,}",  # xAI
    r"nvapi-[A-Za-z0-9_\-]{20,}",  # NVIDIA
    r"npm_[A-Za-z0-9]{30,}",  # npm
    r"pypi-[A-Za-z0-9_\-]{40,}",  # PyPI upload token
    r"eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]*",  # JWT
    r"-----BEGIN[A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END[A-Z ]*PRIVATE KEY-----|$)",
)

# Names that say "the value next to me is a credential" in ``name=value`` or ``name: value``.
_CREDENTIAL_NAMES = (
    r"api[_-]?key|apikey|(?:access|secret|private|subscription|auth)[_-]?key"
    r"|(?:access|refresh|auth|id|session|bearer)[_-]?token|secret|password|passwd"
    r"|authorization|credentials?|signature|session[_-]?id|cookie"
    # Compound header or variable names ending in key/token, such as X-RapidAPI-Key.
    r"|(?:[A-Za-z0-9]{1,32}[_-]){1,4}(?:key|token)"
)
# Short, common words that name a credential only in ``name=value`` (query and form) syntax.
_CREDENTIAL_WORDS = r"key|token|sig|auth|pass|pwd"
_HARMLESS_QUERY = frozenset({"api-version", "alt", "version"})
_SCHEMES = r"(?:bearer|basic|token|digest|apikey|key)\s{1,4}"

_SHAPES_SOURCE = (
    # A name-value pair: keep the name and separator, drop the value (and an auth scheme's token).
    r"(?P<pk>(?<![A-Za-z0-9])(?i:" + _CREDENTIAL_NAMES + r")[\"']?\s{0,4}[=:]\s{0,4}[\"']?"
    r"(?i:" + _SCHEMES + r")?)(?!\[REDACTED\])[^\s\"'&,;<>()\[\]{}]{4,}"
    r"|(?P<pw>(?<![A-Za-z0-9])(?i:" + _CREDENTIAL_WORDS + r")=)(?!\[REDACTED\])[^\s\"'&,;<>]{4,}"
    # A pair whose name was itself a known secret and is already replaced (a password that is
    # the word ``password``): ``[REDACTED]=value``, a quoted name (``"[REDACTED]": "value"``,
    # ``'[REDACTED]': 'value'``) or a colon and a space (``[REDACTED]: value``, as YAML and
    # logs write it). The literal pass runs first, so without this the name's own pattern no
    # longer sees the pair. A bare colon with no space is left (``models/[REDACTED]:generate``
    # is a path, not a pair).
    r"|(?P<pr>\[REDACTED\](?:=|[\"']\s{0,4}[=:]\s{0,4}[\"']?|:\s{1,4}[\"']?))"
    r"(?!\[REDACTED\])[^\s\"'&,;<>]{4,}"
    # An auth scheme followed by its credential, anywhere (``Bearer …``, ``Basic …``).
    r"|(?P<ps>(?<![A-Za-z0-9])(?i:bearer|basic|digest)\s{1,4})[A-Za-z0-9._~+/=\-]{8,}"
    # URL userinfo: ``scheme://user:pass@host`` keeps the scheme and host.
    r"|(?P<pu>(?<![A-Za-z0-9+.\-])[A-Za-z][A-Za-z0-9+.\-]{0,31}://)(?:[^/\s@?#\"']{0,256}@){1,8}"
    # URL query values: ``?name=value&…`` keeps each name.
    r"|(?P<pq>[?&](?!(?i:" + "|".join(map(re.escape, sorted(_HARMLESS_QUERY))) + r")=)"
    r"[A-Za-z0-9_.\-\[\]%]{1,64}=)(?!\[REDACTED\])[^&#\s\"'<>]+"
    r"|" + "|".join(_KEY_FORMATS)
)


@functools.cache
def shapes() -> re.Pattern[str]:
    """Every shape :func:`redact` removes, as one pattern (documented in decisions.md).

    Compiled on first use, not at import: it is one of the larger patterns in the library
    (about 2 ms to compile), and redaction runs only on error paths, so a program whose calls
    succeed never pays for it (the cold first call, issue 15).
    """
    return re.compile(_SHAPES_SOURCE)


HARMLESS_QUERY = _HARMLESS_QUERY
"""Query parameter names whose values are shown (API version and response format selectors)."""

CREDENTIAL_ENV_NAME = re.compile(r"KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|AUTH", re.I)
"""An environment variable whose name matches holds a credential (its value is redacted)."""

_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def is_env_name(name: str) -> bool:
    """Whether ``name`` is a portable environment variable name (letters, digits, ``_``).

    The one rule for every name a caller hands over in place of a secret: ``api_key_env``,
    agentic settings' ``env`` keys, the command line's ``--api-key-env``/``--gateway-key-env``/
    ``--env``. Anything else is most likely the secret itself, typed where its name belongs, so
    callers refuse it without repeating it.
    """
    return _ENV_NAME.fullmatch(name) is not None


_UPPER_ENV_NAME = re.compile(r"[A-Z_][A-Z0-9_]*")

HIDDEN_ENV_NAME = (
    "the name is not shown: it has lower-case letters, so it may be the key itself; "
    "give the variable's NAME, not its value"
)
"""Why a message says "the variable named" instead of repeating a name that may be a key."""


def shown_env_name(name: str) -> str | None:
    """``$NAME`` when a message may repeat ``name``, else None (word it without the name).

    A name that passes :func:`is_env_name` may still be the key pasted where its variable's
    name belongs: a Gemini key (``AIza`` and 35 letters, digits, ``_`` or ``-``) holds no ``-``
    more often than not, and a hex key that starts with a letter never does, so an unset
    "variable" echoed as ``$AIza... is not set`` put the key on stderr and in CI logs. Variables
    that hold keys are upper case by convention (``GEMINI_API_KEY``) and keys almost never are:
    an upper-case name is repeated (which variable to set is the useful answer), any other not.
    """
    return f"${name}" if _UPPER_ENV_NAME.fullmatch(name) else None


MIN_ENV_SECRET = 8
"""Shortest environment or configured value treated as a secret (shorter ones are too common)."""

FRAGMENT = 12
"""Leading characters of a secret that identify an echo of it cut short."""

MIN_FRAGMENTED = 16
"""Shortest secret whose leading fragment is redacted (a shorter one's fragment is most of it)."""

HARMLESS_HEADERS = frozenset(
    {
        "accept",
        "accept-encoding",
        "accept-language",
        "cache-control",
        "connection",
        "content-encoding",
        "content-language",
        "content-length",
        "content-type",
        "date",
        "host",
        "keep-alive",
        "transfer-encoding",
        "user-agent",
        "vary",
    }
)
"""Header names whose values are shown; every other header value is treated as a secret.

``host`` names the server every error message names anyway (its ``where``). Names ending in
``-version`` or ``-beta`` (API version and feature-flag headers) are harmless too.
"""


def is_harmless_header(name: str) -> bool:
    """True when a header's value may be shown (allow-listed name or a version/beta flag)."""
    lowered = name.strip().lower()
    return lowered in HARMLESS_HEADERS or lowered.endswith(("-version", "-beta"))


_CREDENTIAL_HEADER = re.compile(
    r"auth|cookie|key|token|secret|passw|pwd|credential|signature|session|jwt|bearer|private",
    re.IGNORECASE,
)
# A value shaped like a generated credential: one run of 16+ visible characters holding both a
# letter and a digit (keys, tokens, ids), unlike a word, a phrase or a URL of words.
_GENERATED = re.compile(r"(?=\S*[A-Za-z])(?=\S*[0-9])\S{16,}")
# An ``Authorization``-style value: an auth scheme, whitespace, one credential (RFC 9110 11.4).
_SCHEMED = re.compile(r"[A-Za-z][A-Za-z0-9!#$%&'*+.^_`|~-]{0,31}[ \t]+(\S+)")


def is_credential_header(name: str) -> bool:
    """True when a header's name says its value is a credential.

    ``Authorization``, ``Proxy-Authorization``, ``Cookie`` and any name containing ``auth``,
    ``key``, ``token``, ``secret``, ``passw``, ``pwd``, ``credential``, ``signature``,
    ``session``, ``jwt``, ``bearer`` or ``private`` (``x-api-key``, ``x-goog-api-key``,
    ``Ocp-Apim-Subscription-Key``, ``X-Auth-Token``, ``Helicone-Auth``), case-insensitively.
    """
    return _CREDENTIAL_HEADER.search(name) is not None


def header_secrets(headers: Mapping[str, Any]) -> list[str]:
    """The configured header values :func:`remember_secret` keeps for every later redaction.

    Why not every value :func:`redact_headers` hides: a remembered value is replaced in every
    error text of the process, so a harmless one (``x-fake-behaviour: context_length``, an app
    name) would blank that word out of unrelated provider messages
    (``"code": "[REDACTED]_exceeded"``). Kept: the value of a credential-named header
    (:func:`is_credential_header`), and, since no list of names is complete, any other
    non-allow-listed value shaped like a generated credential (16+ characters without
    whitespace, with a letter and a digit). Every other value a dump hides is still hidden from
    the error text of the requests that send it (:func:`request_header_secrets`).

    A value written ``<scheme> <credential>`` (``Bearer abc…``) yields its credential too:
    a provider echoes the token it was sent without the scheme (``Incorrect API key provided:
    abc…``), and the whole value would not match that echo.
    """
    found: list[str] = []
    for name, value in headers.items():
        if not is_harmless_header(str(name)):
            found += _credential_values(str(name), str(value).strip())
    return found


def request_header_secrets(headers: Mapping[str, Any]) -> list[str]:
    """Every header value the error text about a request that sent ``headers`` must not show.

    The dump rule (:func:`redact_headers`: every value not on the allow-list), so a value a dump
    hides is not shown by the request's status or stream errors either, whatever its name or
    shape (``X-Team: hunterhunter``). What :func:`header_secrets` keeps is redacted as there
    (echoes cut short included). Any other value is replaced only where it stands whole, and
    only from :data:`MIN_ENV_SECRET` characters, the floor of every configured value: it may be
    an ordinary word (``x-fake-behaviour: context_length`` must leave the provider's
    ``context_length_exceeded`` alone), and a short one (``1``, ``yes``) would blank parts of
    every message. Of a value written ``<auth scheme> <credential>``, the credential counts too.

    For the secrets of one request (its own error text), never for :func:`remember_secret`.
    """
    found: list[str] = []
    for name, value in headers.items():
        key, text = str(name), str(value).strip()
        if is_harmless_header(key):
            continue
        credentials = _credential_values(key, text)
        if credentials:
            found += credentials
            continue
        schemed = _AUTH_SCHEMED.fullmatch(text)
        for candidate in (text, schemed.group(1) if schemed else ""):
            if len(candidate) >= MIN_ENV_SECRET:
                found.append(_Whole(candidate))
    return found


class _Whole(str):
    """A secret :func:`redact` replaces only where it stands whole (not inside a longer word)."""

    __slots__ = ()


# A value written with a common auth scheme (``Bearer hunterhunter``), of any header name.
_AUTH_SCHEMED = re.compile(r"(?i:bearer|basic|token|digest|apikey|key)[ \t]+(\S+)")
# What a whole value may not touch on either side: a letter, a digit or ``_`` (one word).
_WORD = "A-Za-z0-9_"


def _credential_values(name: str, text: str) -> list[str]:
    """``text`` (and its scheme's credential) when the header holds a credential, else none."""
    schemed = _SCHEMED.fullmatch(text)
    credential = schemed.group(1) if schemed else None
    if not (
        is_credential_header(name)
        or _GENERATED.fullmatch(text)
        or (credential is not None and _GENERATED.fullmatch(credential))
    ):
        return []
    return [text] if credential is None else [text, credential]


def redact_headers(headers: Mapping[str, Any]) -> dict[str, Any]:
    """A copy of ``headers`` with every value not on the allow-list replaced by ``[REDACTED]``."""
    return {k: v if is_harmless_header(str(k)) else REDACTED for k, v in headers.items()}


def redact_url(url: str) -> str:
    """``url`` with userinfo and every query value replaced (scheme, host, path and names kept).

    One URL, so its userinfo is found by structure rather than by the free-text shape: it runs
    to the last ``@`` of the authority, so a password holding ``@``, a space, ``#`` or ``?``
    (generated passwords often do) is replaced whole. A ``/`` in a password makes the URL
    ambiguous; when the text before the first ``/`` has a ``:`` (``user:pass`` or ``:pass``),
    everything up to the last ``@`` is taken as userinfo: a display may lose a path, never a
    password.
    """
    if "@" in url:
        url = _redact_userinfo(url)
    return shapes().sub(_keep_prefix, url) if ("@" in url or "?" in url or "=" in url) else url


def _redact_userinfo(url: str) -> str:
    scheme_end = url.find("://")
    if scheme_end <= 0:
        return url
    start = scheme_end + 3
    at = url.rfind("@", start)
    if at == -1:
        return url
    before = url[start:at]
    cut = min((i for i in map(before.find, "/?#") if i != -1), default=-1)
    if cut != -1:
        earlier = before.rfind("@", 0, cut)
        if earlier != -1:  # an authority with userinfo, then an ``@`` further on
            at = start + earlier
        elif ":" not in before[:cut]:
            return url  # the only ``@`` is in the path, query or fragment
    return f"{url[:start]}{REDACTED}{url[at:]}"


class _Known:
    """Process-wide known secret values, compiled into one pattern, refreshed only on change."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.remembered: dict[str, None] = {}  # insertion-ordered set, bounded
        self.version = 0
        self.key: tuple[int, tuple[str, ...]] | None = None
        self.pattern: re.Pattern[str] | None = None
        self.heads: _Heads | None = None
        self.names: dict[str, bool] = {}
        # Credentials requests carried (remember_request_secret): their own insertion-ordered,
        # bounded set, longest first in ``carried_view`` (rebuilt on change). Kept apart from
        # ``remembered``: a new one per request must neither push a configured key out of the
        # bound nor recompile the configured values' pattern on the next error.
        self.carried: dict[str, None] = {}
        self.carried_view: tuple[str, ...] = ()

    def env_values(self) -> tuple[str, ...]:
        names = self.names
        values = []
        for name, value in os.environ.items():
            hit = names.get(name)
            if hit is None:
                hit = names[name] = CREDENTIAL_ENV_NAME.search(name) is not None
            if hit and len(value) >= MIN_ENV_SECRET:
                values.append(value)
        return tuple(values)

    def compiled(self) -> tuple[re.Pattern[str] | None, _Heads | None]:
        key = (self.version, self.env_values())
        if key != self.key:
            with self.lock:  # remember_secret may be changing the dict in another thread
                remembered = tuple(self.remembered)
            values = sorted({*key[1], *remembered}, key=len, reverse=True)
            pattern = re.compile("|".join(map(re.escape, values))) if values else None
            heads = _Heads.of(values)
            with self.lock:
                self.key, self.pattern, self.heads = key, pattern, heads
        return self.pattern, self.heads


class _Heads:
    """The leading fragments of long secrets, to find an echo of one cut short.

    One pattern of every secret's first :data:`FRAGMENT` characters finds a candidate; the
    match is then extended for as long as the text goes on spelling the secret, so only the
    echoed part of that secret is replaced, never the text after it.
    """

    def __init__(self, pattern: re.Pattern[str], secrets: dict[str, tuple[str, ...]]) -> None:
        self.pattern = pattern
        self.secrets = secrets

    @classmethod
    def of(cls, values: Iterable[str]) -> _Heads | None:
        by_head: dict[str, list[str]] = {}
        for value in values:
            if len(value) >= MIN_FRAGMENTED:
                by_head.setdefault(value[:FRAGMENT], []).append(value)
        if not by_head:
            return None
        pattern = re.compile("|".join(map(re.escape, by_head)))
        return cls(pattern, {head: tuple(found) for head, found in by_head.items()})

    def sub(self, text: str) -> str:
        parts: list[str] = []
        pos = 0
        for match in self.pattern.finditer(text):
            start = match.start()
            if start < pos:  # inside an echo already replaced
                continue
            parts += (text[pos:start], REDACTED)
            pos = self._extent(text, match)
        if not parts:
            return text
        parts.append(text[pos:])
        return "".join(parts)

    def _extent(self, text: str, match: re.Match[str]) -> int:
        """Where the echo starting at ``match`` stops spelling any secret with that head."""
        start, longest = match.start(), match.end()
        for secret in self.secrets[match.group()]:
            end, limit = match.end(), min(len(text), start + len(secret))
            while end < limit and text[end] == secret[end - start]:
                end += 1
            longest = max(longest, end)
        return longest


_KNOWN = _Known()
_REMEMBER_LIMIT = 512


def remember_secret(value: str | None) -> None:
    """Treat ``value`` as a secret in every later :func:`redact` of this process.

    Configuration calls this for API keys, credential header values (:func:`header_secrets`),
    URL userinfo and query values, so a provider that echoes one back is redacted even where the
    configured key is not at hand (a diagnostic, an unrelated command's error). Short values are
    not kept, nor, beyond a bound, those configured least recently.
    """
    if not value or len(value) < MIN_ENV_SECRET:
        return
    with _KNOWN.lock:
        # Configured again, a value is only moved among the most recent: the set is
        # unchanged, so the compiled pattern stays.
        if _add_recent(_KNOWN.remembered, value, _REMEMBER_LIMIT):
            _KNOWN.version += 1


def _add_recent(values: dict[str, None], value: str, limit: int) -> bool:
    """Put ``value`` last in the bounded, insertion-ordered set ``values``; True if it was new.

    The one bounded-recency rule of the configured and the carried values: a value added again
    moves to the end (it is among the most recent again, so the bound drops older ones first)
    and leaves the set as it was; a new one is appended and the oldest are dropped beyond
    ``limit``. The caller holds ``_KNOWN.lock`` and refreshes what it derives from the set only
    when it changed.
    """
    if value in values:
        values[value] = values.pop(value)
        return False
    values[value] = None
    while len(values) > limit:
        del values[next(iter(values))]
    return True


REQUEST_SECRET_LIMIT = 256
"""How many credentials taken from requests are kept (the most recently carried ones).

A value is needed while the errors of the request that carried it can be raised, that is while
the request is in flight; it is dropped only once this many newer distinct values were carried,
so only beyond that many concurrent requests each carrying its own credential."""


class _Revealable(Protocol):
    """A wrapper that hides its value in ``repr`` (pydantic's ``SecretStr``)."""

    def get_secret_value(self) -> str: ...


_Carried = TypeVar("_Carried", bound="str | _Revealable | None")
_Headers = TypeVar("_Headers", bound="Mapping[str, Any] | None")


def remember_request_secret(value: _Carried) -> _Carried:
    """Treat a credential a request carries in its body as a secret in every later `redact`.

    For adapter authors: a request field that holds a credential the provider forwards or
    redeems (an MCP server's `authorization_token`, a fallback credit token) is not a
    configured value, so nothing else knows it, and a provider that echoes it in an error body
    would put it into `body_excerpt`, messages and logs. Declare the field with this as a
    pydantic after-validator, `Annotated[str | None, AfterValidator(remember_request_secret)]`
    (or call it from a validator over an open mapping): it returns `value` unchanged, so it
    runs only for a request that sets the field and costs the others nothing.

    Process-wide, not per request: the body is validated when the payload is created, often
    well before (and in another task than) the attempts that send it, and the error paths of an
    attempt know its headers, never its body. Kept among the `REQUEST_SECRET_LIMIT` most
    recently carried values, apart from the configured ones (`remember_secret`), so a
    stream of per-request tokens never pushes a configured key out. A value is replaced wherever
    it occurs, and a leading part of at least `FRAGMENT` characters of one of at least
    `MIN_FRAGMENTED` (an echo cut short). `None` is ignored, and so is a value shorter
    than `MIN_ENV_SECRET` characters (the floor of every value redacted process-wide: a
    short one would blank ordinary words out of every message). A `SecretStr` is read for its
    value and returned as it came, still masked.
    """
    if value is not None:
        text = value if isinstance(value, str) else value.get_secret_value()
        if isinstance(text, str):
            _carry(text)
    return value


def remember_request_headers(headers: _Headers) -> _Headers:
    """`remember_request_secret` for the headers a request tells the provider to send on.

    An MCP server's `headers` (`Authorization: Bearer …` among them) are the provider's to
    send, so they are in the body, not in the request's own headers. Kept: what
    `header_secrets` keeps of a configured `default_headers` (a credential-named
    header's value, any value shaped like a generated credential, and the credential of a
    `<scheme> <credential>` value); an ordinary word in another header is not taken out of
    every later message. Returns `headers` unchanged (an after-validator, like
    `remember_request_secret`); `None` is ignored.
    """
    if isinstance(headers, Mapping):
        for value in header_secrets(headers):
            _carry(value)
    return headers


# The last word of a body key that names a credential (see `remember_body_credentials`).
_BODY_CREDENTIAL_WORDS = frozenset(
    {
        "apikey",
        "auth",
        "authorization",
        "cookie",
        "credential",
        "credentials",
        "jwt",
        "passphrase",
        "passwd",
        "password",
        "pwd",
        "secret",
        "token",
    }
)
# Where a camelCase key starts a new word (``apiKey``, ``clientSecret``), and what else parts words.
_CAMEL_BOUNDARY = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_KEY_SEPARATORS = re.compile(r"[^A-Za-z0-9]+")


def _key_words(key: str) -> list[str]:
    """``key``'s words, lower-cased: split at ``_``, ``-``, ``.`` and camelCase boundaries."""
    spaced = _KEY_SEPARATORS.sub(" ", _CAMEL_BOUNDARY.sub(" ", key))
    return spaced.lower().split()


def _is_credential_body_key(key: str) -> bool:
    """Whether a body field named ``key`` holds a credential (see `remember_body_credentials`)."""
    return _credential_words(_key_words(key))


def _credential_words(words: list[str]) -> bool:
    """The body-key rule on a key's words: its last names a credential, or is `key` after one."""
    if not words:
        return False
    last = words[-1]
    return last in _BODY_CREDENTIAL_WORDS or (last == "key" and len(words) > 1)


# What the walk makes of a value, from the key it is under: nothing to carry, a credential (a
# string is carried, a list's items are read alike), or headers (a list of them: see the walk).
_ORDINARY, _CREDENTIAL, _HEADERS = 0, 1, 2
_KEY_KINDS: dict[str, int] = {}
_KEY_KINDS_LIMIT = 4096
# Values with nothing to carry and nothing inside: skipped without reading their key. A string
# is one too, but for a credential (`_LEAVES`, in a list that is not under a credential key).
_SCALARS = (int, float, type(None))
_LEAVES = (str, *_SCALARS)


def _key_kind(key: str) -> int:
    """What a body key says of its value (`_ORDINARY`, `_CREDENTIAL`, `_HEADERS`), cached.

    The walk reads a key of every mapping it goes through, each message of a long conversation
    among them, and the same few keys (`role`, `content`, `type`) recur in every request:
    cached, a key costs one dict lookup, not two regular-expression passes. Only the first
    `_KEY_KINDS_LIMIT` distinct keys are kept, so callers' own keys (tool parameter names,
    `metadata` keys) cannot grow it without bound; a key beyond them is classified anew.
    """
    kind = _KEY_KINDS.get(key)
    if kind is None:
        words = _key_words(key)
        if words[-1:] == ["headers"]:
            kind = _HEADERS
        else:
            kind = _CREDENTIAL if _credential_words(words) else _ORDINARY
        if len(_KEY_KINDS) < _KEY_KINDS_LIMIT:
            _KEY_KINDS[key] = kind
    return kind


def _pair_names(pair: Mapping[Any, Any]) -> list[str]:
    """The names of a name/value pair (`{"name": "Authorization", "value": …}`), else none.

    A pair names its value with a `name` or a `key` entry holding a string (the shapes tool
    and MCP configurations use for a header or environment list); both are read when present.
    """
    if "value" not in pair:
        return []
    return [name for name in (pair.get("name"), pair.get("key")) if isinstance(name, str)]


def _value_kind(pair: Mapping[Any, Any], kind: int) -> int:
    """How the walk reads `pair["value"]`: `_CREDENTIAL` when the pair names a credential.

    In a list under a `headers` key, a pair is a header: what `remember_request_headers` keeps
    of it is carried here (the header-name rule, and a value shaped like a generated
    credential), and its value is not read again. Elsewhere a pair's name is read by the
    body-key rule, so `{"key": "department", "value": …}` carries nothing, and neither does a
    setting named like `auth_type` or `session_id` that the broader header-name rule would
    take.
    """
    names = _pair_names(pair)
    if not names:
        return _ORDINARY
    value = pair["value"]
    if kind == _HEADERS and isinstance(value, str):
        remember_request_headers(dict.fromkeys(names, value))
        return _ORDINARY
    return _CREDENTIAL if any(_key_kind(name) == _CREDENTIAL for name in names) else _ORDINARY


def remember_body_credentials(body: Mapping[str, Any]) -> None:
    """Carry the credentials in request body values no validator read, as adapters' fields do.

    Walked (by `build_payload`): an `extra_body`; the undeclared fields of an open
    (`extra="allow"`) request model; the declared fields of a request model whose type can hold
    an arbitrary mapping (`dict[str, Any]`, `list[dict[str, Any]]`, `Any`, any other mapping
    type), as sent; and the whole body when no request model validates it. No
    `remember_request_secret` validator runs for what such a value holds, so this walks it
    (nested mappings and lists, each container once) and carries, like that validator, the
    string values of the keys that name a credential. The rule reads a key's last word (split
    at `_`, `-`, `.` and camelCase, any case): `token`, `secret`, `password` (`passwd`, `pwd`,
    `passphrase`), `auth`, `authorization`, `credential(s)`, `apikey`, `cookie` or `jwt`, or
    `key` after another word (`api_key`, `x-api-key`, `apiKey`, `authorization_token`,
    `client_secret`). So a word merely inside a key does not count: `max_tokens`,
    `token_budget`, `auth_type`, `token_url` hold settings, and a bare `key` is the name of a
    key/value pair, not a key. A value of `<scheme> <credential>` (`Bearer abc…`) yields its
    credential too. A list under a credential key is read item by item, and a mapping by its
    own keys.

    A name/value pair (a mapping with a `value` entry and a `name` or `key` entry holding a
    string: `{"name": "Authorization", "value": "Bearer …"}`, `{"key": "X-Api-Key", …}`,
    `{"name": "GITHUB_TOKEN", …}`) is read by its name: its `value` is carried when that name
    is a credential by the body-key rule (`{"key": "department", "value": …}` is not).

    Under a key whose last word is `headers` (an MCP server's or a tool's headers), what
    `remember_request_headers` keeps: of a mapping, and of each pair or mapping in a list
    (`"headers": [{"name": "X-Team-Token", "value": …}]`). Ordinary fields (a `user` id,
    `metadata` values) are left alone, and values shorter than `MIN_ENV_SECRET` are never
    carried: each carried value is blanked out of every later error text of the process.

    A chat turn (a mapping with a `role`, as an item of a list: `messages`, `contents`, an
    `input` list) is the conversation, not the request's configuration, and is not walked. A
    credential the caller configured sits in a tool, an MCP server, a header or a field of its
    own, never in a turn; and a turn list grows with every call of an agent loop, which the walk
    would read again each time (about 0.5 µs a turn, as much as validating it).
    """
    stack: list[tuple[int, Any]] = [(_ORDINARY, body)]
    seen: set[int] = set()
    kinds = _KEY_KINDS  # read inline: this loop runs for every mapping of every walked value
    while stack:
        kind, value = stack.pop()
        if type(value) is dict or isinstance(value, Mapping):
            if id(value) in seen:  # a cycle, or a container that occurs twice
                continue
            seen.add(id(value))
            if kind == _HEADERS and not _pair_names(value):
                remember_request_headers(value)  # one of a list of headers mappings
                continue
            pair = _value_kind(value, kind) if "value" in value else _ORDINARY
            for key, item in value.items():
                if type(item) is not str and isinstance(item, _SCALARS):
                    continue
                named = kinds.get(key)
                if named is None:
                    named = _key_kind(key if type(key) is str else str(key))
                if pair and key == "value":
                    named = pair
                if type(item) is str:
                    if named == _CREDENTIAL:
                        _carry_credential(item)
                elif named == _HEADERS and isinstance(item, Mapping):
                    remember_request_headers(item)
                else:
                    stack.append((named, item))
        elif isinstance(value, list | tuple):
            if id(value) in seen:
                continue
            seen.add(id(value))
            if kind == _CREDENTIAL:
                stack.extend([(kind, item) for item in value if not isinstance(item, _SCALARS)])
            else:
                # A chat turn is conversation, not configuration: not walked (see above).
                for item in value:
                    if type(item) is dict:  # the common case, ahead of the slower ABC check
                        if "role" not in item:
                            stack.append((kind, item))
                    elif not isinstance(item, _LEAVES) and not (
                        isinstance(item, Mapping) and "role" in item
                    ):
                        stack.append((kind, item))
        elif kind == _CREDENTIAL:
            _carry_credential(value)


def _carry_credential(value: Any) -> None:
    """Carry a credential-named body value (and its scheme's credential); ignore non-strings."""
    text = value.get_secret_value() if hasattr(value, "get_secret_value") else value
    if not isinstance(text, str):
        return
    text = text.strip()
    _carry(text)
    schemed = _SCHEMED.fullmatch(text)
    if schemed is not None:
        _carry(schemed.group(1))


def _carry(value: str) -> None:
    """Add ``value`` to the carried set (see :func:`remember_request_secret`)."""
    if len(value) < MIN_ENV_SECRET:
        return
    with _KNOWN.lock:
        carried = _KNOWN.carried
        if _add_recent(carried, value, REQUEST_SECRET_LIMIT):
            _KNOWN.carried_view = tuple(sorted(carried, key=len, reverse=True))


def _carried_in(text: str) -> list[str]:
    """The carried credentials ``text`` shows, whole or by their leading fragment.

    One substring search per value rather than a compiled pattern of them all: the set changes
    with every request that carries one, and compiling hundreds of values on each change would
    cost an error path more than these searches do (none at all while the set is empty).
    """
    found: list[str] = []
    for value in _KNOWN.carried_view:
        head = value[:FRAGMENT] if len(value) >= MIN_FRAGMENTED else value
        if head in text:
            found.append(value)
    return found


def _keep_prefix(match: re.Match[str]) -> str:
    prefix = (
        match.group("pk")
        or match.group("pw")
        or match.group("pr")
        or match.group("ps")
        or match.group("pq")
        or match.group("pu")
    )
    if match.group("pu"):
        return f"{prefix}{REDACTED}@"
    return (prefix or "") + REDACTED


def redact(text: str, secrets: Iterable[str] = ()) -> str:
    """Replace known secrets and anything shaped like a credential with ``[REDACTED]``.

    A secret from :func:`request_header_secrets` that is not a credential by name or shape is
    replaced only where it stands whole; every other one wherever it occurs. The credentials
    requests carried (:func:`remember_request_secret`) are replaced like the ``secrets`` given.
    """
    explicit: list[str] = []
    whole: list[str] = []
    for secret in secrets:
        if isinstance(secret, _Whole):
            whole.append(secret)
        elif secret and len(secret) >= 4:
            explicit.append(secret)
    if _KNOWN.carried_view:
        explicit += _carried_in(text)
    if whole:
        values = "|".join(map(re.escape, sorted(set(whole), key=len, reverse=True)))
        text = re.sub(f"(?<![{_WORD}])(?:{values})(?![{_WORD}])", REDACTED, text)
    for secret in explicit:
        text = text.replace(secret, REDACTED)
    known, heads = _KNOWN.compiled()
    if known is not None:
        text = known.sub(REDACTED, text)
    if heads is not None:
        text = heads.sub(text)
    own = _Heads.of(explicit)
    if own is not None:
        text = own.sub(text)
    return shapes().sub(_keep_prefix, text)


def redact_value(value: Any, secrets: Iterable[str] = ()) -> Any:
    """``value`` with every string inside (dict values and keys, list items) redacted."""
    if isinstance(value, str):
        return redact(value, secrets)
    if isinstance(value, Mapping):
        return {redact(str(k), secrets): redact_value(v, secrets) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [redact_value(v, secrets) for v in value]
    return value


def bounded(text: str, limit: int = 2048) -> str:
    """Keep at most ``limit`` characters, marking a cut so readers know text is missing."""
    if len(text) <= limit:
        return text
    return text[:limit] + f"... [{len(text) - limit} more characters]"
