-- KEYS: meta, boards, players
-- ARGV: race, now
-- Closes a started race once every racer is done or its clock has run out;
-- racers still playing at the deadline are marked "timeout". Only one
-- caller ever gets 'closed': it must then record the results. The store
-- takes the race off the live list (another slot).
local meta, boards = KEYS[1], KEYS[2]
if redis.call('HGET', meta, 'status') ~= 'started' then return 'not_started' end
local now = tonumber(ARGV[2])
local ends = tonumber(redis.call('HGET', meta, 'ends_at'))
if tonumber(redis.call('HGET', meta, 'unfinished')) > 0 and now < ends then return 'running' end
for _, p in ipairs(redis.call('HKEYS', KEYS[3])) do
  if redis.call('HGET', boards, BOARD_STATUS .. p) == 'playing' then
    redis.call('HSET', boards, BOARD_STATUS .. p, 'timeout', BOARD_AT .. p, ends)
  end
end
redis.call('HSET', meta, 'status', 'finished', 'unfinished', 0)
return 'closed'
