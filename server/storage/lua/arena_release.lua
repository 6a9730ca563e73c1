-- An arena's race was scored: its racers wait again (docs/tournaments.md, Arena).
-- KEYS: waiting (zset), racing (hash), paused (set), pairs (hash), since (hash).
-- ARGV: the race number, now, then player, pairing score for each racer.
-- A racer still marked as racing in this race leaves it and waits with the
-- score given, unless they stepped out. Safe to repeat. Returns how many waited again.
local n = ARGV[1]
local released = 0
for i = 3, #ARGV, 2 do
  local player = ARGV[i]
  if redis.call('HGET', KEYS[2], player) == n then
    redis.call('HDEL', KEYS[2], player)
    if redis.call('SISMEMBER', KEYS[3], player) == 0 then
      redis.call('ZADD', KEYS[1], ARGV[i + 1], player)
      redis.call('HSETNX', KEYS[5], player, ARGV[2])
      released = released + 1
    end
  end
end
redis.call('HDEL', KEYS[4], n)
return released
