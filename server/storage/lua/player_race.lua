-- Record one finished race in an account, once: KEYS[1] the account's
-- stats hash, KEYS[2] its zset of recorded races (the guard that makes a
-- second run change nothing), KEYS[3] its history list (newest first).
-- ARGV: race, when, races kept in the guard, history entry, history kept,
-- variant, won (0/1), time, then for each rating moved by the race five
-- values: key, mu and sigma it was computed from, mu and sigma it gave.
-- The change (after - before) is added to the stored rating, so two races
-- finishing together both count. Returns 0 if the race was recorded
-- before, else {key, mu, sigma, races} flattened for each rating moved.
if redis.call('ZADD', KEYS[2], 'NX', ARGV[2], ARGV[1]) == 0 then
  return 0
end
local excess = redis.call('ZCARD', KEYS[2]) - tonumber(ARGV[3])
if excess > 0 then
  redis.call('ZREMRANGEBYRANK', KEYS[2], 0, excess - 1)
end
redis.call('LPUSH', KEYS[3], ARGV[4])
redis.call('LTRIM', KEYS[3], 0, tonumber(ARGV[5]) - 1)
local variant = ARGV[6]
for _, scope in ipairs({variant, 'overall'}) do
  redis.call('HINCRBY', KEYS[1], 'played:' .. scope, 1)
end
if ARGV[7] == '1' then
  for _, scope in ipairs({variant, 'overall'}) do
    redis.call('HINCRBY', KEYS[1], 'won:' .. scope, 1)
  end
  local best = redis.call('HGET', KEYS[1], 'best:' .. variant)
  if not best or tonumber(ARGV[8]) < tonumber(best) then
    redis.call('HSET', KEYS[1], 'best:' .. variant, ARGV[8])
  end
end
local moved = {}
for i = 9, #ARGV, 5 do
  local key = ARGV[i]
  local mu = tonumber(redis.call('HGET', KEYS[1], 'mu:' .. key) or ARGV[i + 1])
  local sigma = tonumber(redis.call('HGET', KEYS[1], 'sigma:' .. key) or ARGV[i + 2])
  mu = mu + tonumber(ARGV[i + 3]) - tonumber(ARGV[i + 1])
  sigma = math.max(0.01, sigma + tonumber(ARGV[i + 4]) - tonumber(ARGV[i + 2]))
  redis.call('HSET', KEYS[1], 'mu:' .. key, tostring(mu), 'sigma:' .. key, tostring(sigma))
  local races = redis.call('HINCRBY', KEYS[1], 'n:' .. key, 1)
  moved[#moved + 1] = key
  moved[#moved + 1] = tostring(mu)
  moved[#moved + 1] = tostring(sigma)
  moved[#moved + 1] = races
end
return moved
