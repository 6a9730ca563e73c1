-- KEYS: meta, players, events
-- ARGV: race, player, name, channel, payload
-- Adds a player to an open race that has room. Returns {status, event}.
local status = redis.call('HGET', KEYS[1], 'status')
if not status then return {'not_found', 0} end
if status ~= 'open' then return {'race_not_open', 0} end
if redis.call('HEXISTS', KEYS[2], ARGV[2]) == 1 then return {'ok', 0} end
local max = tonumber(redis.call('HGET', KEYS[1], 'max_players'))
if redis.call('HLEN', KEYS[2]) >= max then return {'race_full', 0} end
redis.call('HSET', KEYS[2], ARGV[2], ARGV[3])
return {'ok', emit(KEYS[3], ARGV[4], ARGV[5])}
