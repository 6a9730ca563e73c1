-- KEYS: boards, log
-- ARGV: player
-- One racer's stored board, read at one instant: {seq, status, version,
-- snapshot or '', the seq the snapshot is at, the moves logged after it...}.
-- The caller advances the snapshot (or the deal, when there is none yet) by
-- those moves; a script, because the tail to read depends on the snapshot.
local p = ARGV[1]
local b = redis.call('HMGET', KEYS[1], BOARD_SEQ .. p, BOARD_STATUS .. p, BOARD_VERSION .. p,
  BOARD_STATE .. p, BOARD_SNAP .. p)
if not b[1] then return {} end
local snap = tonumber(b[5] or '0')
local reply = {b[1], b[2], b[3] or '', b[4] or '', snap}
for _, move in ipairs(redis.call('LRANGE', KEYS[2], snap, -1)) do
  reply[#reply + 1] = move
end
return reply
