-- KEYS: meta, events
-- ARGV: results, channel, payload, hold
-- Stores the results once and announces them; later callers change nothing.
-- With hold = 1 the announcement waits in the meta hash (field 'held') until
-- announce.lua sends it: a tournament table's results wait for the other
-- tables racing the same deal. Returns the event number, or 0.
if redis.call('HSETNX', KEYS[1], 'results', ARGV[1]) == 0 then return 0 end
if ARGV[4] == '1' then
  redis.call('HSET', KEYS[1], 'held', ARGV[3])
  return 0
end
return emit(KEYS[2], ARGV[2], ARGV[3])
