-- KEYS: meta, players, events
-- ARGV: player, holder, channel, payload
-- A connection of a racer takes their seat (one seat, one live connection).
-- The meta field "seat:P" names the connection that holds P's seat. Taking a
-- seat that nobody holds, or that this connection holds already, is no event:
-- nobody is to be told. Taking it from another connection is an event, so
-- that the one that held it, on whichever node, hears of it in order (a
-- holder whose node died is replaced the same way: the event is then unread).
-- Returns {event, latest}: the claim's event number (0: no event) and the
-- number of the race's latest event once the seat is this connection's;
-- {0, 0} when there is nothing to claim (no such race, over, or not a racer).
local meta, p = KEYS[1], ARGV[1]
local status = redis.call('HGET', meta, 'status')
if not status or status == 'finished' then return {0, 0} end
if redis.call('HEXISTS', KEYS[2], p) == 0 then return {0, 0} end
local held = redis.call('HGET', meta, 'seat:' .. p)
if held == ARGV[2] then return {0, redis.call('XLEN', KEYS[3])} end
redis.call('HSET', meta, 'seat:' .. p, ARGV[2])
if not held then return {0, redis.call('XLEN', KEYS[3])} end
local n = tonumber(emit(KEYS[3], ARGV[3], ARGV[4]))
return {n, n}
