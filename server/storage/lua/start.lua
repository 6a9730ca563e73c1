-- KEYS: meta, players, events, boards
-- ARGV: race, requester, started_at, ends_at, snapshot, channel, payload, force, home
-- Starts an open race: when the host asks (force=1), or when everyone is ready.
-- Every racer gets the same opening snapshot at sequence 0. The lists of open
-- and live races lie in other slots: the store moves the race between them.
local status = redis.call('HGET', KEYS[1], 'status')
if not status then return {'not_found', 0} end
if status ~= 'open' then return {'race_not_open', 0} end
local players = redis.call('HKEYS', KEYS[2])
if ARGV[8] == '1' then
  if redis.call('HGET', KEYS[1], 'host') ~= ARGV[2] then return {'not_host', 0} end
else
  for _, p in ipairs(players) do
    if redis.call('HEXISTS', KEYS[1], 'ready:' .. p) == 0 then return {'race_not_open', 0} end
  end
end
redis.call('HSET', KEYS[1], 'status', 'started', 'started_at', ARGV[3], 'ends_at', ARGV[4],
  'unfinished', #players)
for _, p in ipairs(players) do
  redis.call('HSET', KEYS[4], 'seq:' .. p, 0, 'state:' .. p, ARGV[5], 'status:' .. p, 'playing',
    'home:' .. p, ARGV[9])
end
return {'ok', emit(KEYS[1], KEYS[3], ARGV[6], ARGV[7])}
