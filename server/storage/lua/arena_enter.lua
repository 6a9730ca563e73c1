-- An arena's entrant waits for a race, or steps out (docs/tournaments.md, Arena).
-- KEYS: waiting (zset), racing (hash), paused (set), since (hash).
-- ARGV: player, pairing score, '1' to step out or '0' to wait, now.
-- Stepping out takes the player out of the waiting set (a race under way goes
-- on). Waiting puts them in it unless they race: a player is in the waiting
-- set or in one race, never both; one already waiting keeps their time.
-- Returns 'paused', 'racing' or 'waiting'.
local player = ARGV[1]
if ARGV[3] == '1' then
  redis.call('SADD', KEYS[3], player)
  redis.call('ZREM', KEYS[1], player)
  redis.call('HDEL', KEYS[4], player)
  return 'paused'
end
redis.call('SREM', KEYS[3], player)
if redis.call('HEXISTS', KEYS[2], player) == 1 then
  return 'racing'
end
redis.call('ZADD', KEYS[1], ARGV[2], player)
redis.call('HSETNX', KEYS[4], player, ARGV[4])
return 'waiting'
