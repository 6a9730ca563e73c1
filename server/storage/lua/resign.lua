-- KEYS: meta, boards, events
-- ARGV: player, now, channel, payload
-- A racer stops playing. Returns {status, event, unfinished racers}.
local meta, boards, p = KEYS[1], KEYS[2], ARGV[1]
local status = redis.call('HGET', meta, 'status')
if not status then return {'not_found', 0, 0} end
if status ~= 'started' then return {'race_over', 0, 0} end
local current = redis.call('HGET', boards, 'status:' .. p)
if not current then return {'not_a_racer', 0, 0} end
if current ~= 'playing' then return {'race_over', 0, 0} end
redis.call('HSET', boards, 'status:' .. p, 'resigned', 'at:' .. p, ARGV[2])
local left = redis.call('HINCRBY', meta, 'unfinished', -1)
return {'ok', emit(meta, KEYS[3], ARGV[3], ARGV[4]), left}
