-- A racer of a finished race accepts a rematch. KEYS: the race's meta, its
-- players, its rematch hash (player -> when they accepted; 'race' -> the
-- rematch's id once everyone accepted), its events. ARGV: player, a fresh
-- race id, now, the race's channel.
-- Returns {'not_found'|'not_a_racer'|'not_over'|'tournament', 0}, or
-- {'waiting', accepted count, racers count}, or {'made', race id, racers count}.
-- A first acceptance is announced as a race event ('rematch': who, how many
-- accepted of how many, and the new race once named), so the other racers
-- hear of the offer on whatever node they are, without asking.
local status = redis.call('HGET', KEYS[1], 'status')
if not status then return {'not_found', 0} end
local name = redis.call('HGET', KEYS[2], ARGV[1])
if not name then return {'not_a_racer', 0} end
if redis.call('HEXISTS', KEYS[1], 'results') == 0 then return {'not_over', 0} end
local tournament = redis.call('HGET', KEYS[1], 'tournament')
if tournament and tournament ~= '' then return {'tournament', 0} end
local racers = redis.call('HLEN', KEYS[2])
local made = redis.call('HGET', KEYS[3], 'race')
if made then return {'made', made, racers} end
local first = redis.call('HSET', KEYS[3], ARGV[1], ARGV[3]) == 1
local ttl = redis.call('PTTL', KEYS[1])
if ttl > 0 then redis.call('PEXPIRE', KEYS[3], ttl) end
local accepted = redis.call('HLEN', KEYS[3])
local rematch = nil
if accepted >= racers then
  rematch = ARGV[2]
  redis.call('HSET', KEYS[3], 'race', rematch)
end
if first then
  local offer = {k = 'rematch', player = ARGV[1], name = name, accepted = accepted,
                 racers = racers, rematch = rematch}
  emit(KEYS[4], ARGV[4], cmsgpack.pack(offer))
end
if rematch then return {'made', rematch, racers} end
return {'waiting', accepted, racers}
