-- KEYS: meta, players, events, boards
-- ARGV: race, requester, started_at, ends_at, channel, payload, force, home
-- Starts an open race: when the host asks (force=1), or when everyone is ready.
-- Every racer starts at sequence 0 on the deal, which the seed gives: no board
-- is stored. The lists of open and live races lie in other slots: the store
-- moves the race between them.
local status = redis.call('HGET', KEYS[1], 'status')
if not status then return {'not_found', 0} end
if status ~= 'open' then return {'race_not_open', 0} end
local players = redis.call('HKEYS', KEYS[2])
if ARGV[7] == '1' then
  if redis.call('HGET', KEYS[1], 'host') ~= ARGV[2] then return {'not_host', 0} end
else
  for _, p in ipairs(players) do
    if redis.call('HEXISTS', KEYS[1], 'ready:' .. p) == 0 then return {'race_not_open', 0} end
  end
end
redis.call('HSET', KEYS[1], 'status', 'started', 'started_at', ARGV[3], 'ends_at', ARGV[4],
  'unfinished', #players)
for _, p in ipairs(players) do
  redis.call('HSET', KEYS[4], BOARD_SEQ .. p, 0, BOARD_STATUS .. p, 'playing',
    BOARD_HOME .. p, ARGV[8])
end
return {'ok', emit(KEYS[3], ARGV[5], ARGV[6])}
