-- KEYS: meta
-- ARGV: player, holder
-- A racer's connection that held their seat closed: it gives the seat up, so
-- that the racer's next connection takes it with no event. Compare and
-- delete: a seat another connection took meanwhile stays theirs.
-- Returns 1 if the seat was given up, else 0.
local field = 'seat:' .. ARGV[1]
if redis.call('HGET', KEYS[1], field) ~= ARGV[2] then return 0 end
redis.call('HDEL', KEYS[1], field)
return 1
