-- The matches whose time ran out, and the housekeeping of finished ones.
-- KEYS: pending, groups, matched, done_by. ARGV: now, at most how many.
-- Forgets the matches of races over by now; returns {race, queue} of each
-- group past its time (the caller undoes or starts it), and {race, ''} of
-- each undone race to close once more.
local now, limit = ARGV[1], tonumber(ARGV[2])
local over = redis.call('ZRANGEBYSCORE', KEYS[4], '-inf', now, 'LIMIT', 0, limit)
for _, player in ipairs(over) do
  local race = redis.call('HGET', KEYS[3], player)
  if race and redis.call('HEXISTS', KEYS[2], race) == 0 then
    redis.call('HDEL', KEYS[3], player)
  end
  redis.call('ZREM', KEYS[4], player)
end
local out = {}
for _, race in ipairs(redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'LIMIT', 0, limit)) do
  local raw = redis.call('HGET', KEYS[2], race)
  if string.sub(race, 1, 6) == 'close:' then
    out[#out + 1] = {string.sub(race, 7), ''}  -- an undone race to close again
    redis.call('ZREM', KEYS[1], race)
  elseif raw then
    out[#out + 1] = {race, cjson.decode(raw).queue}
  else
    redis.call('ZREM', KEYS[1], race)
  end
end
return out
