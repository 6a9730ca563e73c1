-- Give a player's place up. KEYS: places, seen, matched, the queue the
-- caller believes they wait in. ARGV: player, that queue ('' if unknown),
-- holder ('' for any: the player asked; else only if that connection holds
-- the place: it closed). Returns {'matched', race} while the player has a
-- match (the caller settles it), {'none'} if they wait nowhere (or another
-- connection holds the place), {'moved', queue} when the queue is not the
-- one believed, else {'left', queue}.
local player = ARGV[1]
local race = redis.call('HGET', KEYS[3], player)
if race then return {'matched', race} end
local place = redis.call('HGET', KEYS[1], player)
if not place then return {'none'} end
local q, h = string.match(place, '^([^|]*)|([^|]*)|')
if ARGV[3] ~= '' and h ~= ARGV[3] then return {'none'} end
if q ~= ARGV[2] then return {'moved', q} end
redis.call('HDEL', KEYS[1], player)
redis.call('HDEL', KEYS[2], player)
redis.call('ZREM', KEYS[4], player)
return {'left', q}
