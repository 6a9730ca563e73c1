-- The player's race is over for them: forget their match, if it is that
-- race. KEYS: matched, done_by, groups. ARGV: player, race. Returns 1 if forgotten.
if redis.call('HGET', KEYS[1], ARGV[1]) ~= ARGV[2] then return 0 end
if redis.call('HEXISTS', KEYS[3], ARGV[2]) == 1 then return 0 end  -- not started: undo it
redis.call('HDEL', KEYS[1], ARGV[1])
redis.call('ZREM', KEYS[2], ARGV[1])
return 1
