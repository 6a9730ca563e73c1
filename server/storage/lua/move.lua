-- KEYS: four for each commit: meta, boards, events, log
-- ARGV: eleven for each commit: player, expected_seq, snapshot, move, status, home,
--       now, channel, payload, expected_version, version
-- Commits a batch of moves, each only if its racer's sequence and board
-- version are still the expected ones: this compare-and-set is what stops two
-- nodes from both applying move n, and a node from applying a move to a board
-- Redis lost. The move log is the board; a snapshot (the packed board after
-- this move) comes only every few moves, so that reading a board replays a
-- short tail. Returns one line a commit, "status number left" (the number is
-- the event's, or the current seq; left: unfinished racers), or "! error" for
-- a commit that met one (the others still count), all in one string: Redis
-- writes each part of a nested reply with a write of its own, and those
-- writes were the largest cost of a move (docs/performance.md, "What a move
-- costs Redis: where its CPU goes").
-- A batch shares one call, and the usual commit reads one hash.
-- The race's clock is the node's to check (it sends `now` and knows the
-- race's immutable start and end); a board is 'playing' only while its race
-- is started, so the race's own status is read only to name a refusal.

local function refusal(meta, board)
  local status = redis.call('HGET', meta, 'status')
  if not status then return 'not_found 0 0' end
  if status ~= 'started' or board[1] then return 'race_over 0 0' end
  return 'not_a_racer 0 0'
end

local function commit(meta, boards, events, log, a)
  local p = ARGV[a + 1]
  local seq_field, status_field = BOARD_SEQ .. p, BOARD_STATUS .. p
  local version_field = BOARD_VERSION .. p
  local board = redis.call('HMGET', boards, seq_field, status_field, version_field)
  if board[2] ~= 'playing' then return refusal(meta, board) end
  if board[1] ~= ARGV[a + 2] or (board[3] or '') ~= ARGV[a + 10] then
    return 'bad_sequence ' .. board[1] .. ' 0'
  end
  local next_seq, status = tostring(tonumber(board[1]) + 1), ARGV[a + 5]
  redis.call('HSET', boards, seq_field, next_seq, status_field, status,
    BOARD_HOME .. p, ARGV[a + 6], version_field, ARGV[a + 11])
  if ARGV[a + 3] ~= '' then
    redis.call('HSET', boards, BOARD_STATE .. p, ARGV[a + 3], BOARD_SNAP .. p, next_seq)
  end
  redis.call('RPUSH', log, ARGV[a + 4])
  -- Only a racer's last move can leave no one playing; until then, say "some".
  local left = '1'
  if status ~= 'playing' then
    redis.call('HSET', boards, BOARD_AT .. p, ARGV[a + 7])
    left = redis.call('HINCRBY', meta, 'unfinished', -1)
  end
  return 'ok ' .. emit(events, ARGV[a + 8], ARGV[a + 9]) .. ' ' .. left
end

local lines = {}
for k = 1, #KEYS, 4 do
  local ok, line = pcall(commit, KEYS[k], KEYS[k + 1], KEYS[k + 2], KEYS[k + 3], (k - 1) / 4 * 11)
  if not ok then
    -- redis.call raises the error's text (Redis 6) or a table holding it (7).
    local text = type(line) == 'table' and line.err or tostring(line)
    line = '! ' .. string.gsub(text, '\n', ' ')
  end
  lines[#lines + 1] = line
end
return table.concat(lines, '\n')
