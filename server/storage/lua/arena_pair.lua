-- Group an arena's waiting entrants into races, atomically (docs/tournaments.md, Arena).
-- KEYS: waiting (zset: player -> score, points then rating), racing (hash:
-- player -> race number), pairs (hash: race number -> racers), the
-- tournament's meta hash (its field arena_n numbers the races), since
-- (hash: player -> since when they wait).
-- ARGV: the race size.
-- Takes the waiting entrants best score first and cuts them into as few
-- groups of at most `size` as can be, as even as can be, each of two at
-- least (with races of two, an odd one out keeps waiting: the one who came
-- last, so that nobody waits for ever whatever their score). Each group gets
-- the next race number; its racers leave the waiting set and are marked as
-- racing in it, in this one step, so no entrant is ever in two races.
-- Returns {n, player, ...} per group.
local size = tonumber(ARGV[1])
local all = redis.call('ZREVRANGE', KEYS[1], 0, -1)
local waiting = {}
for _, player in ipairs(all) do
  if redis.call('HEXISTS', KEYS[2], player) == 1 then
    redis.call('ZREM', KEYS[1], player)  -- racing already (cannot happen: scripts keep both)
  else
    waiting[#waiting + 1] = player
  end
end
local usable = #waiting
if size == 2 and usable % 2 == 1 then
  local last, latest = 1, -1
  for k, player in ipairs(waiting) do
    local since = tonumber(redis.call('HGET', KEYS[5], player) or '0')
    if since >= latest then last, latest = k, since end
  end
  table.remove(waiting, last)
  usable = usable - 1
end
if usable < 2 then return {} end
local count = math.ceil(usable / size)
local base, extra = math.floor(usable / count), usable % count
local groups, at = {}, 1
for g = 1, count do
  local take = base
  if g <= extra then take = take + 1 end
  local n = redis.call('HINCRBY', KEYS[4], 'arena_n', 1)
  local reply, racers = {n}, {}
  for k = at, at + take - 1 do
    local player = waiting[k]
    redis.call('ZREM', KEYS[1], player)
    redis.call('HDEL', KEYS[5], player)
    redis.call('HSET', KEYS[2], player, n)
    reply[#reply + 1] = player
    racers[#racers + 1] = player
  end
  redis.call('HSET', KEYS[3], n, table.concat(racers, ','))
  groups[#groups + 1] = reply
  at = at + take
end
return groups
