-- KEYS: meta, boards, events, log
-- ARGV: player, expected_seq, snapshot, move, status, home, now, channel, payload,
--       expected_version, version
-- Commits one move if the racer's sequence and board version are still the
-- expected ones: this compare-and-set is what stops two nodes from both
-- applying move n, and a node from applying a move to a board Redis lost.
-- The move log is the board; a snapshot (the packed board after this move)
-- comes only every few moves, so that reading a board replays a short tail.
-- Returns {status, event or current seq, unfinished racers}.
-- Every move runs this, so it reads each hash with one HMGET.
local meta, boards, p = KEYS[1], KEYS[2], ARGV[1]
local race = redis.call('HMGET', meta, 'status', 'started_at', 'ends_at', 'unfinished')
local status = race[1]
if not status then return {'not_found', 0, 0} end
if status ~= 'started' then return {'race_over', 0, 0} end
local now = tonumber(ARGV[7])
if now < tonumber(race[2]) then return {'race_not_open', 0, 0} end
if now >= tonumber(race[3]) then return {'race_over', 0, 0} end
local board = redis.call('HMGET', boards, 'seq:' .. p, 'status:' .. p, 'ver:' .. p)
if not board[1] then return {'not_a_racer', 0, 0} end
if board[2] ~= 'playing' then return {'race_over', 0, 0} end
local seq = tonumber(board[1])
if seq ~= tonumber(ARGV[2]) then return {'bad_sequence', seq, 0} end
if (board[3] or '') ~= ARGV[10] then return {'bad_sequence', seq, 0} end
redis.call('HSET', boards, 'seq:' .. p, seq + 1, 'status:' .. p, ARGV[5], 'home:' .. p, ARGV[6],
  'ver:' .. p, ARGV[11])
if ARGV[3] ~= '' then
  redis.call('HSET', boards, 'state:' .. p, ARGV[3], 'snap:' .. p, seq + 1)
end
redis.call('RPUSH', KEYS[4], ARGV[4])
local left = tonumber(race[4])
if ARGV[5] ~= 'playing' then
  redis.call('HSET', boards, 'at:' .. p, ARGV[7])
  left = redis.call('HINCRBY', meta, 'unfinished', -1)
end
return {'ok', emit(meta, KEYS[3], ARGV[8], ARGV[9]), left}
