-- Shared prelude of every script that records an event.
-- record_event(events, channel, payload, heard_here): number the event,
-- append it to the race's or tournament's stream as id 0-N, and announce
-- "N|payload" on its channel. Returns N and whether it was announced ('1'
-- or '0'). The stream is never trimmed, so its length is the number of the
-- latest event: a read, where a counter of its own would be one more write a
-- move. The number is made text once: Lua writes a number out with sprintf.
-- heard_here: the node storing the event follows the channel and hands the
-- event to its own watchers itself. If it is the channel's only subscriber,
-- nobody needs the announcement, and Redis saves the PUBLISH and the node
-- reading its own copy back (docs/performance.md, "Moves nobody else hears").
local function record_event(events, channel, payload, heard_here)
  local n = tostring(redis.call('XLEN', events) + 1)
  redis.call('XADD', events, '0-' .. n, 'd', payload)
  if heard_here and redis.call('PUBSUB', 'NUMSUB', channel)[2] <= 1 then
    return n, '0'
  end
  redis.call('PUBLISH', channel, n .. '|' .. payload)
  return n, '1'
end

-- emit(events, channel, payload): record an event and always announce it;
-- returns N alone (the parentheses), so that it can end a reply's table.
local function emit(events, channel, payload)
  return (record_event(events, channel, payload, false))
end
