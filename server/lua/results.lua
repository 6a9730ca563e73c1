-- KEYS: meta, events
-- ARGV: results, channel, payload
-- Stores the results once and announces them; later callers change nothing.
if redis.call('HSETNX', KEYS[1], 'results', ARGV[1]) == 0 then return 0 end
return emit(KEYS[1], KEYS[2], ARGV[2], ARGV[3])
