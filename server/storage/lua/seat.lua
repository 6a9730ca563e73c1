-- KEYS: meta, players
-- ARGV: field count n, then n field/value pairs of the meta, then player/name pairs
-- Creates a race with its racers already seated, unless it exists: a
-- tournament's races have ids fixed by the tournament, so two nodes making
-- the same race make it once. Returns 1 if this call made it.
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
local n = tonumber(ARGV[1])
for i = 2, 1 + 2 * n, 2 do redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1]) end
for i = 2 + 2 * n, #ARGV, 2 do redis.call('HSET', KEYS[2], ARGV[i], ARGV[i + 1]) end
return 1
