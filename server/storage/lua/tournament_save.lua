-- KEYS: meta, events
-- ARGV: document, channel, payload
-- Stores a tournament's document and announces it as the tournament's next event.
redis.call('HSET', KEYS[1], 'doc', ARGV[1])
return emit(KEYS[2], ARGV[2], ARGV[3])
