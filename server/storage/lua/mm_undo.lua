-- Undo a match that did not start. KEYS: places, seen, matched, groups,
-- pending, the group's queue. ARGV: race, the queue believed, now, the
-- racer who quits ('' when its time ran out), seconds within which a race
-- must be started, and the connection the quitter quits from ('' for any:
-- only the one holding their seat may give it up by closing).
-- A racer who quits (left the queue, closed, queued elsewhere) is dropped;
-- when the time ran out, a racer never told whose node has not vouched for
-- them since the pairing is dropped too (a ghost: their node died). Every
-- other racer is back in the queue, with their joining time, rating and
-- connection. Returns {'gone'}, {'not_holder'}, {'queue', the group's queue} (ask again
-- with its key), {'started'} (too late: it starts), {'start'} (time ran
-- out with every racer told: the caller starts it), or {'undone', made,
-- requeued players, dropped players}. A made race is named again, as
-- 'close:' .. race, in pending: mm_due hands it to a sweep to close once more.
local race, quitter, now = ARGV[1], ARGV[4], tonumber(ARGV[3])
local raw = redis.call('HGET', KEYS[4], race)
if not raw then return {'gone'} end
local group = cjson.decode(raw)
if group.queue ~= ARGV[2] then return {'queue', group.queue} end
if quitter ~= '' and ARGV[6] ~= '' then
  local seat = group.racers[quitter]
  if not seat or seat.h ~= ARGV[6] then return {'not_holder'} end
end
local all = true
for _, player in ipairs(group.order) do
  if group.racers[player].told ~= 1 then all = false end
end
if group.started == 1 or (quitter == '' and all) then
  if quitter ~= '' then return {'started'} end
  group.started = 1
  redis.call('HSET', KEYS[4], race, cjson.encode(group))
  redis.call('ZADD', KEYS[5], now + tonumber(ARGV[5]), race)
  return {'start'}
end
local back, dropped = {}, {}
for _, player in ipairs(group.order) do
  local racer = group.racers[player]
  if redis.call('HGET', KEYS[3], player) == race then redis.call('HDEL', KEYS[3], player) end
  local ghost = quitter == '' and racer.told ~= 1 and racer.v < group.at
  if player == quitter or ghost or redis.call('HEXISTS', KEYS[1], player) == 1 then
    dropped[#dropped + 1] = player
  else
    local place = group.queue .. '|' .. racer.h .. '|' .. string.format('%.6f', racer.j)
    redis.call('HSET', KEYS[1], player, place .. '|' .. racer.n)
    redis.call('HSET', KEYS[2], player, string.format('%.6f', racer.v))
    redis.call('ZADD', KEYS[6], racer.r, player)
    back[#back + 1] = player
  end
end
redis.call('HDEL', KEYS[4], race)
redis.call('ZREM', KEYS[5], race)
if group.made == 1 then
  -- Its maker may store the race a moment after this closes it, and die before it
  -- sees the match gone: a sweep closes it again in 10 s (closing twice does nothing).
  redis.call('ZADD', KEYS[5], now + 10, 'close:' .. race)
end
return {'undone', group.made, back, dropped}
