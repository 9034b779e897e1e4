/**
 * The GCRA of gateway/ratelimit/gcra.ts as one Lua script, so checking every bucket and deducting is one atomic step
 * on Redis with Redis's own clock (TIME): instances with skewed clocks still share one timeline.
 *
 * KEYS: one per bucket. ARGV: nBuckets, then per bucket (intervalMs, tauMs), then the calls' costs in order.
 * Returns { admitted, deniedBucket (1-based, 0 = none), retryAfterMs, then per bucket remaining, resetMs } as
 * strings (Redis truncates Lua numbers to integers on the way out).
 */
export const GCRA_LUA = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + tonumber(t[2]) / 1000
local n = tonumber(ARGV[1])
local interval, tau, tat = {}, {}, {}
for s = 1, n do
  interval[s] = tonumber(ARGV[2 * s])
  tau[s] = tonumber(ARGV[2 * s + 1])
  local stored = tonumber(redis.call('GET', KEYS[s]) or '0')
  if stored < now then stored = now end
  tat[s] = stored
end
local admitted, denied, retry = 0, 0, 0
for i = 2 * n + 2, #ARGV do
  local cost = tonumber(ARGV[i])
  for s = 1, n do
    local over = tat[s] + cost * interval[s] - now - tau[s]
    if over > 0 and over > retry then denied = s; retry = over end
  end
  if denied > 0 then break end
  for s = 1, n do tat[s] = tat[s] + cost * interval[s] end
  admitted = admitted + 1
end
local out = { tostring(admitted), tostring(denied), tostring(math.ceil(retry)) }
for s = 1, n do
  if admitted > 0 then
    redis.call('SET', KEYS[s], string.format('%.3f', tat[s]), 'PX', math.ceil(tat[s] - now) + 1000)
  end
  out[#out + 1] = tostring(math.floor((tau[s] - (tat[s] - now)) / interval[s]))
  out[#out + 1] = tostring(math.ceil(tat[s] - now))
end
return out
`;

/**
 * GCRA's unconditional debit (gateway/ratelimit/gcra.ts gcraDebit) on one bucket, on Redis's clock.
 * KEYS: the bucket. ARGV: intervalMs, tokens.
 */
export const GCRA_DEBIT_LUA = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + tonumber(t[2]) / 1000
local stored = tonumber(redis.call('GET', KEYS[1]) or '0')
if stored < now then stored = now end
local tat = stored + tonumber(ARGV[2]) * tonumber(ARGV[1])
redis.call('SET', KEYS[1], string.format('%.3f', tat), 'PX', math.ceil(tat - now) + 1000)
return 1
`;

/**
 * A lease (gateway/ratelimit/gcra.ts gcraLease) on one bucket, on Redis's clock: up to `want` unit tokens in one
 * step. KEYS: the bucket. ARGV: intervalMs, tauMs, want. Returns { granted, retryAfterMs, remaining, resetMs }; resetMs
 * to the microsecond, rounded down (the lease must end early, never late).
 */
export const GCRA_LEASE_LUA = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + tonumber(t[2]) / 1000
local interval, tau, want = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local tat = tonumber(redis.call('GET', KEYS[1]) or '0')
if tat < now then tat = now end
local k = math.floor((now + tau - tat) / interval)
if tat + (k + 1) * interval - now - tau <= 0 then k = k + 1
elseif k > 0 and tat + k * interval - now - tau > 0 then k = k - 1 end
local granted = math.max(0, math.min(want, k))
if granted > 0 then
  tat = tat + granted * interval
  -- Stored to the microsecond, rounded up: the lease's tokens stay charged however the TAT is rounded.
  local stored = math.ceil(tat * 1000) / 1000
  redis.call('SET', KEYS[1], string.format('%.3f', stored), 'PX', math.ceil(stored - now) + 1000)
end
local retry = 0
if granted < want then retry = math.max(1, math.ceil(tat + interval - now - tau)) end
return { tostring(granted), tostring(retry), tostring(math.floor((tau - (tat - now)) / interval)),
  string.format('%.3f', math.floor((tat - now) * 1000) / 1000) }
`;
