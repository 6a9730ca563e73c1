-- KEYS: meta, players, events
-- ARGV: race, player, channel, payload
-- Removes a player from an open race; the race closes when its last player leaves.
-- Returns {status, event, closed}: the store takes a closed race off the open list.
local status = redis.call('HGET', KEYS[1], 'status')
if not status then return {'not_found', 0, 0} end
if status ~= 'open' then return {'race_not_open', 0, 0} end
-- A tournament's race has seats, not a lobby: a seat given up could be taken.
if redis.call('HEXISTS', KEYS[1], 'tournament') == 1 then return {'race_not_open', 0, 0} end
if redis.call('HDEL', KEYS[2], ARGV[2]) == 0 then return {'not_a_racer', 0, 0} end
redis.call('HDEL', KEYS[1], 'ready:' .. ARGV[2], 'seat:' .. ARGV[2])
local closed = 0
if redis.call('HLEN', KEYS[2]) == 0 then
  redis.call('HSET', KEYS[1], 'status', 'finished')
  closed = 1
elseif redis.call('HGET', KEYS[1], 'host') == ARGV[2] then
  -- The host left: the longest-waiting remaining player is the new host.
  local first = redis.call('HKEYS', KEYS[2])[1]
  redis.call('HSET', KEYS[1], 'host', first)
end
return {'ok', emit(KEYS[3], ARGV[3], ARGV[4]), closed}
