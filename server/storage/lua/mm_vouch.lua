-- A node says which of its connections still wait, and hears how each
-- stands. KEYS: places, seen, matched, groups. ARGV: now, then per waiter
-- the player and the holder (the connection's token). Returns per waiter
-- {player, state, what}: 'q' and the queue (waits, vouched for), 'w' and
-- the race (matched, the race not made yet), 'm' (made: tell them), 't'
-- (told, the others not all yet), 'r' (the race starts or started), or 'x'
-- (this connection holds neither a place nor a match any more).
local now = ARGV[1]
local out = {}
for i = 2, #ARGV, 2 do
  local player, holder = ARGV[i], ARGV[i + 1]
  local state, what = 'x', ''
  local race = redis.call('HGET', KEYS[3], player)
  if race then
    what = race
    local raw = redis.call('HGET', KEYS[4], race)
    if not raw then
      state = 'r'
    else
      local group = cjson.decode(raw)
      local racer = group.racers[player]
      if racer and racer.h == holder then
        racer.v = tonumber(now)
        redis.call('HSET', KEYS[4], race, cjson.encode(group))
        if group.started == 1 then state = 'r'
        elseif racer.told == 1 then state = 't'
        elseif group.made == 1 then state = 'm'
        else state = 'w' end
      end
    end
  else
    local place = redis.call('HGET', KEYS[1], player)
    if place then
      local q, h = string.match(place, '^([^|]*)|([^|]*)|')
      if h == holder then
        redis.call('HSET', KEYS[2], player, now)
        state, what = 'q', q
      end
    end
  end
  out[#out + 1] = {player, state, what}
end
return out
