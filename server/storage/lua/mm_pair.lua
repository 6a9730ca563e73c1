-- Pair the players of one quick-race queue, atomically (docs/players.md).
-- KEYS: the queue (zset: player -> rating), joined (hash: player -> "time|name"),
-- seen (hash: player -> when their node last vouched for them), matched
-- (hash: player -> "race|time").
-- ARGV: now, race size, base gap, gap added per second waited, seconds
-- after which an unvouched player is dropped, a fresh prefix (races are
-- named prefix .. 1, prefix .. 2, ...), and the seconds after which a match
-- nobody passed on is dropped (its player's node died: nobody will).
-- Walks the queue by rating; a run of `size` neighbours whose spread is
-- within the gap its longest waiter has earned becomes a race: they leave
-- the queue and are marked matched. Returns {race, player, name, ...} per race.
local now, size = tonumber(ARGV[1]), tonumber(ARGV[2])
local base, widen, stale = tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5])
local function forget(player)
  redis.call('ZREM', KEYS[1], player)
  redis.call('HDEL', KEYS[2], player)
  redis.call('HDEL', KEYS[3], player)
end
local tickets = redis.call('HGETALL', KEYS[4])
for i = 1, #tickets, 2 do
  local bar = string.find(tickets[i + 1], '|', 1, true)
  if now - tonumber(string.sub(tickets[i + 1], bar + 1)) > tonumber(ARGV[7]) then
    redis.call('HDEL', KEYS[4], tickets[i])
  end
end
local all = redis.call('ZRANGE', KEYS[1], 0, -1, 'WITHSCORES')
local players, ratings, joined, names = {}, {}, {}, {}
for i = 1, #all, 2 do
  local player = all[i]
  local seen = tonumber(redis.call('HGET', KEYS[3], player) or '0')
  local entry = redis.call('HGET', KEYS[2], player)
  if entry == false or now - seen > stale then
    forget(player)
  else
    local bar = string.find(entry, '|', 1, true)
    players[#players + 1] = player
    ratings[#ratings + 1] = tonumber(all[i + 1])
    joined[#joined + 1] = tonumber(string.sub(entry, 1, bar - 1))
    names[#names + 1] = string.sub(entry, bar + 1)
  end
end
local races, made, i = {}, 0, 1
while i + size - 1 <= #players do
  local last = i + size - 1
  local oldest = now
  for k = i, last do
    if joined[k] < oldest then oldest = joined[k] end
  end
  if ratings[last] - ratings[i] <= base + widen * (now - oldest) then
    made = made + 1
    local race = ARGV[6] .. made
    local group = {race}
    for k = i, last do
      forget(players[k])
      redis.call('HSET', KEYS[4], players[k], race .. '|' .. ARGV[1])
      group[#group + 1] = players[k]
      group[#group + 1] = names[k]
    end
    races[#races + 1] = group
    i = last + 1
  else
    i = i + 1
  end
end
return races
