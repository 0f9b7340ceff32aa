"""The Lua scripts of shared admission; each runs atomically on the Redis server.

Keys (one hash tag per shared limit, so a cluster keeps both on one slot):

- ``KEYS[1]`` rate hash: ``w`` (window index), ``r`` (requests used), ``t`` (tokens used),
  expiring two windows after its last write;
- ``KEYS[2]`` permit sorted set: holder id scored by its expiry (server milliseconds), expiring
  two TTLs after its last write.

Time is the server's (``TIME``), so every process agrees on the window boundaries and on when a
permit expires, whatever its own clock says. Windows are aligned to the server epoch:
window ``k`` spans ``[k·L, (k+1)·L)`` milliseconds.
"""

from __future__ import annotations

__all__ = ["ACQUIRE", "RENEW"]

ACQUIRE = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local wms = tonumber(ARGV[1])
local lr = tonumber(ARGV[2])
local lt = tonumber(ARGV[3])
local need = tonumber(ARGV[4])
local lc = tonumber(ARGV[5])
local holder = ARGV[6]
local ttl = tonumber(ARGV[7])
-- This process's released holders the keeper has not removed yet (idempotent ZREM), in
-- batches: unpack() of more values than Lua's C stack holds (about 8000) raises, and an outage
-- can leave that many unconfirmed holders to drop (the first call after it carries them all).
if lc >= 0 then
  for i = 8, #ARGV, 1000 do
    redis.call('ZREM', KEYS[2], unpack(ARGV, i, math.min(i + 999, #ARGV)))
  end
end
local rated = lr >= 0 or lt >= 0
local idx = math.floor(now / wms)
local r, tk = 0, 0
if rated then
  local cur = redis.call('HMGET', KEYS[1], 'w', 'r', 't')
  if tonumber(cur[1]) == idx then
    r = tonumber(cur[2]) or 0
    tk = tonumber(cur[3]) or 0
  end
  if (lr >= 0 and r + 1 > lr) or (lt >= 0 and tk + need > lt) then
    return {0, (idx + 1) * wms - now, 1}
  end
end
if lc >= 0 then
  redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
  if redis.call('ZCARD', KEYS[2]) >= lc then
    local first = redis.call('ZRANGE', KEYS[2], 0, 0, 'WITHSCORES')
    return {0, tonumber(first[2]) - now, 2}
  end
  redis.call('ZADD', KEYS[2], now + ttl, holder)
  redis.call('PEXPIRE', KEYS[2], ttl * 2)
end
if rated then
  redis.call('HSET', KEYS[1], 'w', idx, 'r', r + 1, 't', tk + need)
  redis.call('PEXPIRE', KEYS[1], wms * 2)
end
return {1, 0, 0}
"""
"""Reserve one request, ``need`` tokens and (when limited) a permit: all of them or none.

ARGV: window ms, request limit, token limit, tokens needed, concurrency limit (``-1`` is
unlimited), holder id, permit TTL ms, then holders to drop first. Returns ``{granted, wait_ms,
reason}``: reason 1 is the rate window (``wait_ms`` until the next one opens), 2 the concurrency
limit (``wait_ms`` until the oldest permit expires).
"""

RENEW = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local ttl = tonumber(ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
local kept = 0
for i = 2, #ARGV do
  if redis.call('ZSCORE', KEYS[1], ARGV[i]) then
    redis.call('ZADD', KEYS[1], 'XX', now + ttl, ARGV[i])
    kept = kept + 1
  end
end
if kept > 0 then
  redis.call('PEXPIRE', KEYS[1], ttl * 2)
end
return kept
"""
"""Push held permits' expiry to ``now + ttl``; an expired one is pruned first, never revived.

ARGV: TTL ms, then holder ids. Returns how many were still held (and renewed).
"""
