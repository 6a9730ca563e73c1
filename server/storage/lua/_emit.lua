-- Shared prelude of every script that records an event.
-- emit(events, channel, payload): number the event, append it to the race's
-- or tournament's stream as id 0-N, and announce "N|payload" on its channel.
-- The stream is never trimmed, so its length is the number of the latest
-- event: a read, where a counter of its own would be one more write a move.
-- The number is made text once: Lua writes a number out with sprintf.
local function emit(events, channel, payload)
  local n = tostring(redis.call('XLEN', events) + 1)
  redis.call('XADD', events, '0-' .. n, 'd', payload)
  redis.call('PUBLISH', channel, n .. '|' .. payload)
  return n
end

-- emit_kept(events, channel, payload, keep): as emit, for a stream that keeps only its
-- newest `keep` events (a tournament's, whose every event is its whole document, and a
-- follower needs only the newest): the number comes from the last event's id.
local function emit_kept(events, channel, payload, keep)
  local last = redis.call('XREVRANGE', events, '+', '-', 'COUNT', 1)
  local n = 1
  if #last > 0 then
    n = tonumber(string.match(last[1][1], '%-(%d+)$')) + 1
  end
  n = tostring(n)
  redis.call('XADD', events, 'MAXLEN', keep, '0-' .. n, 'd', payload)
  redis.call('PUBLISH', channel, n .. '|' .. payload)
  return n
end
