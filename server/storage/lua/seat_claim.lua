-- KEYS: meta, players, events
-- ARGV: player, channel, payload
-- A connection of a racer takes their seat (one seat, one live connection):
-- the claim is an event of the race, so that the connection that held the
-- seat, on whichever node, hears of it in order. Returns the event number, or
-- 0 when there is nothing to claim (no such race, over, or not a racer).
local status = redis.call('HGET', KEYS[1], 'status')
if not status or status == 'finished' then return 0 end
if redis.call('HEXISTS', KEYS[2], ARGV[1]) == 0 then return 0 end
return emit(KEYS[3], ARGV[2], ARGV[3])
