-- Take a player out of a quick-race queue, unless the pairing has matched
-- them already (then their race stands). KEYS: queue, joined, seen, matched.
-- ARGV: player. Returns 1 if they left, 0 if they are matched.
if redis.call('HEXISTS', KEYS[4], ARGV[1]) == 1 then
  return 0
end
redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('HDEL', KEYS[2], ARGV[1])
redis.call('HDEL', KEYS[3], ARGV[1])
return 1
