-- KEYS: meta, players, events
-- ARGV: player, ready (1/0), channel, payload
-- Marks a player ready or not. Returns {status, event, all_ready}.
local status = redis.call('HGET', KEYS[1], 'status')
if not status then return {'not_found', 0, 0} end
if status ~= 'open' then return {'race_not_open', 0, 0} end
if redis.call('HEXISTS', KEYS[2], ARGV[1]) == 0 then return {'not_a_racer', 0, 0} end
if ARGV[2] == '1' then
  redis.call('HSET', KEYS[1], 'ready:' .. ARGV[1], 1)
else
  redis.call('HDEL', KEYS[1], 'ready:' .. ARGV[1])
end
local all = 1
for _, p in ipairs(redis.call('HKEYS', KEYS[2])) do
  if redis.call('HEXISTS', KEYS[1], 'ready:' .. p) == 0 then all = 0 end
end
return {'ok', emit(KEYS[3], ARGV[3], ARGV[4]), all}
