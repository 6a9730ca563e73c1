-- KEYS: meta, boards, events
-- ARGV: player, now, channel, payload, how ('resigned', or 'left': away past the grace)
-- A racer stops playing. Returns {status, event, unfinished racers}.
-- 'left' is for a racer still away ("away:P" in meta) for the race's grace
-- period by ``now``; one who came back meanwhile is not touched ('back').
local meta, boards, p = KEYS[1], KEYS[2], ARGV[1]
local status = redis.call('HGET', meta, 'status')
if not status then return {'not_found', 0, 0} end
if ARGV[5] == 'left' then
  if status == 'open' then return {'race_not_open', 0, 0} end
  local away = redis.call('HGET', meta, 'away:' .. p)
  local grace = tonumber(redis.call('HGET', meta, 'grace') or '60')
  if not away or tonumber(away) + grace > tonumber(ARGV[2]) then return {'back', 0, 0} end
end
if status ~= 'started' then return {'race_over', 0, 0} end
local current = redis.call('HGET', boards, BOARD_STATUS .. p)
if not current then return {'not_a_racer', 0, 0} end
if current ~= 'playing' then return {'race_over', 0, 0} end
redis.call('HSET', boards, BOARD_STATUS .. p, ARGV[5], BOARD_AT .. p, ARGV[2])
local left = redis.call('HINCRBY', meta, 'unfinished', -1)
return {'ok', emit(KEYS[3], ARGV[3], ARGV[4]), left}
