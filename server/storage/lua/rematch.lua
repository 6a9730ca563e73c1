-- A racer of a finished race accepts a rematch. KEYS: the race's meta, its
-- players, its rematch hash (player -> when they accepted; 'race' -> the
-- rematch's id once everyone accepted). ARGV: player, a fresh race id, now.
-- Returns {'not_found'|'not_a_racer'|'not_over'|'tournament', 0}, or
-- {'waiting', accepted count, racers count}, or {'made', race id, racers count}.
local status = redis.call('HGET', KEYS[1], 'status')
if not status then return {'not_found', 0} end
if redis.call('HEXISTS', KEYS[2], ARGV[1]) == 0 then return {'not_a_racer', 0} end
if redis.call('HEXISTS', KEYS[1], 'results') == 0 then return {'not_over', 0} end
local tournament = redis.call('HGET', KEYS[1], 'tournament')
if tournament and tournament ~= '' then return {'tournament', 0} end
local racers = redis.call('HLEN', KEYS[2])
local made = redis.call('HGET', KEYS[3], 'race')
if made then return {'made', made, racers} end
redis.call('HSET', KEYS[3], ARGV[1], ARGV[3])
local ttl = redis.call('PTTL', KEYS[1])
if ttl > 0 then redis.call('PEXPIRE', KEYS[3], ttl) end
local accepted = redis.call('HLEN', KEYS[3])
if accepted < racers then return {'waiting', accepted, racers} end
redis.call('HSET', KEYS[3], 'race', ARGV[2])
return {'made', ARGV[2], racers}
