-- Queue a player, or move their place to another queue (docs/players.md,
-- *Quick races*). KEYS: places, seen, matched, the queue joined, the queue
-- the caller believes the player waits in now (any queue's key when none).
-- ARGV: player, queue, holder (the connection that holds the place), name,
-- rating, now, the queue the caller believes they wait in ('' for none).
-- A place is the player's, not a connection's: joining again takes it over
-- (and keeps its joining time when the queue is the same). Returns
-- {'matched', race} while the player has a match (the caller settles it
-- first), {'moved', queue} when the player waits elsewhere than believed
-- (the caller asks again with that queue's key), else {'queued', the
-- holder taken over or '', joining time}.
local player, queue = ARGV[1], ARGV[2]
local race = redis.call('HGET', KEYS[3], player)
if race then return {'matched', race} end
local place = redis.call('HGET', KEYS[1], player)
local old, was, joined = '', '', ARGV[6]
if place then
  local q, h, j = string.match(place, '^([^|]*)|([^|]*)|([^|]*)|')
  old, was = q, h
  if old == queue then joined = j end
end
if old ~= ARGV[7] then return {'moved', old} end
if old ~= '' then redis.call('ZREM', KEYS[5], player) end
redis.call('HSET', KEYS[1], player, queue .. '|' .. ARGV[3] .. '|' .. joined .. '|' .. ARGV[4])
redis.call('HSET', KEYS[2], player, ARGV[6])
redis.call('ZADD', KEYS[4], ARGV[5], player)
return {'queued', was, joined}
