-- Put a matched player back in their queue: their race was never made (the
-- node pairing them died first). KEYS: queue, joined, seen, matched.
-- ARGV: player, race, rating, joined time, name, now. Does nothing unless the
-- player is still matched to that race. Returns 1 if requeued.
local ticket = redis.call('HGET', KEYS[4], ARGV[1])
if ticket == false or string.sub(ticket, 1, #ARGV[2] + 1) ~= ARGV[2] .. '|' then
  return 0
end
redis.call('HDEL', KEYS[4], ARGV[1])
redis.call('ZADD', KEYS[1], ARGV[3], ARGV[1])
redis.call('HSET', KEYS[2], ARGV[1], ARGV[4] .. '|' .. ARGV[5])
redis.call('HSET', KEYS[3], ARGV[1], ARGV[6])
return 1
