-- KEYS: meta, events
-- ARGV: analysis, channel, payload, held payload
-- Stores a finished race's post-race analysis once, beside its results, and
-- announces it; results still held back (held) are sent later with it instead:
-- their held event is replaced by ARGV[4], the results with the analysis.
-- Nothing once the race's keys expired. Returns the event number, or 0.
if redis.call('HEXISTS', KEYS[1], 'results') == 0 then return 0 end
if redis.call('HSETNX', KEYS[1], 'analysis', ARGV[1]) == 0 then return 0 end
if redis.call('HEXISTS', KEYS[1], 'held') == 1 then
  redis.call('HSET', KEYS[1], 'held', ARGV[4])
  return 0
end
return emit(KEYS[2], ARGV[2], ARGV[3])
