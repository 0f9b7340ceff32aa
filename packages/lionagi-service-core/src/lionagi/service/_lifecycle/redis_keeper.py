"""The permit keeper: renews held shared permits and returns released ones to Redis.

Why a thread, not a task: a lease is held across a stream's whole life, and a stream is an
async generator driven by its consumer's task; no task group can span its yields (a cancel
scope entered in a generator and left open while the consumer runs corrupts the consumer's
scope stack). And :meth:`AdmissionLease.release` is synchronous so it stays safe in ``finally``
blocks under cancellation. The keeper reconciles both: ``release()`` records the holder id under
a lock (synchronous, cannot be lost to cancellation), and this thread removes it from Redis with
its own blocking client, while it also renews every held permit in one round trip per
``renew_every``. Removal waits ``coalesce`` seconds (the poll interval other processes ask at
anyway) so a burst of releases costs one round trip, and a release that this process's next
reservation script already dropped (:meth:`PermitKeeper.dropped`) costs none.

Lifetime: the thread starts with the first held permit, exits after one TTL without any, and
:meth:`PermitKeeper.stop` (the controller's ``close()``) makes one last attempt to return
pending permits, bounded by the op timeout, and joins it. A permit whose release never reaches
Redis (the server is down) expires by its TTL: that is the backstop, and the reason the TTL
exists at all. The thread is a daemon so an ``iModel`` nobody closed cannot block interpreter
exit; its permits then expire by TTL too.

Timing: a renewal is never queued behind a return (a return due within two op timeouts of the
next renewal lets the renewal go first), so it lands at most ``renew_every + 3 * op_timeout``
after Redis last set a permit's expiry; :class:`~.shared_config.SharedAdmission` refuses settings
where that is not inside ``lease_ttl``.

Outages: the controller and its keeper report every round trip to one :class:`OutageLog`, which
logs one warning when Redis stops answering (what happens to new calls and to held permits
meanwhile) and one note when it answers again; the failures in between go to DEBUG. A held
permit found gone from Redis at renewal is reported once and no longer renewed.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

import redis
from redis.backoff import NoBackoff
from redis.retry import Retry

from .._base.secrets import redact
from .redis_scripts import RENEW

__all__ = ["OutageLog", "PermitKeeper", "describe_failure"]

logger = logging.getLogger("lionagi.service")


def describe_failure(exc: BaseException) -> tuple[str, bool]:
    """``(text, unreachable)`` of a failed Redis round trip; ``text`` is redacted.

    A refused connection, a reset or a timeout means Redis is unreachable. Any other error (a
    wrong password, a missing ACL permission, out of memory, a read-only replica) is Redis
    answering with an error, which a message must not call unreachable: the fix is different.
    """
    text = f"{type(exc).__name__}: {redact(str(exc))}"
    if isinstance(exc, redis.AuthenticationError):
        return text, False
    if isinstance(exc, redis.ConnectionError | redis.TimeoutError):
        return text, True
    return text, not isinstance(exc, redis.RedisError)  # an OSError from the socket layer


def _expected(exc: Exception) -> bool:
    """Whether a round trip's failure is Redis's own (or the network's), not a bug."""
    return isinstance(exc, redis.RedisError | OSError)


class OutageLog:
    """Says once that Redis stopped answering one shared limit, and once that it answers again.

    The controller (on the event loop) and its permit keeper (on its thread) report every round
    trip here, so an outage is one warning and one recovery note however many calls are refused
    and renewals or returns fail in between (each of those is logged at DEBUG only). The warning
    says what happens until Redis answers: to new calls (refused, or admitted under this
    process's own limits) and to the permits this process holds (not renewed; each expires
    ``lease_ttl`` after its last renewal). Any successful round trip ends the outage.
    """

    def __init__(
        self,
        where: str,
        *,
        lease_ttl: float,
        op_timeout: float,
        on_unavailable: str | None = None,
    ) -> None:
        """``where`` names the limit and redacted URL; ``on_unavailable`` None: no calls part."""
        self.where = where
        self._ttl = lease_ttl
        self._op_timeout = op_timeout
        self._mode = on_unavailable
        self._held: Callable[[], int] = lambda: 0
        self._lock = threading.Lock()
        self._since: float | None = None
        self._unreachable = True  # how the current outage began
        self._calls = 0

    def watch(self, held: Callable[[], int]) -> None:
        """Count the permits this process holds with ``held`` when an outage begins."""
        self._held = held

    def failed(self, text: str, *, unreachable: bool, call: bool = False) -> None:
        """One round trip failed; ``call``: it was a call's reservation (refused or local)."""
        held = self._held()  # before taking our lock: it takes the keeper's
        with self._lock:
            first = self._since is None
            if first:
                self._since = time.monotonic()
                self._unreachable = unreachable
                self._calls = 0
            if call:
                self._calls += 1
        state = "unreachable" if unreachable else "failing"
        if not first:
            logger.debug("shared admission: %s is still %s (%s)", self.where, state, text)
            return
        what = "is unreachable" if unreachable else "answers with an error"
        until = "until it answers" if unreachable else "until its requests succeed"
        parts = [f"shared admission: {self.where} {what} ({text})"]
        if self._mode == "fail":
            parts.append(
                f"{until}, each new call is refused with AdmissionBackendUnavailable after one "
                f"attempt of at most op_timeout ({self._op_timeout:g} s)"
            )
        elif self._mode == "local":
            parts.append(
                f"{until}, new calls are admitted under this process's own copy of the limits, "
                "so the shared limit is not enforced across processes"
            )
        if held:
            parts.append(
                f"the {held} permit(s) this process holds cannot be renewed meanwhile: each "
                f"expires lease_ttl ({self._ttl:g} s) after its last renewal while its call "
                "keeps running, and other processes may then be admitted over the concurrency "
                "limit"
            )
        logger.warning("%s (further failures are logged at DEBUG)", "; ".join(parts))

    def answered(self) -> None:
        """One round trip succeeded: end the outage, if there was one, with a note."""
        with self._lock:
            since, self._since = self._since, None
            calls = self._calls
            unreachable = self._unreachable
        if since is None:
            return
        note = ""
        if self._mode == "fail":
            note = f"; {calls} call(s) were refused meanwhile"
        elif self._mode == "local":
            note = (
                f"; {calls} call(s) were admitted under local limits only meanwhile, and those "
                "still running are not counted by the shared limit"
            )
        calls_again = "; new calls are admitted under the shared limit again" if self._mode else ""
        logger.warning(
            "shared admission: %s %s after %.1f s%s%s",
            self.where,
            "answers again" if unreachable else "accepts requests again",
            time.monotonic() - since,
            calls_again,
            note,
        )


class PermitKeeper:
    """Renews and releases one shared limit's permits from a private thread."""

    def __init__(
        self,
        url: str,
        permits_key: str,
        *,
        ttl: float,
        every: float,
        op_timeout: float,
        coalesce: float = 0.0,
        outage: OutageLog | None = None,
    ) -> None:
        self._url = url
        self._key = permits_key
        self._ttl_ms = max(1, int(ttl * 1000))
        self._ttl = ttl
        self._every = every
        self._op_timeout = op_timeout
        self._coalesce = coalesce
        if outage is None:
            where = f"Redis for permits {permits_key!r}"
            outage = OutageLog(where, lease_ttl=ttl, op_timeout=op_timeout)
        self._outage = outage
        self._outage.watch(self.held_count)
        self._lock = threading.Lock()
        self._wakeup = threading.Event()
        self._held: set[str] = set()
        self._releasing: dict[str, float] = {}  # holder -> monotonic time of release
        self._unsure: set[str] = set()  # releasing holders never known to be granted
        self._thread: threading.Thread | None = None
        self._stopping = False

    def hold(self, holder: str) -> None:
        """Start renewing ``holder``'s permit (it was just granted)."""
        with self._lock:
            self._held.add(holder)
            self._ensure_thread()

    def release(self, holder: str, *, granted: bool = True) -> None:
        """Give ``holder``'s permit back; synchronous, safe under cancellation, idempotent.

        ``granted=False``: a reservation whose reply was lost or cancelled (the script may have
        run); removed the same way, but not counted as a permit in what is logged.
        """
        with self._lock:
            self._held.discard(holder)
            first = not self._releasing
            self._releasing.setdefault(holder, time.monotonic())
            if not granted:
                self._unsure.add(holder)
            self._ensure_thread()
        if first:  # later releases join the batch the thread is already timing
            self._wakeup.set()

    def dropped(self, holders: tuple[str, ...]) -> None:
        """A reservation script removed ``holders`` from Redis: nothing left to return."""
        with self._lock:
            for holder in holders:
                self._forget_release(holder)

    def pending_releases(self) -> tuple[str, ...]:
        """Released holders not yet removed from Redis (the acquire script drops them too)."""
        with self._lock:
            return tuple(self._releasing)

    def held_count(self) -> int:
        """How many permits this process holds and renews."""
        with self._lock:
            return len(self._held)

    def stop(self, timeout: float) -> None:
        """Return pending permits (one attempt) and join the thread; blocking, bounded."""
        with self._lock:
            self._stopping = True
            thread = self._thread
        self._wakeup.set()
        if thread is not None:
            thread.join(timeout)

    # -- the thread -------------------------------------------------------------------------------

    def _ensure_thread(self) -> None:
        # Called with the lock held.
        if self._thread is None and not self._stopping:
            thread = threading.Thread(
                target=self._run, name="lionagi-admission-keeper", daemon=True
            )
            self._thread = thread
            thread.start()

    def _forget_release(self, holder: str) -> None:
        # Called with the lock held.
        self._releasing.pop(holder, None)
        self._unsure.discard(holder)

    def _run(self) -> None:
        client = redis.Redis.from_url(
            self._url,
            socket_timeout=self._op_timeout,
            socket_connect_timeout=self._op_timeout,
            retry=Retry(NoBackoff(), 0),
        )
        renew = client.register_script(RENEW)
        next_renew = time.monotonic() + self._every
        idle_since: float | None = None
        backoff_until = 0.0  # after a failed return, wait op_timeout before the next attempt
        try:
            while True:
                with self._lock:
                    stopping = self._stopping
                    now = time.monotonic()
                    due = now - self._coalesce
                    releasing = tuple(
                        h for h, since in self._releasing.items() if stopping or since <= due
                    )
                    if now < backoff_until and not stopping:
                        releasing = ()
                # A return may take two op timeouts (connect, then reply): when the renewal is
                # due before it could end, renew first, so a return never delays a renewal.
                if releasing and not stopping and now + 2 * self._op_timeout >= next_renew:
                    next_renew = self._renew_held(renew)
                if releasing and not self._return(client, releasing, final=stopping):
                    backoff_until = time.monotonic() + self._op_timeout
                if time.monotonic() >= next_renew:
                    next_renew = self._renew_held(renew)
                with self._lock:
                    if stopping or (self._stopping and not self._releasing):
                        self._thread = None
                        return
                    busy = bool(self._held or self._releasing)
                    now = time.monotonic()
                    if busy:
                        idle_since = None
                    elif idle_since is None:
                        idle_since = now
                    elif now - idle_since >= self._ttl:
                        self._thread = None  # a later hold() starts a fresh one
                        return
                    # Wake for the oldest pending release (its batch), else the next renewal.
                    delay = next_renew - now
                    if self._releasing:
                        oldest = min(self._releasing.values())
                        ready = max(oldest + self._coalesce, backoff_until)
                        delay = min(delay, max(ready - now, 0.001))
                self._wakeup.wait(max(0.0, delay))
                self._wakeup.clear()
        finally:
            client.close()

    def _return(self, client: redis.Redis, releasing: tuple[str, ...], *, final: bool) -> bool:
        try:
            client.zrem(self._key, *releasing)
        except Exception as exc:  # the thread must outlive any failure: see _unexpected
            now = time.monotonic()
            with self._lock:
                permits = sum(1 for holder in releasing if holder not in self._unsure)
                # Past the TTL the permit has expired on its own: stop trying.
                for holder in releasing:
                    since = self._releasing.get(holder)
                    if since is not None and now - since >= self._ttl:
                        self._forget_release(holder)
            if not _expected(exc):
                _unexpected(exc)
                return False
            text, unreachable = describe_failure(exc)
            self._outage.failed(text, unreachable=unreachable)
            if final and permits:
                logger.warning(
                    "shared admission: %s: %d released permit(s) could not be returned at close "
                    "(%s); each expires within lease_ttl (%g s)",
                    self._outage.where,
                    permits,
                    text,
                    self._ttl,
                )
            else:
                logger.debug(
                    "shared admission: returning %d released permit(s) failed (%s); retrying "
                    "after %g s until Redis answers or their lease_ttl ends",
                    permits,
                    text,
                    self._op_timeout,
                )
            return False
        with self._lock:
            for holder in releasing:
                self._forget_release(holder)
        self._outage.answered()
        return True

    def _renew_held(self, renew: object) -> float:
        """Renew every held permit (one round trip); returns when the next renewal is due."""
        with self._lock:
            held = tuple(self._held)
        if held:
            self._renew(renew, held)
        return time.monotonic() + self._every

    def _renew(self, renew: object, held: tuple[str, ...]) -> None:
        try:
            gone = renew(keys=[self._key], args=[self._ttl_ms, *held])  # type: ignore[operator]
        except Exception as exc:  # the thread must outlive any failure: see _unexpected
            if not _expected(exc):
                _unexpected(exc)
                return
            text, unreachable = describe_failure(exc)
            self._outage.failed(text, unreachable=unreachable)
            logger.debug(
                "shared admission: renewing %d held permit(s) failed (%s); next attempt in %g s",
                len(held),
                text,
                self._every,
            )
            return
        self._outage.answered()
        if not isinstance(gone, list) or not gone:
            return
        names = {h.decode() if isinstance(h, bytes) else str(h) for h in gone}
        with self._lock:
            # Only still-held ones were lost; a holder released meanwhile was removed on purpose.
            lost = names & self._held
            self._held -= lost  # reported once, never renewed again
        if lost:
            logger.warning(
                "shared admission: %s: %d held permit(s) were gone at renewal: they expired "
                "before a renewal reached Redis (it was unreachable, or this process stalled, "
                "for longer than lease_ttl, %g s) or the server lost them (a restart or "
                "failover without persistence). Their calls keep running uncounted, so other "
                "processes may be admitted over the concurrency limit until those calls end",
                self._outage.where,
                len(lost),
                self._ttl,
            )


def _unexpected(exc: Exception) -> None:
    """Log a round trip's failure that is not Redis's own (a bug, a library's surprise) in full.

    The keeper is the only thing renewing this process's permits: had it ended on such an
    exception, its slot stayed taken (no new keeper started) and every held permit expired
    while its call still ran, so other processes were admitted over the limit, with nothing
    said but a thread's traceback. The round trip counts as failed (retried, the TTL as the
    backstop) and the thread carries on. It is not an outage of Redis, so it is not reported
    to the :class:`OutageLog`.
    """
    logger.error("shared admission: permit keeper round trip failed unexpectedly", exc_info=exc)
