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
"""

from __future__ import annotations

import logging
import threading
import time

import redis
from redis.backoff import NoBackoff
from redis.retry import Retry

from .redis_scripts import RENEW

__all__ = ["PermitKeeper"]

logger = logging.getLogger("lionagi.service")


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
    ) -> None:
        self._url = url
        self._key = permits_key
        self._ttl_ms = max(1, int(ttl * 1000))
        self._ttl = ttl
        self._every = every
        self._op_timeout = op_timeout
        self._coalesce = coalesce
        self._lock = threading.Lock()
        self._wakeup = threading.Event()
        self._held: set[str] = set()
        self._releasing: dict[str, float] = {}  # holder -> monotonic time of release
        self._thread: threading.Thread | None = None
        self._stopping = False

    def hold(self, holder: str) -> None:
        """Start renewing ``holder``'s permit (it was just granted)."""
        with self._lock:
            self._held.add(holder)
            self._ensure_thread()

    def release(self, holder: str) -> None:
        """Give ``holder``'s permit back; synchronous, safe under cancellation, idempotent."""
        with self._lock:
            self._held.discard(holder)
            first = not self._releasing
            self._releasing.setdefault(holder, time.monotonic())
            self._ensure_thread()
        if first:  # later releases join the batch the thread is already timing
            self._wakeup.set()

    def dropped(self, holders: tuple[str, ...]) -> None:
        """A reservation script removed ``holders`` from Redis: nothing left to return."""
        with self._lock:
            for holder in holders:
                self._releasing.pop(holder, None)

    def pending_releases(self) -> tuple[str, ...]:
        """Released holders not yet removed from Redis (the acquire script drops them too)."""
        with self._lock:
            return tuple(self._releasing)

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
                if releasing and not self._return(client, releasing):
                    backoff_until = time.monotonic() + self._op_timeout
                now = time.monotonic()
                if now >= next_renew:
                    with self._lock:
                        held = tuple(self._held)
                    if held:
                        self._renew(renew, held)
                    next_renew = time.monotonic() + self._every
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

    def _return(self, client: redis.Redis, releasing: tuple[str, ...]) -> bool:
        try:
            client.zrem(self._key, *releasing)
        except Exception as exc:  # see _failed: the thread must outlive it
            _failed(exc)
            now = time.monotonic()
            with self._lock:
                # Past the TTL the permit has expired on its own: stop trying.
                for holder in releasing:
                    since = self._releasing.get(holder)
                    if since is not None and now - since >= self._ttl:
                        del self._releasing[holder]
            logger.warning(
                "shared admission: could not return %d permit(s) (%s); they expire by TTL",
                len(releasing),
                type(exc).__name__,
            )
            return False
        with self._lock:
            for holder in releasing:
                self._releasing.pop(holder, None)
        return True

    def _renew(self, renew: object, held: tuple[str, ...]) -> None:
        try:
            kept = renew(keys=[self._key], args=[self._ttl_ms, *held])  # type: ignore[operator]
        except Exception as exc:  # see _failed: the thread must outlive it
            _failed(exc)
            logger.warning(
                "shared admission: renewing %d permit(s) failed (%s); retrying before the TTL",
                len(held),
                type(exc).__name__,
            )
            return
        if isinstance(kept, int) and kept < len(held):
            logger.warning(
                "shared admission: %d held permit(s) had already expired (renewal was late)",
                len(held) - kept,
            )


def _failed(exc: Exception) -> None:
    """Log a round trip's failure that is not Redis's own (a bug, a library's surprise) in full.

    The keeper is the only thing renewing this process's permits: had it ended on such an
    exception, its slot stayed taken (no new keeper started) and every held permit expired
    while its call still ran, so other processes were admitted over the limit, with nothing
    said but a thread's traceback. The round trip counts as failed (retried, the TTL as the
    backstop) and the thread carries on; a Redis error is expected and logged briefly by the
    caller.
    """
    if not isinstance(exc, redis.RedisError):
        logger.error("shared admission: permit keeper round trip failed unexpectedly", exc_info=exc)
