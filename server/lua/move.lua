-- KEYS: meta, boards, events, log
-- ARGV: player, expected_seq, snapshot, move, status, home, now, channel, payload,
--       expected_version, version
-- Commits one move if the racer's sequence and board version are still the
-- expected ones: this compare-and-set is what stops two nodes from both
-- applying move n, and a node from applying a move to a board Redis lost.
-- Returns {status, event or current seq, unfinished racers}.
local meta, boards, p = KEYS[1], KEYS[2], ARGV[1]
local status = redis.call('HGET', meta, 'status')
if not status then return {'not_found', 0, 0} end
if status ~= 'started' then return {'race_over', 0, 0} end
local now = tonumber(ARGV[7])
if now < tonumber(redis.call('HGET', meta, 'started_at')) then return {'race_not_open', 0, 0} end
if now >= tonumber(redis.call('HGET', meta, 'ends_at')) then return {'race_over', 0, 0} end
local seq = redis.call('HGET', boards, 'seq:' .. p)
if not seq then return {'not_a_racer', 0, 0} end
if redis.call('HGET', boards, 'status:' .. p) ~= 'playing' then return {'race_over', 0, 0} end
seq = tonumber(seq)
if seq ~= tonumber(ARGV[2]) then return {'bad_sequence', seq, 0} end
if (redis.call('HGET', boards, 'ver:' .. p) or '') ~= ARGV[10] then
  return {'bad_sequence', seq, 0}
end
redis.call('HSET', boards, 'seq:' .. p, seq + 1, 'state:' .. p, ARGV[3], 'status:' .. p, ARGV[5],
  'home:' .. p, ARGV[6], 'ver:' .. p, ARGV[11])
redis.call('RPUSH', KEYS[4], ARGV[4])
local left = tonumber(redis.call('HGET', meta, 'unfinished'))
if ARGV[5] ~= 'playing' then
  redis.call('HSET', boards, 'at:' .. p, ARGV[7])
  left = redis.call('HINCRBY', meta, 'unfinished', -1)
end
return {'ok', emit(meta, KEYS[3], ARGV[8], ARGV[9]), left}
