-- A group's race started: the group goes; each racer's match stays until
-- the race is over. KEYS: groups, pending, matched, done_by. ARGV: race,
-- when the racers' matches may be forgotten (the race is over by then).
local raw = redis.call('HGET', KEYS[1], ARGV[1])
if raw then
  local group = cjson.decode(raw)
  for _, player in ipairs(group.order) do
    if redis.call('HGET', KEYS[3], player) == ARGV[1] then
      redis.call('ZADD', KEYS[4], ARGV[2], player)
    end
  end
  redis.call('HDEL', KEYS[1], ARGV[1])
end
redis.call('ZREM', KEYS[2], ARGV[1])
return 1
