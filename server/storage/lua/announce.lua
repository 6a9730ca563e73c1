-- KEYS: meta, events
-- ARGV: channel
-- Sends the results results.lua held back, once. Returns the event number, or 0.
local payload = redis.call('HGET', KEYS[1], 'held')
if not payload then return 0 end
redis.call('HDEL', KEYS[1], 'held')
return emit(KEYS[2], ARGV[1], payload)
