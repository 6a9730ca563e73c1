-- A racer's connection was sent `matched`. KEYS: groups, pending. ARGV:
-- race, player, holder, now, seconds within which the race must be started.
-- Returns 'gone' (undone, or another connection holds the racer's seat),
-- 'wait' (others are not told yet), 'start' (every racer is told now: the
-- caller starts the race) or 'started' (told already; it starts or started).
local raw = redis.call('HGET', KEYS[1], ARGV[1])
if not raw then return 'gone' end
local group = cjson.decode(raw)
local racer = group.racers[ARGV[2]]
if not racer or racer.h ~= ARGV[3] then return 'gone' end
racer.told, racer.v = 1, tonumber(ARGV[4])
local status = 'wait'
if group.started == 1 then
  status = 'started'
else
  local all = true
  for _, player in ipairs(group.order) do
    if group.racers[player].told ~= 1 then all = false end
  end
  if all then
    group.started = 1
    redis.call('ZADD', KEYS[2], tonumber(ARGV[4]) + tonumber(ARGV[5]), ARGV[1])
    status = 'start'
  end
end
redis.call('HSET', KEYS[1], ARGV[1], cjson.encode(group))
return status
