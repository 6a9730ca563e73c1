-- Pair the players of one quick-race queue, atomically (docs/players.md).
-- KEYS: places, seen, matched, groups, pending, done_by, the queue (zset:
-- player -> rating). ARGV: now, race size, base gap, gap added per second
-- waited, seconds after which an unvouched place is dropped, a fresh prefix
-- (races are named prefix .. 1, prefix .. 2, ...), the queue's name, and
-- the seconds a match waits for every racer to be told before it is undone.
-- Walks the queue by rating; a run of `size` neighbours whose spread is
-- within the gap its longest waiter has earned becomes a group: they leave
-- the queue, each is marked matched to it, and the group is kept until its
-- race starts (every racer told) or it is undone. Returns {race, player,
-- name, ...} per group.
local now, size = tonumber(ARGV[1]), tonumber(ARGV[2])
local base, widen, stale = tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5])
local queue = ARGV[7]
local function forget(player)
  redis.call('ZREM', KEYS[7], player)
  redis.call('HDEL', KEYS[1], player)
  redis.call('HDEL', KEYS[2], player)
end
local all = redis.call('ZRANGE', KEYS[7], 0, -1, 'WITHSCORES')
local waiting = {}
for i = 1, #all, 2 do
  local player = all[i]
  local place = redis.call('HGET', KEYS[1], player)
  local q, h, j, n
  if place then q, h, j, n = string.match(place, '^([^|]*)|([^|]*)|([^|]*)|(.*)$') end
  if q ~= queue then
    redis.call('ZREM', KEYS[7], player)  -- no place here (cannot happen: scripts keep both)
  else
    local seen = tonumber(redis.call('HGET', KEYS[2], player) or '0')
    if now - seen > stale then
      forget(player)  -- nobody vouched for them: their node died
    else
      waiting[#waiting + 1] = {
        p = player, r = tonumber(all[i + 1]), j = tonumber(j), n = n, h = h, v = seen,
      }
    end
  end
end
local races, made, i = {}, 0, 1
while i + size - 1 <= #waiting do
  local last = i + size - 1
  local oldest = now
  for k = i, last do
    if waiting[k].j < oldest then oldest = waiting[k].j end
  end
  if waiting[last].r - waiting[i].r <= base + widen * (now - oldest) then
    made = made + 1
    local race = ARGV[6] .. made
    local reply = {race}
    local group = {queue = queue, at = now, made = 0, started = 0, order = {}, racers = {}}
    for k = i, last do
      local w = waiting[k]
      forget(w.p)
      redis.call('HSET', KEYS[3], w.p, race)
      redis.call('ZREM', KEYS[6], w.p)
      group.order[#group.order + 1] = w.p
      group.racers[w.p] = {h = w.h, told = 0, v = w.v, j = w.j, n = w.n, r = w.r}
      reply[#reply + 1] = w.p
      reply[#reply + 1] = w.n
    end
    redis.call('HSET', KEYS[4], race, cjson.encode(group))
    redis.call('ZADD', KEYS[5], now + tonumber(ARGV[8]), race)
    races[#races + 1] = reply
    i = last + 1
  else
    i = i + 1
  end
end
return races
