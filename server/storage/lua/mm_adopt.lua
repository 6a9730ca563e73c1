-- A player came back on another connection (hello, login, or quick_race for
-- the same queue): that connection holds their seat in their match that did
-- not start, or else their place, now. KEYS: matched, groups, places, seen.
-- ARGV: player, holder, now. Returns {} (neither), {'started', race} (their
-- race starts or started: the caller tells them of it if it is still on),
-- {'pending', race, queue, made (0/1), rating}, or {'place', queue}.
local race = redis.call('HGET', KEYS[1], ARGV[1])
if not race then
  local place = redis.call('HGET', KEYS[3], ARGV[1])
  if not place then return {} end
  local q, _, rest = string.match(place, '^([^|]*)|([^|]*)|(.*)$')
  redis.call('HSET', KEYS[3], ARGV[1], q .. '|' .. ARGV[2] .. '|' .. rest)
  redis.call('HSET', KEYS[4], ARGV[1], ARGV[3])
  return {'place', q}
end
local raw = redis.call('HGET', KEYS[2], race)
if not raw then return {'started', race} end
local group = cjson.decode(raw)
if group.started == 1 then return {'started', race} end
local racer = group.racers[ARGV[1]]
racer.h, racer.v = ARGV[2], tonumber(ARGV[3])
redis.call('HSET', KEYS[2], race, cjson.encode(group))
return {'pending', race, group.queue, group.made, racer.r}
