-- KEYS: meta, players, events
-- ARGV: player, since, here ('1': connected again, '0': gone), channel, payload
-- A racer's connection comes or goes. The meta field "away:P" holds since when
-- P has been away; only a change is announced. Returns {changed, event, grace}.
local meta, p = KEYS[1], ARGV[1]
local status = redis.call('HGET', meta, 'status')
if not status or status == 'finished' then return {0, 0, 0} end
if redis.call('HEXISTS', KEYS[2], p) == 0 then return {0, 0, 0} end
local grace = tonumber(redis.call('HGET', meta, 'grace') or '60')
local away = redis.call('HGET', meta, 'away:' .. p)
if ARGV[3] == '1' then
  if not away then return {0, 0, grace} end
  redis.call('HDEL', meta, 'away:' .. p)
else
  if away then return {0, 0, grace} end
  redis.call('HSET', meta, 'away:' .. p, ARGV[2])
end
return {1, emit(KEYS[3], ARGV[4], ARGV[5]), grace}
