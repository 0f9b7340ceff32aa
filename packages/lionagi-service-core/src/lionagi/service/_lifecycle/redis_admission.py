"""Admission shared across processes on Redis (``SharedAdmission``; issue 18).

The limits of one provider key (requests and tokens per window, calls at once) are counted on
the Redis server, so every process and machine using the same ``key`` draws from one budget:

- **Reservation** is one Lua script (:data:`~.redis_scripts.ACQUIRE`): request units, token units
  and, when a concurrency limit is set, a permit are taken together or not at all. Because the
  permit is part of the same step, a call never holds window units while it waits for a permit,
  so nothing has to be given back across processes when a wait is cancelled.
- **Permits** are TTL leases in a sorted set (holder id scored by expiry, pruned atomically by
  every script). :class:`~.redis_keeper.PermitKeeper` renews them while held and returns them on
  release; a crashed holder's permit returns when its TTL runs out.
- **Local order**: this process's calls still line up strictly FIFO in a local bounded queue
  (an in-process :class:`AdmissionController` with one turn), and only the head of that line
  talks to Redis. Across processes there is no queue: whichever head asks first after capacity
  frees up wins (docs/production.md spells out what is and is not promised).
- **Failure**: a Redis error or timeout refuses the call with
  :class:`AdmissionBackendUnavailable` (fail closed), or, with ``on_unavailable="local"``, admits
  it under a local copy of the limits. The next call asks Redis again, so admission recovers as
  soon as the server is back. The concurrency limit is also held per process across both ways
  in: permits this process holds, granted by Redis or by the fallback, count together (see
  :meth:`RedisAdmissionController._reserve`).
- **Deadline**: every wait, Redis round trips included, ends at the request deadline; a round
  trip is capped at ``min(op_timeout, remaining)``.

Requires an asyncio event loop (redis-py's asyncio client). The client's pooled connections
belong to the loop they were opened on: another loop that is still running is refused with
:class:`EventLoopMismatchError`; once that loop has closed (sequential ``asyncio.run`` calls),
the next loop gets a fresh client and the old one's sockets are freed without its loop.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import logging
import time
import uuid
from typing import Any

import anyio
import redis
import redis.asyncio as aioredis
from anyio.lowlevel import checkpoint_if_cancelled
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff

from .._base.errors import (
    AdmissionBackendUnavailable,
    AdmissionClosed,
    AdmissionConfigError,
    DeadlinePhase,
    EventLoopMismatchError,
    RequestDeadlineExceeded,
    StreamClosed,
)
from .._base.loops import running_asyncio_loop
from .._base.secrets import redact
from .admission import AdmissionCall, AdmissionController, AdmissionSnapshot, admit_check
from .budget import NO_DEADLINE, RequestBudget
from .clock import Clock, Sleep, default_clock, default_sleep
from .config import AdmissionConfig
from .deadline import DeadlineReached, run_before
from .lease import AdmissionLease
from .redis_keeper import PermitKeeper
from .redis_scripts import ACQUIRE
from .shared_config import SharedAdmission

__all__ = ["RedisAdmissionController", "shared_keys"]

logger = logging.getLogger("lionagi.service")

_BACKEND = "redis"
_SETTLE_POLL = 0.1  # seconds: how often a close() from another thread checks that loop is open


def shared_keys(key: str) -> tuple[str, str]:
    """The rate hash and permit set of one shared limit (one cluster hash tag)."""
    base = f"lionagi:admission:{{{key}}}"
    return f"{base}:rate", f"{base}:permits"


def _options(backend: SharedAdmission) -> dict[str, Any]:
    return {"socket_timeout": backend.op_timeout, "socket_connect_timeout": backend.op_timeout}


def _new_client(backend: SharedAdmission) -> aioredis.Redis:
    """An unconnected asyncio client of ``backend.url`` (no retries: one try per round trip)."""
    return aioredis.Redis.from_url(backend.url, retry=Retry(NoBackoff(), 0), **_options(backend))


def _client_for(backend: SharedAdmission) -> aioredis.Redis:
    """The asyncio client of ``backend.url``, its connection options checked before any I/O.

    redis-py passes unknown URL query options (``?foo=1``, ``?ssl_cert_reqs=`` on a plain
    ``redis://`` URL) through to the connection class, so they would only fail with a bare
    ``TypeError`` inside the first call, and in the permit keeper's thread (which then dies and
    stops renewing). Building one unconnected connection of each client here (the asyncio one for
    reservations, the blocking one the keeper uses) turns them, and malformed option values
    (``ValueError``, or redis-py's own error for a value it checks itself, such as
    ``?protocol=9``), into :class:`AdmissionConfigError` naming ``url`` when the model is built.
    Any exception counts: nothing here does I/O, so whatever redis-py raises is about the URL,
    and versions before 7.3 fail a non-numeric ``?protocol=`` with an ``UnboundLocalError`` of
    their own.
    """
    try:
        client = _new_client(backend)
        pool = client.connection_pool
        pool.connection_class(**pool.connection_kwargs)
        blocking = redis.Redis.from_url(backend.url, **_options(backend)).connection_pool
        blocking.connection_class(**blocking.connection_kwargs)
    except Exception as exc:  # raised again below as the typed error naming url
        raise AdmissionConfigError(
            "url",
            f"has a connection option redis-py does not accept ({type(exc).__name__}: "
            f"{redact(str(exc))}): {backend.redacted_url!r}",
        ) from None
    return client


def _free_sockets(client: aioredis.Redis) -> None:
    """Close ``client``'s pooled sockets now, without awaiting; best effort, never raises.

    For a client whose event loop has closed (or is being dropped on its own loop after a
    failure): redis-py's ``aclose()`` awaits on the connections' loop, and on a closed one it
    raises "Event loop is closed". Aborting a transport marks it closing; on a live loop that is
    all it takes, on a closed one the last step (run by that loop otherwise) is run here, so the
    socket is closed now rather than by the garbage collector with a ``ResourceWarning``. Must
    run in the thread of the client's loop, or after that loop has closed.
    """
    pool = client.connection_pool  # redis-py 5-7 keep a pool's connections in these two
    connections = [
        *getattr(pool, "_available_connections", ()),
        *getattr(pool, "_in_use_connections", ()),
    ]
    for connection in connections:
        writer = getattr(connection, "_writer", None)
        with contextlib.suppress(Exception):
            connection._reader = connection._writer = None  # redis-py's "not connected"
        if writer is None:
            continue
        transport = writer.transport
        try:
            transport.abort()
        except RuntimeError:  # its loop has closed: nothing will run the transport's last step
            lost = getattr(transport, "_call_connection_lost", None)
            if lost is not None:
                with contextlib.suppress(Exception):
                    lost(None)  # closes the socket (in a finally) and detaches the protocol
        except Exception:  # best effort: the garbage collector closes whatever is left
            continue


class _Unavailable(Exception):
    """Internal: one Redis round trip failed; the caller decides fail-closed or fallback."""


class RedisAdmissionController:
    """Grants :class:`AdmissionLease` objects under limits shared through Redis."""

    def __init__(
        self,
        config: AdmissionConfig,
        backend: SharedAdmission,
        *,
        clock: Clock | None = None,
        sleep: Sleep | None = None,
    ) -> None:
        """Create the controller; nothing connects until the first :meth:`acquire`."""
        if not isinstance(config, AdmissionConfig):
            raise AdmissionConfigError("config", f"must be an AdmissionConfig, got {config!r}")
        self._config = config
        self._backend = backend
        self._clock: Clock = clock if clock is not None else default_clock
        self._sleep: Sleep = sleep if sleep is not None else default_sleep
        # The per-process FIFO: one turn at the head of a bounded queue.
        self._gate = AdmissionController(
            AdmissionConfig(queue_capacity=config.queue_capacity, concurrency_limit=1),
            clock=self._clock,
            sleep=self._sleep,
        )
        # The local copy of the limits while Redis is unreachable. Its concurrency limit is
        # only a backstop: _reserve admits into it only while this process holds fewer permits
        # than the limit, the ones Redis granted included.
        self._fallback = (
            AdmissionController(config, clock=self._clock, sleep=self._sleep)
            if backend.on_unavailable == "local"
            else None
        )
        self._client = _client_for(backend)
        self._client_loop: Any | None = None  # the asyncio loop of the client's connections
        self._script = self._client.register_script(ACQUIRE)
        self._keys = list(shared_keys(backend.key))
        limits = (config.limit_requests, config.limit_tokens, config.concurrency_limit)
        self._args_head = [
            max(1, int(config.window * 1000)),
            *(-1 if limit is None else limit for limit in limits[:2]),
        ]
        self._concurrency = config.concurrency_limit
        self._ttl_ms = max(1, int(backend.lease_ttl * 1000))
        self._keeper = (
            PermitKeeper(
                backend.url,
                self._keys[1],
                ttl=backend.lease_ttl,
                every=backend.renew_every,
                op_timeout=backend.op_timeout,
                coalesce=backend.poll_interval,
            )
            if config.concurrency_limit is not None
            else None
        )
        self._prefix = uuid.uuid4().hex[:12]  # holder ids: unique per process and call
        self._leases: dict[str, AdmissionLease] = {}
        self._holders: dict[str, str] = {}  # call id -> holder of a permit Redis granted
        self._fallback_leases: dict[str, AdmissionLease] = {}  # admitted by the fallback
        # Holders of reservations whose reply never came: the script may have run. One cut short
        # by the deadline or a cancellation goes to the keeper at once (Redis may be healthy:
        # it returns the permit, if any, promptly) and is noted in _cut. Once a round trip
        # fails (Redis unreachable), such holders, and the failed one's, are this controller's
        # instead (_unconfirmed): each later reservation drops them in its script and close()
        # tries once more, so the keeper's "could not return N permit(s)" while Redis is down
        # counts permits Redis granted, not every call that tried.
        self._cut: set[str] = set()
        self._unconfirmed: dict[str, float] = {}  # holder -> time.monotonic() of the failure
        self._ids: set[str] = set()
        self._stopping: set[str] = set()  # calls told to leave _reserve's loop (_stop_waiting)
        self._trips: dict[str, anyio.CancelScope] = {}  # call id -> its round trip in flight
        self._released = anyio.Event()  # set (and replaced) when a local lease is released
        self._closed = False
        self._drained: anyio.Event | None = None
        self._shut = False
        self._degraded = False

    @property
    def config(self) -> AdmissionConfig:
        """The limits this controller enforces (shared by every process using the same key)."""
        return self._config

    @property
    def backend(self) -> SharedAdmission:
        """Where the limits are shared."""
        return self._backend

    @property
    def closed(self) -> bool:
        """True once :meth:`close` was called."""
        return self._closed

    # -- public API -------------------------------------------------------------------------------

    async def acquire(
        self, call: AdmissionCall, *, budget: RequestBudget | None = None
    ) -> AdmissionLease:
        """Wait, first in this process's FIFO and then for the shared limits, for a lease.

        Raises:
            AdmissionBackendUnavailable: Redis failed or timed out (``on_unavailable="fail"``).
            AdmissionClosed, AdmissionConflict, TokenEstimateUnavailable,
            RequestExceedsTokenWindow, RequestDeadlineExceeded: as for the in-process controller.
        """
        return await self._acquire_as(call, str(call.id), budget)

    async def _acquire_as(
        self, call: AdmissionCall, call_id: str, budget: RequestBudget | None
    ) -> AdmissionLease:
        await checkpoint_if_cancelled()
        if budget is None:
            budget = NO_DEADLINE
        tokens = admit_check(
            call, call_id, budget, self._closed, self._ids, self._config.limit_tokens, self._clock
        )
        self._own_loop()
        self._ids.add(call_id)
        try:
            turn = await self._gate._acquire_as(call, call_id, budget)
            try:
                await self._reserve(call, call_id, tokens, budget)
            finally:
                turn.release()  # the next local call may ask Redis now
            if self._closed:
                # close() ran while the grant was on its way (a round trip in flight, or a wait
                # in the local fallback): the call was queued when close() began, so it ends
                # with AdmissionClosed like every other queued call rather than running after
                # close() aborted the active ones. What it was granted goes straight back.
                self._give_back(call_id)
                raise _closed_while_waiting(call_id)
        except BaseException:
            self._forget(call_id)
            raise
        finally:
            self._stopping.discard(call_id)
        lease = AdmissionLease(call_id, self._release)
        self._leases[call_id] = lease
        return lease

    async def close(self) -> None:
        """Refuse new calls, wake queued ones, abort active leases, return every permit.

        A call queued when close begins never gets a lease, even if Redis grants its reservation
        afterwards: it ends with :class:`AdmissionClosed` and the permit goes back. Its round
        trip in flight, if any, is cut rather than waited for (up to ``op_timeout``), as a
        stream's stop cuts it.
        Waits until queued callers have left and active leases are released, then returns held
        permits to Redis (two attempts at most, each bounded by ``op_timeout``, when a keeper
        trip is in flight; the TTL covers a failure) and disconnects.
        Idempotent. Callable from any loop and thread: while calls are still in this process's
        line and the client's loop runs in another thread, waking, cutting and waiting for them
        happen on that loop (`_settle_elsewhere`).
        """
        self._closed = True  # refuses new calls at once, whichever thread this runs in
        bound = self._client_loop
        if (
            self._ids
            and bound is not None
            and bound is not running_asyncio_loop()
            and bound.is_running()
        ):
            await self._settle_elsewhere(bound)
        else:
            await self._settle()
        if not self._shut:
            self._shut = True
            try:
                with anyio.CancelScope(shield=True):
                    async with anyio.create_task_group() as tg:
                        if self._keeper is not None:
                            tg.start_soon(
                                anyio.to_thread.run_sync,
                                self._keeper.stop,
                                self._backend.op_timeout * 2,
                            )
                        tg.start_soon(self._drop_unconfirmed)
            finally:
                with anyio.CancelScope(shield=True):
                    await self._disconnect()

    async def _settle(self) -> None:
        """close()'s first part: wake queued calls, abort leases, cut round trips; wait for all.

        Runs on the loop the calls wait on (see `_settle_elsewhere`). The waking is done once;
        every close() waits for the same drain.
        """
        if self._drained is None:
            self._drained = anyio.Event()
            self._wake_local()
            for lease in tuple(self._leases.values()):
                lease._abort()
            self._cut_trips()
            self._check_drained()
        # Both at once: the head of the local line may be waiting inside the fallback while it
        # holds its turn, and closing the gate first would leave it waiting there (and then be
        # granted) until some active local lease happened to be released.
        async with anyio.create_task_group() as tg:
            tg.start_soon(self._gate.close)
            if self._fallback is not None:
                tg.start_soon(self._fallback.close)
        await self._drained.wait()

    async def _settle_elsewhere(self, loop: Any) -> None:
        """`_settle` on ``loop``, the client's, running in another thread; this task waits.

        Calls are queued or active on ``loop``, and what `_settle` touches (their cancel scopes,
        the anyio events they wait on, the gate's and the fallback's, the drain) is not
        thread-safe. Done from this thread, a call there is not woken until its loop wakes for
        some other reason, and the drain signalled from there never wakes this loop: close()
        could wait for ever. So `_settle` runs there, and a worker thread waits for its result,
        which needs no wake-up from either loop. Cancelling this close() cancels it there. If
        that loop ends without finishing it (its shutdown cancels it, or it closes first), its
        calls ended with it, and `_settle` runs here instead.
        """
        settle = self._settle()
        try:
            future = asyncio.run_coroutine_threadsafe(settle, loop)
        except RuntimeError:  # that loop has closed since
            settle.close()  # never started: no "never awaited" warning
            await self._settle()
            return

        def wait() -> bool:  # True once settled there; False if that loop gave it up
            while True:
                try:
                    future.result(_SETTLE_POLL)
                    return True
                except concurrent.futures.CancelledError:
                    return False
                except TimeoutError:
                    if loop.is_closed():  # closed without running it: nothing will now
                        future.cancel()
                        return False

        try:
            settled = await anyio.to_thread.run_sync(wait, abandon_on_cancel=True)
        except BaseException:
            future.cancel()  # the worker thread then ends too
            raise
        if not settled:
            await self._settle()

    def _cut_trips(self) -> None:
        """close(): cut every reservation round trip in flight.

        Runs on the client's loop, the only one round trips run on (`_own_loop`): a cancel
        scope is not thread-safe, and close() from another loop's thread hands `_settle` to the
        client's loop whenever a call is in flight there.
        """
        for trip in tuple(self._trips.values()):
            trip.cancel()

    def _stop_waiting(self, call_id: str) -> bool:
        """Make the queued call ``call_id`` leave with `StreamClosed`; True if it was queued.

        Waiting in this process's line, or in the local fallback: that controller's waiter is
        stopped. Asking Redis: its loop ends now, woken if it sleeps and its round trip in
        flight, if any, cut as a deadline would cut it (the permit the script may have granted
        goes to the keeper, or expires by its TTL if the script runs later still).
        """
        if call_id not in self._ids or call_id in self._leases:
            return False
        if self._gate._stop_waiting(call_id):
            return True
        if self._fallback is not None and self._fallback._stop_waiting(call_id):
            return True
        self._stopping.add(call_id)
        trip = self._trips.get(call_id)
        if trip is not None:
            trip.cancel()
        self._wake_local()
        return True

    def snapshot(self) -> AdmissionSnapshot:
        """This process's counters; the shared window's remaining units are not read here.

        ``available_requests`` / ``available_tokens`` are None: knowing them needs a Redis round
        trip, and a snapshot must stay cheap and never fail.
        """
        gate = self._gate.snapshot()
        return AdmissionSnapshot(
            queued=gate.queued + gate.active,
            active=len(self._leases),
            available_requests=None,
            available_tokens=None,
            queue_capacity=self._config.queue_capacity,
            concurrency_limit=self._config.concurrency_limit,
            closed=self._closed,
            producers_waiting=gate.producers_waiting,
        )

    # -- the shared reservation -------------------------------------------------------------------

    async def _reserve(
        self, call: AdmissionCall, call_id: str, tokens: int, budget: RequestBudget
    ) -> None:
        """Ask Redis until it grants, the deadline passes or close; holds this process's turn.

        On return the call holds a permit: Redis's (its holder registered with the keeper, in
        ``_holders``) or, when Redis failed and ``on_unavailable="local"``, the local fallback's
        (in ``_fallback_leases``).

        With a concurrency limit, the permits this process holds are counted here first, both
        kinds together, and while they reach the limit nothing is asked of anyone: a fallback
        admission must not add to the calls Redis admitted before it became unreachable (the
        fallback's own count starts at zero), and a call the fallback admitted still counts
        after Redis answers again, against this process's further Redis admissions. Redis does
        not learn of the fallback's calls: adding them there afterwards could only exceed the
        shared limit (other processes may have taken those permits meanwhile) or abort work that
        is already running, so across processes the shared limit can be exceeded by what the
        fallback admitted, for as long as those calls run (as after a Redis restart). Within
        this process the limit holds throughout.
        """
        keeper = self._keeper
        limit = self._concurrency
        holder = f"{self._prefix}:{call_id}"
        deadline = budget.deadline
        phase: DeadlinePhase = "rate"
        while True:
            if self._closed:
                raise _closed_while_waiting(call_id)
            if call_id in self._stopping:
                raise StreamClosed(call_id)
            if budget.expired(self._clock):
                raise RequestDeadlineExceeded(call_id, phase)
            released = self._released
            if limit is not None and len(self._holders) + len(self._fallback_leases) >= limit:
                # This process alone holds every permit: only a local release frees one.
                phase = "concurrency"
                with contextlib.suppress(DeadlineReached):
                    await run_before(released.wait, deadline, clock=self._clock, sleep=self._sleep)
                continue
            args: list[Any] = [*self._args_head, tokens, self._concurrency_arg(), holder]
            args.append(self._ttl_ms)
            dropping: tuple[str, ...] = ()
            unconfirmed: tuple[str, ...] = ()
            if keeper is not None:
                dropping = keeper.pending_releases()
                self._cut.intersection_update(dropping)  # the others the keeper returned
                unconfirmed = self._unconfirmed_holders()
                args.extend(dropping)
                args.extend(unconfirmed)
            try:
                reply = await self._stoppable_trip(args, budget, call_id, phase)
            except BaseException as exc:
                if keeper is not None:
                    if isinstance(exc, _Unavailable):
                        # The script may have run before the reply was lost, but Redis is
                        # failing: the keeper's retries would fail alike and be reported as
                        # permits Redis may never have granted (see _cut).
                        self._take_back(keeper, dropping, holder)
                    else:
                        keeper.release(holder)  # the script may have run
                        self._cut.add(holder)
                if self._closed and isinstance(exc, (_Unavailable, RequestDeadlineExceeded)):
                    # close() began while this round trip was in flight: the call was queued
                    # then, so it ends like every other queued call, not with how Redis failed.
                    raise _closed_while_waiting(call_id) from None
                if isinstance(exc, _Unavailable):
                    await self._unavailable(call, call_id, budget, exc)
                    return
                raise
            if dropping:
                keeper.dropped(dropping)  # type: ignore[union-attr]
                self._cut.difference_update(dropping)
            for dropped in unconfirmed:
                self._unconfirmed.pop(dropped, None)
            if self._degraded:
                self._degraded = False
                logger.warning("shared admission: %s is reachable again", self._backend.key)
            granted, wait_ms, reason = (int(x) for x in reply)
            if granted:
                if keeper is not None:
                    keeper.hold(holder)
                    self._holders[call_id] = holder
                return
            now = self._clock()
            wait = max(wait_ms, 1) / 1000
            if reason == 1:
                phase = "rate"
                until = now + wait
                if deadline is not None and until >= deadline:
                    raise RequestDeadlineExceeded(call_id, "rate")  # the window opens too late
            else:
                phase = "concurrency"
                until = now + min(wait, self._backend.poll_interval)
                if deadline is not None and until > deadline:
                    until = deadline
            # Woken by a local release or the time: the loop re-checks and asks again.
            with contextlib.suppress(DeadlineReached):
                await run_before(released.wait, until, clock=self._clock, sleep=self._sleep)

    def _concurrency_arg(self) -> int:
        return -1 if self._concurrency is None else self._concurrency

    def _take_back(self, keeper: PermitKeeper, pending: tuple[str, ...], holder: str) -> None:
        """A round trip failed: ``holder`` and the cut holders the keeper still has are ours."""
        now = time.monotonic()
        cut = tuple(h for h in pending if h in self._cut)
        if cut:
            keeper.dropped(cut)  # not returned by the keeper any more: by our next reservation
            self._cut.difference_update(cut)
        for unsure in (*cut, holder):
            self._unconfirmed.setdefault(unsure, now)

    def _unconfirmed_holders(self) -> tuple[str, ...]:
        """Holders of failed reservations still worth dropping (younger than one lease TTL)."""
        if not self._unconfirmed:
            return ()
        oldest = time.monotonic() - self._backend.lease_ttl
        for holder in [h for h, since in self._unconfirmed.items() if since <= oldest]:
            del self._unconfirmed[holder]  # had the script run, its permit has expired by now
        return tuple(self._unconfirmed)

    async def _stoppable_trip(
        self, args: list[Any], budget: RequestBudget, call_id: str, phase: DeadlinePhase
    ) -> list[Any]:
        """:meth:`_round_trip` in a cancel scope a stream's stop or close() cancels.

        A stop or a close waited for the round trip in flight, up to ``op_timeout`` (2 s by
        default, longer against a slow server). Cut, the reply is lost as when the deadline
        cuts it, and :meth:`_reserve` handles it the same way: the script may have run, so the
        holder goes to the keeper, which removes the permit if Redis granted it; if the script
        runs only after that removal (the request still on its way), nobody renews the permit
        and it expires after ``lease_ttl``. redis-py drops a connection whose command was
        cancelled, so the lost reply never reaches a later command.

        Raises:
            StreamClosed: the stop cut the round trip.
            AdmissionClosed: close() cut it (the call was queued when close began).
        """
        trip = self._trips[call_id] = anyio.CancelScope()
        try:
            with trip:
                return await self._round_trip(args, budget, call_id, phase)
        finally:
            del self._trips[call_id]
        # Only _stop_waiting and close() (_cut_trips) cancel this scope.
        if call_id in self._stopping:
            raise StreamClosed(call_id)
        raise _closed_while_waiting(call_id)

    async def _round_trip(
        self, args: list[Any], budget: RequestBudget, call_id: str, phase: DeadlinePhase
    ) -> list[Any]:
        """One EVALSHA, capped at ``min(op_timeout, remaining)``; failures become _Unavailable."""
        cap = budget.cap(self._backend.op_timeout, self._clock)
        assert cap is not None
        deadline_wins = budget.deadline is not None and cap < self._backend.op_timeout
        try:
            with anyio.fail_after(cap):
                reply = await self._script(keys=self._keys, args=args)
        except TimeoutError as exc:
            if deadline_wins:
                raise RequestDeadlineExceeded(call_id, phase) from None
            raise _Unavailable(f"no reply within {self._backend.op_timeout:g} s") from exc
        except redis.RedisError as exc:
            raise _Unavailable(f"{type(exc).__name__}: {redact(str(exc))}") from exc
        except OSError as exc:
            raise _Unavailable(f"{type(exc).__name__}: {redact(str(exc))}") from exc
        except RuntimeError as exc:
            # Not Redis's failure but asyncio's or the client's ("Event loop is closed", a
            # future of another loop): the pooled connections are unusable. The call is treated
            # like any failed round trip, and the next one starts from a fresh client.
            self._replace_client(self._client_loop)
            raise _Unavailable(f"{type(exc).__name__}: {redact(str(exc))}") from exc
        if not isinstance(reply, list) or len(reply) != 3:
            raise _Unavailable(f"unexpected script reply {reply!r}")
        return reply

    async def _unavailable(
        self, call: AdmissionCall, call_id: str, budget: RequestBudget, exc: _Unavailable
    ) -> None:
        where = f"shared limit {self._backend.key!r} at {self._backend.redacted_url}"
        if self._fallback is None:
            raise AdmissionBackendUnavailable(
                _BACKEND, f"{where} is unreachable ({exc}); call {call_id} was not admitted"
            ) from None
        if not self._degraded:
            self._degraded = True
            logger.warning(
                "shared admission: %s is unreachable (%s); admitting under local limits only",
                where,
                exc,
            )
        self._fallback_leases[call_id] = await self._fallback._acquire_as(call, call_id, budget)

    # -- the event loop ---------------------------------------------------------------------------

    def _own_loop(self) -> None:
        """Bind the client to the running loop, or replace it once its own loop has closed.

        Raises:
            EventLoopMismatchError: The client's loop is another one, still open.
        """
        loop = running_asyncio_loop()
        bound = self._client_loop
        if loop is bound or loop is None:
            return
        if bound is None:
            self._client_loop = loop
            return
        if not bound.is_closed():
            raise EventLoopMismatchError(
                f"SharedAdmission(key={self._backend.key!r})",
                loop_closed=False,
                resource="Redis connections",
            )
        # Sequential asyncio.run: this loop takes over. The wake-up event may have been
        # awaited (and so bound) on the old loop; nothing of that loop waits on it any more.
        self._released = anyio.Event()
        self._replace_client(loop)

    def _replace_client(self, loop: Any | None) -> None:
        """A fresh client for ``loop``; the old one's sockets are freed now, never awaited."""
        old = self._client
        self._client = _new_client(self._backend)  # its options were checked at construction
        self._script = self._client.register_script(ACQUIRE)
        self._client_loop = loop
        _free_sockets(old)

    async def _disconnect(self) -> None:
        """close()'s last step: disconnect on the client's loop, or free it from here."""
        bound = self._client_loop
        if bound is None or bound is running_asyncio_loop():
            await self._client.aclose()
        elif bound.is_running():  # close() is never refused: that loop frees them, in its thread
            try:
                bound.call_soon_threadsafe(_free_sockets, self._client)
            except RuntimeError:  # it has closed since
                _free_sockets(self._client)
        else:  # closed, or open but idle: nothing else touches them now
            _free_sockets(self._client)

    async def _drop_unconfirmed(self) -> None:
        """close(): one last try to drop the holders of failed reservations; silent, bounded."""
        holders = self._unconfirmed_holders()
        self._unconfirmed.clear()
        bound = self._client_loop
        if not holders or (bound is not None and bound is not running_asyncio_loop()):
            return  # nothing to drop, or no client usable here: they expire by TTL
        with anyio.move_on_after(self._backend.op_timeout):
            with contextlib.suppress(redis.RedisError, OSError, RuntimeError):
                await self._client.zrem(self._keys[1], *holders)

    # -- leaving ----------------------------------------------------------------------------------

    def _release(self, lease: AdmissionLease) -> None:
        call_id = lease.call_id
        if self._leases.get(call_id) is not lease:
            return
        del self._leases[call_id]
        self._give_back(call_id)
        self._forget(call_id)
        self._wake_local()

    def _give_back(self, call_id: str) -> None:
        """Return the permit a call holds, Redis's or the local fallback's."""
        holder = self._holders.pop(call_id, None)
        inner = self._fallback_leases.pop(call_id, None)
        if inner is not None:
            inner.release()
        elif holder is not None and self._keeper is not None:
            self._keeper.release(holder)

    def _wake_local(self) -> None:
        self._released.set()
        self._released = anyio.Event()

    def _forget(self, call_id: str) -> None:
        self._ids.discard(call_id)
        self._check_drained()

    def _check_drained(self) -> None:
        if self._drained is not None and not self._ids:
            self._drained.set()


def _closed_while_waiting(call_id: str) -> AdmissionClosed:
    return AdmissionClosed(f"admission closed while call {call_id} was waiting; it was aborted")
