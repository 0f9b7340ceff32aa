"""How a caller selects admission shared across processes: :class:`SharedAdmission`.

The settings live apart from the Redis controller so that constructing, validating and printing
them never imports ``redis``: only ``backends.build_admission`` does, and only when a backend is
set.
The URL may carry a password (``redis://:secret@host``); every text form of these settings
(``repr``, errors, :meth:`SharedAdmission.public_dict`) shows it redacted.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Literal
from urllib.parse import parse_qs, unquote, urlsplit

from .._base.errors import AdmissionConfigError
from .._base.secrets import redact_url, remember_secret
from ._validate import check_positive_seconds

__all__ = ["OnUnavailable", "SharedAdmission"]

OnUnavailable = Literal["fail", "local"]

_SCHEMES = ("redis", "rediss", "unix")
# Part of a Redis key: printable, no whitespace or braces (braces are the cluster hash tag).
_KEY = re.compile(r"[A-Za-z0-9_.:/@+=-]{1,200}")


@dataclass(frozen=True, slots=True)
class SharedAdmission:
    """Share one provider key's rpm/tpm windows and concurrency limit through Redis.

    Every process (on any machine) that builds its `iModel` with the same `url` and `key`
    and the same `AdmissionConfig` limits draws from one set of counters, reserved
    atomically on the Redis server. Pass it as `iModel(..., admission_backend=SharedAdmission(
    url=..., key=...))`; needs the `lionagi-service-core[redis]` extra.

    Attributes:
        url: `redis://`, `rediss://` or `unix://` URL of a Redis primary. A password in it
            is never shown in any text this library produces. Its query options go to redis-py;
            one redis-py refuses raises `AdmissionConfigError` (`field="url"`) when the
            model is built, before any call.
        key: Names the shared limit, normally the provider key's *name* (for example
            `"openai-prod"`), never the key itself. Processes with the same key share limits.
        lease_ttl: Seconds a concurrency permit lives without renewal: how long a crashed
            holder's permit stays taken at most.
        renew_interval: Seconds between renewals of held permits; default `lease_ttl / 3`.
            Must be shorter than `lease_ttl`.
        poll_interval: Seconds the head of the local queue waits before asking Redis again when
            the shared concurrency limit is reached (a local release wakes it at once), and the
            longest a released permit waits to be handed back with others. Must be shorter
            than `lease_ttl`.
        op_timeout: Cap in seconds on one Redis round trip (and on connecting); the request
            deadline, when shorter, bounds it instead. Must be shorter than `lease_ttl` minus
            the renewal interval, so a renewal that takes its whole cap still lands before the
            permit it renews expires.
        on_unavailable: `"fail"` (default): a Redis failure refuses the call with
            `AdmissionBackendUnavailable`. `"local"`: the call is admitted under this
            process's own copy of the limits instead (the shared limit is then not enforced).

    Raises:
        AdmissionConfigError: A value is invalid; `field` names it.
    """

    url: str = field(repr=False)
    key: str
    lease_ttl: float = 30.0
    renew_interval: float | None = None
    poll_interval: float = 0.05
    op_timeout: float = 2.0
    on_unavailable: OnUnavailable = "fail"

    def __post_init__(self) -> None:
        _check_url(self.url)
        if not isinstance(self.key, str) or _KEY.fullmatch(self.key) is None:
            raise AdmissionConfigError(
                "key",
                "must be 1-200 characters of letters, digits and _.:/@+=- (a name for the "
                f"shared limit, not a secret), got {self.key!r}",
            )
        check_positive_seconds("lease_ttl", self.lease_ttl)
        if self.renew_interval is not None:
            check_positive_seconds("renew_interval", self.renew_interval)
            if self.renew_interval >= self.lease_ttl:
                raise AdmissionConfigError(
                    "renew_interval",
                    f"must be shorter than lease_ttl ({self.lease_ttl:g} s), "
                    f"got {self.renew_interval!r}",
                )
        check_positive_seconds("poll_interval", self.poll_interval)
        if self.poll_interval >= self.lease_ttl:
            # Waiters ask Redis again only this often and a released permit is handed back up
            # to this late: at the TTL or beyond, permits would in effect return only by expiry.
            raise AdmissionConfigError(
                "poll_interval",
                f"must be shorter than lease_ttl ({self.lease_ttl:g} s): waiters re-ask Redis "
                "and released permits are handed back at most this often, so at the TTL a "
                f"permit would come back only by expiring; got {self.poll_interval!r}",
            )
        check_positive_seconds("op_timeout", self.op_timeout)
        # A renewal starts up to renew_every after the last one and may take op_timeout: with
        # the two adding up to the TTL a healthy holder's permit could lapse and be granted
        # to another process, so the shared concurrency limit would no longer hold.
        margin = self.lease_ttl - self.renew_every
        if self.op_timeout >= margin:
            raise AdmissionConfigError(
                "op_timeout",
                f"must be shorter than lease_ttl minus the renewal interval ({self.lease_ttl:g} "
                f"- {self.renew_every:g} = {margin:g} s), so a slow renewal still lands before "
                f"the permit expires; got {self.op_timeout!r} (raise lease_ttl or lower it)",
            )
        if self.on_unavailable not in ("fail", "local"):
            raise AdmissionConfigError(
                "on_unavailable", f"must be 'fail' or 'local', got {self.on_unavailable!r}"
            )

    @property
    def renew_every(self) -> float:
        """Seconds between permit renewals."""
        return self.renew_interval if self.renew_interval is not None else self.lease_ttl / 3

    @property
    def redacted_url(self) -> str:
        """The URL with any password (and query value) replaced."""
        return redact_url(self.url)

    def public_dict(self) -> dict[str, Any]:
        """A JSON-ready description with the URL redacted."""
        return {
            "url": self.redacted_url,
            "key": self.key,
            "lease_ttl": self.lease_ttl,
            "renew_interval": self.renew_interval,
            "poll_interval": self.poll_interval,
            "op_timeout": self.op_timeout,
            "on_unavailable": self.on_unavailable,
        }

    def __repr__(self) -> str:
        return (
            f"SharedAdmission(url={self.redacted_url!r}, key={self.key!r}, "
            f"lease_ttl={self.lease_ttl!r}, on_unavailable={self.on_unavailable!r})"
        )


def _check_url(url: object) -> None:
    if not isinstance(url, str) or not url:
        raise AdmissionConfigError("url", "must be a non-empty redis://, rediss:// or unix:// URL")
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises ValueError on a malformed port
    except ValueError:
        hint = (
            " (percent-encode any / ? # @ or space in the user name and password)"
            if "@" in url
            else ""
        )
        raise AdmissionConfigError(
            "url", f"is not a valid URL: {redact_url(url)!r}{hint}"
        ) from None
    if parts.password:
        remember_secret(unquote(parts.password))  # so an echo in a server error is redacted
    if parts.scheme not in _SCHEMES:
        raise AdmissionConfigError(
            "url",
            f"scheme must be one of {', '.join(_SCHEMES)}, got {redact_url(url)!r}",
        )
    if parts.scheme != "unix" and not parts.hostname:
        raise AdmissionConfigError("url", f"names no host: {redact_url(url)!r}")
    if parts.scheme == "unix" and not parts.path:
        raise AdmissionConfigError("url", f"names no socket path: {redact_url(url)!r}")
    # redis-py reads these from the query and they would replace op_timeout for every client,
    # the keeper thread's blocking calls included (close() joins it for 2 x op_timeout only).
    owned = sorted(_OWNED_OPTIONS & parse_qs(parts.query, keep_blank_values=True).keys())
    if owned:
        raise AdmissionConfigError(
            "url",
            f"sets {', '.join(owned)}, which op_timeout owns (one cap on every Redis round trip "
            f"and connect); remove it from the URL and set op_timeout: {redact_url(url)!r}",
        )


_OWNED_OPTIONS = frozenset({"socket_timeout", "socket_connect_timeout"})
