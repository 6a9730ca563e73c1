-- Count one more attempt in a fixed window: KEYS[1] the counter,
-- ARGV[1] the window in milliseconds. Returns {count, milliseconds left}.
local count = redis.call('INCR', KEYS[1])
if count == 1 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
end
return {count, redis.call('PTTL', KEYS[1])}
